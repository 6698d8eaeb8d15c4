use ptx_runtime::device_fn;

// A tuple parameter passes as the C struct of its members; a tuple member has no C layout.
#[device_fn]
pub fn f(t: (u32, (f32, f32))) -> u32 {
    t.0
}

fn main() {}
