//! Multi-channel textures and surfaces (`Texture2d<f32x4>`, `Surface2d<u8x4>`: CUDA's
//! `tex2D<float4>`, `surf2Dread<uchar4>`) and layered surfaces (`surf2DLayeredread`) against
//! nvcc: the same CUDA C compiles to `tex`, `tld4`, `suld.b` and `sust.b` instructions of the
//! same shape (`body_texture::shapes`), both modules go through ptxas, and both run on the CPU
//! backend over the same objects to the same outputs and surface bytes.

use crate::body_texture::shapes;
use crate::tools::{assemble, nvcc_ptx};

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::*;
    use ptx_runtime::vector::{f32x2, f32x4, i32x2, u8x4};

    #[kernel]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn vec(
        t4: Texture2d<f32x4>,
        t2: Texture2d<i32x2>,
        tu: Texture1d<f32x4>,
        s4: Surface2d<f32x4>,
        su: Surface2d<u8x4>,
        sl1: Surface1dLayered<f32>,
        sl2: Surface2dLayered<f32x2>,
        out: *mut f32x4,
        oi: *mut i32x2,
        x: f32,
        y: f32,
        i: i32,
    ) {
        *out = tex2d(t4, x, y);
        *oi = tex2d(t2, x, y);
        *out.add(1) = tex1d_fetch(tu, i);
        *out.add(2) = tex2d_gather(t4, x, y, 2);
        let v = surf2d_read(s4, i * 16, i, Boundary::Trap);
        surf2d_write(v, s4, i * 16, i + 1, Boundary::Trap);
        let u = surf2d_read(su, i * 4, i, Boundary::Clamp);
        surf2d_write(u, su, i * 4, i + 1, Boundary::Zero);
        let f = surf1d_layered_read(sl1, i * 4, i, Boundary::Trap);
        surf1d_layered_write(f, sl1, i * 4, i + 1, Boundary::Trap);
        let h = surf2d_layered_read(sl2, i * 8, i, i, Boundary::Trap);
        surf2d_layered_write(h, sl2, i * 8, i, i + 1, Boundary::Clamp);
        *out.add(3) = tex2d_lod(t4, x, y, 1.5);
    }
}

const CUDA: &str = r#"
extern "C" __global__ void vec(cudaTextureObject_t t4, cudaTextureObject_t t2, cudaTextureObject_t tu,
    cudaSurfaceObject_t s4, cudaSurfaceObject_t su, cudaSurfaceObject_t sl1, cudaSurfaceObject_t sl2,
    float4* out, int2* oi, float x, float y, int i) {
  out[0] = tex2D<float4>(t4, x, y);
  oi[0] = tex2D<int2>(t2, x, y);
  out[1] = tex1Dfetch<float4>(tu, i);
  out[2] = tex2Dgather<float4>(t4, x, y, 2);
  float4 v = surf2Dread<float4>(s4, i * 16, i);
  surf2Dwrite(v, s4, i * 16, i + 1);
  uchar4 u = surf2Dread<uchar4>(su, i * 4, i, cudaBoundaryModeClamp);
  surf2Dwrite(u, su, i * 4, i + 1, cudaBoundaryModeZero);
  float f = surf1DLayeredread<float>(sl1, i * 4, i);
  surf1DLayeredwrite(f, sl1, i * 4, i + 1);
  float2 h = surf2DLayeredread<float2>(sl2, i * 8, i, i);
  surf2DLayeredwrite(h, sl2, i * 8, i, i + 1, cudaBoundaryModeClamp);
  out[3] = tex2DLod<float4>(t4, x, y, 1.5f);
}
"#;

#[test]
fn vector_and_layered_instructions_match_nvcc() {
    assemble("texture_vec", k::vec::PTX);
    let ours = shapes(k::vec::PTX, None);
    if let Some(theirs) = nvcc_ptx("texture_vec_oracle", CUDA) {
        assemble("texture_vec_oracle", &theirs);
        assert_eq!(ours, shapes(&theirs, Some("vec")), "ours (left) against nvcc's (right)\n{}", k::vec::PTX);
    }
    // What was compared, spelled out for one of each new kind.
    assert_eq!(ours[0], "tex.2d.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%f, %f}];");
    assert_eq!(ours[1], "tex.2d.v4.s32.f32 {%r, %r, %r, %r}, [%rd, {%f, %f}];");
    assert_eq!(ours[6], "suld.b.2d.v4.b8.clamp {%rs, %rs, %rs, %rs}, [%rd, {%r, %r}];");
    assert_eq!(ours[9], "sust.b.a1d.b32.trap [%rd, {%r, %r}], {%r};");
    assert_eq!(ours[10], "suld.b.a2d.v2.b32.trap {%r, %r}, [%rd, {%r, %r, %r, %r}];");
}

