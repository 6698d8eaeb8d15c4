//! Textures and surfaces on the CPU backend: nvcc's PTX for CUDA C kernels using `tex1Dfetch`,
//! `tex1D/2D/3D`, the layered, `Lod` and `Grad` forms, `tex2Dgather`, `surf*Dread` and
//! `surf*Dwrite` on object parameters (`tests/cuda/texture.cu`, sm_75 and sm_90, each through
//! ptxas) runs over objects made with `CpuDevice::create_texture`/`create_surface`, and every
//! returned component is compared with a host reference written here from the CUDA C++
//! Programming Guide's appendix "Texture Fetching" (and the PTX ISA's `tld4`, `suld`, `sust`):
//!
//! - point sampling by the guide's coordinate formulas (wrap `frac(x)`, mirror, clamp to
//!   `[0, 1 - 1/N]`, border outside `[0, 1)`), compared bit for bit;
//! - linear filtering by the guide's formula `(1-α)T[i] + αT[i+1]` (bilinear, trilinear) with
//!   `x_B = x - 0.5`, `i = floor(x_B)`, `α = frac(x_B)` in 9-bit fixed point with 8 fractional
//!   bits (rounded to nearest, docs/textures.md), compared bit for bit; and the same samples
//!   against the exact-real interpolation, within the 1/256 the fixed-point weights allow.
//!
//! The reference resolves texel indices by its own rules (parity of `i div N` for mirror) and
//! shares no code with `ptx_cpu::texture`.

use crate::cpu_harness::{arg, fault, nvcc_archs, Harness};
use ptx_runtime::cpu::texture::{AddressMode, Array, ChannelKind, FilterMode, Format, Geometry, ReadMode, Resource, Sampler, Surface, Texture};
use ptx_runtime::half::f16;
use ptx_runtime::FaultKind;

const SRC: &str = include_str!("../cuda/texture.cu");

fn modules() -> Vec<Harness> {
    nvcc_archs("cpu_texture", SRC, &["sm_75", "sm_90"]).iter().map(|p| Harness::new(p)).collect()
}

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        crate::rng::splitmix64(&mut self.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A coordinate in texel units within `[-2n, 3n)`, never closer than 1/16 texel to a texel
    /// edge (where the hardware's own coordinate rounding could pick either side).
    fn texel_coord(&mut self, n: usize) -> f64 {
        let i = self.below(5 * n as u64) as f64 - 2.0 * n as f64;
        i + (4 + self.below(57)) as f64 / 64.0
    }
}

const MODES: [AddressMode; 4] = [AddressMode::Wrap, AddressMode::Clamp, AddressMode::Mirror, AddressMode::Border];

fn fmt(kind: ChannelKind, bits: u32, channels: u32) -> Format {
    Format { kind, bits, channels }
}

/// Host image: `size` texels per dimension (w, h, d), `layers`, channels' raw bits.
#[derive(Clone)]
struct Img {
    format: Format,
    size: [usize; 3],
    layers: usize,
    raw: Vec<[u64; 4]>,
}

impl Img {
    fn new(format: Format, size: [usize; 3], layers: usize, rng: &mut Rng) -> Img {
        let n = size.iter().product::<usize>() * layers;
        let raw = (0..n)
            .map(|_| {
                let mut t = [0u64; 4];
                for c in t.iter_mut().take(format.channels as usize) {
                    *c = match (format.kind, format.bits) {
                        // Floats in [-8, 8) with a few fraction bits.
                        (ChannelKind::Float, 32) => (((rng.below(4096) as f32) - 2048.0) / 256.0).to_bits() as u64,
                        (ChannelKind::Float, _) => f16::from_f32(((rng.below(4096) as f32) - 2048.0) / 256.0).to_bits() as u64,
                        (_, bits) => rng.next() & ((1u64 << bits) - 1),
                    };
                }
                t
            })
            .collect();
        Img { format, size, layers, raw }
    }

    fn bytes(&self) -> Vec<u8> {
        let cb = self.format.bits as usize / 8;
        let mut out = Vec::new();
        for t in &self.raw {
            for c in t.iter().take(self.format.channels as usize) {
                out.extend_from_slice(&c.to_le_bytes()[..cb]);
            }
        }
        out
    }

    /// Uploads the texels as a CUDA array of this image's shape (layered when `layers > 1`
    /// or `layered`).
    fn array(&self, h: &mut Harness, layered: bool, surface_ldst: bool) -> Array {
        let b = self.bytes();
        let addr = h.dev.alloc(b.len()).unwrap();
        h.dev.write(addr, &b).unwrap();
        let [w, hh, d] = self.size.map(|x| x as u64);
        let geometry = if layered { Geometry::Layered { width: w, height: hh, layers: self.layers as u64 } } else { Geometry::Plain { width: w, height: hh, depth: d } };
        Array { addr, format: self.format, geometry, surface_ldst }
    }
}

