//! Level-of-detail and cube-map reads (`tex1d_grad`, `tex3d_grad`, the layered `_lod`/`_grad`
//! forms, `tex_cubemap`, `tex_cubemap_lod`, `tex_cubemap_grad`, `tex_cubemap_layered`,
//! `tex_cubemap_layered_lod`) against nvcc: the same reads in CUDA C (`tex1DGrad<float>`,
//! `texCubemap<float>`, ...) compile to `tex.level`, `tex.grad`, `tex.cube` and `tex.acube`
//! instructions of the same shape (`body_texture::shapes`: every modifier, the coordinate and
//! gradient vectors lane for lane), both modules go through ptxas, and both run on the CPU
//! backend over the same mipmapped and cube-map objects to the same outputs.

use crate::body_texture::shapes;
use crate::tools::{assemble, nvcc_ptx};

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::*;
    use ptx_runtime::vector::{f32x2, f32x4, u32x4};

    #[kernel]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn mips(
        t1: Texture1d<f32>,
        t2: Texture2d<f32>,
        t3: Texture3d<f32>,
        tl1: Texture1dLayered<f32>,
        tl2: Texture2dLayered<f32>,
        tc: TextureCubemap<f32>,
        tcl: TextureCubemapLayered<f32>,
        out: *mut f32,
        x: f32,
        y: f32,
        z: f32,
        i: i32,
        lod: f32,
        a: f32,
        b: f32,
    ) {
        *out = tex1d_lod(t1, x, lod);
        *out.add(1) = tex1d_grad(t1, x, a, b);
        *out.add(2) = tex2d_lod(t2, x, y, lod);
        *out.add(3) = tex2d_grad(t2, x, y, f32x2::new(a, b), f32x2::new(b, a));
        *out.add(4) = tex3d_lod(t3, x, y, z, lod);
        *out.add(5) = tex3d_grad(t3, x, y, z, f32x4::new(a, b, a, 0.0), f32x4::new(b, a, b, 0.0));
        *out.add(6) = tex1d_layered_lod(tl1, x, i, lod);
        *out.add(7) = tex2d_layered_lod(tl2, x, y, i, lod);
        *out.add(8) = tex1d_layered_grad(tl1, x, i, a, b);
        *out.add(9) = tex2d_layered_grad(tl2, x, y, i, f32x2::new(a, b), f32x2::new(b, a));
        *out.add(10) = tex_cubemap(tc, x, y, z);
        *out.add(11) = tex_cubemap_lod(tc, x, y, z, lod);
        *out.add(12) = tex_cubemap_grad(tc, x, y, z, f32x4::new(a, b, a, 0.0), f32x4::new(b, a, b, 0.0));
        *out.add(13) = tex_cubemap_layered(tcl, x, y, z, i);
        *out.add(14) = tex_cubemap_layered_lod(tcl, x, y, z, i, lod);
    }

    #[kernel]
    pub unsafe fn cube_vec(tc: TextureCubemap<f32x4>, tu: TextureCubemap<u32x4>, ti: Texture2d<i32>, out: *mut f32x4, ou: *mut u32x4, oi: *mut i32, x: f32, y: f32, z: f32, lod: f32) {
        *out = tex_cubemap(tc, x, y, z);
        *ou = tex_cubemap_lod(tu, x, y, z, lod);
        *oi = tex2d_lod(ti, x, y, lod);
    }
}

