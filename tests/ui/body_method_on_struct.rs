use ptx_runtime::{kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
    pub y: f32,
}

impl V {
    pub fn length(self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

#[kernel]
pub fn k(v: &[V], out: &mut [f32]) {
    out[0] = v[0].length();
}

fn main() {}
