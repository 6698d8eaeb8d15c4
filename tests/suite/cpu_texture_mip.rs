//! Mipmapped and cube-map textures on the CPU backend: nvcc's PTX for `tests/cuda/texture_mip.cu`
//! (`tex1DLod`, `tex2DLod`, `tex3DLod`, `tex1DGrad`, `tex2DGrad`, `tex3DGrad`,
//! `tex2DLayeredLod`, `texCubemap`, `texCubemapLayered`, `texCubemapLod`, `texCubemapGrad`;
//! sm_75 and sm_90, each through ptxas) runs over objects made with
//! `CpuDevice::create_texture`, and every component is compared with a host reference written
//! here from the rules docs/textures.md states ("Mipmaps", "Cube maps"):
//!
//! - every level holds values of its own (level `l` in `[100 l, 100 l + 10)`), so a result
//!   says which level or levels were read;
//! - λ = the explicit level, or `log2` of the longer gradient in level-0 texels, plus the bias,
//!   clamped; point between levels reads the nearest (a tie reads the lower), linear blends the
//!   two levels around λ with a 9-bit fixed-point weight — compared bit for bit, and against the
//!   exact-real trilinear blend within the 1/256 per weight the fixed-point weights allow;
//! - a cube map's face and face coordinates by the programming guide's table, written here as
//!   the guide's if-chain.
//!
//! The reference shares no code with `ptx_cpu::texture`.

use crate::cpu_harness::{arg, nvcc_archs, Harness};
use ptx_runtime::cpu::texture::{AddressMode, Array, ChannelKind, FilterMode, Format, Geometry, Mipmapped, ReadMode, Resource, Sampler, Texture};

const SRC: &str = include_str!("../cuda/texture_mip.cu");

fn modules() -> Vec<Harness> {
    nvcc_archs("cpu_texture_mip", SRC, &["sm_75", "sm_90"]).iter().map(|p| Harness::new(p)).collect()
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        crate::rng::splitmix64(&mut self.0) % n
    }
    /// A dyadic value in `[lo, hi)` with 6 fraction bits.
    fn dyadic(&mut self, lo: f64, hi: f64) -> f64 {
        lo + self.below(((hi - lo) * 64.0) as u64) as f64 / 64.0
    }
}

const F32: Format = Format { kind: ChannelKind::Float, bits: 32, channels: 1 };
const U32: Format = Format { kind: ChannelKind::Unsigned, bits: 32, channels: 1 };

/// A host mip pyramid of one channel: level `l`'s extent halves level 0's (never below 1),
/// `layers` images per level.
struct Pyramid {
    dims: usize,
    levels: Vec<([usize; 3], Vec<f32>)>,
    layers: usize,
}

impl Pyramid {
    fn new(dims: usize, size0: [usize; 3], layers: usize, levels: usize, rng: &mut Rng) -> Pyramid {
        let levels = (0..levels)
            .map(|l| {
                let size = size0.map(|n| (n >> l).max(1));
                let texels = (0..size.iter().product::<usize>() * layers).map(|_| 100.0 * l as f32 + rng.below(40) as f32 / 4.0).collect();
                (size, texels)
            })
            .collect();
        Pyramid { dims, levels, layers }
    }

    /// Uploads the levels one after another (the CPU device's layout of a mipmapped array).
    fn resource(&self, h: &mut Harness, format: Format, layered: bool) -> Resource {
        let mut bytes = Vec::new();
        for (_, t) in &self.levels {
            for v in t {
                if format.kind == ChannelKind::Float {
                    bytes.extend(v.to_le_bytes());
                } else {
                    bytes.extend((*v as u32).to_le_bytes());
                }
            }
        }
        let addr = h.dev.alloc(bytes.len()).unwrap();
        h.dev.write(addr, &bytes).unwrap();
        let [w, hh, d] = self.levels[0].0.map(|x| x as u64);
        let geometry = if layered { Geometry::Layered { width: w, height: hh, layers: self.layers as u64 } } else { Geometry::Plain { width: w, height: hh, depth: d } };
        Resource::Mipmapped(Mipmapped { addr, format, geometry, levels: self.levels.len() as u32 })
    }