const CUDA: &str = r#"
extern "C" __global__ void mips(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3, cudaTextureObject_t tl1,
    cudaTextureObject_t tl2, cudaTextureObject_t tc, cudaTextureObject_t tcl, float* out, float x, float y, float z, int i,
    float lod, float a, float b) {
  out[0] = tex1DLod<float>(t1, x, lod);
  out[1] = tex1DGrad<float>(t1, x, a, b);
  out[2] = tex2DLod<float>(t2, x, y, lod);
  out[3] = tex2DGrad<float>(t2, x, y, make_float2(a, b), make_float2(b, a));
  out[4] = tex3DLod<float>(t3, x, y, z, lod);
  out[5] = tex3DGrad<float>(t3, x, y, z, make_float4(a, b, a, 0.0f), make_float4(b, a, b, 0.0f));
  out[6] = tex1DLayeredLod<float>(tl1, x, i, lod);
  out[7] = tex2DLayeredLod<float>(tl2, x, y, i, lod);
  out[8] = tex1DLayeredGrad<float>(tl1, x, i, a, b);
  out[9] = tex2DLayeredGrad<float>(tl2, x, y, i, make_float2(a, b), make_float2(b, a));
  out[10] = texCubemap<float>(tc, x, y, z);
  out[11] = texCubemapLod<float>(tc, x, y, z, lod);
  out[12] = texCubemapGrad<float>(tc, x, y, z, make_float4(a, b, a, 0.0f), make_float4(b, a, b, 0.0f));
  out[13] = texCubemapLayered<float>(tcl, x, y, z, i);
  out[14] = texCubemapLayeredLod<float>(tcl, x, y, z, i, lod);
}
extern "C" __global__ void cube_vec(cudaTextureObject_t tc, cudaTextureObject_t tu, cudaTextureObject_t ti, float4* out, uint4* ou, int* oi,
    float x, float y, float z, float lod) {
  out[0] = texCubemap<float4>(tc, x, y, z);
  ou[0] = texCubemapLod<uint4>(tu, x, y, z, lod);
  oi[0] = tex2DLod<int>(ti, x, y, lod);
}
"#;

#[test]
fn lod_grad_and_cube_instructions_match_nvcc() {
    for (name, ptx) in [("mips", k::mips::PTX), ("cube_vec", k::cube_vec::PTX)] {
        assemble(&format!("texture_mip_{name}"), ptx);
        let ours = shapes(ptx, None);
        assert!(!ours.is_empty(), "{name}: no texture instructions in\n{ptx}");
        if let Some(theirs) = nvcc_ptx(&format!("texture_mip_oracle_{name}"), CUDA) {
            assemble(&format!("texture_mip_oracle_{name}"), &theirs);
            assert_eq!(ours, shapes(&theirs, Some(name)), "{name}: ours (left) against nvcc's (right)\n{ptx}");
        }
    }
    // What was compared, spelled out for the new forms.
    let m = shapes(k::mips::PTX, None);
    assert_eq!(m[1], "tex.grad.1d.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%f}], {%f}, {%f};");
    assert_eq!(m[5], "tex.grad.3d.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%f, %f, %f, %f}], {%f, %f, %f, %f}, {%f, %f, %f, %f};");
    assert_eq!(m[10], "tex.cube.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%f, %f, %f, %f}];");
    assert_eq!(m[14], "tex.level.acube.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%r, %f, %f, %f}], %f;");
}

