//! Interop with CUDA C++ through linking (docs/interop.md): real CUDA C++
//! (`tests/cuda/interop.cu`, `nvcc -rdc=true -ptx`) linked with `#[kernel]`/`#[device_fn]`
//! modules by `ptx_runtime::Linker` on the CPU backend, results checked against host
//! references; every module also goes through `ptxas -c` + `nvlink` (NVIDIA's own linker must
//! resolve the same symbols), and the linked module through ptxas as a whole program.

use crate::tools;
use ptx_runtime::device::*;
use ptx_runtime::vector::f32x4;
use ptx_runtime::{device_extern, device_fn, kernel, Args, Device, DeviceBuffer, DeviceRepr, Error, Kernel, LaunchConfig, Linker};

const CUDA: &str = include_str!("../cuda/interop.cu");

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct P {
    pub x: f32,
    pub k: i32,
}

#[device_extern]
extern "C" {
    /// `extern "C" __device__ float plain_c(float)`.
    fn plain_c(x: f32) -> f32;
    /// `geo::scale(float)` and its overload `geo::scale(double)`.
    #[cpp = "geo::scale"]
    fn scale_f(x: f32) -> f32;
    #[cpp = "geo::scale"]
    fn scale_d(x: f64) -> f64;
    /// `template int twice<int>(int)`, named from its template.
    #[cpp = "twice<int>"]
    #[cpp_template = "template <typename T> T twice(T)"]
    fn twice_i(x: i32) -> i32;
    /// `geo::add<float>`: a template in a namespace.
    #[cpp = "geo::add<float>"]
    #[cpp_template = "template <typename T> T add(T a, T b)"]
    fn add_f(a: f32, b: f32) -> f32;
    /// `times<3>`: a non-type template argument.
    #[cpp = "times<3>"]
    #[cpp_template = "template <int N> int times(int x)"]
    fn times3(x: i32) -> i32;
    /// `load<float>(const float*)` and `pick<P, -2>(const P&, int)`: dependent pointer and
    /// reference parameters, a struct and a negative value as arguments (symbols checked
    /// against nvcc's in `template_instances_have_nvccs_symbols`).
    #[cpp = "load<float>"]
    #[cpp_template = "template <class T> T load(const T* p)"]
    fn load_f(p: *const f32) -> f32;
    #[cpp = "pick<P, -2>"]
    #[cpp_template = "template <typename T, int N> float pick(const T& t, int k)"]
    fn pick_p(t: &P, k: i32) -> f32;
    /// `sum4(float4, float)`: a CUDA vector type by value.
    #[cpp = "sum4"]
    fn sum4(v: f32x4, w: f32) -> f32;
    /// `takes_p(P)`: a struct by value.
    #[cpp = "takes_p"]
    fn takes_p(p: P) -> f32;
}

#[kernel]
pub fn calls_cpp(xs: &[f32], ps: &[P], vs: &[f32x4], out_f: &mut [f32], out_d: &mut [f64], out_i: &mut [i32]) {
    let i = thread_idx_x() as usize;
    if i < xs.len() {
        out_f[i] = plain_c(xs[i]) + scale_f(xs[i]) + takes_p(ps[i]);
        out_d[i] = scale_d(xs[i] as f64) + sum4(vs[i], xs[i]) as f64;
        out_i[i] = twice_i(i as i32 - 3) + times3(i as i32);
        out_f[i] = add_f(out_f[i], 0.5);
    }
}

#[device_extern]
extern "C" {
    /// Declared with the wrong parameter type: the linker must refuse it.
    #[link_name = "plain_c"]
    fn plain_c_wrong(x: f64) -> f32;
}

