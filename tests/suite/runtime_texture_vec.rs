//! Multi-channel texels through the runtime (CUDA's `float4`, `uchar4`, `short2` arrays and
//! buffers as `CudaArray<f32x4, _>`, ...), layered surfaces and the layered gather, executed on
//! the GPU where there is one (`PTX_DEVICE` chooses) and on the CPU backend otherwise, against
//! host references: point reads at texel centres return every channel bit for bit, normalized
//! reads of `u8x4` return `v / 255` per channel, a bilinear read halfway between two texels is
//! their mean, surface writes of vectors and to layers are what the host copies back, and
//! `tex2d_layered_gather` returns the PTX ISA's four texels of the right layer. All the kernels
//! go through ptxas.

use crate::texture_fixture::k::{fetch1d, read2d};
use crate::texture_fixture::{all, assemble_each, read_back, stream};
use ptx_runtime::texture::*;
use ptx_runtime::vector::{f32x2, f32x4, i16x2, i32x2, u16x2, u8x4};
use ptx_runtime::{DeviceBuffer, LaunchConfig};

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::*;
    use ptx_runtime::vector::{f32x4, u16x2, u8x4};

    /// Texel `i` and the point halfway to texel `i + 1` of the same row (bilinear).
    #[kernel]
    pub fn read4_mid(t: Texture2d<f32x4>, out: &mut [f32x4], w: u32) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            out[i as usize] = tex2d(t, (i % w) as f32 + 1.0, (i / w) as f32 + 0.5);
        }
    }

    /// Writes `(x, y, x + y, 255)` to every texel of a `w × h` RGBA surface.
    #[kernel]
    pub fn rgba(s: Surface2d<u8x4>, w: u32, h: u32) {
        let (x, y) = (thread_idx_x(), thread_idx_y());
        if x < w && y < h {
            surf2d_write(u8x4::new(x as u8, y as u8, (x + y) as u8, 255), s, (x * 4) as i32, y as i32, Boundary::Trap);
        }
    }

    /// Texel `(x, y)` of layer `l` of a `w × h × layers` surface: `l * 1000 + y * 10 + x`.
    #[kernel]
    pub fn fill_layers(s: Surface2dLayered<f32>, w: u32, h: u32, layers: u32) {
        let (x, y, l) = (thread_idx_x(), thread_idx_y(), thread_idx_z());
        if x < w && y < h && l < layers {
            surf2d_layered_write((l * 1000 + y * 10 + x) as f32, s, (x * 4) as i32, y as i32, l as i32, Boundary::Trap);
        }
    }

    /// Layer `l + 1` of a 1-D layered surface gets layer `l`'s texels, lanes swapped.
    #[kernel]
    pub fn shift_layers(s: Surface1dLayered<u16x2>, w: u32, layers: u32) {
        let (x, l) = (thread_idx_x(), thread_idx_y());
        if x < w && l + 1 < layers {
            let v = surf1d_layered_read(s, (x * 4) as i32, l as i32, Boundary::Trap);
            surf1d_layered_write(u16x2::new(v.y, v.x), s, (x * 4) as i32, l as i32 + 1, Boundary::Trap);
        }
    }

    /// Component 0 of the gather at `(x, y)` of layer `layer`, one per thread at `(i + 0.5 + dx)`.
    #[kernel]
    pub fn gather_layer(t: Texture2dLayered<f32>, out: &mut [f32x4], w: u32, h: u32, dx: f32) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            let (x, y, l) = (i % w, i / w % h, i / (w * h));
            out[i as usize] = tex2d_layered_gather(t, x as f32 + dx, y as f32 + 0.75, l as i32, 0);
        }
    }
}

#[test]
fn the_kernels_assemble() {
    assemble_each(&[
        ("rt_vec_read4_mid", k::read4_mid::PTX),
        ("rt_vec_rgba", k::rgba::PTX),
        ("rt_vec_fill_layers", k::fill_layers::PTX),
        ("rt_vec_shift_layers", k::shift_layers::PTX),
        ("rt_vec_gather_layer", k::gather_layer::PTX),
    ]);
}

