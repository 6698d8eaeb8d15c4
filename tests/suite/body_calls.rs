//! Calls: the guide's chapter 6 example, the calling sequence for every kind of parameter
//! (note A's widening, `bool`, pointers from any state space, slices, arrays, structs), device
//! functions in other modules and in another crate. The callees whose calling sequence is under
//! test are `#[inline(never)]` (kernels inline small self-contained ones, `body_inline.rs`).

// The kernels spell out the language forms under test (a `loop` that breaks with a value at
// once, `x % 1`, index loops, casts to the same type...): the device compiler must handle what
// is written, so clippy's rewrites would test less.
#![allow(clippy::never_loop, clippy::modulo_one, clippy::erasing_op, clippy::identity_op, clippy::needless_range_loop, clippy::manual_is_multiple_of, clippy::unnecessary_cast, clippy::assign_op_pattern, clippy::too_many_arguments, clippy::needless_late_init, clippy::redundant_closure, clippy::manual_range_patterns, clippy::manual_div_ceil)]

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, LaunchConfig};

pub mod guide {
    //! PTX Interoperability, chapter 6: `int foo(int i, int j) { return i + j; }` and
    //! `void test(int *p) { *p = foo(1, 2); }`.
    use ptx_runtime::{device_fn, kernel};

    #[device_fn]
    #[no_mangle]
    pub fn foo(i: i32, j: i32) -> i32 {
        i + j
    }

    #[kernel]
    #[no_mangle]
    pub fn test(p: *mut i32) {
        unsafe { *p = foo(1, 2) };
    }
}

/// The instruction opcodes of function `name` in `ptx` (declarations and braces left out).
fn opcodes(ptx: &str, name: &str) -> Vec<String> {
    let start = ptx.rfind(&format!("{name}(")).expect("definition");
    let body = &ptx[start..];
    let open = body.find('{').expect("body");
    let close = body.find("\n}").expect("end");
    body[open + 1..close]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.') && !l.starts_with("//") && !l.starts_with('{') && !l.starts_with('}') && !l.ends_with(':'))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn guide_chapter_6_has_the_listings_shape() {
    let ptx = guide::test::PTX;
    assemble("guide_ch6", ptx);
    // A `.func` with a 32-bit return value and two 32-bit parameters...
    assert!(ptx.contains(".visible .func (.param .b32 func_retval0) foo(\n\t.param .b32 foo_param_0,\n\t.param .b32 foo_param_1\n)"), "{ptx}");
    assert_eq!(opcodes(ptx, "foo"), ["ld.param.s32", "ld.param.s32", "add.s32", "st.param.b32", "ret;"]);
    // ...an `.entry` with one 64-bit pointer, and the call through `.param`s.
    assert!(ptx.contains(".visible .entry test(\n\t.param .u64 test_param_0\n)"), "{ptx}");
    for line in [".param .b32 param0;", "st.param.b32 \t[param0], 1;", ".param .b32 param1;", "st.param.b32 \t[param1], 2;", ".param .b32 retval0;", "call.uni (retval0), foo, (param0, param1);"] {
        assert!(ptx.contains(line), "missing `{line}`:\n{ptx}");
    }
    let t = opcodes(ptx, "test");
    assert_eq!(t.first().map(String::as_str), Some("ld.param.u64"));
    assert!(t.iter().any(|o| o == "ld.param.s32") && t.iter().any(|o| o.starts_with("st.global")), "{t:?}");
    // nvcc compiles the guide's CUDA C to the same function body.
    let Some(nvcc) = nvcc_ptx("guide_ch6", "extern \"C\" __device__ __noinline__ int foo(int i, int j) { return i + j; }\nextern \"C\" __global__ void test(int *p) { *p = foo(1, 2); }\n") else { return };
    let theirs: Vec<String> = opcodes(&nvcc, "foo").into_iter().map(|o| o.replace(".u32", ".s32")).collect();
    assert_eq!(theirs, ["ld.param.s32", "ld.param.s32", "add.s32", "st.param.b32", "ret;"], "{nvcc}");
}