    /// Level `l` sampled at normalized `u` (clamped addresses), point or linear with the 9-bit
    /// weights `wt` makes of a fraction.
    fn level(&self, l: usize, layer: usize, u: &[f64], linear: bool, wt: &dyn Fn(f64) -> f64) -> f64 {
        let (size, texels) = &self.levels[l];
        let layer = layer.min(self.layers - 1);
        let at = |idx: [i64; 3]| {
            let c = |d: usize| idx[d].clamp(0, size[d] as i64 - 1) as usize;
            texels[((layer * size[2] + c(2)) * size[1] + c(1)) * size[0] + c(0)] as f64
        };
        if !linear {
            let mut idx = [0i64; 3];
            for d in 0..self.dims {
                idx[d] = (u[d] * size[d] as f64).floor() as i64;
            }
            return at(idx);
        }
        let mut base = [0i64; 3];
        let mut a = [0.0; 3];
        for d in 0..self.dims {
            let xb = u[d] * size[d] as f64 - 0.5;
            base[d] = xb.floor() as i64;
            a[d] = wt(xb - xb.floor());
        }
        let mut sum = 0.0;
        for corner in 0..1usize << self.dims {
            let mut idx = base;
            let mut w = 1.0;
            for d in 0..self.dims {
                let hi = corner >> d & 1;
                idx[d] += hi as i64;
                w *= if hi == 1 { a[d] } else { 1.0 - a[d] };
            }
            sum += w * at(idx);
        }
        sum
    }

    /// A fetch at level of detail `lambda` (before bias; `None`: level 0). `exact`: real
    /// weights instead of 9-bit ones, and no rounding of the levels' samples to f32.
    fn fetch(&self, s: &Sampler, u: &[f64], layer: usize, lambda: Option<f64>, float: bool, exact: bool) -> f64 {
        let nine = |f: f64| (f * 256.0 + 0.5).floor() / 256.0;
        let wt: &dyn Fn(f64) -> f64 = if exact { &|f| f } else { &nine };
        let linear = s.filter == FilterMode::Linear && float;
        let round = |x: f64| if exact { x } else { x as f32 as f64 };
        let Some(lambda) = lambda else { return round(self.level(0, layer, u, linear, wt)) };
        let top = (self.levels.len() - 1) as f64;
        let lam = (lambda + s.mipmap_level_bias as f64).max(s.min_mipmap_level_clamp as f64).min((s.max_mipmap_level_clamp as f64).min(top)).max(0.0);
        if s.mipmap_filter == FilterMode::Point || !float {
            let l = if lam - lam.floor() > 0.5 { lam.ceil() } else { lam.floor() };
            return round(self.level(l as usize, layer, u, linear, wt));
        }
        let l0 = lam.floor();
        let w = wt(lam - l0);
        let a = round(self.level(l0 as usize, layer, u, linear, wt));
        if l0 >= top || w == 0.0 {
            return a;
        }
        let b = round(self.level(l0 as usize + 1, layer, u, linear, wt));
        round((1.0 - w) * a + w * b)
    }
}

/// Launches `entry(tex, c, out, n)` for the float4s `c`; the results' four components' bits.
fn run(h: &mut Harness, entry: &str, tex: u64, c: &[[f32; 4]]) -> Vec<[u32; 4]> {
    let flat: Vec<f32> = c.iter().flatten().copied().collect();
    let cb = h.upload(&flat);
    let out = h.zeroed::<u32>(c.len() * 4);
    h.launch(entry, [c.len().div_ceil(64) as u32, 1, 1], [64, 1, 1], 0, &[arg(tex), cb.ptr(), out.ptr(), arg(c.len() as i32)]).unwrap_or_else(|e| panic!("{entry}: {e}"));
    h.download::<u32>(out).chunks(4).map(|x| [x[0], x[1], x[2], x[3]]).collect()
}

fn samplers() -> Vec<(&'static str, Sampler)> {
    let base = Sampler { address: [AddressMode::Clamp; 3], normalized_coords: true, ..Sampler::default() };
    vec![
        ("point/point", base),
        ("point/linear", Sampler { mipmap_filter: FilterMode::Linear, ..base }),
        ("linear/linear", Sampler { filter: FilterMode::Linear, mipmap_filter: FilterMode::Linear, ..base }),
        ("linear/point, bias 0.5, clamp [0.5, 2.25]", Sampler { filter: FilterMode::Linear, mipmap_level_bias: 0.5, min_mipmap_level_clamp: 0.5, max_mipmap_level_clamp: 2.25, ..base }),
        ("linear/linear, bias -1.25, clamp [0, 3]", Sampler { filter: FilterMode::Linear, mipmap_filter: FilterMode::Linear, mipmap_level_bias: -1.25, max_mipmap_level_clamp: 3.0, ..base }),
    ]
}

const LODS: [f32; 14] = [-1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.4, 1.5, 1.6, 2.3, 3.0, 3.9, 4.0, 7.0];

