//! Texture fetching as the CUDA C++ Programming Guide's appendix "Texture Fetching" describes
//! it: addressing modes on texel indices, nearest-point sampling, linear filtering with 9-bit
//! fixed-point weights (8 fractional bits), read modes, border colour; and `tld4`'s gather of
//! the bilinear footprint. The choices where the guide and the PTX ISA leave freedom are listed
//! in docs/textures.md ("On the CPU backend").
//!
//! Texels are read through a callback (the executor's checked global loads), so this file is
//! the whole of the sampling rules and nothing of the interpreter.

use super::{cube, mipmap, AddressMode, Array, ChannelKind, FilterMode, Format, Geometry, Lod, ReadMode, Resource, Texture};

/// The coordinates of one fetch: `dims` spatial coordinates (1-3), unnormalized or
/// normalized floats as the sampler says, or integers (`tex1Dfetch`).
#[derive(Clone, Copy, Debug)]
pub enum Coords {
    Float([f32; 3]),
    Int([i32; 3]),
}

/// One texture fetch.
#[derive(Clone, Copy, Debug)]
pub struct Fetch {
    pub dims: usize,
    pub coords: Coords,
    /// The layer of a layered fetch (read as unsigned, clamped to the texture's last layer).
    pub layer: i32,
    /// `tld4`: the component (0-3) of the bilinear footprint's four texels.
    pub gather: Option<u8>,
    /// How the mipmap level is chosen (`tex`, `tex.level`, `tex.grad`).
    pub lod: Lod,
    /// `tex.cube`/`tex.acube`: the three coordinates are a direction, the layer a cube index.
    pub cube: bool,
}

/// Where the texels lie: extent in texels per dimension, bytes between rows, between 2-D
/// slices (and between layers, a layer being one slice).
struct Shape {
    base: u64,
    format: Format,
    size: [u64; 3],
    layers: u64,
    row: u64,
    slice: u64,
}

fn shape(r: &Resource) -> Shape {
    match *r {
        Resource::Linear { addr, format, width } => Shape { base: addr, format, size: [width, 1, 1], layers: 1, row: width * format.bytes(), slice: width * format.bytes() },
        Resource::Pitch2d { addr, format, width, height, pitch } => Shape { base: addr, format, size: [width, height, 1], layers: 1, row: pitch, slice: pitch * height },
        Resource::Array(a) => array_shape(&a),
        Resource::Mipmapped(m) => array_shape(&m.level(0)),
    }
}

fn array_shape(a: &Array) -> Shape {
    let eb = a.format.bytes();
    let (size, layers) = match a.geometry {
        Geometry::Plain { width, height, depth } => ([width, height, depth], 1),
        Geometry::Layered { width, height, layers } => ([width, height, 1], layers),
    };
    Shape { base: a.addr, format: a.format, size, layers, row: size[0] * eb, slice: size[0] * size[1] * eb }
}

/// Whether fetches return floats: float texels, or 8/16-bit integers read as normalized floats.
pub fn returns_float(format: Format, read: ReadMode) -> bool {
    format.kind == ChannelKind::Float || (read == ReadMode::NormalizedFloat && format.bits < 32)
}

/// The index an address mode makes of texel index `i` in a dimension of `n` texels; `None`
/// reads the border colour.
pub fn address(i: i64, n: u64, mode: AddressMode) -> Option<u64> {
    let n = n as i64;
    if n <= 0 {
        return None;
    }
    Some(match mode {
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
        AddressMode::Clamp => i.clamp(0, n - 1),
        AddressMode::Border => {
            if !(0..n).contains(&i) {
                return None;
            }
            i
        }
    } as u64)
}

/// A linear-filter weight: `frac` in 9-bit fixed point with 8 fractional bits (the guide's
/// α, β, γ), rounded to nearest (ties up). 1.0 is representable.
pub fn weight(frac: f64) -> f64 {
    (frac * 256.0 + 0.5).floor() / 256.0
}

/// sRGB-encoded `c` in [0, 1] to linear (IEC 61966-2-1), for the R, G and B channels.
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// An f16's value as an f32 (exact).
fn f16_to_f32(h: u32) -> f32 {
    crate::exec::mma::f16_value(h & 0xffff) as f32
}

