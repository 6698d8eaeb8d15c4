//! Mipmapped arrays and cube maps made through the runtime and read by kernels, on the GPU where
//! `PTX_DEVICE` selects one and on the CPU backend otherwise: each level uploads and reads back;
//! `tex2d_lod` at a level's texel centres returns that level's texels (point between levels,
//! with the bias and the clamps moving the level); a linear blend between levels and the level
//! `tex2d_grad` picks from its gradients' length; `tex_cubemap` reads the texel a direction
//! points at on each face (the directions made here with the inverse of the programming guide's
//! table), in a layered cube map too, and a mipmapped one's levels. All kernels go through ptxas.

use crate::texture_fixture::{all, assemble_each, read_back, stream};
use ptx_runtime::texture::*;
use ptx_runtime::DeviceBuffer;

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::*;
    use ptx_runtime::vector::f32x2;

    /// One thread per texel of a `w × h` level: its centre in normalized coordinates, at `lod`.
    #[kernel]
    pub fn read_lod(t: Texture2d<f32>, out: &mut [f32], w: u32, h: u32, lod: f32) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            let (x, y) = ((i % w) as f32 + 0.5, (i / w) as f32 + 0.5);
            out[i as usize] = tex2d_lod(t, x / w as f32, y / h as f32, lod);
        }
    }

    /// `tex2d_grad` at the centre with gradients `(g, 0)` and `(0, g)`, one thread per `g`.
    #[kernel]
    pub fn read_grad(t: Texture2d<f32>, gs: &[f32], out: &mut [f32]) {
        let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
        if i < out.len() {
            let g = gs[i];
            out[i] = tex2d_grad(t, 0.5, 0.5, f32x2::new(g, 0.0), f32x2::new(0.0, g));
        }
    }

    /// `tex_cubemap` in the directions `d` (x, y, z one after another), at `lod`.
    #[kernel]
    pub fn read_cube(t: TextureCubemap<f32>, d: &[f32], out: &mut [f32], lod: f32) {
        let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
        if i < out.len() {
            out[i] = tex_cubemap_lod(t, d[3 * i], d[3 * i + 1], d[3 * i + 2], lod);
        }
    }

    #[kernel]
    pub fn read_cube_plain(t: TextureCubemap<f32>, d: &[f32], out: &mut [f32]) {
        let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
        if i < out.len() {
            out[i] = tex_cubemap(t, d[3 * i], d[3 * i + 1], d[3 * i + 2]);
        }
    }

    #[kernel]
    pub fn read_cube_layered(t: TextureCubemapLayered<f32>, d: &[f32], out: &mut [f32], cube: i32) {
        let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
        if i < out.len() {
            out[i] = tex_cubemap_layered(t, d[3 * i], d[3 * i + 1], d[3 * i + 2], cube);
        }
    }
}

#[test]
fn the_kernels_assemble() {
    assemble_each(&[
        ("rt_mip_read_lod", k::read_lod::PTX),
        ("rt_mip_read_grad", k::read_grad::PTX),
        ("rt_mip_read_cube", k::read_cube::PTX),
        ("rt_mip_read_cube_plain", k::read_cube_plain::PTX),
        ("rt_mip_read_cube_layered", k::read_cube_layered::PTX),
    ]);
}

/// Level `l` of an `8 × 4` pyramid: texel `i` holds `100 l + i`.
fn pyramid(s: &ptx_runtime::Stream) -> (MipmappedArray<f32, Dim2>, Vec<Vec<f32>>) {
    let mut m = MipmappedArray::<f32, Dim2>::with_all_levels(s, (8, 4)).unwrap();
    let mut levels = Vec::new();
    for l in 0..m.levels() {
        let data: Vec<f32> = (0..m.level_len(l).unwrap()).map(|i| 100.0 * l as f32 + i as f32).collect();
        m.copy_level_from_slice(l, &data).unwrap();
        levels.push(data);
    }
    (m, levels)
}

