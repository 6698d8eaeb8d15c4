// Methods and associated functions of an impl without `#[device_fn]`, in the type's module or
// elsewhere in the crate: one error at each call naming the impl and the attribute to add.
use ptx_runtime::kernel;

mod geo {
    use ptx_runtime::DeviceRepr;

    #[derive(Clone, Copy, DeviceRepr)]
    #[repr(C)]
    pub struct P {
        pub x: f32,
    }

    impl P {
        pub fn new(x: f32) -> P {
            P { x }
        }

        pub fn twice(self) -> f32 {
            self.x * 2.0
        }
    }
}

// An impl of the type elsewhere in the crate.
mod extra {
    impl super::geo::P {
        pub fn thrice(self) -> f32 {
            self.x * 3.0
        }
    }
}

use geo::*;

#[kernel]
pub fn k(p: &[P], out: &mut [f32]) {
    let q = P::new(out[0]);
    out[0] = p[0].twice();
    out[1] = q.x;
    out[2] = p[1].thrice();
}

fn main() {}