/// Our kernel and nvcc's run on the CPU backend over the same objects: every output and every
/// surface byte equal (the multi-channel sampling itself is checked against a host reference in
/// `runtime_texture_vec`).
#[test]
fn vector_and_layered_kernels_compute_what_nvccs_twin_computes_on_the_cpu_backend() {
    use crate::cpu_harness::{arg, Harness};
    use ptx_runtime::cpu::texture::*;
    let Some(theirs) = nvcc_ptx("texture_vec_oracle_run", CUDA) else { return };
    let run = |ptx: &str, entry: &str| -> (Vec<u8>, Vec<u8>) {
        let mut h = Harness::new(ptx);
        let put = |h: &mut Harness, n: usize, f: &dyn Fn(usize) -> Vec<u8>| {
            let b: Vec<u8> = (0..n).flat_map(f).collect();
            let a = h.dev.alloc(b.len()).unwrap();
            h.dev.write(a, &b).unwrap();
            a
        };
        let fmt = |kind, bits, channels| Format { kind, bits, channels };
        // Channel c of texel k holds a value derived from both.
        let fl4 = |k: usize| (0..4).flat_map(|c| (((k * 37 + c * 11) % 23) as f32 * 0.75 - 4.0).to_le_bytes()).collect::<Vec<u8>>();
        let linear = Sampler { filter: FilterMode::Linear, address: [AddressMode::Mirror; 3], normalized_coords: true, ..Sampler::default() };
        let arr = |addr, format, geometry, surface_ldst| Array { addr, format, geometry, surface_ldst };
        let plain = |width, height| Geometry::Plain { width, height, depth: 1 };
        let a4 = put(&mut h, 20, &fl4);
        let t4 = h.dev.create_texture(Texture { resource: Resource::Array(arr(a4, fmt(ChannelKind::Float, 32, 4), plain(5, 4), false)), sampler: linear }).unwrap();
        let a2 = put(&mut h, 20, &|k| [(k as i32 * 1001 - 7000), -(k as i32)].iter().flat_map(|v| v.to_le_bytes()).collect());
        let t2 = h.dev.create_texture(Texture { resource: Resource::Array(arr(a2, fmt(ChannelKind::Signed, 32, 2), plain(5, 4), false)), sampler: Sampler::default() }).unwrap();
        let lin = put(&mut h, 8, &fl4);
        let tu = h.dev.create_texture(Texture { resource: Resource::Linear { addr: lin, format: fmt(ChannelKind::Float, 32, 4), width: 8 }, sampler: Sampler::default() }).unwrap();
        let surf = |h: &mut Harness, a| h.dev.create_surface(Surface { array: a }).unwrap();
        let as4 = put(&mut h, 16, &fl4);
        let s4 = surf(&mut h, arr(as4, fmt(ChannelKind::Float, 32, 4), plain(4, 4), true));
        let asu = put(&mut h, 16, &|k| vec![k as u8, k as u8 * 3, 200 - k as u8, 7]);
        let su = surf(&mut h, arr(asu, fmt(ChannelKind::Unsigned, 8, 4), plain(4, 4), true));
        let asl1 = put(&mut h, 12, &|k| (k as f32 * 1.5).to_le_bytes().to_vec());
        let sl1 = surf(&mut h, arr(asl1, fmt(ChannelKind::Float, 32, 1), Geometry::Layered { width: 4, height: 1, layers: 3 }, true));
        let asl2 = put(&mut h, 48, &|k| [k as f32, -(k as f32)].iter().flat_map(|v| v.to_le_bytes()).collect());
        let sl2 = surf(&mut h, arr(asl2, fmt(ChannelKind::Float, 32, 2), Geometry::Layered { width: 4, height: 4, layers: 3 }, true));
        let out = h.zeroed::<f32>(16);
        let oi = h.zeroed::<i32>(2);
        let params = [arg(t4), arg(t2), arg(tu), arg(s4), arg(su), arg(sl1), arg(sl2), out.ptr(), oi.ptr(), arg(0.3f32), arg(0.55f32), arg(1i32)];
        h.launch(entry, [1, 1, 1], [1, 1, 1], 0, &params).unwrap_or_else(|e| panic!("{entry}: {e}"));
        let read = |list: &[(u64, usize)]| {
            let mut all = Vec::new();
            for &(addr, len) in list {
                let mut b = vec![0u8; len];
                h.dev.read(addr, &mut b).unwrap();
                all.extend(b);
            }
            all
        };
        (read(&[(out.addr, 64), (oi.addr, 8)]), read(&[(as4, 256), (asu, 64), (asl1, 48), (asl2, 384)]))
    };
    let entry = k::vec::PTX.split(".entry ").nth(1).and_then(|r| r.split('(').next()).unwrap().trim();
    let (ours, ours_memory) = run(k::vec::PTX, entry);
    let (want, want_memory) = run(&theirs, "vec");
    assert_eq!(ours, want, "outputs: ours (left) against nvcc's (right)");
    assert_eq!(ours_memory, want_memory, "surface contents: ours (left) against nvcc's (right)");
    // Not vacuous: every output vector has nonzero lanes, and the surface writes changed bytes.
    assert!(ours[..64].chunks(16).all(|v| v.iter().any(|b| *b != 0)), "{ours:?}");
    assert!(ours[64..].iter().any(|b| *b != 0), "{ours:?}");
}