#[kernel]
pub fn calls_wrong(out: &mut [f32]) {
    out[0] = plain_c_wrong(1.0);
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Stats {
    pub sum: i32,
    pub max: i32,
    pub mean: f32,
}

#[device_fn]
#[no_mangle]
pub fn rust_square(x: i32) -> i32 {
    x * x
}

/// A struct return, computed through a block of the device heap.
#[device_fn]
#[no_mangle]
pub fn rust_stats(xs: *const i32, n: i32) -> Stats {
    let tmp = malloc::<i32>(2);
    let mut s = Stats { sum: 0, max: i32::MIN, mean: 0.0 };
    if tmp.is_null() {
        return s;
    }
    unsafe {
        *tmp = 0;
        *tmp.add(1) = i32::MIN;
        let mut i = 0;
        while i < n {
            let v = *xs.add(i as usize);
            *tmp += v;
            if v > *tmp.add(1) {
                *tmp.add(1) = v;
            }
            i += 1;
        }
        s.sum = *tmp;
        s.max = *tmp.add(1);
        free(tmp);
    }
    s.mean = s.sum as f32 / n as f32;
    s
}

fn cuda_ptx() -> Option<String> {
    tools::nvcc_ptx("link_interop", CUDA)
}

#[test]
fn rust_calls_cpp() {
    let Some(cpp) = cuda_ptx() else { return };
    // NVIDIA's linker resolves our declarations against nvcc's definitions.
    tools::nvlink("rust_calls_cpp", &[calls_cpp::PTX, &cpp, rust_square::PTX, rust_stats::PTX]);
    assert!(calls_cpp::PTX.contains(".extern .func (.param .b32 func_retval0) _ZN3geo5scaleEf("), "{}", calls_cpp::PTX);
    assert!(calls_cpp::PTX.contains(".extern .func (.param .b32 func_retval0) _Z7takes_p1P(\n\t.param .align 4 .b8 _Z7takes_p1P_param_0[8]\n)"), "{}", calls_cpp::PTX);

    let device = Device::new_cpu();
    let stream = device.stream();
    let n = 40usize;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let ps: Vec<P> = (0..n).map(|i| P { x: 1.5 + i as f32, k: i as i32 - 20 }).collect();
    let dxs = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let dps = DeviceBuffer::from_slice(&stream, &ps).unwrap();
    let vs: Vec<f32x4> = (0..n).map(|i| f32x4 { x: i as f32, y: 0.25, z: -1.0 - i as f32, w: 0.5 * i as f32 }).collect();
    let dvs = DeviceBuffer::from_slice(&stream, &vs).unwrap();
    let mut of = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut od = DeviceBuffer::<f64>::zeroed(&stream, n).unwrap();
    let mut oi = DeviceBuffer::<i32>::zeroed(&stream, n).unwrap();

    // Unlinked, the kernel's module declares functions nothing defines.
    let err = calls_cpp::launch(&stream, LaunchConfig::new(1, 64), &dxs, &dps, &dvs, &mut of, &mut od, &mut oi).unwrap_err();
    assert!(err.to_string().contains("which this module declares but does not define"), "{err}");

    let linked = Linker::new(&device)
        .add_kernel(&calls_cpp::KERNEL)
        .add_ptx("interop.cu", &cpp)
        .add_ptx("rust_square", rust_square::PTX)
        .add_ptx("rust_stats", rust_stats::PTX)
        .finish()
        .unwrap();
    assert_eq!(linked.kernels(), [calls_cpp::ENTRY]);
    tools::assemble("rust_calls_cpp_linked", linked.ptx().unwrap());
    calls_cpp::launch(&stream, LaunchConfig::new(1, 64), &dxs, &dps, &dvs, &mut of, &mut od, &mut oi).unwrap();
    let (f, d, i) = (of.to_vec().unwrap(), od.to_vec().unwrap(), oi.to_vec().unwrap());
    for k in 0..n {
        let x = xs[k];
        let want = (x * 2.0 + 1.0) + x * 3.0 + ps[k].x * ps[k].k as f32 + 0.5;
        assert_eq!(f[k], want, "element {k}");
        let v = vs[k];
        assert_eq!(d[k], x as f64 * 4.0 + (v.x + v.y * 2.0 + v.z * 3.0 + v.w - x) as f64, "element {k}");
        assert_eq!(i[k], 2 * (k as i32 - 3) + 3 * k as i32, "element {k}");
    }
}

/// Every template instance's symbol, computed from its `#[cpp_template]`, is the one nvcc
/// gives the explicit instantiation (a `.weak .func` in nvcc's PTX).
#[test]
fn template_instances_have_nvccs_symbols() {
    let Some(cpp) = cuda_ptx() else { return };
    for sym in [twice_i::SYMBOL, add_f::SYMBOL, times3::SYMBOL, load_f::SYMBOL, pick_p::SYMBOL] {
        let defined = cpp.lines().any(|l| l.starts_with(".weak .func") && (l.contains(&format!(" {sym}(")) || l.ends_with(&format!(" {sym}"))));
        assert!(defined, "nvcc defines no `{sym}`:\n{cpp}");
    }
}

#[test]
fn cpp_calls_rust() {
    let Some(cpp) = cuda_ptx() else { return };
    tools::nvlink("cpp_calls_rust", &[&cpp, rust_square::PTX, rust_stats::PTX]);
    let kernel: &'static Kernel = Box::leak(Box::new(Kernel::new(Box::leak(cpp.into_boxed_str()), "cpp_calls_rust")));
    let device = Device::new_cpu();
    let stream = device.stream();
    let linked = Linker::new(&device).add_kernel(kernel).add_ptx("rust_square", rust_square::PTX).add_ptx("rust_stats", rust_stats::PTX).finish().unwrap();
    tools::assemble("cpp_calls_rust_linked", linked.ptx().unwrap());

    let xs: Vec<i32> = (0..50).map(|i| (i * 37) % 23 - 11).collect();
    let dxs = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let out = DeviceBuffer::<i32>::zeroed(&stream, xs.len()).unwrap();
    let stats = DeviceBuffer::<Stats>::zeroed(&stream, 1).unwrap();
    let (po, ps, px) = (out.device_address(), stats.device_address(), dxs.device_address());
    let mut args = Args::new(&stream);
    for p in [po, ps, px] {
        args.push_bytes(p.to_le_bytes().to_vec());
    }
    args.push_bytes((xs.len() as i32).to_le_bytes().to_vec());
    stream.launch_kernel(kernel, LaunchConfig::new(1, 64), args).unwrap();
    let got = out.to_vec().unwrap();
    for (k, &x) in xs.iter().enumerate() {
        assert_eq!(got[k], x * x + 1, "element {k}");
    }
    let sum: i32 = xs.iter().sum();
    let want = Stats { sum, max: *xs.iter().max().unwrap(), mean: sum as f32 / xs.len() as f32 };
    assert_eq!(stats.to_vec().unwrap()[0], want);
}

#[test]
fn link_errors_name_the_symbol() {
    let Some(cpp) = cuda_ptx() else { return };
    let device = Device::new_cpu();
    let Err(Error::Link { log }) = Linker::new(&device).add_kernel(&calls_cpp::KERNEL).finish() else { panic!("linked without the C++") };
    for sym in ["plain_c", "_ZN3geo5scaleEf", "_ZN3geo5scaleEd", "_Z5twiceIiET_S0_", "_Z7takes_p1P"] {
        assert!(log.contains(&format!("unresolved symbol `{sym}`")), "{sym}: {log}");
    }
    let Err(Error::Link { log }) = Linker::new(&device).add_kernel(&calls_wrong::KERNEL).add_ptx("interop.cu", &cpp).finish() else { panic!("linked a mismatched declaration") };
    assert!(log.contains("`plain_c` is declared in") && log.contains("parameter sizes [8]") && log.contains("parameter sizes [4]"), "{log}");
    // Two different definitions of one `.visible` function; two identical copies link.
    let other = cpp.replace("0f40400000", "0f40800000");
    assert_ne!(other, cpp, "geo::scale(float) multiplies by 3.0f");
    let Err(Error::Link { log }) = Linker::new(&device).add_ptx("a", &cpp).add_ptx("b", &other).add_ptx("rust", rust_square::PTX).add_ptx("stats", rust_stats::PTX).finish() else {
        panic!("linked two different definitions")
    };
    assert!(log.contains("duplicate symbol `_ZN3geo5scaleEf`: defined `.visible` by `a`") && !log.contains("_ZN3geo5scaleEd"), "{log}");
    Linker::new(&device).add_ptx("a", &cpp).add_ptx("b", &cpp).add_ptx("rust", rust_square::PTX).add_ptx("stats", rust_stats::PTX).finish().unwrap();
    let Err(Error::Link { log }) = Linker::new(&device).add_ptx("cpp", &cpp).add_ptx("square", rust_square::PTX).finish() else { panic!("linked without rust_stats") };
    assert!(log.contains("unresolved symbol `rust_stats`"), "{log}");
    // The CPU backend links PTX only.
    let Err(Error::Link { log }) = Linker::new(&device).add_binary("x.cubin", ptx_runtime::BinaryKind::Cubin, &[0x7f, b'E', b'L', b'F']).finish() else { panic!("linked a cubin") };
    assert!(log.contains("links PTX only"), "{log}");
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Frame {
    pub origin: P,
    pub w: [f32; 3],
    pub tag: u8,
}

/// A mangled device function returning a struct.
#[device_fn]
pub fn make_p(x: f32, k: i32) -> P {
    P { x: x + 1.0, k: k * 3 }
}

/// A struct behind a reference (a pointer in C++).
#[device_fn]
pub fn frame_sum(f: &Frame) -> f32 {
    f.origin.x * f.origin.k as f32 + f.w[0] + f.w[1] + f.w[2] + f.tag as f32
}

/// A C-like enum: `enum class Shade : signed char` in the header, discriminants as Rust's.
#[repr(i8)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
pub enum Shade {
    Dark = -3,
    Mid,
    Light = 9,
}

/// An enum crossing both ways.
#[device_fn]
pub fn brighter(s: Shade, by: i32) -> Shade {
    if by > 0 {
        match s {
            Shade::Dark => Shade::Mid,
            _ => Shade::Light,
        }
    } else {
        s
    }
}

ptx_runtime::cpp_header!(pub INTEROP_H: P, Stats, Frame, Shade, rust_square, rust_stats, make_p, frame_sum, brighter);

/// C++ that includes the generated header and calls the Rust functions by their C++ names.
fn header_user() -> String {
    let ns = module_path!();
    format!(
        r#"{INTEROP_H}
extern "C" __global__ void uses_header(int* out, Stats* stats, P* ps, float* fs, const int* xs, const Frame* frames, int n) {{
    int i = threadIdx.x;
    if (i < n) {{
        out[i] = rust_square(xs[i]);
        ps[i] = {ns}::make_p(0.5f * i, xs[i]);
        fs[i] = {ns}::frame_sum(&frames[i]);
        Shade in = i % 3 == 0 ? Shade::Dark : i % 3 == 1 ? Shade::Mid : Shade::Light;
        out[i] += 1000 * (int)(signed char){ns}::brighter(in, i % 2);
    }}
    if (i == 0) *stats = rust_stats(xs, n);
}}
"#
    )
}

#[test]
fn generated_header_lets_cpp_call_rust() {
    // The layout assertions carry rustc's numbers; nvcc checks its own layout against them.
    assert!(INTEROP_H.contains("struct __align__(4) Frame {\n    P origin;\n    float w[3];\n    unsigned char tag;\n};"), "{INTEROP_H}");
    assert!(INTEROP_H.contains("static_assert(sizeof(Frame) == 24,") && INTEROP_H.contains("static_assert(offsetof(Frame, tag) == 20,"), "{INTEROP_H}");
    assert!(INTEROP_H.contains(&format!("extern \"C\" __device__ P {}(float p0, int p1);", make_p::SYMBOL)), "{INTEROP_H}");
    assert!(INTEROP_H.contains("extern \"C\" __device__ Stats rust_stats(const int* p0, int p1);"), "{INTEROP_H}");
    assert!(INTEROP_H.contains("enum class Shade : signed char {\n    Dark = -3,\n    Mid = -2,\n    Light = 9,\n};\nstatic_assert(sizeof(Shade) == 1,"), "{INTEROP_H}");
    let Some(cpp) = tools::nvcc_ptx("link_interop_header", &header_user()) else { return };
    tools::nvlink("header_user", &[&cpp, rust_square::PTX, rust_stats::PTX, make_p::PTX, frame_sum::PTX, brighter::PTX]);
    let kernel: &'static Kernel = Box::leak(Box::new(Kernel::new(Box::leak(cpp.into_boxed_str()), "uses_header")));
    let device = Device::new_cpu();
    let stream = device.stream();
    Linker::new(&device)
        .add_kernel(kernel)
        .add_ptx("rust_square", rust_square::PTX)
        .add_ptx("rust_stats", rust_stats::PTX)
        .add_ptx("make_p", make_p::PTX)
        .add_ptx("frame_sum", frame_sum::PTX)
        .add_ptx("brighter", brighter::PTX)
        .finish()
        .unwrap();

    let n = 33usize;
    let xs: Vec<i32> = (0..n as i32).map(|i| i * 5 % 17 - 8).collect();
    let frames: Vec<Frame> = (0..n).map(|i| Frame { origin: P { x: i as f32 * 0.25, k: 3 - i as i32 }, w: [1.0, i as f32, -2.5], tag: i as u8 * 3 }).collect();
    let dxs = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let dframes = DeviceBuffer::from_slice(&stream, &frames).unwrap();
    let out = DeviceBuffer::<i32>::zeroed(&stream, n).unwrap();
    let stats = DeviceBuffer::<Stats>::zeroed(&stream, 1).unwrap();
    let ps = DeviceBuffer::<P>::zeroed(&stream, n).unwrap();
    let fs = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut args = Args::new(&stream);
    for a in [out.device_address(), stats.device_address(), ps.device_address(), fs.device_address(), dxs.device_address(), dframes.device_address()] {
        args.push_bytes(a.to_le_bytes().to_vec());
    }
    args.push_bytes((n as i32).to_le_bytes().to_vec());
    stream.launch_kernel(kernel, LaunchConfig::new(1, 64), args).unwrap();
    let (out, ps, fs) = (out.to_vec().unwrap(), ps.to_vec().unwrap(), fs.to_vec().unwrap());
    for i in 0..n {
        let shade = [Shade::Dark, Shade::Mid, Shade::Light][i % 3];
        assert_eq!(out[i], rust_square(xs[i]) + 1000 * brighter(shade, (i % 2) as i32) as i32, "element {i}");
        assert_eq!(ps[i], make_p(0.5 * i as f32, xs[i]), "element {i}");
        assert_eq!(fs[i], frame_sum(&frames[i]), "element {i}");
    }
    let s = stats.to_vec().unwrap()[0];
    assert_eq!((s.sum, s.max), (xs.iter().sum(), *xs.iter().max().unwrap()));
}

#[kernel]
pub fn squares(xs: &[i32], out: &mut [i32]) {
    let i = thread_idx_x() as usize;
    if i < xs.len() {
        out[i] = rust_square(xs[i]);
    }
}

#[kernel]
pub fn squares_plus(xs: &[i32], out: &mut [i32]) {
    let i = thread_idx_x() as usize;
    if i < xs.len() {
        out[i] = rust_square(xs[i]) + twice_i(xs[i]);
    }
}

/// Two of our kernels that both carry `rust_square` link into one module with the C++ (the
/// identical copies are one function), and both typed launchers launch in it.
#[test]
fn two_kernels_sharing_a_device_fn_link_together() {
    let Some(cpp) = cuda_ptx() else { return };
    let device = Device::new_cpu();
    let stream = device.stream();
    let linked = Linker::new(&device)
        .add_kernel(&squares::KERNEL)
        .add_kernel(&squares_plus::KERNEL)
        .add_ptx("interop.cu", &cpp)
        .add_ptx("rust_stats", rust_stats::PTX)
        .finish()
        .unwrap();
    assert_eq!(linked.kernels(), [squares::ENTRY, squares_plus::ENTRY]);
    tools::assemble("two_kernels_linked", linked.ptx().unwrap());
    let xs: Vec<i32> = (-10..22).collect();
    let dxs = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut a = DeviceBuffer::<i32>::zeroed(&stream, xs.len()).unwrap();
    let mut b = DeviceBuffer::<i32>::zeroed(&stream, xs.len()).unwrap();
    squares::launch(&stream, LaunchConfig::new(1, 32), &dxs, &mut a).unwrap();
    squares_plus::launch(&stream, LaunchConfig::new(1, 32), &dxs, &mut b).unwrap();
    let (a, b) = (a.to_vec().unwrap(), b.to_vec().unwrap());
    for (k, &x) in xs.iter().enumerate() {
        assert_eq!((a[k], b[k]), (x * x, x * x + 2 * x), "element {k}");
    }
}

/// A checked helper kept a call, so that both kernels carry a copy of it (and its slot).
#[device_fn]
#[inline(never)]
pub fn pick(xs: &[i32], i: usize) -> i32 {
    xs[i] // MARK: pick
}

#[kernel]
pub fn picks(xs: &[i32], at: &[u32], out: &mut [i32]) {
    let i = thread_idx_x() as usize;
    out[i] = pick(xs, at[i] as usize);
}

#[kernel]
pub fn picks_twice(xs: &[i32], at: &[u32], out: &mut [i32]) {
    let i = thread_idx_x() as usize;
    out[i] = pick(xs, at[i] as usize) * 2; // MARK: picks_twice
}

/// Linked into one module, each copy of `pick` keeps a failure slot of its own, renamed with
/// its sites (`ptx_abi::report`): a failed check in either kernel's copy, or in the kernel,
/// reports Rust's message and line.
#[test]
fn failures_in_linked_modules_report_their_sites() {
    let device = Device::new_cpu();
    let stream = device.stream();
    let linked = Linker::new(&device).add_kernel(&picks::KERNEL).add_kernel(&picks_twice::KERNEL).finish().unwrap();
    let text = linked.ptx().unwrap();
    tools::assemble("picks_linked", text);
    let sites = ptx_runtime::abi::report::sites(text);
    for slot in ptx_runtime::abi::report::slots(&sites) {
        // `.const .align 8 .u64 <slot> = <word>;`, the word a `.global` of the linked module.
        let declaration = text.lines().find(|l| l.starts_with(".const") && l.contains(&format!(" {slot} = "))).unwrap_or_else(|| panic!("{slot} is declared:\n{text}"));
        let word = declaration.rsplit(" = ").next().unwrap().trim_end_matches(';');
        assert!(text.lines().any(|l| l.starts_with(".global") && l.trim_end().ends_with(&format!(" {word};"))), "{word} is declared:\n{text}");
    }
    let line = |marker: &str| include_str!("link_interop.rs").lines().position(|l| l.contains(marker) && !l.contains("line(")).unwrap() as u32 + 1;
    let xs = DeviceBuffer::from_slice(&stream, &[5, 6, 7]).unwrap();
    let mut out = DeviceBuffer::<i32>::zeroed(&stream, 4).unwrap();
    let expect = |r: ptx_runtime::Result<()>, at: u32| match r {
        Err(Error::Assert { message, line, .. }) => assert_eq!((message.as_str(), line), ("index out of bounds", at)),
        other => panic!("expected a failed check at line {at}, got {other:?}"),
    };
    let bad = DeviceBuffer::from_slice(&stream, &[0u32, 1, 9, 2]).unwrap();
    expect(picks::launch(&stream, LaunchConfig::new(1, 4), &xs, &bad, &mut out), line("// MARK: pick"));
    expect(picks_twice::launch(&stream, LaunchConfig::new(1, 4), &xs, &bad, &mut out), line("// MARK: pick"));
    let short = DeviceBuffer::from_slice(&stream, &[0u32, 1, 2]).unwrap();
    expect(picks_twice::launch(&stream, LaunchConfig::new(1, 4), &xs, &short, &mut out), line("// MARK: picks_twice"));
    let good = DeviceBuffer::from_slice(&stream, &[2u32, 1, 0, 2]).unwrap();
    picks_twice::launch(&stream, LaunchConfig::new(1, 4), &xs, &good, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [14, 12, 10, 14]);
}