/// Checks `got` against the reference of each sample, bit for bit, and (for float reads) within
/// the fixed-point weights' bound of the exact-real blend; returns the levels' hundreds seen.
#[allow(clippy::too_many_arguments)]
fn check(what: &str, p: &Pyramid, s: &Sampler, c: &[[f32; 4]], us: &[Vec<f64>], layers: &[usize], lambdas: &[Option<f64>], got: &[[u32; 4]], float: bool) -> Vec<u32> {
    let mut seen = Vec::new();
    for k in 0..c.len() {
        let want = p.fetch(s, &us[k], layers[k], lambdas[k], float, false);
        let g = if float { f32::from_bits(got[k][0]) as f64 } else { got[k][0] as f64 };
        let want_bits = if float { (want as f32).to_bits() } else { want as u32 };
        assert_eq!(got[k][0], want_bits, "{what}: sample {k} at {:?} (λ {:?}): got {g}, want {want}", c[k], lambdas[k]);
        assert_eq!(&got[k][1..], &[0, 0, 0], "{what}: the missing channels read 0");
        if float {
            // Two in-level weights per dimension and one between levels, each within 1/256.
            let exact = p.fetch(s, &us[k], layers[k], lambdas[k], float, true);
            let big = p.levels.iter().flat_map(|(_, t)| t).fold(0f64, |m, v| m.max(v.abs() as f64));
            let bound = (p.dims as f64 + 1.0) / 256.0 * big + 1e-3;
            assert!((g - exact).abs() <= bound, "{what}: sample {k}: {g} is {} from the exact blend {exact}", (g - exact).abs());
        }
        seen.push((g / 100.0) as u32);
    }
    seen
}

/// `tex1DLod`, `tex2DLod`, `tex3DLod` and `tex2DLayeredLod` read the level (or levels) the
/// explicit level of detail selects, after bias and clamps.
#[test]
fn explicit_levels_of_detail_read_the_selected_levels() {
    let mut rng = Rng(17);
    for mut h in modules() {
        // (entry, dims, level-0 extent, layers, levels)
        for (entry, dims, size0, layers, levels) in [("lod1d", 1, [32, 1, 1], 1, 6), ("lod2d", 2, [16, 8, 1], 1, 5), ("lod3d", 3, [8, 4, 4], 1, 4), ("layered2d_lod", 2, [8, 8, 1], 3, 4)] {
            let p = Pyramid::new(dims, size0, layers, levels, &mut rng);
            let res = p.resource(&mut h, F32, layers > 1);
            for (name, s) in samplers() {
                let tex = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                let mut c = Vec::new();
                let (mut us, mut ls, mut lams) = (Vec::new(), Vec::new(), Vec::new());
                for &lod in &LODS {
                    for _ in 0..4 {
                        let u: Vec<f64> = (0..3).map(|_| rng.dyadic(-0.25, 1.25)).collect();
                        let layer = rng.below(layers as u64 + 1) as usize;
                        c.push(match (dims, layers > 1) {
                            (_, true) => [u[0] as f32, u[1] as f32, layer as f32, lod],
                            _ => [u[0] as f32, u[1] as f32, u[2] as f32, lod],
                        });
                        us.push(u);
                        ls.push(layer);
                        lams.push(Some(lod as f64));
                    }
                }
                let got = run(&mut h, entry, tex, &c);
                let seen = check(&format!("{entry} {name}"), &p, &s, &c, &us, &ls, &lams, &got, true);
                // Not vacuous: the fetches read more than one level.
                assert!(seen.iter().any(|l| *l != seen[0]), "{entry} {name}: one level only: {seen:?}");
                h.dev.destroy_texture(tex).unwrap();
            }
        }
    }
}