#[test]
fn guide_chapter_6_runs() {
    let mut out = 0i32;
    guide::test(&mut out);
    assert_eq!(out, 3);
    let stream = crate::body_exec::cpu_stream();
    let mut p = DeviceBuffer::<i32>::zeroed(&stream, 1).unwrap();
    // SAFETY: the pointer is the buffer's.
    unsafe { guide::test::launch(&stream, LaunchConfig::new(1, 1), &mut p).unwrap() };
    assert_eq!(p.to_vec().unwrap(), [3]);
}

#[device_fn]
#[inline(never)]
pub fn narrow(a: i8, b: u8, c: i16, d: u16, e: bool) -> i8 {
    let s = a as i32 + b as i32 + c as i32 + d as i32 + e as i32;
    (s % 128) as i8 - if e { 100 } else { 0 }
}

#[device_fn]
#[inline(never)]
pub fn is_negative(x: i16) -> bool {
    x < 0
}

#[device_fn]
#[inline(never)]
pub fn sum(xs: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += xs[i];
    }
    s
}

#[device_fn]
#[inline(never)]
pub fn scale_through(p: *mut f32, n: u32, by: f32) {
    for i in 0..n as usize {
        unsafe { *p.add(i) *= by };
    }
}

#[device_fn]
#[inline(never)]
pub fn reverse4(a: [f32; 4]) -> [f32; 4] {
    [a[3], a[2], a[1], a[0]]
}

#[device_fn]
#[inline(never)]
pub fn first_positive(xs: &[i32]) -> *const i32 {
    for i in 0..xs.len() {
        if xs[i] > 0 {
            return &xs[i];
        }
    }
    xs.as_ptr()
}