/// The guide's read of one channel: floats as stored (f16 widened), 8/16-bit integers in
/// normalized-float mode as `v / (2^n - 1)` unsigned, `max(v / (2^(n-1) - 1), -1)` signed, sRGB
/// decoded for R, G, B when asked; integers otherwise as 32-bit integers. Missing channels: 0,
/// alpha too (what an H200 returned). `Ok(f)`: a float read; `Err(bits)`: an integer read.
fn read_channel(img: &Img, s: &Sampler, t: &[u64; 4], c: usize) -> Result<f64, u32> {
    let f = img.format;
    let floats = f.kind == ChannelKind::Float || (s.read == ReadMode::NormalizedFloat && f.bits <= 16);
    if c >= f.channels as usize {
        return if floats { Ok(0.0) } else { Err(0) };
    }
    let v = t[c];
    let signed = |v: u64| -> i64 {
        let m = 1u64 << (f.bits - 1);
        (v ^ m) as i64 - m as i64
    };
    match f.kind {
        ChannelKind::Float if f.bits == 16 => Ok(f16::from_bits(v as u16).to_f64()),
        ChannelKind::Float => Ok(f32::from_bits(v as u32) as f64),
        ChannelKind::Unsigned if floats => {
            let x = (v as f64 / ((1u64 << f.bits) - 1) as f64) as f32 as f64;
            if s.srgb && f.bits == 8 && c < 3 {
                let x = v as f64 / 255.0;
                Ok((if x <= 0.04045 { x / 12.92 } else { ((x + 0.055) / 1.055).powf(2.4) }) as f32 as f64)
            } else {
                Ok(x)
            }
        }
        ChannelKind::Signed if floats => Ok(((signed(v) as f64 / ((1u64 << (f.bits - 1)) - 1) as f64).max(-1.0)) as f32 as f64),
        ChannelKind::Signed => Err(signed(v) as i32 as u32),
        ChannelKind::Unsigned => Err(v as u32),
    }
}

/// Result bits of a texel's four components, or of the border colour.
fn texel_bits(img: &Img, s: &Sampler, at: Option<usize>) -> [u32; 4] {
    let mut out = [0u32; 4];
    for c in 0..4 {
        out[c] = match at {
            Some(i) => match read_channel(img, s, &img.raw[i], c) {
                Ok(x) => (x as f32).to_bits(),
                Err(b) => b,
            },
            // The colour's f32 bits for integer results too (an H200's answer).
            None => s.border_color[c].to_bits(),
        };
    }
    out
}

/// Unnormalized and normalized coordinates never wrap or mirror (CUDA allows those modes only
/// with normalized coordinates; docs/textures.md: they clamp).
fn mode(s: &Sampler, d: usize) -> AddressMode {
    match s.address[d] {
        AddressMode::Wrap | AddressMode::Mirror if !s.normalized_coords => AddressMode::Clamp,
        m => m,
    }
}

/// Index-level addressing for the filter footprint: `i` in a dimension of `n`.
fn resolve(i: i64, n: usize, m: AddressMode) -> Option<usize> {
    let n = n as i64;
    match m {
        AddressMode::Wrap => Some(i.rem_euclid(n) as usize),
        AddressMode::Mirror => {
            let (period, r) = (i.div_euclid(n), i.rem_euclid(n));
            Some(if period % 2 == 0 { r } else { n - 1 - r } as usize)
        }
        AddressMode::Clamp => Some(i.clamp(0, n - 1) as usize),
        AddressMode::Border => (0..n).contains(&i).then_some(i as usize),
    }
}

fn flat(img: &Img, idx: [usize; 3], layer: usize) -> usize {
    ((layer * img.size[2] + idx[2]) * img.size[1] + idx[1]) * img.size[0] + idx[0]
}

/// The guide's point sampling: the coordinate addressed first (normalized: wrap `x - floor(x)`,
/// mirror `frac` or `1 - frac` by the parity of `floor(x)`, clamp to `[0, 1 - 1/N]`, border
/// outside `[0, 1)`; unnormalized: clamp to `[0, N - 1]`, border outside `[0, N)`), then
/// `T[floor(x)]`.
fn point(img: &Img, s: &Sampler, x: &[f32], layer: usize) -> [u32; 4] {
    let mut idx = [0usize; 3];
    for (d, &xd) in x.iter().enumerate() {
        let n = img.size[d] as f64;
        let xd = xd as f64;
        let u = if s.normalized_coords {
            let frac = xd - xd.floor();
            let xn = match mode(s, d) {
                AddressMode::Wrap => frac,
                AddressMode::Mirror => {
                    if xd.floor() as i64 % 2 == 0 {
                        frac
                    } else {
                        1.0 - frac
                    }
                }
                AddressMode::Clamp => xd.clamp(0.0, 1.0 - 1.0 / n),
                AddressMode::Border => {
                    if !(0.0..1.0).contains(&xd) {
                        return texel_bits(img, s, None);
                    }
                    xd
                }
            };
            xn * n
        } else {
            match mode(s, d) {
                AddressMode::Border if !(0.0..n).contains(&xd) => return texel_bits(img, s, None),
                _ => xd.clamp(0.0, n - 1.0),
            }
        };
        idx[d] = u.floor() as usize;
    }
    texel_bits(img, s, Some(flat(img, idx, layer)))
}