/// `tex1DGrad`, `tex2DGrad`, `tex3DGrad`: λ is `log2` of the longer gradient in level-0 texels
/// (the kernels pass `(w, 0)` along x and `(0, w / 2)` along y, and likewise in 1-D and 3-D).
#[test]
fn gradients_choose_the_level_by_their_length() {
    let mut rng = Rng(29);
    for mut h in modules() {
        for (entry, dims, size0, levels) in [("grad1d", 1, [64, 1, 1], 7), ("grad2d", 2, [16, 32, 1], 6), ("grad3d", 3, [8, 4, 16], 5)] {
            let p = Pyramid::new(dims, size0, 1, levels, &mut rng);
            let res = p.resource(&mut h, F32, false);
            for (name, s) in samplers() {
                let tex = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                let (mut c, mut us, mut lams) = (Vec::new(), Vec::new(), Vec::new());
                for k in 0..48 {
                    // Gradients from 1/256 to 2 of the texture, either sign, and zero.
                    let w = if k == 0 { 0.0 } else { (if k % 2 == 0 { 1.0 } else { -1.0 }) * 2f64.powf(rng.dyadic(-8.0, 1.0)) } as f32;
                    let u: Vec<f64> = (0..3).map(|_| rng.dyadic(0.0, 1.0)).collect();
                    c.push([u[0] as f32, u[1] as f32, u[2] as f32, w]);
                    let w = w as f64;
                    // Along x: w in the first coordinate; along y: w / 2 in the last.
                    let rho = (w.abs() * size0[0] as f64).max((w / 2.0).abs() * size0[dims - 1] as f64);
                    us.push(u);
                    lams.push(Some(rho.log2()));
                }
                let got = run(&mut h, entry, tex, &c);
                let seen = check(&format!("{entry} {name}"), &p, &s, &c, &us, &[0; 48], &lams, &got, true);
                assert!(seen.iter().any(|l| *l != seen[0]), "{entry} {name}: one level only: {seen:?}");
                h.dev.destroy_texture(tex).unwrap();
            }
        }
    }
}

/// `tex2D` on a mipmapped texture (the ISA's `.base`) reads level 0 whatever the bias; integer
/// results read the nearest level even with a linear mipmap filter.
#[test]
fn base_fetches_read_level_0_and_integers_the_nearest_level() {
    let mut rng = Rng(5);
    for mut h in modules() {
        let p = Pyramid::new(2, [8, 8, 1], 1, 4, &mut rng);
        let res = p.resource(&mut h, F32, false);
        let s = Sampler { filter: FilterMode::Linear, mipmap_filter: FilterMode::Linear, mipmap_level_bias: 2.0, normalized_coords: true, ..Sampler::default() };
        let tex = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
        let us: Vec<Vec<f64>> = (0..32).map(|_| (0..3).map(|_| rng.dyadic(0.0, 1.0)).collect()).collect();
        let c: Vec<[f32; 4]> = us.iter().map(|u| [u[0] as f32, u[1] as f32, 0.0, 0.0]).collect();
        let got = run(&mut h, "base2d", tex, &c);
        let seen = check("base2d", &p, &s, &c, &us, &[0; 32], &[None; 32], &got, true);
        assert!(seen.iter().all(|l| *l == 0), "level 0 only: {seen:?}");

        let res = p.resource(&mut h, U32, false);
        let s = Sampler { mipmap_filter: FilterMode::Linear, normalized_coords: true, read: ReadMode::ElementType, ..Sampler::default() };
        let tex = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
        let lams: Vec<Option<f64>> = (0..32).map(|k| Some(LODS[k % LODS.len()] as f64)).collect();
        let c: Vec<[f32; 4]> = us.iter().zip(&lams).map(|(u, l)| [u[0] as f32, u[1] as f32, 0.0, l.unwrap() as f32]).collect();
        let got = run(&mut h, "lod2d_u", tex, &c);
        let seen = check("lod2d_u", &p, &s, &c, &us, &[0; 32], &lams, &got, false);
        assert!(seen.contains(&1) && seen.contains(&3), "{seen:?}");
    }
}

/// The programming guide's cubemap table as its if-chain: the face and the normalized face
/// coordinates of direction `c` (ties: x before y before z, docs/textures.md).
fn cube_face(c: [f64; 3]) -> (usize, f64, f64) {
    let [x, y, z] = c;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, m, sc, tc) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, ax, -z, -y)
        } else {
            (1, ax, z, -y)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, ay, x, z)
        } else {
            (3, ay, x, -z)
        }
    } else if z >= 0.0 {
        (4, az, x, -y)
    } else {
        (5, az, -x, -y)
    };
    (face, (sc / m + 1.0) / 2.0, (tc / m + 1.0) / 2.0)
}

