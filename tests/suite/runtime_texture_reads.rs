//! Kernels reading textures and writing surfaces made through the runtime, executed on the GPU
//! where there is one and on the CPU backend otherwise: point reads at texel centres return the texels of every resource kind and shape
//! (bit for bit), normalized-float reads return `v / 255`, surface writes are what the host and
//! a texture over the same array read back, and a dropped object is no longer live. All the
//! kernels go through ptxas.

use crate::texture_fixture::k::{fetch1d, read2d};
use crate::texture_fixture::{all, assemble_each, read_back, stream};
use ptx_runtime::texture::*;
use ptx_runtime::{Device, DeviceBuffer, LaunchConfig};

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::*;

    #[kernel]
    pub fn read3d(t: Texture3d<f32>, out: &mut [f32], w: u32, h: u32) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            let (x, y, z) = (i % w, i / w % h, i / (w * h));
            out[i as usize] = tex3d(t, x as f32 + 0.5, y as f32 + 0.5, z as f32 + 0.5);
        }
    }

    #[kernel]
    pub fn read_layers(t: Texture2dLayered<f32>, out: &mut [f32], w: u32, h: u32) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            let (x, y, layer) = (i % w, i / w % h, i / (w * h));
            out[i as usize] = tex2d_layered(t, x as f32 + 0.5, y as f32 + 0.5, layer as i32);
        }
    }

    /// Writes `x * 100 + y` to every texel of a `w × h` surface.
    #[kernel]
    pub fn fill(s: Surface2d<u32>, w: u32, h: u32) {
        let (x, y) = (thread_idx_x(), thread_idx_y());
        if x < w && y < h {
            surf2d_write(x * 100 + y, s, (x * 4) as i32, y as i32, Boundary::Trap);
        }
    }
}

#[test]
fn the_kernels_assemble() {
    assemble_each(&[("rt_tex_read3d", k::read3d::PTX), ("rt_tex_read_layers", k::read_layers::PTX), ("rt_tex_fill", k::fill::PTX)]);
}

#[test]
fn point_reads_return_the_texels() {
    let s = stream();
    let (w, h) = (7usize, 5usize);
    let data: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.75 - 3.0).collect();
    let read = |t: &TextureObject<'_, Texture2d<f32>>| read_back(&s, w * h, |out| read2d::launch::<f32>(&s, all(w * h), t, out, w as u32));

    let array = Array2d::from_slice(&s, (w, h), &data).unwrap();
    assert_eq!(read(&TextureDesc::new().array(&s, &array).unwrap()), data, "2-D array");

    let pitched = PitchedBuffer::from_slice(&s, w, h, &data).unwrap();
    assert_eq!(read(&TextureDesc::new().pitched(&s, &pitched).unwrap()), data, "pitched buffer");

    let ints: Vec<i32> = (0..40).map(|i| i * 1_000_003 - 7).collect();
    let lin = DeviceBuffer::from_slice(&s, &ints).unwrap();
    let t = TextureDesc::new().linear(&s, &lin).unwrap();
    assert_eq!(read_back(&s, ints.len(), |out| fetch1d::launch::<i32>(&s, all(ints.len()), &t, out)), ints, "linear buffer");

    let (d, layers) = (3usize, 2usize);
    let vol: Vec<f32> = (0..w * h * d).map(|i| i as f32 / 8.0).collect();
    let a3 = Array3d::from_slice(&s, (w, h, d), &vol).unwrap();
    let t3 = TextureDesc::new().array(&s, &a3).unwrap();
    assert_eq!(read_back(&s, vol.len(), |out| k::read3d::launch(&s, all(vol.len()), &t3, out, w as u32, h as u32)), vol, "3-D array");

    let stack: Vec<f32> = (0..w * h * layers).map(|i| -(i as f32)).collect();
    let l2 = Array2dLayered::from_slice(&s, (w, h, layers), &stack).unwrap();
    let tl = TextureDesc::new().array(&s, &l2).unwrap();
    assert_eq!(read_back(&s, stack.len(), |out| k::read_layers::launch(&s, all(stack.len()), &tl, out, w as u32, h as u32)), stack, "layered 2-D array");
}

/// `u8` texels read as integers are the values, read as normalized floats `v / 255`
/// (`cudaReadModeNormalizedFloat`).
#[test]
fn bytes_read_as_integers_and_as_normalized_floats() {
    let s = stream();
    let (w, h) = (16usize, 16usize);
    let bytes: Vec<u8> = (0..=255).collect();
    let a = Array2d::from_slice(&s, (w, h), &bytes).unwrap();
    let t = TextureDesc::new().array(&s, &a).unwrap();
    let ints = read_back(&s, 256, |out| read2d::launch::<u32>(&s, all(256), &t, out, w as u32));
    assert_eq!(ints, (0..256).collect::<Vec<u32>>());
    let t = TextureDesc::new().normalized_float().array(&s, &a).unwrap();
    let got = read_back(&s, 256, |out| read2d::launch::<f32>(&s, all(256), &t, out, w as u32));
    for (v, g) in got.iter().enumerate() {
        assert_eq!(*g, v as f32 / 255.0, "texel {v}");
    }
}

/// What a kernel writes through a surface is what the host copies out of the array, and what a
/// texture over the same array reads.
#[test]
fn surface_writes_are_read_back() {
    let s = stream();
    let (w, h) = (6usize, 4usize);
    let a = Array2d::<u32>::new_surface_ldst(&s, (w, h)).unwrap();
    let su = surface(&s, &a).unwrap();
    k::fill::launch(&s, LaunchConfig::new(1, (w as u32, h as u32, 1)), &su, w as u32, h as u32).unwrap();
    let want: Vec<u32> = (0..w * h).map(|i| (i % w * 100 + i / w) as u32).collect();
    assert_eq!(a.to_vec().unwrap(), want);
    let t = TextureDesc::new().array(&s, &a).unwrap();
    assert_eq!(read_back(&s, w * h, |out| read2d::launch::<u32>(&s, all(w * h), &t, out, w as u32)), want);
}

/// Dropping an object destroys it: its handle, kept past the drop, no longer reads anything.
#[test]
fn a_dropped_texture_is_gone() {
    // On the CPU backend, which reports a read of an unknown handle (a GPU reads garbage).
    let s = Device::cpu().stream();
    let a = Array2d::from_slice(&s, (2, 2), &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let t = TextureDesc::new().array(&s, &a).unwrap();
    let stale = t.handle();
    assert_eq!(read_back(&s, 4, |out| read2d::launch::<f32>(&s, all(4), stale, out, 2)), [1.0, 2.0, 3.0, 4.0]);
    drop(t);
    let mut out = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let e = read2d::launch::<f32>(&s, all(4), stale, &mut out, 2).unwrap_err();
    assert!(e.to_string().contains("handle") || e.to_string().contains("texture"), "{e}");
}