/// The guide's linear filtering over `x.len()` dimensions with weights from `weight`:
/// corners summed as the guide writes the formula (x fastest, then y, then z).
fn linear(img: &Img, s: &Sampler, x: &[f32], layer: usize, weight: impl Fn(f64) -> f64) -> [f64; 4] {
    let dims = x.len();
    let mut i = [0i64; 3];
    let mut a = [0f64; 3];
    for d in 0..dims {
        let u = if s.normalized_coords { x[d] as f64 * img.size[d] as f64 } else { x[d] as f64 };
        let xb = u - 0.5;
        i[d] = xb.floor() as i64;
        a[d] = weight(xb - xb.floor());
    }
    let mut acc = [0f64; 4];
    for corner in 0..1usize << dims {
        let mut w = 1.0;
        let mut idx = [0usize; 3];
        let mut inside = true;
        for d in 0..dims {
            let hi = corner >> d & 1;
            w *= if hi == 1 { a[d] } else { 1.0 - a[d] };
            match resolve(i[d] + hi as i64, img.size[d], mode(s, d)) {
                Some(k) => idx[d] = k,
                None => inside = false,
            }
        }
        let t = texel_bits(img, s, inside.then(|| flat(img, idx, layer)));
        for c in 0..4 {
            acc[c] += w * f32::from_bits(t[c]) as f64;
        }
    }
    acc
}

/// α in 9-bit fixed point, 8 fractional bits, rounded to nearest (ties up).
fn nine_bit(frac: f64) -> f64 {
    (frac * 256.0 + 0.5).floor() / 256.0
}

/// What a fetch returns by the guide: point sampling, or the 9-bit filter for float reads.
fn reference(img: &Img, s: &Sampler, x: &[f32], layer: usize) -> [u32; 4] {
    let floats = read_channel(img, s, &[0; 4], 3).is_ok();
    if s.filter == FilterMode::Point || !floats {
        point(img, s, x, layer)
    } else {
        linear(img, s, x, layer, nine_bit).map(|v| (v as f32).to_bits())
    }
}

/// Asserts `got` equals the reference for every sample, and for linear filtering that it lies
/// within the fixed-point weights' precision of the exact-real interpolation.
fn check(what: &str, img: &Img, s: &Sampler, xs: &[Vec<f32>], layers: &[usize], got: &[[u32; 4]]) {
    let floats = read_channel(img, s, &[0; 4], 3).is_ok();
    let scale = (0..img.raw.len()).flat_map(|i| (0..4).map(move |c| (i, c))).fold(1f64, |m, (i, c)| match read_channel(img, s, &img.raw[i], c) {
        Ok(x) => m.max(x.abs()),
        Err(_) => m,
    });
    let scale = scale.max(s.border_color.iter().fold(0f64, |m, b| m.max(b.abs() as f64)));
    for (k, x) in xs.iter().enumerate() {
        let want = reference(img, s, x, layers[k]);
        assert_eq!(got[k], want, "{what}: sample {k} at {x:?} layer {}: got {:?}, want {:?}", layers[k], got[k].map(f32::from_bits), want.map(f32::from_bits));
        if s.filter == FilterMode::Linear && floats {
            let exact = linear(img, s, x, layers[k], |f| f);
            for c in 0..4 {
                let g = f32::from_bits(got[k][c]) as f64;
                assert!((g - exact[c]).abs() <= scale * x.len() as f64 / 256.0, "{what}: sample {k} component {c}: {g} is not within 1/256 of {}", exact[c]);
            }
        }
    }
}

/// Launches `entry(tex, coords, out, n)` over `n` samples, the coordinates as `f32`s packed
/// `per` to a sample; the results as 4-component bit patterns.
fn run(h: &mut Harness, entry: &str, tex: u64, coords: &[f32], per: usize, out_per: usize) -> Vec<[u32; 4]> {
    let n = coords.len() / per;
    let c = h.upload(coords);
    let out = h.zeroed::<u32>(n * 4 * out_per);
    h.launch(entry, [n.div_ceil(64) as u32, 1, 1], [64, 1, 1], 0, &[arg(tex), c.ptr(), out.ptr(), arg(n as i32)]).unwrap_or_else(|e| panic!("{entry}: {e}"));
    h.download::<u32>(out).chunks(4).map(|x| [x[0], x[1], x[2], x[3]]).collect()
}

