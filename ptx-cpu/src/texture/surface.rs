//! Surface addressing for `suld.b` / `sust.b`: the byte `x` and texel `y`, `z` of an access of
//! `bytes` bytes to an address in a surface's array, by the instruction's boundary mode.

use super::{Array, Geometry};
use crate::program::SurfClamp;

/// Where an access goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    /// The address of the access's first byte.
    At(u64),
    /// Outside, `.zero`: a load reads zeros, a store is dropped.
    Nowhere,
    /// Outside, `.trap` (or `x` not a multiple of the access size): the fault's detail.
    Fault(String),
}

/// `coords` are `x` (bytes), `y`, `z` as the instruction gives them (`dims` of them used); of
/// a layered surface `z` is the layer, bounded and clamped like a third dimension.
pub fn place(a: &Array, dims: usize, coords: [i32; 3], bytes: u64, mode: SurfClamp) -> Place {
    let (w, h, d) = match a.geometry {
        Geometry::Plain { width, height, depth } => (width, height, depth),
        Geometry::Layered { width, height, layers } => (width, height, layers),
    };
    let row = w * a.format.bytes();
    let mut c = [coords[0] as i64, 0, 0];
    for k in 1..dims.min(3) {
        c[k] = coords[k] as i64;
    }
    let limit = [row as i64 - bytes as i64, h as i64 - 1, d as i64 - 1];
    let inside = (0..3).all(|k| c[k] >= 0 && c[k] <= limit[k]);
    if !inside {
        match mode {
            SurfClamp::Trap => {
                return Place::Fault(format!(
                    "surface coordinate (x = {} bytes, y = {}, z = {}) outside the {w} × {h} × {d} surface of {}-byte texels ({bytes}-byte access)",
                    c[0],
                    c[1],
                    c[2],
                    a.format.bytes()
                ))
            }
            SurfClamp::Zero => return Place::Nowhere,
            SurfClamp::Clamp => {
                if limit.iter().any(|l| *l < 0) {
                    return Place::Nowhere;
                }
                for k in 0..3 {
                    c[k] = c[k].clamp(0, limit[k]);
                }
                // The last whole access of the row.
                c[0] -= c[0] % bytes as i64;
            }
        }
    }
    if c[0] % bytes as i64 != 0 {
        return Place::Fault(format!("surface x = {} bytes is not a multiple of the {bytes}-byte access", c[0]));
    }
    Place::At(a.addr + (c[2] as u64 * h + c[1] as u64) * row + c[0] as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::{ChannelKind, Format};

    #[test]
    fn boundary_modes() {
        let a = Array { addr: 0x1000, format: Format { kind: ChannelKind::Float, bits: 32, channels: 1 }, geometry: Geometry::Plain { width: 4, height: 3, depth: 1 }, surface_ldst: true };
        assert_eq!(place(&a, 2, [8, 2, 0], 4, SurfClamp::Trap), Place::At(0x1000 + 2 * 16 + 8));
        assert!(matches!(place(&a, 2, [16, 0, 0], 4, SurfClamp::Trap), Place::Fault(_)));
        assert_eq!(place(&a, 2, [16, -1, 0], 4, SurfClamp::Zero), Place::Nowhere);
        assert_eq!(place(&a, 2, [100, 7, 0], 4, SurfClamp::Clamp), Place::At(0x1000 + 2 * 16 + 12));
        assert_eq!(place(&a, 2, [-4, -7, 0], 8, SurfClamp::Clamp), Place::At(0x1000));
        assert!(matches!(place(&a, 1, [2, 0, 0], 4, SurfClamp::Trap), Place::Fault(_)), "misaligned x");
    }
}
