use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [f32]) {
    let twice = |v: f32| v * 2.0;
    // A closure is inlined where it is called: copying it elsewhere lets it escape.
    let again = twice;
    x[0] = again(x[0]);
}

fn main() {}
