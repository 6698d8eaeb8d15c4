#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, Copy, DeviceRepr)]
pub struct Particle {
    pos: [f32; 3],
    mass: f32,
}

fn main() {}