#[test]
fn levels_halve_upload_and_read_back() {
    let s = stream();
    let (m, levels) = pyramid(&s);
    assert_eq!(m.levels(), 4);
    let extents: Vec<_> = (0..4).map(|l| m.level_extent(l).unwrap()).collect();
    assert_eq!(extents, [(8, 4, 1), (4, 2, 1), (2, 1, 1), (1, 1, 1)]);
    for (l, data) in levels.iter().enumerate() {
        assert_eq!(&m.level_to_vec(l as u32).unwrap(), data, "level {l}");
    }
    assert!(m.level_to_vec(4).is_err(), "past the last level");
    let mut m = m;
    assert!(m.copy_level_from_slice(1, &[0.0; 7]).is_err(), "a slice of the wrong length");
    assert!(MipmappedArray::<f32, Dim2>::new(&s, (8, 4), 5).is_err(), "more levels than halving gives");
    assert!(MipmappedArray::<f32, Dim2>::new(&s, (8, 4), 0).is_err(), "no levels");
    assert!(MipmappedArray::<f32, Dim2>::new(&s, (0, 4), 1).is_err(), "an empty extent");
    // Integers read as integers cannot be blended between levels, as CUDA refuses.
    let ints = MipmappedArray::<u32, Dim2>::new(&s, (4, 4), 2).unwrap();
    assert!(TextureDesc::new().mipmap_filter(FilterMode::Linear).mipmapped(&s, &ints).is_err());
    assert!(TextureDesc::new().mipmapped(&s, &ints).is_ok());
}

/// Reads every texel of level `l`'s grid through `tex2d_lod(.., lod)`.
fn read_level(s: &ptx_runtime::Stream, t: &TextureObject<'_, Texture2d<f32>>, (w, h): (usize, usize), lod: f32) -> Vec<f32> {
    read_back(s, w * h, |out| k::read_lod::launch(s, all(w * h), t, out, w as u32, h as u32, lod))
}

#[test]
fn explicit_levels_read_their_texels() {
    let s = stream();
    let (m, levels) = pyramid(&s);
    let sizes = [(8, 4), (4, 2), (2, 1), (1, 1)];
    let t = TextureDesc::new().normalized_coords(true).mipmapped(&s, &m).unwrap();
    for l in 0..4 {
        assert_eq!(read_level(&s, &t, sizes[l], l as f32), levels[l], "level {l}");
        // The nearest level: 0.4 above still reads l.
        assert_eq!(read_level(&s, &t, sizes[l], l as f32 + 0.4), levels[l], "level {l} + 0.4");
    }
    // A level of detail past the last reads the last; below 0 reads level 0.
    assert_eq!(read_level(&s, &t, sizes[3], 9.0), levels[3]);
    assert_eq!(read_level(&s, &t, sizes[0], -2.0), levels[0]);
    // The bias moves every read one level up; the clamps hold them in [1, 2].
    let biased = TextureDesc::new().normalized_coords(true).mipmap_level_bias(1.0).mipmapped(&s, &m).unwrap();
    assert_eq!(read_level(&s, &biased, sizes[2], 1.0), levels[2]);
    let clamped = TextureDesc::new().normalized_coords(true).mipmap_level_clamp(1.0, 2.0).mipmapped(&s, &m).unwrap();
    assert_eq!(read_level(&s, &clamped, sizes[1], 0.0), levels[1]);
    assert_eq!(read_level(&s, &clamped, sizes[2], 3.0), levels[2]);
}

/// Levels of one value each (`10 (l + 1)`): a linear mipmap filter blends the two levels
/// around λ by its fraction (within the 9-bit weights' 1/256, of a difference of 10), and
/// `tex2d_grad` with gradients of `2^k` level-0 texels reads level `k`.
#[test]
fn linear_between_levels_and_gradients() {
    let s = stream();
    let mut m = MipmappedArray::<f32, Dim2>::with_all_levels(&s, (16, 16)).unwrap();
    for l in 0..m.levels() {
        let n = m.level_len(l).unwrap();
        m.copy_level_from_slice(l, &vec![10.0 * (l + 1) as f32; n]).unwrap();
    }
    let t = TextureDesc::new().normalized_coords(true).filter(FilterMode::Linear).mipmap_filter(FilterMode::Linear).mipmapped(&s, &m).unwrap();
    for (lod, want) in [(0.0f32, 10.0f32), (1.25, 22.5), (2.5, 35.0), (3.75, 47.5), (4.0, 50.0), (6.0, 50.0)] {
        let got = read_level(&s, &t, (2, 2), lod);
        for g in got {
            assert!((g - want).abs() <= 10.0 / 256.0 + 1e-4, "λ {lod}: {g}, want {want}");
        }
    }
    let point = TextureDesc::new().normalized_coords(true).mipmapped(&s, &m).unwrap();
    let gs: Vec<f32> = (0..5).map(|k| (1u32 << k) as f32 / 16.0).collect();
    let g = DeviceBuffer::from_slice(&s, &gs).unwrap();
    assert_eq!(read_back(&s, gs.len(), |out| k::read_grad::launch(&s, all(gs.len()), &point, &g, out)), [10.0, 20.0, 30.0, 40.0, 50.0]);
}