/// Every channel of `float4`, `short2` and `float2` texels, bit for bit, from a CUDA array, a
/// pitched buffer and a linear buffer.
#[test]
fn point_reads_return_every_channel() {
    let s = stream();
    let (w, h) = (7usize, 5usize);
    let data: Vec<f32x4> = (0..w * h).map(|i| f32x4::new(i as f32, -(i as f32) * 0.5, i as f32 / 7.0, 1e6 + i as f32)).collect();
    let read4 = |t: &TextureObject<'_, Texture2d<f32x4>>| read_back(&s, w * h, |out| read2d::launch::<f32x4>(&s, all(w * h), t, out, w as u32));
    let array = Array2d::from_slice(&s, (w, h), &data).unwrap();
    assert_eq!(array.to_vec().unwrap(), data, "round trip");
    assert_eq!(read4(&TextureDesc::new().array(&s, &array).unwrap()), data, "float4 array");
    let pitched = PitchedBuffer::from_slice(&s, w, h, &data).unwrap();
    assert_eq!(read4(&TextureDesc::new().pitched(&s, &pitched).unwrap()), data, "float4 pitched buffer");

    let shorts: Vec<i16x2> = (0..w * h).map(|i| i16x2::new((i as i32 * 900 - 15_000) as i16, -(i as i16))).collect();
    let a = Array2d::from_slice(&s, (w, h), &shorts).unwrap();
    let t = TextureDesc::new().array(&s, &a).unwrap();
    let want: Vec<i32x2> = shorts.iter().map(|v| i32x2::new(v.x as i32, v.y as i32)).collect();
    assert_eq!(read_back(&s, w * h, |out| read2d::launch::<i32x2>(&s, all(w * h), &t, out, w as u32)), want, "short2 array, sign-extended");

    let pairs: Vec<f32x2> = (0..33).map(|i| f32x2::new(i as f32 * 3.0, 0.25 - i as f32)).collect();
    let lin = DeviceBuffer::from_slice(&s, &pairs).unwrap();
    let t = TextureDesc::new().linear(&s, &lin).unwrap();
    assert_eq!(read_back(&s, pairs.len(), |out| fetch1d::launch::<f32x2>(&s, all(pairs.len()), &t, out)), pairs, "float2 linear buffer");
}

/// `uchar4` read as normalized floats: `v / 255` per channel at texel centres, and halfway
/// between two texels of a row the mean of the two (the 9-bit weight 0.5 is exact).
#[test]
fn uchar4_reads_as_normalized_float4() {
    let s = stream();
    let (w, h) = (8usize, 4usize);
    let px: Vec<u8x4> = (0..w * h).map(|i| u8x4::new(i as u8 * 8, 255 - i as u8 * 3, (i * i) as u8, 128)).collect();
    let a = Array2d::from_slice(&s, (w, h), &px).unwrap();
    let norm = |v: u8| v as f32 / 255.0;
    let point = TextureDesc::new().normalized_float().array(&s, &a).unwrap();
    let want: Vec<f32x4> = px.iter().map(|p| f32x4::new(norm(p.x), norm(p.y), norm(p.z), norm(p.w))).collect();
    assert_eq!(read_back(&s, w * h, |out| read2d::launch::<f32x4>(&s, all(w * h), &point, out, w as u32)), want);

    let linear = TextureDesc::new().filter(FilterMode::Linear).normalized_float().array(&s, &a).unwrap();
    let got = read_back(&s, w * h, |out| k::read4_mid::launch(&s, all(w * h), &linear, out, w as u32));
    for i in 0..w * h {
        let (p, q) = (px[i], px[if i % w + 1 < w { i + 1 } else { i }]);
        let mean = |a: u8, b: u8| (norm(a) as f64 + norm(b) as f64) / 2.0;
        let want = [mean(p.x, q.x), mean(p.y, q.y), mean(p.z, q.z), mean(p.w, q.w)];
        let g = [got[i].x, got[i].y, got[i].z, got[i].w];
        for c in 0..4 {
            // Exact on the CPU backend; a GPU's interpolation arithmetic is within 2^-8 of it.
            assert!((g[c] as f64 - want[c]).abs() <= 1.0 / 256.0, "texel {i} channel {c}: {} against {}", g[c], want[c]);
        }
    }
}

