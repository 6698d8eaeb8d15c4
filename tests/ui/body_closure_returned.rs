use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [f32]) {
    let f = {
        let c = |v: f32| v + 1.0;
        c
    };
    x[0] = f(x[0]);
}

fn main() {}
