// A type without `#[derive(DeviceRepr)]` in device code, written in the kernel's module, through
// a `crate::` path and as a parameter: one error at each use naming the type and the derive.
use ptx_runtime::{device_fn, kernel};

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Plain {
    pub s: f32,
}

mod util {
    pub struct Other {
        pub s: f32,
    }
}

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    let p = Plain { s: x[0] };
    out[0] = p.s;
}

#[kernel]
pub fn k2(out: &mut [f32]) {
    out[0] = crate::util::Other { s: 1.0 }.s;
}

#[device_fn]
pub fn d(p: Plain) -> f32 {
    p.s
}

fn main() {}
