use ptx_runtime::{kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub union Bits {
    pub f: f32,
    pub u: u32,
}

#[kernel]
pub fn k(b: &[Bits], out: &mut [u32]) {
    let local = b[0];
    out[0] = unsafe { local.u };
}

fn main() {}
