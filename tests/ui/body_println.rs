use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [f32]) {
    println!("x = {}", x[0]);
}

fn main() {}