#[kernel]
pub fn calls(xs: &[f32], ints: &[i32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let mut tile = unsafe { shared_array::<f32, 32>() };
    tile[t] = xs[t];
    sync_threads();
    if t == 0 {
        // A shared-memory address passed as a generic pointer.
        scale_through(tile.as_mut_ptr(), 32, 2.0);
    }
    sync_threads();
    let r = reverse4([tile[t], 1.0, 2.0, xs[t]]);
    let n = narrow(-100, 200, -30000, 65000, t % 2 == 0);
    let neg = is_negative(n as i16);
    let p = first_positive(ints);
    out[t] = sum(xs) + r[0] * 10.0 + r[3] + n as f32 * 1000.0 + neg as u8 as f32 + unsafe { *p } as f32 * 0.5;
}

#[test]
fn the_calling_sequence_for_every_kind_of_parameter() {
    assemble("calls", calls::PTX);
    for (name, ptx) in [("narrow", narrow::PTX), ("sum", sum::PTX), ("reverse4", reverse4::PTX), ("first_positive", first_positive::PTX)] {
        assemble(name, ptx);
    }
    let ptx = calls::PTX;
    // Note A: narrow integers travel extended to 32 bits; `bool` as 0 or 1.
    assert!(ptx.contains("cvta.shared.u64") && ptx.contains("cvta.global.u64"), "pointers travel as generic addresses:\n{ptx}");
    assert!(ptx.contains(".param .align 8 .b8 param0[16];"), "a slice is a 16-byte aggregate:\n{ptx}");
    assert!(ptx.contains(".param .align 4 .b8 param0[16];") && ptx.contains(".param .align 4 .b8 retval0[16];"), "an array by value:\n{ptx}");
    let n = narrow::PTX;
    assert!(n.contains("ld.param.s8") && n.contains("ld.param.u8") && n.contains("ld.param.s16") && n.contains("cvt.s32.s16"), "{n}");
    let xs: Vec<f32> = (0..32).map(|i| i as f32 * 0.25).collect();
    let ints = [-3, -2, 0, 9, 4];
    let mut out = vec![0.0f32; 32];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [32, 1, 1], 0, || calls(&xs, &ints, unsafe { o.get() }));
    let total: f32 = xs.iter().sum();
    for t in 0..32 {
        let n = ((-100i32 + 200 - 30000 + 65000 + (t % 2 == 0) as i32) % 128) as i8 - if t % 2 == 0 { 100 } else { 0 };
        let want = total + xs[t] * 10.0 + 2.0 * xs[t] + n as f32 * 1000.0 + (n < 0) as u8 as f32 + 4.5;
        assert_eq!(out[t], want, "thread {t}");
    }
    let stream = crate::body_exec::cpu_stream();
    let (xb, ib) = (DeviceBuffer::from_slice(&stream, &xs).unwrap(), DeviceBuffer::from_slice(&stream, &ints).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 32).unwrap();
    calls::launch(&stream, LaunchConfig::new(1, 32), &xb, &ib, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
}

pub mod far {
    pub mod away {
        #[ptx_runtime::device_fn]
        pub fn triple(x: u32) -> u32 {
            crate::body_calls::helpers_at_the_root(x) * 3
        }
    }
}

#[device_fn]
#[inline(never)]
pub fn helpers_at_the_root(x: u32) -> u32 {
    x + 1
}

mod nearby {
    use super::far::away::triple;
    use ptx_devlib::blend::mix;
    use ptx_devlib::{luma, Rgb};
    use ptx_runtime::device::*;

    /// Calls by an imported name, by a relative path, by an absolute path, and into another
    /// crate (a struct of that crate by value both ways).
    #[ptx_runtime::kernel]
    pub fn paths(colors: &[Rgb], out: &mut [u32], mixed: &mut [Rgb]) {
        let i = thread_idx_x() as usize;
        let c = colors[i];
        let m = mix(c, Rgb { r: 255, g: 0, b: 10 }, 64);
        mixed[i] = m;
        out[i] = triple(i as u32) + super::far::away::triple(1) + crate::body_calls::helpers_at_the_root(2) * 1000 + luma(m) as u32 * 100_000;
    }
}

#[test]
fn device_functions_in_other_modules_and_crates() {
    use ptx_devlib::Rgb;
    let ptx = nearby::paths::PTX;
    assemble("paths", ptx);
    // Every reachable device function once: mix, channel (private to the other crate), luma,
    // triple, helpers_at_the_root.
    for sym in [ptx_devlib::blend::mix::SYMBOL, ptx_devlib::luma::SYMBOL, far::away::triple::SYMBOL, helpers_at_the_root::SYMBOL] {
        assert_eq!(ptx.matches(&format!("{sym}(\n")).count(), 2, "prototype and definition of {sym}:\n{ptx}");
    }
    let colors: Vec<Rgb> = (0..16).map(|i| Rgb { r: i * 16, g: 255 - i * 3, b: i }).collect();
    let mut out = vec![0u32; 16];
    let mut mixed = vec![Rgb { r: 0, g: 0, b: 0 }; 16];
    {
        let (o, m) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut mixed));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [16, 1, 1], 0, || nearby::paths(&colors, unsafe { o.get() }, unsafe { m.get() }));
    }
    let mixf = |a: u8, b: u8| ((a as u32 * 191 + b as u32 * 64) / 255) as u8;
    for i in 0..16 {
        let c = colors[i];
        let m = Rgb { r: mixf(c.r, 255), g: mixf(c.g, 0), b: mixf(c.b, 10) };
        assert_eq!(mixed[i], m);
        let luma = ((m.r as u32 * 77 + m.g as u32 * 150 + m.b as u32 * 29) >> 8) as u32;
        assert_eq!(out[i], (i as u32 + 1) * 3 + 6 + 3000 + luma * 100_000);
    }
    let stream = crate::body_exec::cpu_stream();
    let cb = DeviceBuffer::from_slice(&stream, &colors).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 16).unwrap();
    let mut mb = DeviceBuffer::<Rgb>::zeroed(&stream, 16).unwrap();
    nearby::paths::launch(&stream, LaunchConfig::new(1, 16), &cb, &mut ob, &mut mb).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
    assert_eq!(mb.to_vec().unwrap(), mixed);
}
