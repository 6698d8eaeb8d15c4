//! `printf!` (guide §3, `vprintf`): the PTX against nvcc's for the same `printf`, the output
//! of many threads on the CPU backend against text formatted independently on the host, and
//! the host definition against the device.

use crate::cpu_harness::{arg, Harness};
use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::kernel;

/// The same call as [`NVCC_SHAPE`].
#[kernel]
pub fn shape(a: i32, f: f32, d: f64, c: i8, s: i16, l: i64, q: *mut u8) {
    printf!("a=%d f=%f d=%f c=%c s=%hd l=%lld p=%p s=%s\n", a, f, d, c, s, l, q, "lit");
}

const NVCC_SHAPE: &str = r#"
#include <cstdio>
extern "C" __global__ void shape(int a, float f, double d, char c, short s, long long l, unsigned char *q) {
    printf("a=%d f=%f d=%f c=%c s=%hd l=%lld p=%p s=%s\n", a, f, d, c, s, l, q, "lit");
}
"#;

/// Whitespace removed: nvcc breaks a call over several lines.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The `.entry`'s body.
fn entry_body(ptx: &str) -> &str {
    let start = ptx.find(".entry").expect(".entry");
    let body = &ptx[start..];
    &body[..body.find("\n}").unwrap_or(body.len())]
}

/// (offset, bytes) of each store into the argument buffer, in offset order; `.v2` stores are
/// split into their elements.
fn valist_stores(body: &str) -> Vec<(i64, usize)> {
    let mut out = Vec::new();
    for l in body.lines().map(str::trim).filter(|l| l.starts_with("st.local")) {
        let op = l.split_whitespace().next().unwrap_or_default();
        let width = if op.ends_with("64") { 8 } else { 4 };
        let n = if op.contains(".v2") { 2 } else { 1 };
        let off = l.split('[').nth(1).and_then(|r| r.split(']').next()).map(|a| a.split('+').nth(1).map(|o| o.parse().unwrap()).unwrap_or(0)).unwrap();
        for k in 0..n {
            out.push((off + (k * width) as i64, width));
        }
    }
    out.sort();
    out
}

/// Every `.global .align 1 .b8 name[N] = {...}` string, its trailing NULs dropped.
fn strings(ptx: &str) -> Vec<String> {
    let mut out: Vec<String> = ptx
        .lines()
        .filter(|l| l.starts_with(".global .align 1 .b8"))
        .map(|l| {
            let bytes = l.split('{').nth(1).unwrap().trim_end_matches(['}', ';']);
            let v: Vec<u8> = bytes.split(',').map(|b| b.trim().parse().unwrap()).collect();
            String::from_utf8(v).unwrap().trim_end_matches('\0').to_owned()
        })
        .collect();
    out.sort();
    out
}

/// The `.local` buffer's declaration: (alignment, size).
fn local_buffer(body: &str) -> (usize, usize) {
    let l = body.lines().map(str::trim).find(|l| l.starts_with(".local")).expect(".local buffer");
    let w: Vec<&str> = l.split_whitespace().collect();
    let size = w[4].split('[').nth(1).unwrap().trim_end_matches("];").parse().unwrap();
    (w[2].parse().unwrap(), size)
}

#[test]
fn the_call_is_nvccs() {
    assemble("shape", shape::PTX);
    let ours = shape::PTX;
    // The prototype is the guide's, as nvcc declares it.
    assert!(ours.contains(ptx_runtime::abi::syscall::VPRINTF), "{ours}");
    let Some(theirs) = nvcc_ptx("printf_shape", NVCC_SHAPE) else { return };
    assert!(squeeze(&theirs).contains(&squeeze(ptx_runtime::abi::syscall::VPRINTF)), "nvcc's prototype differs:\n{theirs}");
    let (ob, tb) = (entry_body(ours), entry_body(&theirs));
    // Arguments at the same offsets with the same widths: promotions and alignment as C's.
    assert_eq!(valist_stores(ob), valist_stores(tb), "ours:\n{ob}\nnvcc:\n{tb}");
    assert_eq!(valist_stores(ob), [(0, 4), (8, 8), (16, 8), (24, 4), (28, 4), (32, 8), (40, 8), (48, 8)]);
    assert_eq!(local_buffer(ob), local_buffer(tb));
    // The same format and string constants in global memory.
    assert_eq!(strings(ours), strings(&theirs));
    // Both pointers generic: the format through `cvta.global`, the buffer through `cvta.local`.
    for b in [ob, tb] {
        assert!(b.contains("cvta.global.u64") && b.contains("cvta.local.u64"), "{b}");
        assert!(b.contains(".param .b64 param0;") && b.contains(".param .b64 param1;") && b.contains(".param .b32 retval0;"), "{b}");
        assert!(squeeze(b).contains("call.uni(retval0),vprintf,(param0,param1);"), "{b}");
    }
}

/// Every thread of every block prints one line with each kind of argument.
#[kernel]
pub fn hello(base: i32, xs: &[f32], big: u64) {
    let t = thread_idx_x();
    let b = block_idx_x();
    let i = (b * block_dim_x() + t) as usize;
    let odd = t % 2 == 1;
    let x = xs[i];
    let c = b'a' + t as u8;
    printf!("block %u thread %u: %d %6.2f %s %c %x|%-4d|%012.3e|%lu|%d\n", b, t, base + t as i32, x, "str", c, 255 + t, -(t as i32), x as f64 * 1e3, big + i as u64, odd);
}

