//! CUDA arrays, pitched buffers, texture and surface objects made through the runtime
//! (`ptx_runtime::texture`): copies to and from every array shape round-trip, the pitched
//! layout is what a kernel addressing rows `pitch` bytes apart reads, the handle types follow
//! from the memory and the read mode, combinations CUDA refuses are `Err`s before anything is
//! made, and an object passed to a kernel must belong to the launch's device.

use crate::texture_fixture::{all, assemble_each, read_back};
use ptx_runtime::half::f16;
use ptx_runtime::texture::*;
use ptx_runtime::{Device, DeviceBuffer, Error, LaunchConfig};

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::{Surface2d, Texture2d};

    /// Copies a `w`-wide pitched image (rows `pitch_elems` elements apart) into a dense one.
    #[kernel]
    pub unsafe fn unpitch(base: *const f32, pitch_elems: u32, w: u32, out: &mut [f32]) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            let (x, y) = (i % w, i / w);
            out[i as usize] = *base.add((y * pitch_elems + x) as usize);
        }
    }

    /// Takes a texture and a surface without touching them: only the arguments are checked.
    #[kernel]
    pub fn takes_handles(_t: Texture2d<f32>, _s: Surface2d<u32>, out: &mut [u32]) {
        if thread_idx_x() == 0 {
            out[0] = 7;
        }
    }
}

/// The CPU backend: these tests are about the objects, not what a device reads.
fn stream() -> ptx_runtime::Stream {
    Device::cpu().stream()
}

fn ramp<E: Copy>(n: usize, f: impl Fn(usize) -> E) -> Vec<E> {
    (0..n).map(f).collect()
}

#[test]
fn arrays_of_every_shape_round_trip() {
    let s = stream();
    let d1 = ramp(5, |i| i as f32 * 1.5);
    assert_eq!(Array1d::from_slice(&s, 5, &d1).unwrap().to_vec().unwrap(), d1);
    let d2 = ramp(7 * 3, |i| (i * 11) as u8);
    let a2 = Array2d::from_slice(&s, (7, 3), &d2).unwrap();
    assert_eq!((a2.extent(), a2.len()), ((7, 3), 21));
    assert_eq!(a2.to_vec().unwrap(), d2);
    let d3 = ramp(3 * 2 * 4, |i| i as i16 - 12);
    assert_eq!(Array3d::from_slice(&s, (3, 2, 4), &d3).unwrap().to_vec().unwrap(), d3);
    let l1 = ramp(4 * 3, |i| (i * 1000) as u16);
    assert_eq!(Array1dLayered::from_slice(&s, (4, 3), &l1).unwrap().to_vec().unwrap(), l1);
    let l2 = ramp(2 * 3 * 2, |i| f16::from_f32(i as f32 / 4.0));
    let mut a = Array2dLayered::<f16>::new(&s, (2, 3, 2)).unwrap();
    a.copy_from_slice(&l2).unwrap();
    let mut back = vec![f16::ZERO; 12];
    a.copy_to_slice(&mut back).unwrap();
    assert_eq!(back, l2);
    let d = ramp(6, |i| i as i32 * -3);
    let mut sa = Array2d::<i32>::new_surface_ldst(&s, (3, 2)).unwrap();
    assert!(sa.surface_ldst() && !a2.surface_ldst());
    sa.copy_from_slice(&d).unwrap();
    assert_eq!(sa.to_vec().unwrap(), d);
}

#[test]
fn array_sizes_and_lengths_are_checked() {
    let s = stream();
    for e in [Array2d::<f32>::new(&s, (0, 4)).unwrap_err(), Array1dLayered::<u8>::new(&s, (4, 0)).unwrap_err()] {
        assert!(matches!(&e, Error::InvalidConfig { reason } if reason.contains("at least 1")), "{e}");
    }
    let mut a = Array2d::<u32>::new(&s, (4, 4)).unwrap();
    let e = a.copy_from_slice(&[1, 2, 3]).unwrap_err();
    assert!(e.to_string().contains("16 texels") && e.to_string().contains("3"), "{e}");
    assert!(a.copy_to_slice(&mut [0; 17]).is_err());
    assert!(PitchedBuffer::<u8>::new(&s, 4, 0).is_err());
}