fn sampler(address: AddressMode, filter: FilterMode, normalized: bool) -> Sampler {
    Sampler { address: [address; 3], filter, normalized_coords: normalized, border_color: [0.25, -0.5, 2.0, 1.5], ..Sampler::default() }
}

/// Sample coordinates in `dims` dimensions (normalized when asked).
fn coords(rng: &mut Rng, img: &Img, dims: usize, n: usize, normalized: bool) -> Vec<Vec<f32>> {
    (0..n)
        .map(|_| {
            (0..dims)
                .map(|d| {
                    let u = rng.texel_coord(img.size[d]);
                    if normalized {
                        (u / img.size[d] as f64) as f32
                    } else {
                        u as f32
                    }
                })
                .collect()
        })
        .collect()
}

/// Every address mode × filter × normalized/unnormalized for a 2-D texture of `img` over
/// `resource`, through `tex2d_f` (or `tex2d_i`/`tex2d_u` for integer reads).
fn sweep_2d(what: &str, img: &Img, read: ReadMode, srgb: bool, resource: impl Fn(&mut Harness) -> Resource) {
    let mut rng = Rng(7);
    for mut h in modules() {
        let res = resource(&mut h);
        for normalized in [false, true] {
            for filter in [FilterMode::Point, FilterMode::Linear] {
                for m in MODES {
                    let s = Sampler { read, srgb, ..sampler(m, filter, normalized) };
                    let t = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                    let xs = coords(&mut rng, img, 2, 96, normalized);
                    let packed: Vec<f32> = xs.iter().flatten().copied().collect();
                    let entry = match (read_channel(img, &s, &[0; 4], 3).is_ok(), img.format.kind) {
                        (true, _) => "tex2d_f",
                        (false, ChannelKind::Signed) => "tex2d_i",
                        (false, _) => "tex2d_u",
                    };
                    let got = run(&mut h, entry, t, &packed, 2, 1);
                    check(&format!("{what} {m:?} {filter:?} normalized={normalized}"), img, &s, &xs, &[0; 96], &got);
                    h.dev.destroy_texture(t).unwrap();
                }
            }
        }
    }
}

#[test]
fn float4_array_2d_every_mode_filter_and_coordinate_kind() {
    let img = Img::new(fmt(ChannelKind::Float, 32, 4), [5, 3, 1], 1, &mut Rng(1));
    sweep_2d("float4 5x3", &img, ReadMode::ElementType, false, |h| Resource::Array(img.array(h, false, false)));
}

#[test]
fn one_channel_pitched_2d_reads_missing_channels_as_zeros() {
    // 6 × 4 floats in rows 32 bytes apart: the pitch is honoured and g, b, a read 0, 0, 0.
    let img = Img::new(fmt(ChannelKind::Float, 32, 1), [6, 4, 1], 1, &mut Rng(2));
    sweep_2d("float pitched 6x4", &img, ReadMode::ElementType, false, |h| {
        let mut bytes = vec![0xffu8; 32 * 4];
        let b = img.bytes();
        for y in 0..4 {
            bytes[32 * y..32 * y + 24].copy_from_slice(&b[24 * y..24 * y + 24]);
        }
        let addr = h.dev.alloc(bytes.len()).unwrap();
        h.dev.write(addr, &bytes).unwrap();
        Resource::Pitch2d { addr, format: img.format, width: 6, height: 4, pitch: 32 }
    });
}

#[test]
fn normalized_float_reads_of_8_and_16_bit_integers() {
    for (what, f, srgb) in [
        ("uchar4", fmt(ChannelKind::Unsigned, 8, 4), false),
        ("uchar4 sRGB", fmt(ChannelKind::Unsigned, 8, 4), true),
        ("char2", fmt(ChannelKind::Signed, 8, 2), false),
        ("ushort4", fmt(ChannelKind::Unsigned, 16, 4), false),
        ("short1", fmt(ChannelKind::Signed, 16, 1), false),
    ] {
        let img = Img::new(f, [4, 5, 1], 1, &mut Rng(3));
        sweep_2d(what, &img, ReadMode::NormalizedFloat, srgb, |h| Resource::Array(img.array(h, false, false)));
    }
}

#[test]
fn integer_element_reads_are_extended_and_never_filtered() {
    for (what, f) in [("short2", fmt(ChannelKind::Signed, 16, 2)), ("uchar4", fmt(ChannelKind::Unsigned, 8, 4)), ("int4", fmt(ChannelKind::Signed, 32, 4)), ("uint1", fmt(ChannelKind::Unsigned, 32, 1))] {
        let img = Img::new(f, [3, 4, 1], 1, &mut Rng(4));
        sweep_2d(what, &img, ReadMode::ElementType, false, |h| Resource::Array(img.array(h, false, false)));
    }
}

