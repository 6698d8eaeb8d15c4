//! Texture reads and surface accesses (`ptx_runtime::device::tex2d`, `surf2d_read`, ... over
//! the typed handles of `ptx_runtime::texture`) against nvcc: the same reads written in CUDA C
//! (`tex2D<float>`, `tex2Dgather<float4>`, `surf2Dread<float>`, ...) compile to `tex`, `tld4`,
//! `suld.b` and `sust.b` instructions of the same shape — opcode with every modifier, and the
//! operand structure (which vectors, how many lanes of which register kind, the extra level or
//! gradient operands) — in the same order. Both modules go through ptxas.

use crate::tools::{assemble, nvcc_ptx};

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::*;
    use ptx_runtime::vector::f32x2;

    #[kernel]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn reads(
        t1: Texture1d<f32>,
        t2: Texture2d<f32>,
        t3: Texture3d<f32>,
        ti: Texture2d<i32>,
        tl: Texture2dLayered<f32>,
        s: Surface2d<f32>,
        out: *mut f32,
        oi: *mut i32,
        x: f32,
        y: f32,
        z: f32,
        i: i32,
        lod: f32,
    ) {
        *out = tex1d_fetch(t1, i);
        *out.add(1) = tex1d(t1, x);
        *out.add(2) = tex2d(t2, x, y);
        *out.add(3) = tex3d(t3, x, y, z);
        *out.add(4) = tex2d_lod(t2, x, y, lod);
        *oi = tex2d(ti, x, y);
        let g = tex2d_gather(t2, x, y, 1);
        *out.add(5) = g.x + g.w;
        *out.add(6) = tex2d_layered(tl, x, y, i);
        let v = surf2d_read(s, i * 4, i, Boundary::Trap);
        surf2d_write(v + 1.0, s, i * 4, i + 1, Boundary::Trap);
        surf2d_write(v, s, i * 4, i + 2, Boundary::Clamp);
        *out.add(7) = surf2d_read(s, i * 4, i, Boundary::Zero);
        *out.add(8) = tex2d_grad(t2, x, y, f32x2::new(x, y), f32x2::new(y, x));
    }

    #[kernel]
    pub unsafe fn ints(t: Texture1d<u32>, s1: Surface1d<u8>, s3: Surface3d<u64>, sh: Surface2d<i16>, out: *mut u32, i: i32) {
        *out = tex1d_fetch(t, i);
        let b = surf1d_read(s1, i, Boundary::Clamp);
        surf1d_write(b, s1, i + 1, Boundary::Trap);
        let w = surf3d_read(s3, i * 8, i, i, Boundary::Zero);
        surf3d_write(w + 1, s3, i * 8, i, i + 1, Boundary::Trap);
        let h = surf2d_read(sh, i * 2, i, Boundary::Trap);
        surf2d_write(h, sh, i * 2, i, Boundary::Clamp);
    }
}

const CUDA: &str = r#"
extern "C" __global__ void reads(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3, cudaTextureObject_t ti,
    cudaTextureObject_t tl, cudaSurfaceObject_t s, float* out, int* oi, float x, float y, float z, int i, float lod) {
  out[0] = tex1Dfetch<float>(t1, i);
  out[1] = tex1D<float>(t1, x);
  out[2] = tex2D<float>(t2, x, y);
  out[3] = tex3D<float>(t3, x, y, z);
  out[4] = tex2DLod<float>(t2, x, y, lod);
  oi[0] = tex2D<int>(ti, x, y);
  float4 g = tex2Dgather<float4>(t2, x, y, 1);
  out[5] = g.x + g.w;
  out[6] = tex2DLayered<float>(tl, x, y, i);
  float v = surf2Dread<float>(s, i * 4, i);
  surf2Dwrite(v + 1.0f, s, i * 4, i + 1);
  surf2Dwrite(v, s, i * 4, i + 2, cudaBoundaryModeClamp);
  out[7] = surf2Dread<float>(s, i * 4, i, cudaBoundaryModeZero);
  out[8] = tex2DGrad<float>(t2, x, y, make_float2(x, y), make_float2(y, x));
}
extern "C" __global__ void ints(cudaTextureObject_t t, cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t sh, unsigned* out, int i) {
  out[0] = tex1Dfetch<unsigned>(t, i);
  unsigned char b = surf1Dread<unsigned char>(s1, i, cudaBoundaryModeClamp);
  surf1Dwrite(b, s1, i + 1);
  unsigned long long w = surf3Dread<unsigned long long>(s3, i * 8, i, i, cudaBoundaryModeZero);
  surf3Dwrite(w + 1, s3, i * 8, i, i + 1);
  short h = surf2Dread<short>(sh, i * 2, i);
  surf2Dwrite(h, sh, i * 2, i, cudaBoundaryModeClamp);
}
"#;

