//! Device functions and a `DeviceRepr` type in their own crate: kernels in other crates call
//! them by path, and their signatures reach the caller through the replays.

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

/// Methods and an operator, called from kernels in other crates.
#[device_fn]
impl Rgb {
    pub fn inverted(self) -> Rgb {
        Rgb { r: 255 - self.r, g: 255 - self.g, b: 255 - self.b }
    }
}

#[device_fn]
impl core::ops::Add for Rgb {
    type Output = Rgb;
    /// Channel by channel, saturating.
    fn add(self, o: Rgb) -> Rgb {
        Rgb { r: self.r.saturating_add(o.r), g: self.g.saturating_add(o.g), b: self.b.saturating_add(o.b) }
    }
}

/// `0xRRGGBB`, for the host (a plain function: device code calling it gets an error naming it,
/// `tests/ui/plain_fn_other_crate.rs`).
pub fn to_hex(c: Rgb) -> u32 {
    (c.r as u32) << 16 | (c.g as u32) << 8 | c.b as u32
}

/// Perceived brightness, 0..=255.
#[device_fn]
pub fn luma(c: Rgb) -> u8 {
    ((c.r as u32 * 77 + c.g as u32 * 150 + c.b as u32 * 29) >> 8) as u8
}

pub mod blend {
    use super::Rgb;
    use ptx_runtime::device_fn;

    /// `a` and `b` mixed `t`/255 of the way.
    #[device_fn]
    pub fn mix(a: Rgb, b: Rgb, t: u8) -> Rgb {
        Rgb { r: channel(a.r, b.r, t), g: channel(a.g, b.g, t), b: channel(a.b, b.b, t) }
    }

    #[device_fn]
    fn channel(x: u8, y: u8, t: u8) -> u8 {
        ((x as u32 * (255 - t as u32) + y as u32 * t as u32) / 255) as u8
    }
}