/// The four components of a texel as the fetch returns them (f32 bits for float reads, the
/// integer sign- or zero-extended to 32 bits otherwise), from the channels' raw bits. Missing
/// channels read 0, alpha too (as an H200 returns them).
fn convert(f: Format, tex: &Texture, raw: [u64; 4]) -> [u32; 4] {
    let float = returns_float(f, tex.sampler.read);
    let mut out = [0u32; 4];
    for (c, o) in out.iter_mut().enumerate() {
        if c as u32 >= f.channels {
            *o = 0;
            continue;
        }
        let v = raw[c];
        let bits = f.bits;
        *o = match f.kind {
            ChannelKind::Float if bits == 16 => f16_to_f32(v as u32).to_bits(),
            ChannelKind::Float => v as u32,
            ChannelKind::Unsigned if float => {
                let x = v as f64 / ((1u64 << bits) - 1) as f64;
                let x = if tex.sampler.srgb && bits == 8 && c < 3 { srgb_to_linear(x) } else { x };
                (x as f32).to_bits()
            }
            ChannelKind::Signed if float => {
                let s = ((v << (64 - bits)) as i64) >> (64 - bits);
                ((s as f64 / ((1i64 << (bits - 1)) - 1) as f64).max(-1.0) as f32).to_bits()
            }
            ChannelKind::Signed => ((((v << (64 - bits)) as i64) >> (64 - bits)) as i32) as u32,
            ChannelKind::Unsigned => v as u32,
        };
    }
    out
}

/// The border colour as the fetch returns it.
fn border(tex: &Texture) -> [u32; 4] {
    // Integer results get the colour's f32 bits, not its value converted (an H200 returns
    // 0x406ccccd for a border of 3.7 on an `int` texture).
    tex.sampler.border_color.map(f32::to_bits)
}

/// Fetches texture `tex` at `f`, reading texel bytes through `read(address, bytes)`: the four
/// components' bits as a `.v4.f32`/`.s32`/`.u32` destination receives them. A cube-map fetch
/// is projected on its face first (`cube`); a mipmapped texture reads the level or the two
/// levels its level of detail selects (`mipmap`), each sampled as a texture of its own.
pub fn sample<E>(tex: &Texture, f: &Fetch, read: &mut dyn FnMut(u64, u32) -> Result<u64, E>) -> Result<[u32; 4], E> {
    let s0 = match tex.resource {
        Resource::Mipmapped(m) => array_shape(&m.level(0)),
        ref r => shape(r),
    };
    let float = returns_float(s0.format, tex.sampler.read);
    let mut dims = f.dims.clamp(1, 3);
    let mut layer = f.layer;
    let mut normalized = tex.sampler.normalized_coords && matches!(f.coords, Coords::Float(_));
    let (mut pos, mut grads) = match (f.coords, f.lod) {
        (Coords::Int(c), _) => (Err(c), None),
        (Coords::Float(c), Lod::Grad { dx, dy }) => (Ok(c.map(f64::from)), Some([dx.map(f64::from), dy.map(f64::from)])),
        (Coords::Float(c), _) => (Ok(c.map(f64::from)), None),
    };
    if f.cube {
        let c = pos.unwrap_or_else(|i| i.map(f64::from));
        let d: Vec<[f64; 3]> = grads.iter().flatten().copied().collect();
        let (face, st, g) = cube::project(c, &d);
        pos = Ok([st[0], st[1], 0.0]);
        grads = grads.map(|_| [0, 1].map(|k| [g[k][0], g[k][1], 0.0]));
        // The cube index is clamped like a layer (read as unsigned), then its face chosen.
        let cubes = (s0.layers / 6).max(1);
        layer = (u64::from(f.layer as u32).min(cubes - 1) * 6 + face as u64) as i32;
        dims = 2;
        normalized = true;
    }
    let at = Pos { dims, pos, normalized, layer, gather: f.gather };
    let Resource::Mipmapped(m) = tex.resource else { return sample_shape(tex, &s0, &at, read) };
    let lambda = match (f.lod, grads) {
        (Lod::Level(l), _) => l as f64,
        (Lod::Grad { .. }, Some([dx, dy])) => {
            // In level-0 texels: normalized gradients scaled by the extent.
            let scale = |g: [f64; 3]| -> Vec<f64> { (0..dims).map(|d| if normalized { g[d] * s0.size[d] as f64 } else { g[d] }).collect() };
            mipmap::grad_lod(&scale(dx), &scale(dy))
        }
        // `.base` (and `tld4`): level 0.
        _ => return sample_shape(tex, &s0, &at, read),
    };
    let (a, next) = mipmap::select(&tex.sampler, m.levels, lambda, float);
    let va = sample_shape(tex, &array_shape(&m.level(a)), &at, read)?;
    let Some((b, w)) = next else { return Ok(va) };
    let vb = sample_shape(tex, &array_shape(&m.level(b)), &at, read)?;
    let mut out = [0u32; 4];
    for c in 0..4 {
        let (x, y) = (f32::from_bits(va[c]) as f64, f32::from_bits(vb[c]) as f64);
        out[c] = (((1.0 - w) * x + w * y) as f32).to_bits();
    }
    Ok(out)
}

/// A fetch's position after cube projection: `dims` coordinates (floats, normalized or in
/// texels, or integers) and the layer.
struct Pos {
    dims: usize,
    pos: Result<[f64; 3], [i32; 3]>,
    normalized: bool,
    layer: i32,
    gather: Option<u8>,
}