/// The texture and surface instructions of kernel `name` (the module's one kernel when `None`), registers reduced to their kind
/// (`%f7` to `%f`, `%rd2` to `%rd`) and whitespace to single spaces.
pub(crate) fn shapes(ptx: &str, name: Option<&str>) -> Vec<String> {
    let entry = name.map_or(".entry ".to_string(), |n| format!(".entry {n}("));
    let start = ptx.find(&entry).unwrap_or_else(|| panic!("kernel {name:?} in\n{ptx}"));
    let body = &ptx[start..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    body.lines()
        .map(str::trim)
        .filter(|l| ["tex.", "tld4.", "suld.", "sust."].iter().any(|p| l.starts_with(p)))
        .map(|l| {
            let mut out = String::new();
            let mut chars = l.chars().peekable();
            while let Some(c) = chars.next() {
                if c.is_whitespace() {
                    while chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                    out.push(' ');
                    continue;
                }
                out.push(c);
                if c == '%' {
                    while let Some(&d) = chars.peek() {
                        if d.is_ascii_alphabetic() {
                            out.push(d);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    while chars.peek().is_some_and(char::is_ascii_digit) {
                        chars.next();
                    }
                }
            }
            out
        })
        .collect()
}

#[test]
fn texture_and_surface_instructions_match_nvcc() {
    for (name, ptx) in [("reads", k::reads::PTX), ("ints", k::ints::PTX)] {
        assemble(&format!("texture_{name}"), ptx);
        let ours = shapes(ptx, None);
        assert!(!ours.is_empty(), "{name}: no texture instructions in\n{ptx}");
        if let Some(theirs) = nvcc_ptx(&format!("texture_oracle_{name}"), CUDA) {
            assemble(&format!("texture_oracle_{name}"), &theirs);
            assert_eq!(ours, shapes(&theirs, Some(name)), "{name}: ours (left) against nvcc's (right)\n{ptx}");
        }
    }
    // What was compared, spelled out for one of each kind.
    let reads = shapes(k::reads::PTX, None);
    assert_eq!(reads[3], "tex.3d.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%f, %f, %f, %f}];");
    assert_eq!(reads[6], "tld4.g.2d.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%f, %f}];");
    assert_eq!(reads[7], "tex.a2d.v4.f32.f32 {%f, %f, %f, %f}, [%rd, {%r, %f, %f, %f}];");
    assert_eq!(reads[10], "sust.b.2d.b32.clamp [%rd, {%r, %r}], {%r};");
}

mod one {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::Texture1d;

    #[kernel]
    pub fn fetch(t: Texture1d<f32>, out: &mut [f32]) {
        out[0] = tex1d_fetch(t, 0);
    }
}

/// A handle that names no object of the CPU device is a fault at the `tex` instruction, through
/// the runtime as through the emulator (`cpu_texture` covers destroyed and wrong-kind ones).
#[test]
fn an_unknown_texture_handle_on_the_cpu_backend_is_a_fault() {
    assemble("texture_fetch_one", one::fetch::PTX);
    let stream = crate::body_exec::cpu_stream();
    let mut out = ptx_runtime::DeviceBuffer::<f32>::zeroed(&stream, 1).unwrap();
    // SAFETY: never read (the handle is no object; the launch faults).
    let t = unsafe { ptx_runtime::texture::Texture1d::<f32>::from_raw(0xdead_beef_0000) };
    let err = one::fetch::launch(&stream, ptx_runtime::LaunchConfig::new(1, 1), t, &mut out).expect_err("no such texture");
    match err {
        ptx_runtime::Error::Fault(f) => {
            assert_eq!(f.kind, ptx_runtime::FaultKind::InvalidHandle);
            assert!(f.detail.contains("0xdeadbeef0000"), "{f:?}");
        }
        e => panic!("expected a fault, got {e:?}"),
    }
}

/// The macro kernels run on the CPU backend and compute what nvcc's twins compute there: the
/// same objects (built by `CpuDevice::create_texture`/`create_surface` on two devices), every
/// output and every surface byte compared. `cpu_texture` checks the sampling itself against the
/// programming guide; this checks that our lowering asks for the same fetches as nvcc's.
#[test]
fn macro_kernels_compute_what_nvccs_twins_compute_on_the_cpu_backend() {
    use crate::cpu_harness::{arg, Harness};
    use ptx_runtime::cpu::texture::*;
    let Some(theirs) = nvcc_ptx("texture_oracle_run", CUDA) else { return };
    // The macro kernels are two modules, nvcc's one: both loaded on one device.
    let run = |reads_ptx: &str, ints_ptx: &str, [reads, ints]: [&str; 2]| -> (Vec<u8>, Vec<u8>) {
        let mut h = Harness::new(reads_ptx);
        let ints_module = h.dev.load_module(ints_ptx).unwrap();
        let f32x1 = Format { kind: ChannelKind::Float, bits: 32, channels: 1 };
        // Texel k of every object holds a value derived from k.
        let put = |h: &mut Harness, n: usize, f: &dyn Fn(usize) -> Vec<u8>| {
            let b: Vec<u8> = (0..n).flat_map(f).collect();
            let a = h.dev.alloc(b.len()).unwrap();
            h.dev.write(a, &b).unwrap();
            a
        };
        let fl = |k: usize| ((k * 37 % 23) as f32 * 0.75 - 4.0).to_le_bytes().to_vec();
        let linear = Sampler { filter: FilterMode::Linear, address: [AddressMode::Mirror; 3], normalized_coords: true, ..Sampler::default() };
        let arr = |addr, format, geometry| Resource::Array(Array { addr, format, geometry, surface_ldst: false });
        let tex = |h: &mut Harness, resource, sampler| h.dev.create_texture(Texture { resource, sampler }).unwrap();
        let surf = |h: &mut Harness, addr, format, geometry| h.dev.create_surface(Surface { array: Array { addr, format, geometry, surface_ldst: true } }).unwrap();
        let lin = put(&mut h, 16, &fl);
        let t1 = tex(&mut h, Resource::Linear { addr: lin, format: f32x1, width: 16 }, Sampler::default());
        let a2 = put(&mut h, 20, &fl);
        let t2 = tex(&mut h, arr(a2, f32x1, Geometry::Plain { width: 5, height: 4, depth: 1 }), linear);
        let a3 = put(&mut h, 27, &fl);
        let t3 = tex(&mut h, arr(a3, f32x1, Geometry::Plain { width: 3, height: 3, depth: 3 }), linear);
        let ai = put(&mut h, 20, &|k| (k as i32 * 1001 - 7000).to_le_bytes().to_vec());
        let ti = tex(&mut h, arr(ai, Format { kind: ChannelKind::Signed, bits: 32, channels: 1 }, Geometry::Plain { width: 5, height: 4, depth: 1 }), Sampler::default());
        let al = put(&mut h, 40, &fl);
        let tl = tex(&mut h, arr(al, f32x1, Geometry::Layered { width: 5, height: 4, layers: 2 }), linear);
        let asurf = put(&mut h, 16, &fl);
        let s = surf(&mut h, asurf, f32x1, Geometry::Plain { width: 4, height: 4, depth: 1 });
        let out = h.zeroed::<f32>(9);
        let oi = h.zeroed::<i32>(1);
        let params = [arg(t1), arg(t2), arg(t3), arg(ti), arg(tl), arg(s), out.ptr(), oi.ptr(), arg(0.3f32), arg(0.55f32), arg(0.8f32), arg(1i32), arg(0.0f32)];
        h.launch(reads, [1, 1, 1], [1, 1, 1], 0, &params).unwrap_or_else(|e| panic!("reads: {e}"));
        let au = put(&mut h, 16, &|k| (k as u32 * 0x0101_0101).to_le_bytes().to_vec());
        let tu = tex(&mut h, Resource::Linear { addr: au, format: Format { kind: ChannelKind::Unsigned, bits: 32, channels: 1 }, width: 16 }, Sampler::default());
        let a1 = put(&mut h, 8, &|k| vec![k as u8 * 3 + 1]);
        let s1 = surf(&mut h, a1, Format { kind: ChannelKind::Unsigned, bits: 8, channels: 1 }, Geometry::Plain { width: 8, height: 1, depth: 1 });
        let a64 = put(&mut h, 27, &|k| (k as u64 * 0x1_0000_0001).to_le_bytes().to_vec());
        let s3 = surf(&mut h, a64, Format { kind: ChannelKind::Unsigned, bits: 32, channels: 2 }, Geometry::Plain { width: 3, height: 3, depth: 3 });
        let a16 = put(&mut h, 16, &|k| (k as i16 * -300).to_le_bytes().to_vec());
        let sh = surf(&mut h, a16, Format { kind: ChannelKind::Signed, bits: 16, channels: 1 }, Geometry::Plain { width: 4, height: 4, depth: 1 });
        let ou = h.zeroed::<u32>(1);
        let params = [arg(tu), arg(s1), arg(s3), arg(sh), ou.ptr(), arg(1i32)];
        let params: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
        h.dev.launch(&ints_module, ints, [1, 1, 1], [1, 1, 1], 0, &params).unwrap_or_else(|e| panic!("ints: {e}"));
        let read = |list: &[(u64, usize)]| {
            let mut all = Vec::new();
            for &(addr, len) in list {
                let mut b = vec![0u8; len];
                h.dev.read(addr, &mut b).unwrap();
                all.extend(b);
            }
            all
        };
        (read(&[(out.addr, 36), (oi.addr, 4), (ou.addr, 4)]), read(&[(asurf, 64), (a1, 8), (a64, 216), (a16, 32)]))
    };
    // Each macro module's one kernel, by its (mangled) entry name.
    let entry = |ptx: &'static str| ptx.split(".entry ").nth(1).and_then(|r| r.split('(').next()).unwrap().trim();
    let (ours, ours_memory) = run(k::reads::PTX, k::ints::PTX, [entry(k::reads::PTX), entry(k::ints::PTX)]);
    let (want, want_memory) = run(&theirs, &theirs, ["reads", "ints"]);
    assert_eq!(ours, want, "outputs: ours (left) against nvcc's (right)");
    assert_eq!(ours_memory, want_memory, "surface contents: ours (left) against nvcc's (right)");
    // Not vacuous: the fetches read the objects (a zero-filled device would give zeros).
    assert!(ours[..36].chunks(4).filter(|b| b != &[0, 0, 0, 0]).count() >= 6, "{ours:?}");
}
