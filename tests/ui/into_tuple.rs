// `.into()` whose target the context makes a tuple: no `From` of a number gives one. Our
// error names the conversion; rustc's own (the host build of the body) follows it.
use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    let (s, c) = x[0].into();
    out[0] = s + c;
}

fn main() {}