/// One level's fetch: addressing, point or linear filtering, gather.
fn sample_shape<E>(tex: &Texture, s: &Shape, f: &Pos, read: &mut dyn FnMut(u64, u32) -> Result<u64, E>) -> Result<[u32; 4], E> {
    let sm = &tex.sampler;
    let float = returns_float(s.format, sm.read);
    let dims = f.dims;
    // The layer is unsigned: a negative one clamps to the last layer, as on an H200.
    let layer = u64::from(f.layer as u32).min(s.layers.saturating_sub(1));
    // Wrap and mirror need normalized coordinates (as in CUDA); otherwise they clamp.
    let normalized = f.normalized;
    let mode = |d: usize| match sm.address[d] {
        AddressMode::Wrap | AddressMode::Mirror if !normalized => AddressMode::Clamp,
        m => m,
    };
    let mut texel = |idx: [i64; 3]| -> Result<[u32; 4], E> {
        let mut at = [0u64; 3];
        for d in 0..dims {
            match address(idx[d], s.size[d], mode(d)) {
                Some(i) => at[d] = i,
                None => return Ok(border(tex)),
            }
        }
        let cb = s.format.bits / 8;
        let addr = s.base + layer * s.slice + at[2] * s.slice + at[1] * s.row + at[0] * s.format.bytes();
        let mut raw = [0u64; 4];
        for c in 0..s.format.channels as usize {
            raw[c] = read(addr + (c as u32 * cb) as u64, cb)?;
        }
        Ok(convert(s.format, tex, raw))
    };
    // Unnormalized coordinates, per dimension.
    let u: [f64; 3] = match f.pos {
        Err(c) => {
            let mut idx = [0i64; 3];
            for d in 0..dims {
                idx[d] = c[d] as i64;
            }
            return texel(idx);
        }
        Ok(c) => {
            let mut u = [0.0; 3];
            for d in 0..dims {
                u[d] = if normalized { c[d] * s.size[d] as f64 } else { c[d] };
            }
            u
        }
    };
    // The bilinear footprint: i = floor(x - 0.5), its weight frac(x - 0.5).
    let mut base = [0i64; 3];
    let mut w = [0f64; 3];
    for d in 0..dims {
        let xb = u[d] - 0.5;
        let fl = xb.floor();
        base[d] = index(fl);
        w[d] = weight(if fl.is_finite() { xb - fl } else { 0.0 });
    }
    if let Some(comp) = f.gather {
        let [i, j, _] = base;
        let order = [[i, j + 1], [i + 1, j + 1], [i + 1, j], [i, j]];
        let mut out = [0u32; 4];
        for (o, [x, y]) in out.iter_mut().zip(order) {
            *o = texel([x, y, 0])?[comp as usize & 3];
        }
        return Ok(out);
    }
    if sm.filter == FilterMode::Point || !float {
        let mut idx = [0i64; 3];
        for d in 0..dims {
            idx[d] = index(u[d].floor());
        }
        return texel(idx);
    }
    // Corners with x fastest, then y, then z, each weighted by the product of (1 - α) or α
    // per dimension; summed in f64 in that order and rounded once to f32.
    let mut acc = [0f64; 4];
    for corner in 0..(1usize << dims) {
        let mut idx = [0i64; 3];
        let mut wt = 1.0;
        for d in 0..dims {
            let hi = corner >> d & 1 == 1;
            idx[d] = base[d] + hi as i64;
            wt *= if hi { w[d] } else { 1.0 - w[d] };
        }
        let t = texel(idx)?;
        for c in 0..4 {
            acc[c] += wt * f32::from_bits(t[c]) as f64;
        }
    }
    Ok(acc.map(|x| (x as f32).to_bits()))
}

/// A floored coordinate as a texel index (NaN reads texel 0; infinities saturate).
fn index(fl: f64) -> i64 {
    if fl.is_nan() {
        0
    } else {
        fl.clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_modes_on_indices() {
        let n = 4;
        let got: Vec<Option<u64>> = (-5..9).map(|i| address(i, n, AddressMode::Mirror)).collect();
        let want = [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0].map(Some);
        assert_eq!(got, want);
        assert_eq!(address(-1, n, AddressMode::Wrap), Some(3));
        assert_eq!(address(7, n, AddressMode::Clamp), Some(3));
        assert_eq!(address(4, n, AddressMode::Border), None);
        assert_eq!(address(0, 0, AddressMode::Clamp), None, "an empty dimension reads the border");
    }

    #[test]
    fn weights_are_nine_bit_fixed_point() {
        assert_eq!(weight(0.0), 0.0);
        assert_eq!(weight(0.3), 77.0 / 256.0);
        assert_eq!(weight(0.999), 1.0);
        assert_eq!(weight(1.0 / 512.0), 1.0 / 256.0, "ties round up");
    }
}
