//! Tuples as values: device-function parameters and return values (passed as nvcc passes the
//! C struct of their members), destructuring, `.0`/`.1`, and tuple patterns in `match`. Every
//! kernel runs on the host (`host::run`) and on the CPU backend and the results are compared
//! bit for bit; every module goes through ptxas.

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod pairs {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    pub struct V2 {
        pub x: f32,
        pub y: f32,
    }

    #[device_fn]
    pub fn min_max(a: f32, b: f32) -> (f32, f32) {
        if a < b {
            (a, b)
        } else {
            (b, a)
        }
    }

    #[device_fn]
    pub fn div_mod(p: (u32, u32)) -> (u32, u32) {
        let (n, d) = p;
        if d == 0 {
            return (0, n);
        }
        (n / d, n % d)
    }

    /// Members of three sizes: the C struct `{ u8; f64; i16 }` has padding after each.
    #[device_fn]
    pub fn mixed(t: (u8, f64, i16), flag: bool) -> (i16, bool, f64, u8) {
        (t.2.wrapping_neg(), !flag, t.1 * 2.0, t.0.wrapping_add(1))
    }

    /// A struct member and a nested call.
    #[device_fn]
    pub fn scaled(v: (V2, f32)) -> (V2, u32) {
        let (p, s) = v;
        let (lo, hi) = min_max(p.x * s, p.y * s);
        (V2 { x: lo, y: hi }, s as u32)
    }
}

#[kernel]
pub fn tuples(x: &[f32], n: &[u32], out: &mut [f32], codes: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let (lo, hi) = pairs::min_max(x[i], -x[i] * 0.5);
        let qr = pairs::div_mod((n[i], (i as u32) % 5));
        let m = pairs::mixed((n[i] as u8, x[i] as f64, i as i16 - 7), i % 3 == 0);
        let (v, c) = pairs::scaled((pairs::V2 { x: x[i], y: lo }, hi));
        out[i] = lo * 3.0 + hi + m.2 as f32 + v.x - v.y;
        let mut t = (qr.0, qr.1);
        t.1 += 1;
        codes[i] = (t.0 * 1000 + t.1 + (m.0 as i32 as u32 & 0xffff) * 7 + m.3 as u32 * 3 + c % 100 * 11) | if m.1 { 1 << 30 } else { 0 };
    }
}

fn inputs() -> (Vec<f32>, Vec<u32>) {
    let x: Vec<f32> = (0..64).map(|i| (i as f32 - 30.0) * 1.25).collect();
    let n: Vec<u32> = (0..64).map(|i| (i * 37 + 250) as u32).collect();
    (x, n)
}

#[test]
fn tuples_compile_through_ptxas() {
    assemble("tuples", tuples::PTX);
    assemble("min_max", pairs::min_max::PTX);
    assemble("mixed", pairs::mixed::PTX);
}

#[test]
fn tuple_parameters_and_returns_agree_with_the_host() {
    let (x, n) = inputs();
    let len = x.len();
    let (mut out, mut codes) = (vec![0.0f32; len], vec![0u32; len]);
    {
        let (o, c) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut codes));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [len as u32, 1, 1], 0, || tuples(&x, &n, unsafe { o.get() }, unsafe { c.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (xb, nb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &n).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, len).unwrap();
    let mut cb = DeviceBuffer::<u32>::zeroed(&stream, len).unwrap();
    tuples::launch(&stream, LaunchConfig::new(1, len as u32), &xb, &nb, &mut ob, &mut cb).unwrap();
    let dev: Vec<u32> = ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
    let host: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
    assert_eq!(dev, host);
    assert_eq!(cb.to_vec().unwrap(), codes);
    assert!(codes.iter().any(|c| *c >= 1 << 30) && codes.iter().any(|c| *c < 1 << 30), "both flags reached: {codes:?}");
}