/// `texCubemap`, `texCubemapLayered`, `texCubemapLod`, `texCubemapGrad`: the face (every one
/// holds values of its own) and the point on it by the guide's table, point and bilinear,
/// with levels for the `Lod` and `Grad` forms.
#[test]
fn cube_maps_read_the_face_the_direction_points_at() {
    let mut rng = Rng(41);
    for mut h in modules() {
        let (w, cubes, levels) = (8usize, 2usize, 4usize);
        // Faces are layers: face f of cube c is layer 6c + f, its values offset by 10 (f + 6c)
        // (within a level's hundred).
        let mut p = Pyramid::new(2, [w, w, 1], 6 * cubes, levels, &mut rng);
        for (l, (size, t)) in p.levels.iter_mut().enumerate() {
            let per = size[0] * size[1];
            for (i, v) in t.iter_mut().enumerate() {
                *v = 100.0 * l as f32 + (i / per) as f32 * 8.0 + (i % 7) as f32 / 4.0;
            }
        }
        let mip = p.resource(&mut h, F32, true);
        let Resource::Mipmapped(m) = mip else { unreachable!() };
        let level0 = Resource::Array(Array { addr: m.addr, format: F32, geometry: m.geometry, surface_ldst: false });
        for (name, s) in samplers() {
            for (entry, res) in [("cube", level0), ("cube_layered", level0), ("cube_lod", mip), ("cube_grad", mip)] {
                // Unnormalized samplers too: a cube map's face coordinates are normalized.
                let s = if entry == "cube" { Sampler { normalized_coords: false, ..s } } else { s };
                let tex = h.dev.create_texture(Texture { resource: res, sampler: s }).unwrap();
                let (mut c, mut us, mut ls, mut lams, mut faces) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for k in 0..60 {
                    let mut d: [f64; 3] = [0, 1, 2].map(|_| rng.dyadic(-1.0, 1.0));
                    // Every face: push the k-th sample's axis out.
                    d[k % 3] = if k % 2 == 0 { 1.5 } else { -1.5 } * (1.0 + rng.dyadic(0.0, 1.0));
                    let (face, sn, tn) = cube_face(d);
                    let cube = rng.below(cubes as u64 + 1) as usize;
                    let fourth = match entry {
                        "cube_layered" => cube as f32,
                        "cube_lod" => LODS[k % LODS.len()],
                        "cube_grad" => (2f64.powf(rng.dyadic(-6.0, 1.0))) as f32,
                        _ => 0.0,
                    };
                    c.push([d[0] as f32, d[1] as f32, d[2] as f32, fourth]);
                    let cube = if entry == "cube_layered" { cube.min(cubes - 1) } else { 0 };
                    us.push(vec![sn, tn, 0.0]);
                    ls.push(6 * cube + face);
                    faces.push(6 * cube + face);
                    lams.push(match entry {
                        "cube_lod" => Some(fourth as f64),
                        "cube_grad" => {
                            // The face coordinates' derivatives along the direction's x and y
                            // (gradients (g, 0, 0) and (0, g, 0)), in texels.
                            let g = fourth as f64;
                            let deriv = |e: [f64; 3]| {
                                let (_, s0, t0) = cube_face(d);
                                let axis = [0, 0, 1, 1, 2, 2][face];
                                let m = d[axis].abs();
                                // d(sc/m) = (dsc m - sc dm) / m², with sc, tc linear in the direction.
                                let sc = (2.0 * s0 - 1.0) * m;
                                let tc = (2.0 * t0 - 1.0) * m;
                                let lin = |v: [f64; 3]| -> (f64, f64) {
                                    match face {
                                        0 => (-v[2], -v[1]),
                                        1 => (v[2], -v[1]),
                                        2 => (v[0], v[2]),
                                        3 => (v[0], -v[2]),
                                        4 => (v[0], -v[1]),
                                        _ => (-v[0], -v[1]),
                                    }
                                };
                                let (dsc, dtc) = lin(e);
                                let dm = e[axis] * d[axis].signum();
                                [(dsc * m - sc * dm) / (2.0 * m * m) * w as f64, (dtc * m - tc * dm) / (2.0 * m * m) * w as f64]
                            };
                            let (a, b) = (deriv([g, 0.0, 0.0]), deriv([0.0, g, 0.0]));
                            Some(a[0].hypot(a[1]).max(b[0].hypot(b[1])).log2())
                        }
                        _ => None,
                    });
                }
                let got = run(&mut h, entry, tex, &c);
                for k in 0..c.len() {
                    let want = p.fetch(&s, &us[k], ls[k], lams[k], true, false);
                    assert_eq!(got[k][0], (want as f32).to_bits(), "{entry} {name}: sample {k} {:?} (face {}): got {}, want {want}", c[k], faces[k], f32::from_bits(got[k][0]));
                }
                // Not vacuous: every face of the cube (and of the second cube) was read.
                let mut read: Vec<usize> = faces.clone();
                read.sort_unstable();
                read.dedup();
                assert!(read.len() >= 6, "{entry}: faces {read:?}");
                h.dev.destroy_texture(tex).unwrap();
            }
        }
    }
}