#[test]
fn half_texels_are_widened_and_filtered() {
    let img = Img::new(fmt(ChannelKind::Float, 16, 2), [7, 3, 1], 1, &mut Rng(5));
    sweep_2d("half2", &img, ReadMode::ElementType, false, |h| Resource::Array(img.array(h, false, false)));
}

#[test]
fn tex1d_on_a_1d_array_every_mode_and_filter() {
    let img = Img::new(fmt(ChannelKind::Float, 32, 4), [7, 1, 1], 1, &mut Rng(6));
    let mut rng = Rng(8);
    for mut h in modules() {
        let res = Resource::Array(img.array(&mut h, false, false));
        for normalized in [false, true] {
            for filter in [FilterMode::Point, FilterMode::Linear] {
                for m in MODES {
                    let s = sampler(m, filter, normalized);
                    let t = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                    let xs = coords(&mut rng, &img, 1, 64, normalized);
                    let packed: Vec<f32> = xs.iter().flatten().copied().collect();
                    let got = run(&mut h, "tex1d_f", t, &packed, 1, 1);
                    check(&format!("1d {m:?} {filter:?} normalized={normalized}"), &img, &s, &xs, &[0; 64], &got);
                }
            }
        }
    }
}

#[test]
fn tex3d_trilinear_and_point() {
    let img = Img::new(fmt(ChannelKind::Float, 32, 1), [4, 3, 5], 1, &mut Rng(9));
    let mut rng = Rng(10);
    for mut h in modules() {
        let res = Resource::Array(img.array(&mut h, false, false));
        for normalized in [false, true] {
            for filter in [FilterMode::Point, FilterMode::Linear] {
                for m in MODES {
                    let s = sampler(m, filter, normalized);
                    let t = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                    let xs = coords(&mut rng, &img, 3, 64, normalized);
                    // float4 per sample: x, y, z, unused.
                    let packed: Vec<f32> = xs.iter().flat_map(|x| [x[0], x[1], x[2], 0.0]).collect();
                    let got = run(&mut h, "tex3d_f", t, &packed, 4, 1);
                    check(&format!("3d {m:?} {filter:?} normalized={normalized}"), &img, &s, &xs, &[0; 64], &got);
                }
            }
        }
    }
}

#[test]
fn layered_1d_and_2d_with_the_layer_clamped() {
    let mut rng = Rng(11);
    for (entry, dims, size) in [("tex1d_layered_f", 1, [6, 1, 1]), ("tex2d_layered_f", 2, [4, 3, 1])] {
        let img = Img::new(fmt(ChannelKind::Float, 32, 4), size, 3, &mut Rng(12));
        for mut h in modules() {
            let res = Resource::Array(img.array(&mut h, true, false));
            for filter in [FilterMode::Point, FilterMode::Linear] {
                for m in [AddressMode::Wrap, AddressMode::Border] {
                    let s = sampler(m, filter, true);
                    let t = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                    let xs = coords(&mut rng, &img, dims, 64, true);
                    let layer_in: Vec<i32> = (0..64).map(|_| rng.below(7) as i32 - 2).collect();
                    let packed: Vec<f32> = xs.iter().zip(&layer_in).flat_map(|(x, &l)| [x[0], *x.get(1).unwrap_or(&0.0), 0.0, l as f32]).collect();
                    let got = run(&mut h, entry, t, &packed, 4, 1);
                    let layers: Vec<usize> = layer_in.iter().map(|&l| (l as u32).min(2) as usize).collect();
                    check(&format!("{entry} {m:?} {filter:?}"), &img, &s, &xs, &layers, &got);
                }
            }
        }
    }
}

#[test]
fn lod_and_grad_read_level_0_of_an_unmipmapped_texture() {
    let img = Img::new(fmt(ChannelKind::Float, 32, 2), [5, 4, 1], 1, &mut Rng(13));
    let mut rng = Rng(14);
    for mut h in modules() {
        let res = Resource::Array(img.array(&mut h, false, false));
        let s = sampler(AddressMode::Mirror, FilterMode::Linear, true);
        let t = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
        let xs = coords(&mut rng, &img, 2, 64, true);
        // x, y, then a level (Lod) or two gradients (Grad) that must not matter.
        let packed: Vec<f32> = xs.iter().flat_map(|x| [x[0], x[1], 3.5, 0.25]).collect();
        for entry in ["tex2d_lod_f", "tex2d_grad_f"] {
            let got = run(&mut h, entry, t, &packed, 4, 1);
            check(entry, &img, &s, &xs, &[0; 64], &got);
        }
    }
}