/// The macro kernels compute what nvcc's twins compute on the CPU backend, over mipmapped
/// textures (a linear filter within and between levels, a bias) and cube maps: every output
/// compared bit for bit, and the outputs not all from one level.
#[test]
fn macro_kernels_compute_what_nvccs_twins_compute_on_the_cpu_backend() {
    use crate::cpu_harness::{arg, Harness};
    use ptx_runtime::cpu::texture::*;
    let Some(theirs) = nvcc_ptx("texture_mip_oracle_run", CUDA) else { return };
    let run = |mips_ptx: &str, vec_ptx: &str, [mips, cube_vec]: [&str; 2]| -> Vec<u8> {
        let mut h = Harness::new(mips_ptx);
        let vec_module = h.dev.load_module(vec_ptx).unwrap();
        let f32x1 = Format { kind: ChannelKind::Float, bits: 32, channels: 1 };
        // A mipmapped resource whose level l holds 100 l + (texel index mod 13) / 4.
        let mip = |h: &mut Harness, format: Format, geometry: Geometry, levels: u32| {
            let m = Mipmapped { addr: 0, format, geometry, levels };
            let mut bytes = Vec::new();
            for l in 0..levels {
                let a = m.level(l);
                let n = (a.bytes() / format.bytes()) as usize;
                for k in 0..n {
                    let v = 100.0 * l as f32 + (k % 13) as f32 / 4.0;
                    for c in 0..format.channels {
                        match format.kind {
                            ChannelKind::Float => bytes.extend((v + c as f32).to_le_bytes()),
                            _ => bytes.extend((v as u32 + c).to_le_bytes()),
                        }
                    }
                }
            }
            let addr = h.dev.alloc(bytes.len()).unwrap();
            h.dev.write(addr, &bytes).unwrap();
            Resource::Mipmapped(Mipmapped { addr, ..m })
        };
        let s = Sampler { filter: FilterMode::Linear, mipmap_filter: FilterMode::Linear, mipmap_level_bias: 0.25, normalized_coords: true, ..Sampler::default() };
        let tex = |h: &mut Harness, resource, sampler| h.dev.create_texture(Texture { resource, sampler }).unwrap();
        let plain = |w, hh, d| Geometry::Plain { width: w, height: hh, depth: d };
        let r1 = mip(&mut h, f32x1, plain(32, 1, 1), 6);
        let t1 = tex(&mut h, r1, s);
        let r2 = mip(&mut h, f32x1, plain(16, 8, 1), 5);
        let t2 = tex(&mut h, r2, s);
        let r3 = mip(&mut h, f32x1, plain(8, 8, 4), 4);
        let t3 = tex(&mut h, r3, s);
        let rl1 = mip(&mut h, f32x1, Geometry::Layered { width: 16, height: 1, layers: 3 }, 5);
        let tl1 = tex(&mut h, rl1, s);
        let rl2 = mip(&mut h, f32x1, Geometry::Layered { width: 8, height: 8, layers: 3 }, 4);
        let tl2 = tex(&mut h, rl2, s);
        let rc = mip(&mut h, f32x1, Geometry::Layered { width: 8, height: 8, layers: 6 }, 4);
        let tc = tex(&mut h, rc, s);
        let rcl = mip(&mut h, f32x1, Geometry::Layered { width: 8, height: 8, layers: 12 }, 4);
        let tcl = tex(&mut h, rcl, s);
        let out = h.zeroed::<f32>(15);
        let params = [arg(t1), arg(t2), arg(t3), arg(tl1), arg(tl2), arg(tc), arg(tcl), out.ptr(), arg(0.3f32), arg(-0.55f32), arg(0.8f32), arg(1i32), arg(1.3f32), arg(0.05f32), arg(0.125f32)];
        h.launch(mips, [1, 1, 1], [1, 1, 1], 0, &params).unwrap_or_else(|e| panic!("mips: {e}"));
        let f32x4 = Format { kind: ChannelKind::Float, bits: 32, channels: 4 };
        let u32x4 = Format { kind: ChannelKind::Unsigned, bits: 32, channels: 4 };
        let rcv = mip(&mut h, f32x4, Geometry::Layered { width: 4, height: 4, layers: 6 }, 3);
        let tcv = tex(&mut h, rcv, s);
        let point = Sampler { normalized_coords: true, ..Sampler::default() };
        let rcu = mip(&mut h, u32x4, Geometry::Layered { width: 4, height: 4, layers: 6 }, 3);
        let tcu = tex(&mut h, rcu, point);
        let ri = mip(&mut h, Format { kind: ChannelKind::Signed, bits: 32, channels: 1 }, plain(8, 4, 1), 4);
        let ti = tex(&mut h, ri, point);
        let (ov, ou, oi) = (h.zeroed::<f32>(4), h.zeroed::<u32>(4), h.zeroed::<i32>(1));
        let params = [arg(tcv), arg(tcu), arg(ti), ov.ptr(), ou.ptr(), oi.ptr(), arg(-0.4f32), arg(0.9f32), arg(0.2f32), arg(1.7f32)];
        let params: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
        h.dev.launch(&vec_module, cube_vec, [1, 1, 1], [1, 1, 1], 0, &params).unwrap_or_else(|e| panic!("cube_vec: {e}"));
        let mut all = Vec::new();
        for (addr, len) in [(out.addr, 60), (ov.addr, 16), (ou.addr, 16), (oi.addr, 4)] {
            let mut b = vec![0u8; len];
            h.dev.read(addr, &mut b).unwrap();
            all.extend(b);
        }
        all
    };
    let entry = |ptx: &'static str| ptx.split(".entry ").nth(1).and_then(|r| r.split('(').next()).unwrap().trim();
    let ours = run(k::mips::PTX, k::cube_vec::PTX, [entry(k::mips::PTX), entry(k::cube_vec::PTX)]);
    let want = run(&theirs, &theirs, ["mips", "cube_vec"]);
    assert_eq!(ours, want, "outputs: ours (left) against nvcc's (right)");
    // Not vacuous: the reads come from more than one level (hundreds differ).
    let levels: Vec<u32> = ours[..60].chunks(4).map(|b| (f32::from_le_bytes(b.try_into().unwrap()) / 100.0) as u32).collect();
    assert!(levels.iter().any(|l| *l != levels[0]) && levels.iter().all(|l| *l < 6), "{levels:?}");
}