/// The `.param` declarations of a tuple parameter and return are those nvcc gives the C struct
/// of the members: `struct M { unsigned char a; double b; short c; }` by value both ways.
#[test]
fn a_tuple_is_declared_as_nvcc_declares_the_equivalent_struct() {
    let ours = pairs::mixed::PTX;
    let decl = |ptx: &str| -> Vec<String> {
        let start = ptx.find(".func").expect(".func");
        let head = &ptx[start..start + ptx[start..].find("\n)").expect("parameter list")];
        head.split(".param").skip(1).map(|p| p.split_whitespace().take_while(|w| w.starts_with('.') || w.parse::<u32>().is_ok()).collect::<Vec<_>>().join(" ")).collect()
    };
    let ours_decl = decl(ours);
    assert_eq!(ours_decl, [".align 8 .b8", ".align 8 .b8", ".b32"], "{ours}");
    assert!(ours.contains("func_retval0[24]") && ours.contains("_param_0[24]"), "{ours}");
    let Some(nvcc) = nvcc_ptx(
        "tuple_struct",
        "struct M { unsigned char a; double b; short c; };\nstruct R { short a; bool b; double c; unsigned char d; };\n\
         extern \"C\" __device__ __noinline__ R mixed(M t, bool flag) { R r; r.a = -t.c; r.b = !flag; r.c = t.b * 2.0; r.d = t.a + 1; return r; }\n\
         extern \"C\" __global__ void k(M *m, R *r) { *r = mixed(*m, true); }\n",
    ) else {
        return;
    };
    assert_eq!(decl(&nvcc), ours_decl, "{nvcc}");
    assert!(nvcc.contains("func_retval0[24]") && nvcc.contains("_param_0[24]"), "{nvcc}");
}

/// Tuple (and struct) patterns in `match`: literals, ranges, variants of a C-like enum and
/// constants in members, bindings (`x`, `x @ 1..=3`), `..`, `|` inside members, guards, and a
/// last arm with a guard (falling through it is unreachable, as rustc proved).
#[kernel]
pub fn tuple_match(a: &[i32], b: &[u8], out: &mut [i32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let t = (a[i], b[i], i % 4 == 0);
        let r = match t {
            (0, _, true) => 1,
            (x @ 1..=3, 7 | 9, _) => 10 + x,
            (x, y, false) if x < -20 => x * 2 - y as i32,
            (.., true) => 100,
            (x, 200..=255, _) => x + 1000,
            (_, y, flag) => y as i32 - if flag { 1 } else { 5000 },
        };
        let p = pairs::V2 { x: a[i] as f32, y: b[i] as f32 };
        let s = match (p, i % 3) {
            (pairs::V2 { x, .. }, 0) if x > 5.0 => 7,
            (pairs::V2 { y, x }, k) if y > x => k as i32 * 3,
            (_, k) => match (k, r > 50) {
                (1, true) => 11,
                (k, b) if b => k as i32,
                (_, _) => -1,
            },
        };
        out[i] = r * 100 + s;
    }
}

#[test]
fn tuple_patterns_in_match_agree_with_the_host() {
    assemble("tuple_match", tuple_match::PTX);
    let a: Vec<i32> = (0..96).map(|i| [0, 1, 2, 3, 4, -30, -21, -20, 50][i % 9] + if i % 11 == 0 { 7 } else { 0 }).collect();
    let b: Vec<u8> = (0..96).map(|i| [7, 9, 200, 255, 0, 3, 199][i % 7]).collect();
    let n = a.len();
    let mut out = vec![0i32; n];
    {
        let o = host::Disjoint::new(&mut out);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || tuple_match(&a, &b, unsafe { o.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (ab, bb) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap());
    let mut ob = DeviceBuffer::<i32>::zeroed(&stream, n).unwrap();
    tuple_match::launch(&stream, LaunchConfig::new(1, n as u32), &ab, &bb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
    // Every arm of the first match was taken.
    let rs: std::collections::BTreeSet<i32> = out.iter().map(|v| (v + 50) .div_euclid(100)).collect();
    assert!(rs.len() >= 6, "{rs:?}");
}
