//! Mipmapped arrays (CUDA's `cudaMipmappedArray_t`, the driver's `CUmipmappedArray`) and the
//! choice of the level(s) a fetch reads.
//!
//! On the CPU device a mipmapped array is one allocation holding its levels one after another,
//! each laid out as a CUDA array is (rows tightly packed). Level `l` halves the extent of level
//! `l - 1` in width, height and depth, rounding down and never below 1, as
//! `cudaMallocMipmappedArray` documents; layers (and a cube map's six faces) are kept.
//!
//! The level of detail λ of a fetch (docs/textures.md, "Mipmaps"):
//! - `tex` without `.level`/`.grad` (the PTX ISA's `.base`) reads level 0;
//! - `tex.level`: λ = the given level + `mipmapLevelBias`;
//! - `tex.grad`: λ = log2(ρ) + `mipmapLevelBias`, where ρ = max(|∂u/∂x|, |∂u/∂y|), the
//!   gradients' Euclidean lengths in level-0 texels (a normalized gradient times the level-0
//!   extent per dimension; for a cube map, the gradient of the face coordinates).
//!
//! λ is clamped to `[minMipmapLevelClamp, maxMipmapLevelClamp]` and to the levels there are.
//! With `mipmapFilterMode` point the nearest level is read (a tie `λ = n + 0.5` reads `n`);
//! with linear the two levels around λ are each sampled and blended with the fractional part
//! of λ as a 9-bit fixed-point weight (8 fractional bits, as the filter weights within a level).

use super::{FilterMode, Format, Geometry, Sampler};

/// A mipmapped array on the CPU device: `levels` levels, level 0 of extent `geometry`, stored
/// one after another from `addr`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mipmapped {
    pub addr: u64,
    pub format: Format,
    pub geometry: Geometry,
    pub levels: u32,
}

/// The extent of level `l` of an array whose level 0 is `g`.
pub fn level_geometry(g: Geometry, l: u32) -> Geometry {
    let half = |n: u64| (n >> l.min(63)).max(1);
    match g {
        Geometry::Plain { width, height, depth } => Geometry::Plain { width: half(width), height: half(height), depth: half(depth) },
        Geometry::Layered { width, height, layers } => Geometry::Layered { width: half(width), height: half(height), layers },
    }
}

/// The most levels an array of level-0 extent `g` has: `1 + floor(log2(largest dimension))`
/// (down to 1 × 1 × 1).
pub fn max_levels(g: Geometry) -> u32 {
    let big = match g {
        Geometry::Plain { width, height, depth } => width.max(height).max(depth),
        Geometry::Layered { width, height, .. } => width.max(height),
    };
    64 - big.max(1).leading_zeros()
}

impl Mipmapped {
    /// Level `l` as a CUDA array (its address inside the allocation and its extent).
    pub fn level(&self, l: u32) -> super::Array {
        let mut addr = self.addr;
        for k in 0..l {
            addr += self.level_bytes(k);
        }
        super::Array { addr, format: self.format, geometry: level_geometry(self.geometry, l), surface_ldst: false }
    }

    fn level_bytes(&self, l: u32) -> u64 {
        super::Array { addr: 0, format: self.format, geometry: level_geometry(self.geometry, l), surface_ldst: false }.bytes()
    }

    /// Bytes of all the levels.
    pub fn bytes(&self) -> u64 {
        (0..self.levels).map(|l| self.level_bytes(l)).sum()
    }
}

/// How a fetch picks its level of detail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lod {
    /// Level 0 (`tex` without `.level` or `.grad`).
    Base,
    /// `tex.level`'s explicit level of detail.
    Level(f32),
    /// `tex.grad`'s gradients of the coordinates along x and y, per dimension (as the
    /// coordinates are given: normalized or in texels).
    Grad { dx: [f32; 3], dy: [f32; 3] },
}