/// The rows of a pitched buffer start `pitch` bytes apart in device memory: a kernel reading
/// them with that stride gets the host's rows back, and the padding is never read.
#[test]
fn pitched_rows_are_pitch_apart() {
    let s = stream();
    let (w, h) = (37, 5);
    let data = ramp(w * h, |i| i as f32 + 0.25);
    let p = PitchedBuffer::from_slice(&s, w, h, &data).unwrap();
    assert_eq!((p.width(), p.height(), p.pitch()), (w, h, PITCH_ALIGN));
    assert_eq!(p.to_vec().unwrap(), data);
    let wide = PitchedBuffer::<f32>::new(&s, 200, 2).unwrap();
    assert_eq!(wide.pitch(), 1024, "800 bytes round up to two alignments");
    let base = p.device_address() as *const f32;
    let got = read_back(&s, w * h, |out| unsafe { k::unpitch::launch(&s, all(w * h), base, (p.pitch() / 4) as u32, w as u32, out) });
    assert_eq!(got, data);
}

/// Textures over a linear buffer, a pitched buffer and every array shape: the handle types are
/// spelled out (they are what the memory and read mode give), the handles are distinct and
/// nonzero, and the objects can be made again after the first ones were dropped.
#[test]
fn textures_over_every_resource() {
    let s = stream();
    let lin = DeviceBuffer::from_slice(&s, &[1.0f32, 2.0, 3.0]).unwrap();
    let pit = PitchedBuffer::<u16>::new(&s, 9, 4).unwrap();
    let a1 = Array1d::<i8>::new(&s, 8).unwrap();
    let a2 = Array2d::<u8>::new(&s, (8, 8)).unwrap();
    let a3 = Array3d::<f32>::new(&s, (4, 4, 4)).unwrap();
    let l1 = Array1dLayered::<i32>::new(&s, (4, 2)).unwrap();
    let l2 = Array2dLayered::<f16>::new(&s, (4, 4, 3)).unwrap();
    let desc = TextureDesc::new();
    let norm = TextureDesc::new().filter(FilterMode::Linear).normalized_coords(true).address_mode(AddressMode::Wrap).normalized_float();
    for _ in 0..2 {
        let t_lin: TextureObject<Texture1d<f32>> = desc.linear(&s, &lin).unwrap();
        let t_pit: TextureObject<Texture2d<u32>> = desc.pitched(&s, &pit).unwrap();
        let t_pitn: TextureObject<Texture2d<f32>> = norm.pitched(&s, &pit).unwrap();
        let t1: TextureObject<Texture1d<i32>> = desc.array(&s, &a1).unwrap();
        let t1n: TextureObject<Texture1d<f32>> = norm.array(&s, &a1).unwrap();
        let t2: TextureObject<Texture2d<u32>> = desc.array(&s, &a2).unwrap();
        let t2n: TextureObject<Texture2d<f32>> = norm.srgb(true).border_color([1.0, 0.0, 0.0, 1.0]).array(&s, &a2).unwrap();
        let t3: TextureObject<Texture3d<f32>> = desc.filter(FilterMode::Linear).array(&s, &a3).unwrap();
        let tl1: TextureObject<Texture1dLayered<i32>> = desc.array(&s, &l1).unwrap();
        let tl2: TextureObject<Texture2dLayered<f32>> = desc.filter(FilterMode::Linear).array(&s, &l2).unwrap();
        let mut raw = vec![
            t_lin.handle().raw(),
            t_pit.handle().raw(),
            t_pitn.handle().raw(),
            t1.handle().raw(),
            t1n.handle().raw(),
            t2.handle().raw(),
            t2n.handle().raw(),
            t3.handle().raw(),
            tl1.handle().raw(),
            tl2.handle().raw(),
        ];
        assert!(raw.iter().all(|&h| h != 0), "{raw:?}");
        raw.sort_unstable();
        raw.dedup();
        assert_eq!(raw.len(), 10, "every object has its own handle");
        assert!(format!("{t2n:?}").starts_with("TextureObject(Texture2d<f32>(0x"), "{t2n:?}");
    }
}