/// What C's printf prints for the same values (Rust's formatting, written to C's rules).
fn expected_line(b: u32, t: u32, base: i32, x: f32, big: u64, i: usize) -> String {
    let odd = t % 2 == 1;
    let e = x as f64 * 1e3;
    let mant = format!("{:.3e}", e);
    let (m, ex) = mant.split_once('e').unwrap();
    let ex: i32 = ex.parse().unwrap();
    let sci = format!("{}e{}{:02}", m.trim_start_matches('-'), if ex < 0 { '-' } else { '+' }, ex.abs());
    // `%012.3e`: zeros between the sign and the digits, to 12 characters.
    let sign = if e < 0.0 { "-" } else { "" };
    let sci = format!("{sign}{}{sci}", "0".repeat(12usize.saturating_sub(sign.len() + sci.len())));
    format!(
        "block {b} thread {t}: {} {:6.2} str {} {:x}|{:<4}|{}|{}|{}\n",
        base + t as i32,
        x,
        (b'a' + t as u8) as char,
        255 + t,
        -(t as i32),
        sci,
        big + i as u64,
        odd as i32
    )
}

#[test]
fn many_threads_print_and_the_output_is_captured() {
    assemble("hello", hello::PTX);
    let (blocks, threads) = (3u32, 8u32);
    let xs: Vec<f32> = (0..blocks * threads).map(|i| i as f32 * 1.25 - 7.5).collect();
    let big = 1u64 << 40;
    let mut k = Harness::new(hello::PTX);
    let d = k.upload(&xs);
    k.launch(hello::ENTRY, [blocks, 1, 1], [threads, 1, 1], 0, &[arg(5i32), d.slice(), arg(big)]).unwrap();
    let got = k.printf();
    let want: String = (0..blocks)
        .flat_map(|b| (0..threads).map(move |t| (b, t)))
        .map(|(b, t)| {
            let i = (b * threads + t) as usize;
            expected_line(b, t, 5, xs[i], big, i)
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn the_host_definition_formats_as_the_device() {
    // `printf!` on the host: the same C semantics (the text is checked above against
    // independently formatted lines; here the host agrees with the device line for line).
    let args = [
        PrintfArg::printf_arg(7u32),
        PrintfArg::printf_arg(-3i8),
        PrintfArg::printf_arg(2.5f32),
        PrintfArg::printf_arg("str"),
        PrintfArg::printf_arg(true),
        PrintfArg::printf_arg(u64::MAX),
        PrintfArg::printf_arg(std::ptr::null::<u8>()),
    ];
    assert_eq!(format_on_host("%u %d %.3f %s %d %lu %p\n", &args), "7 -3 2.500 str 1 18446744073709551615 (nil)\n");
    let c = c"bytes";
    assert_eq!(format_on_host("[%8s]", &[PrintfArg::printf_arg(c.as_ptr() as *const u8)]), "[   bytes]");
    // The whole kernel body runs on the host: it prints (to stdout) without failing.
    let xs = [1.0f32, 2.0];
    host::run([1, 1, 1], [2, 1, 1], 0, || hello(1, &xs, 3));
}

/// No arguments: `vprintf` gets a null argument buffer, as from nvcc.
#[kernel]
pub fn plain() {
    printf!("100%% plain\n");
}

/// `%s` with a pointer to a NUL-terminated string in device memory, `%p` with a pointer.
#[kernel]
pub fn named(name: *const u8, p: *const u32) {
    printf!("[%s] [%.3s] %p\n", name, name, p);
}

#[test]
fn a_format_without_arguments_passes_no_buffer() {
    assemble("plain", plain::PTX);
    let body = entry_body(plain::PTX);
    assert!(!body.contains(".local") && body.contains("st.param.b64 \t[param1], 0;"), "{body}");
    let k = Harness::new(plain::PTX);
    k.launch(plain::ENTRY, [1, 1, 1], [2, 1, 1], 0, &[]).unwrap();
    assert_eq!(k.printf(), "100% plain\n100% plain\n");
}

#[test]
fn strings_and_pointers_in_device_memory_print() {
    assemble("named", named::PTX);
    let mut k = Harness::new(named::PTX);
    let s = k.upload(b"device\0");
    k.launch(named::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[s.ptr(), s.ptr()]).unwrap();
    assert_eq!(k.printf(), format!("[device] [dev] {:#x}\n", s.addr));
}

/// A device function that prints: its module declares `vprintf` once, however many functions
/// call it, and its strings are named after it.
#[ptx_runtime::device_fn]
pub fn report(v: u32) {
    printf!("report %u\n", v);
}

#[kernel]
pub fn twice(n: u32) {
    report(n);
    printf!("kernel %u\n", n + 1);
}

#[test]
fn every_module_declares_vprintf_once() {
    assemble("twice", twice::PTX);
    assemble("report", report::PTX);
    assert_eq!(twice::PTX.matches(".extern .func (.param .b32 func_retval0) vprintf(").count(), 1, "{}", twice::PTX);
    assert_eq!(strings(twice::PTX), ["kernel %u\n", "report %u\n"]);
    let k = Harness::new(twice::PTX);
    k.launch(twice::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(41u32)]).unwrap();
    assert_eq!(k.printf(), "report 41\nkernel 42\n");
}