/// The direction to the centre of texel `(i, j)` of face `f` of a cube map `w` wide: the
/// inverse of the guide's table (`s = (sc / m + 1) / 2` with the face's `sc`, `tc`, `m`).
fn direction(f: usize, i: usize, j: usize, w: usize) -> [f32; 3] {
    let s = 2.0 * (i as f32 + 0.5) / w as f32 - 1.0;
    let t = 2.0 * (j as f32 + 0.5) / w as f32 - 1.0;
    match f {
        0 => [1.0, -t, -s],
        1 => [-1.0, -t, s],
        2 => [s, 1.0, t],
        3 => [s, -1.0, -t],
        4 => [s, -t, 1.0],
        _ => [-s, -t, -1.0],
    }
}

/// Every texel centre of every face, as directions, and the texel index each one reads.
fn every_texel(w: usize) -> (Vec<f32>, Vec<usize>) {
    let (mut d, mut idx) = (Vec::new(), Vec::new());
    for f in 0..6 {
        for j in 0..w {
            for i in 0..w {
                d.extend(direction(f, i, j, w));
                idx.push((f * w + j) * w + i);
            }
        }
    }
    (d, idx)
}

#[test]
fn cube_maps_read_the_texel_each_direction_points_at() {
    let s = stream();
    let w = 4;
    let faces: Vec<f32> = (0..6 * w * w).map(|i| (i / (w * w)) as f32 * 100.0 + (i % (w * w)) as f32).collect();
    let cube = ArrayCubemap::from_slice(&s, w, &faces).unwrap();
    assert_eq!(cube.to_vec().unwrap(), faces);
    let t = TextureDesc::new().normalized_coords(true).array(&s, &cube).unwrap();
    let (d, idx) = every_texel(w);
    let dirs = DeviceBuffer::from_slice(&s, &d).unwrap();
    let n = idx.len();
    let want: Vec<f32> = idx.iter().map(|&i| faces[i]).collect();
    assert_eq!(read_back(&s, n, |out| k::read_cube_plain::launch(&s, all(n), &t, &dirs, out)), want, "a cube map");

    // A layered one: cube 1 of 2 (its faces hold 1000 more).
    let stack: Vec<f32> = (0..2).flat_map(|c| faces.iter().map(move |v| v + 1000.0 * c as f32)).collect();
    let layered = ArrayCubemapLayered::from_slice(&s, (w, 2), &stack).unwrap();
    let tl = TextureDesc::new().normalized_coords(true).array(&s, &layered).unwrap();
    let want1: Vec<f32> = want.iter().map(|v| v + 1000.0).collect();
    assert_eq!(read_back(&s, n, |out| k::read_cube_layered::launch(&s, all(n), &tl, &dirs, out, 1)), want1, "cube 1 of a layered cube map");

    // A mipmapped cube map: level 1 (2 × 2 faces) read at its texel centres.
    let mut mc = MipmappedArray::<f32, Cubemap>::with_all_levels(&s, w).unwrap();
    assert_eq!(mc.levels(), 3);
    assert_eq!(mc.level_extent(1).unwrap(), (2, 2, 6));
    mc.copy_level_from_slice(0, &faces).unwrap();
    let small: Vec<f32> = (0..6 * 4).map(|i| -(i as f32) - 1.0).collect();
    mc.copy_level_from_slice(1, &small).unwrap();
    mc.copy_level_from_slice(2, &[7.0; 6]).unwrap();
    let tm = TextureDesc::new().normalized_coords(true).mipmapped(&s, &mc).unwrap();
    let (d1, idx1) = every_texel(2);
    let dirs1 = DeviceBuffer::from_slice(&s, &d1).unwrap();
    let cube_level = |lod: f32| read_back(&s, idx1.len(), |out| k::read_cube::launch(&s, all(idx1.len()), &tm, &dirs1, out, lod));
    assert_eq!(cube_level(1.0), idx1.iter().map(|&i| small[i]).collect::<Vec<_>>(), "level 1 of a mipmapped cube map");
    assert_eq!(cube_level(2.0), vec![7.0; idx1.len()], "level 2");
}