#[test]
fn surfaces_need_surface_load_store_arrays() {
    let s = stream();
    let plain = Array2d::<u32>::new(&s, (4, 4)).unwrap();
    let e = surface(&s, &plain).unwrap_err();
    assert!(e.to_string().contains("new_surface_ldst"), "{e}");
    let a1 = Array1d::<u8>::new_surface_ldst(&s, 16).unwrap();
    let a2 = Array2d::<u32>::new_surface_ldst(&s, (4, 4)).unwrap();
    let a3 = Array3d::<f32>::new_surface_ldst(&s, (2, 2, 2)).unwrap();
    let s1: SurfaceObject<Surface1d<u8>> = surface(&s, &a1).unwrap();
    let s2: SurfaceObject<Surface2d<u32>> = SurfaceObject::<Surface2d<u32>>::new(&s, &a2).unwrap();
    let s3: SurfaceObject<Surface3d<f32>> = surface(&s, &a3).unwrap();
    // A texture over the same array as a surface: both read it.
    let t2: TextureObject<Texture2d<u32>> = TextureDesc::new().array(&s, &a2).unwrap();
    let handles = [s1.handle().raw(), s2.handle().raw(), s3.handle().raw(), t2.handle().raw()];
    assert!(handles.iter().all(|&h| h != 0) && handles.windows(2).all(|w| w[0] != w[1]), "{handles:?}");
}

/// Linear filtering returns floats: texels read as integers cannot be filtered (CUDA's
/// `cudaErrorInvalidValue`), and the error says what to write instead.
#[test]
fn filtering_integers_read_as_integers_is_an_error() {
    let s = stream();
    let a = Array2d::<u8>::new(&s, (4, 4)).unwrap();
    let e = TextureDesc::new().filter(FilterMode::Linear).array(&s, &a).unwrap_err();
    assert!(matches!(&e, Error::InvalidConfig { reason } if reason.contains("normalized_float") && reason.contains("FilterMode::Point")), "{e}");
    let b = DeviceBuffer::from_slice(&s, &[1i32, 2]).unwrap();
    assert!(TextureDesc::new().filter(FilterMode::Linear).linear(&s, &b).is_err());
    // Floats filter; integers read as normalized floats filter.
    TextureDesc::new().filter(FilterMode::Linear).normalized_float().array(&s, &a).unwrap();
    assert!(TextureDesc::new().linear(&s, &DeviceBuffer::<f32>::zeroed(&s, 0).unwrap()).is_err(), "no texture over nothing");
}

/// Memory and objects belong to one device: a texture over another CPU device's array, or an
/// object passed to a launch on another device, is refused.
#[test]
fn objects_stay_on_their_device() {
    let s = stream();
    let other = Device::new_cpu().stream();
    let foreign = Array2d::<f32>::new_surface_ldst(&other, (2, 2)).unwrap();
    assert!(TextureDesc::new().array(&s, &foreign).is_err());
    assert!(surface(&s, &foreign).is_err());
    let buf = DeviceBuffer::<f32>::zeroed(&other, 4).unwrap();
    assert!(TextureDesc::new().linear(&s, &buf).is_err());

    let t = TextureDesc::new().array(&other, &foreign).unwrap();
    let sa = Array2d::<u32>::new_surface_ldst(&other, (2, 2)).unwrap();
    let su = surface(&other, &sa).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(&s, 1).unwrap();
    let e = k::takes_handles::launch(&s, LaunchConfig::new(1, 1), &t, &su, &mut out).unwrap_err();
    assert!(e.to_string().contains("another device"), "{e}");

    // On their own device they pass, as references or as the handles.
    let mut out = DeviceBuffer::<u32>::zeroed(&other, 1).unwrap();
    k::takes_handles::launch(&other, LaunchConfig::new(1, 1), &t, &su, &mut out).unwrap();
    k::takes_handles::launch(&other, LaunchConfig::new(1, 1), t.handle(), su.handle(), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [7]);
}

#[test]
fn the_kernels_assemble() {
    assemble_each(&[("rt_tex_unpitch", k::unpitch::PTX), ("rt_tex_takes_handles", k::takes_handles::PTX)]);
}