#[test]
fn tex1dfetch_on_linear_memory_clamps_or_reads_the_border() {
    let mut rng = Rng(15);
    for (entry, f) in [("fetch1d_f", fmt(ChannelKind::Float, 32, 4)), ("fetch1d_i", fmt(ChannelKind::Signed, 16, 2)), ("fetch1d_u", fmt(ChannelKind::Unsigned, 32, 1))] {
        let img = Img::new(f, [9, 1, 1], 1, &mut Rng(16));
        for mut h in modules() {
            let b = img.bytes();
            let addr = h.dev.alloc(b.len()).unwrap();
            h.dev.write(addr, &b).unwrap();
            for m in [AddressMode::Clamp, AddressMode::Border] {
                let s = sampler(m, FilterMode::Point, false);
                let t = h.dev.create_texture(Texture { resource: Resource::Linear { addr, format: f, width: 9 }, sampler: s }).unwrap();
                let idx: Vec<i32> = (0..64).map(|_| rng.below(30) as i32 - 10).collect();
                let ib = h.upload(&idx);
                let out = h.zeroed::<u32>(64 * 4);
                h.launch(entry, [1, 1, 1], [64, 1, 1], 0, &[arg(t), ib.ptr(), out.ptr(), arg(64i32)]).unwrap();
                let got = h.download::<u32>(out);
                for (k, &i) in idx.iter().enumerate() {
                    let at = match m {
                        AddressMode::Border if !(0..9).contains(&i) => None,
                        _ => Some(i.clamp(0, 8) as usize),
                    };
                    assert_eq!(got[4 * k..4 * k + 4], texel_bits(&img, &s, at), "{entry} {m:?} index {i}");
                }
            }
        }
    }
}

/// `tld4`: the four texels of the bilinear footprint, counter-clockwise from the lower left
/// (PTX ISA): (i, j+1), (i+1, j+1), (i+1, j), (i, j) with `i = floor(x - 0.5)`.
#[test]
fn gather_returns_the_footprint_counter_clockwise_from_lower_left() {
    let mut rng = Rng(17);
    for (entry, f, comps) in [("gather_f", fmt(ChannelKind::Float, 32, 4), vec![0, 1, 2, 3]), ("gather_f", fmt(ChannelKind::Float, 32, 1), vec![0, 1, 2, 3]), ("gather_i", fmt(ChannelKind::Signed, 32, 4), vec![1])] {
        let img = Img::new(f, [5, 3, 1], 1, &mut Rng(18));
        for mut h in modules() {
            let res = Resource::Array(img.array(&mut h, false, false));
            for normalized in [false, true] {
                for m in MODES {
                    let s = sampler(m, FilterMode::Point, normalized);
                    let t = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                    let xs = coords(&mut rng, &img, 2, 32, normalized);
                    let packed: Vec<f32> = xs.iter().flatten().copied().collect();
                    let got = run(&mut h, entry, t, &packed, 2, comps.len());
                    for (k, x) in xs.iter().enumerate() {
                        let u: Vec<f64> = (0..2).map(|d| if normalized { x[d] as f64 * img.size[d] as f64 } else { x[d] as f64 }).collect();
                        let (i, j) = ((u[0] - 0.5).floor() as i64, (u[1] - 0.5).floor() as i64);
                        let corners = [(i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j)];
                        for (ci, &comp) in comps.iter().enumerate() {
                            let want: Vec<u32> = corners
                                .iter()
                                .map(|&(a, b)| {
                                    let at = match (resolve(a, 5, mode(&s, 0)), resolve(b, 3, mode(&s, 1))) {
                                        (Some(a), Some(b)) => Some(flat(&img, [a, b, 0], 0)),
                                        _ => None,
                                    };
                                    texel_bits(&img, &s, at)[comp]
                                })
                                .collect();
                            assert_eq!(got[k * comps.len() + ci].to_vec(), want, "{entry} {f:?} {m:?} normalized={normalized} sample {k} at {x:?} component {comp}");
                        }
                    }
                }
            }
        }
    }
}

fn surface(h: &mut Harness, img: &Img) -> (Array, u64) {
    let a = img.array(h, false, true);
    let s = h.dev.create_surface(Surface { array: a }).unwrap();
    (a, s)
}