/// A `uchar4` surface written by a kernel holds the vectors the host copies back.
#[test]
fn vector_surface_writes_are_read_back() {
    let s = stream();
    let (w, h) = (6usize, 3usize);
    let a = Array2d::<u8x4>::new_surface_ldst(&s, (w, h)).unwrap();
    let su = surface(&s, &a).unwrap();
    k::rgba::launch(&s, LaunchConfig::new(1, (w as u32, h as u32, 1)), &su, w as u32, h as u32).unwrap();
    let want: Vec<u8x4> = (0..w * h).map(|i| u8x4::new((i % w) as u8, (i / w) as u8, (i % w + i / w) as u8, 255)).collect();
    assert_eq!(a.to_vec().unwrap(), want);
}

/// Layered surfaces: a 2-D one filled layer by layer, a 1-D one whose layers a kernel copies
/// forward (each `u16x2`'s lanes swapped).
#[test]
fn layered_surfaces_write_their_layers() {
    let s = stream();
    let (w, h, layers) = (5usize, 3usize, 4usize);
    let a = Array2dLayered::<f32>::new_surface_ldst(&s, (w, h, layers)).unwrap();
    let su = surface(&s, &a).unwrap();
    k::fill_layers::launch(&s, LaunchConfig::new(1, (w as u32, h as u32, layers as u32)), &su, w as u32, h as u32, layers as u32).unwrap();
    let want: Vec<f32> = (0..w * h * layers).map(|i| ((i / (w * h)) * 1000 + (i / w % h) * 10 + i % w) as f32).collect();
    assert_eq!(a.to_vec().unwrap(), want);

    let (w, layers) = (6usize, 3usize);
    let init: Vec<u16x2> = (0..w * layers).map(|i| u16x2::new(i as u16, 60_000 - i as u16)).collect();
    let mut b = Array1dLayered::<u16x2>::new_surface_ldst(&s, (w, layers)).unwrap();
    b.copy_from_slice(&init).unwrap();
    let sb = surface(&s, &b).unwrap();
    // Only layer 0 to layer 1 (`layers` 2 for the kernel), so no thread reads what another writes.
    k::shift_layers::launch(&s, LaunchConfig::new(1, (w as u32, 1, 1)), &sb, w as u32, 2).unwrap();
    let got = b.to_vec().unwrap();
    for x in 0..w {
        assert_eq!(got[x], init[x], "layer 0 untouched");
        assert_eq!(got[w + x], u16x2::new(init[x].y, init[x].x), "layer 1 is layer 0 swapped");
        assert_eq!(got[2 * w + x], init[2 * w + x], "layer 2 untouched");
    }
}

/// `tld4.r.a2d`: the four texels of the bilinear footprint of the fetch's layer, in the PTX
/// ISA's order (i, j+1), (i+1, j+1), (i+1, j), (i, j), addresses clamped.
#[test]
fn layered_gather_reads_the_footprint_of_its_layer() {
    let s = stream();
    let (w, h, layers) = (5usize, 4usize, 3usize);
    let data: Vec<f32> = (0..w * h * layers).map(|i| i as f32 * 1.25 - 9.0).collect();
    let a = Array2dLayered::from_slice(&s, (w, h, layers), &data).unwrap();
    let t = TextureDesc::new().array(&s, &a).unwrap();
    let at = |x: i64, y: i64, l: usize| data[l * w * h + y.clamp(0, h as i64 - 1) as usize * w + x.clamp(0, w as i64 - 1) as usize];
    for dx in [0.75f32, 0.25] {
        let got = read_back(&s, data.len(), |out| k::gather_layer::launch(&s, all(data.len()), &t, out, w as u32, h as u32, dx));
        for (n, g) in got.iter().enumerate() {
            let (x, y, l) = (n % w, n / w % h, n / (w * h));
            // i = floor(x + dx - 0.5), j = floor(y + 0.75 - 0.5) = y.
            let i = (x as f32 + dx - 0.5).floor() as i64;
            let j = y as i64;
            let want = f32x4::new(at(i, j + 1, l), at(i + 1, j + 1, l), at(i + 1, j, l), at(i, j, l));
            assert_eq!(*g, want, "thread {n} (dx {dx})");
        }
    }
}
