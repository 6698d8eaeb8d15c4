// A type imported alone (`use geo::V;`): its methods and operators live in its module, whose
// items are not glob-imported here; one error at each use saying what to import.
use ptx_runtime::kernel;

mod geo {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(Clone, Copy, DeviceRepr)]
    #[repr(C)]
    pub struct V {
        pub x: f32,
    }

    #[device_fn]
    impl V {
        pub fn twice(self) -> f32 {
            self.x * 2.0
        }
    }

    #[device_fn]
    impl core::ops::Add for V {
        type Output = V;
        fn add(self, o: V) -> V {
            V { x: self.x + o.x }
        }
    }
}

use geo::V;

#[kernel]
pub fn k(v: &[V], out: &mut [f32]) {
    out[0] = v[0].twice();
}

#[kernel]
pub fn k2(v: &[V], out: &mut [f32]) {
    out[0] = (v[0] + v[1]).x;
}

fn main() {}
