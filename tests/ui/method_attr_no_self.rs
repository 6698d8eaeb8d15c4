#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

impl V {
    // No receiver and no `Self` in the signature: `Self` in the body says it is a method.
    #[device_fn]
    pub fn unit() -> V {
        Self { x: 1.0 }
    }
}

fn main() {}