fn read_array(h: &Harness, a: &Array, len: usize) -> Vec<u8> {
    let mut b = vec![0u8; len];
    h.dev.read(a.addr, &mut b).unwrap();
    b
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn surface_reads_and_writes_by_boundary_mode() {
    let img = Img::new(fmt(ChannelKind::Float, 32, 1), [6, 4, 1], 1, &mut Rng(19));
    let vals: Vec<f32> = img.raw.iter().map(|t| f32::from_bits(t[0] as u32)).collect();
    for mut h in modules() {
        // In range, .trap: dst = 2 * src at each (x, y).
        let (src, s) = surface(&mut h, &img);
        let (dst, d) = surface(&mut h, &Img { raw: vec![[0; 4]; 24], ..img.clone() });
        let cs: Vec<i32> = (0..24).flat_map(|i| [i % 6, i / 6]).collect();
        let cb = h.upload(&cs);
        h.launch("surf2d_copy_trap", [1, 1, 1], [24, 1, 1], 0, &[arg(s), arg(d), cb.ptr(), arg(24i32)]).unwrap();
        assert_eq!(f32s(&read_array(&h, &dst, 96)), vals.iter().map(|v| v * 2.0).collect::<Vec<_>>());
        assert_eq!(f32s(&read_array(&h, &src, 96)), vals, "the source is untouched");

        // Out of range: .clamp reads the nearest edge texel, .zero reads 0.
        let probe: Vec<(i32, i32)> = vec![(-3, 1), (7, 2), (2, -1), (3, 9), (100, 100), (5, 3), (0, 0)];
        let pb = h.upload(&probe.iter().flat_map(|&(x, y)| [x, y]).collect::<Vec<_>>());
        let out = h.zeroed::<f32>(probe.len());
        h.launch("surf2d_read_clamp", [1, 1, 1], [32, 1, 1], 0, &[arg(s), pb.ptr(), out.ptr(), arg(probe.len() as i32)]).unwrap();
        let want: Vec<f32> = probe.iter().map(|&(x, y)| vals[(y.clamp(0, 3) * 6 + x.clamp(0, 5)) as usize]).collect();
        assert_eq!(h.download::<f32>(out), want, ".clamp reads");
        h.launch("surf2d_read_zero", [1, 1, 1], [32, 1, 1], 0, &[arg(s), pb.ptr(), out.ptr(), arg(probe.len() as i32)]).unwrap();
        let want: Vec<f32> = probe.iter().map(|&(x, y)| if (0..6).contains(&x) && (0..4).contains(&y) { vals[(y * 6 + x) as usize] } else { 0.0 }).collect();
        assert_eq!(h.download::<f32>(out), want, ".zero reads");

        // Writes: .zero drops what falls outside; .clamp writes the edge texel.
        let (z, zs) = surface(&mut h, &Img { raw: vec![[0; 4]; 24], ..img.clone() });
        let wz: Vec<(i32, i32)> = vec![(1, 1), (-1, 0), (6, 3), (4, 2)];
        let wb = h.upload(&wz.iter().flat_map(|&(x, y)| [x, y]).collect::<Vec<_>>());
        h.launch("surf2d_write_zero", [1, 1, 1], [32, 1, 1], 0, &[arg(zs), wb.ptr(), arg(wz.len() as i32)]).unwrap();
        let mut want = vec![0f32; 24];
        want[6 + 1] = 1000.0;
        want[2 * 6 + 4] = 1003.0;
        assert_eq!(f32s(&read_array(&h, &z, 96)), want, ".zero writes");
        let (c, csurf) = surface(&mut h, &Img { raw: vec![[0; 4]; 24], ..img.clone() });
        let wc: Vec<(i32, i32)> = vec![(-4, 1), (9, 2), (2, -5)];
        let wb = h.upload(&wc.iter().flat_map(|&(x, y)| [x, y]).collect::<Vec<_>>());
        h.launch("surf2d_write_clamp", [1, 1, 1], [32, 1, 1], 0, &[arg(csurf), wb.ptr(), arg(wc.len() as i32)]).unwrap();
        let mut want = vec![0f32; 24];
        want[6] = 1000.0;
        want[2 * 6 + 5] = 1001.0;
        want[2] = 1002.0;
        assert_eq!(f32s(&read_array(&h, &c, 96)), want, ".clamp writes");

        // .trap outside: a fault at the instruction, naming the coordinate.
        let bad = h.upload(&[0i32, 0, 6, 1]);
        let f = fault(h.launch("surf2d_copy_trap", [1, 1, 1], [2, 1, 1], 0, &[arg(s), arg(d), bad.ptr(), arg(2i32)]));
        assert_eq!(f.kind, FaultKind::OutOfBounds);
        assert_eq!(f.thread, [1, 0, 0]);
        assert!(f.line.is_some() && f.detail.contains("x = 24 bytes"), "{f:?}");
    }
}

#[test]
fn surface_vectors_and_narrow_and_wide_elements() {
    for mut h in modules() {
        // uchar4 1-D, .zero: read, then write the bytes reversed.
        let img = Img::new(fmt(ChannelKind::Unsigned, 8, 4), [5, 1, 1], 1, &mut Rng(20));
        let (a, s) = surface(&mut h, &img);
        let xs = h.upload(&[0i32, 2, 4, 5, -1]);
        let out = h.zeroed::<u32>(5);
        h.launch("surf1d_uchar4", [1, 1, 1], [5, 1, 1], 0, &[arg(s), xs.ptr(), out.ptr(), arg(5i32)]).unwrap();
        let orig = img.bytes();
        let got: Vec<u32> = h.download(out);
        let word = |i: usize| u32::from_le_bytes(orig[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, vec![word(0), word(2), word(4), 0, 0]);
        let now = read_array(&h, &a, 20);
        for i in 0..5 {
            let mut want = orig[4 * i..4 * i + 4].to_vec();
            if [0, 2, 4].contains(&i) {
                want.reverse();
            }
            assert_eq!(now[4 * i..4 * i + 4], want[..], "texel {i}");
        }

        // short2 3-D, .clamp: (x, y, z) read, then (k, -k) written at the clamped place.
        let img = Img::new(fmt(ChannelKind::Signed, 16, 2), [3, 2, 2], 1, &mut Rng(21));
        let (a, s) = surface(&mut h, &img);
        let cs: Vec<[i32; 4]> = vec![[1, 1, 1, 0], [5, 0, 0, 0]];
        let cb = h.upload(&cs.iter().flatten().copied().collect::<Vec<_>>());
        let out = h.zeroed::<u32>(2);
        h.launch("surf3d_short2", [1, 1, 1], [1, 1, 1], 0, &[arg(s), cb.ptr(), out.ptr(), arg(1i32)]).unwrap();
        h.launch("surf3d_short2", [1, 1, 1], [2, 1, 1], 0, &[arg(s), cb.ptr(), out.ptr(), arg(2i32)]).unwrap();
        let got: Vec<u32> = h.download(out);
        let b = img.bytes();
        let word = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        // First launch read texel (1,1,1) = 10 and wrote (0, -0) there; the second read it back.
        assert_eq!(got[0], 0);
        assert_eq!(got[1], word(2), "x = 20 bytes clamps to the last texel of row 0");
        let now = read_array(&h, &a, 48);
        assert_eq!(now[40..44], [0, 0, 0, 0]);
        assert_eq!(now[8..12], [1, 0, 0xff, 0xff], "(1, -1) at the clamped (2, 0, 0)");

        // 64-bit and float4 elements, .trap.
        let img = Img::new(fmt(ChannelKind::Unsigned, 32, 2), [3, 2, 1], 1, &mut Rng(22));
        let (_, s) = surface(&mut h, &img);
        let cb = h.upload(&[2i32, 1, 0, 0]);
        let out = h.zeroed::<u64>(2);
        h.launch("surf2d_longlong", [1, 1, 1], [2, 1, 1], 0, &[arg(s), cb.ptr(), out.ptr(), arg(2i32)]).unwrap();
        let b = img.bytes();
        let dword = |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!(h.download::<u64>(out), vec![dword(5), dword(0)]);
        let img = Img::new(fmt(ChannelKind::Float, 32, 4), [2, 2, 1], 1, &mut Rng(23));
        let (a, s) = surface(&mut h, &img);
        let cb = h.upload(&[1i32, 1]);
        let out = h.zeroed::<f32>(4);
        h.launch("surf2d_float4", [1, 1, 1], [1, 1, 1], 0, &[arg(s), cb.ptr(), out.ptr(), arg(1i32)]).unwrap();
        let v: Vec<f32> = img.raw[3].iter().map(|&x| f32::from_bits(x as u32)).collect();
        assert_eq!(h.download::<f32>(out), v);
        let now = f32s(&read_array(&h, &a, 64));
        assert_eq!(now[12..16], [v[3], v[2], v[1], v[0]]);
    }
}

#[test]
fn unknown_destroyed_and_wrong_kind_handles_are_faults() {
    let img = Img::new(fmt(ChannelKind::Float, 32, 4), [4, 4, 1], 1, &mut Rng(24));
    for mut h in modules() {
        let a = img.array(&mut h, false, true);
        let t = h.dev.create_texture(Texture { resource: Resource::Array(a), sampler: Sampler::default() }).unwrap();
        let s = h.dev.create_surface(Surface { array: a }).unwrap();
        let c = h.upload(&[0.5f32, 0.5]);
        let out = h.zeroed::<f32>(4);
        let launch = |h: &Harness, handle: u64| h.launch("tex2d_f", [1, 1, 1], [1, 1, 1], 0, &[arg(handle), c.ptr(), out.ptr(), arg(1i32)]);
        launch(&h, t).unwrap();
        for bad in [s, 0xdead, t] {
            if bad == t {
                h.dev.destroy_texture(t).unwrap();
            }
            let f = fault(launch(&h, bad));
            assert_eq!(f.kind, FaultKind::InvalidHandle);
            assert!(f.line.is_some() && f.detail.contains(&format!("{bad:#x}")), "{f:?}");
        }
        let cb = h.upload(&[0i32, 0]);
        let f = fault(h.launch("surf2d_read_zero", [1, 1, 1], [1, 1, 1], 0, &[arg(t), cb.ptr(), out.ptr(), arg(1i32)]));
        assert_eq!(f.kind, FaultKind::InvalidHandle, "a texture handle is no surface");
    }
}