/// λ before bias and clamps from the gradients `dx`, `dy` in level-0 texels: `log2` of the
/// longer one's Euclidean length (−∞ for zero gradients).
pub fn grad_lod(dx: &[f64], dy: &[f64]) -> f64 {
    let len = |g: &[f64]| g.iter().map(|v| v * v).sum::<f64>().sqrt();
    len(dx).max(len(dy)).log2()
}

/// The level(s) to read for λ (before bias) and how to blend them: `(level, None)` reads one
/// level, `(level, Some((next, w)))` blends `(1 − w)·level + w·next`. `filtered` is false for
/// integer results, which read the nearest level.
pub fn select(s: &Sampler, levels: u32, lambda: f64, filtered: bool) -> (u32, Option<(u32, f64)>) {
    let top = levels.saturating_sub(1) as f64;
    let lo = (s.min_mipmap_level_clamp as f64).max(0.0);
    let hi = (s.max_mipmap_level_clamp as f64).min(top);
    let mut l = lambda + s.mipmap_level_bias as f64;
    if l.is_nan() {
        l = 0.0;
    }
    let l = l.max(lo).min(hi).max(0.0);
    if s.mipmap_filter == FilterMode::Point || !filtered {
        // Round to nearest, a tie going down (OpenGL's ceil(λ + 1/2) − 1).
        return (((l + 0.5).ceil() - 1.0).max(0.0) as u32, None);
    }
    let base = l.floor();
    let w = super::sample::weight(l - base);
    let b = base as u32;
    if w == 0.0 || b as f64 >= top {
        (b, None)
    } else {
        (b, Some((b + 1, w)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_halve_down_to_one() {
        let g = Geometry::Plain { width: 13, height: 4, depth: 1 };
        assert_eq!(max_levels(g), 4);
        assert_eq!(level_geometry(g, 1), Geometry::Plain { width: 6, height: 2, depth: 1 });
        assert_eq!(level_geometry(g, 3), Geometry::Plain { width: 1, height: 1, depth: 1 });
        let l = Geometry::Layered { width: 8, height: 8, layers: 6 };
        assert_eq!(level_geometry(l, 2), Geometry::Layered { width: 2, height: 2, layers: 6 });
        let f = Format { kind: super::super::ChannelKind::Float, bits: 32, channels: 1 };
        let m = Mipmapped { addr: 0x1000, format: f, geometry: g, levels: 4 };
        assert_eq!(m.level(2).addr, 0x1000 + (13 * 4 + 6 * 2) * 4);
        assert_eq!(m.bytes(), (52 + 12 + 3 + 1) * 4);
    }

    #[test]
    fn level_selection_point_and_linear() {
        let s = Sampler { max_mipmap_level_clamp: 100.0, ..Sampler::default() };
        assert_eq!(select(&s, 4, 1.49, true), (1, None));
        assert_eq!(select(&s, 4, 1.5, true), (1, None), "a tie goes down");
        assert_eq!(select(&s, 4, 1.51, true), (2, None));
        assert_eq!(select(&s, 4, 9.0, true), (3, None), "clamped to the last level");
        assert_eq!(select(&s, 4, -3.0, true), (0, None));
        let lin = Sampler { mipmap_filter: FilterMode::Linear, ..s };
        assert_eq!(select(&lin, 4, 1.25, true), (1, Some((2, 0.25))));
        assert_eq!(select(&lin, 4, 1.25, false), (1, None), "integers read the nearest level");
        assert_eq!(select(&lin, 4, 3.5, true), (3, None));
        let biased = Sampler { mipmap_level_bias: 1.0, max_mipmap_level_clamp: 1.5, ..lin };
        assert_eq!(select(&biased, 4, 0.25, true), (1, Some((2, 0.25))));
        assert_eq!(select(&biased, 4, 2.0, true), (1, Some((2, 0.5))), "the max clamp");
        assert_eq!(grad_lod(&[4.0, 0.0], &[0.0, 3.0]), 2.0);
    }
}
