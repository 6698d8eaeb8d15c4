//! `Option<T>` and `Result<T, E>` as values: device-function parameters and returns, `?`,
//! `if let`, `while let`, `let ... else`, `match` on `Some`/`None`/`Ok`/`Err`, the methods that
//! stand for a `match`, slice `get`/`first`/`last`, integer `checked_*` and `try_from`. Every
//! kernel runs on the host (`host::run`) and on the CPU backend and the results are compared;
//! every module goes through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod opt {
    use ptx_runtime::device_fn;

    /// The first index at or after `from` whose value exceeds `limit`.
    #[device_fn]
    pub fn find_above(xs: &[f32], from: usize, limit: f32) -> Option<usize> {
        let mut i = from;
        while i < xs.len() {
            if xs[i] > limit {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// `Err` with a code for negative input, else the root.
    #[device_fn]
    pub fn root(x: f32) -> Result<f32, u32> {
        if x < 0.0 {
            Err(x.to_bits() >> 20)
        } else {
            Ok(x.sqrt())
        }
    }

    /// `?` on both, and an `Option` parameter.
    #[device_fn]
    pub fn chain(xs: &[f32], bias: Option<f32>) -> Option<f32> {
        let i = find_above(xs, 0, 1.0)?;
        let j = find_above(xs, i + 1, 1.0)?;
        let b = bias.unwrap_or(0.5);
        Some(xs[i] + xs[j] * 2.0 + b)
    }

    #[device_fn]
    pub fn both_roots(a: f32, b: f32) -> Result<(f32, f32), u32> {
        let ra = root(a)?;
        let rb = root(b)?;
        Ok((ra, rb))
    }
}

#[kernel]
pub fn options(x: &[f32], out: &mut [f32], codes: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let w = &x[i..];
        let mut v = 0.0f32;
        if let Some(k) = opt::find_above(w, 0, 0.5) {
            v += k as f32;
        } else {
            v -= 1.0;
        }
        let bias = if i % 3 == 0 { None } else { Some(i as f32) };
        let c = opt::chain(w, bias);
        v += c.unwrap_or(-100.0);
        let r = match opt::root(x[i]) {
            Ok(s) if s > 2.0 => s * 10.0,
            Ok(s) => s,
            Err(code) => code as f32,
        };
        v += r;
        let mut code = 0u32;
        match opt::both_roots(x[i], x[(i + 1) % x.len()]) {
            Ok((p, q)) => v += p - q,
            Err(e) => code += e,
        }
        // `while let` over successive finds.
        let mut from = 0usize;
        let mut hits = 0u32;
        while let Some(k) = opt::find_above(w, from, 1.5) {
            hits += 1;
            from = k + 2;
        }
        let 0..=9 = hits else { return };
        let Some(first) = w.first() else { return };
        let last = *w.last().unwrap();
        let got = w.get(3).copied().unwrap_or_default();
        v += *first * 0.25 + last * 0.5 + got;
        code += hits * 1000 + c.is_some() as u32 * 10 + bias.is_none() as u32 * 100 + opt::root(x[i]).is_err() as u32 * 10_000;
        code += (bias == Some(3.0)) as u32 * 100_000 + ((i as u32, c != None) == (4, true)) as u32 * 1_000_000;
        code += (opt::root(x[i]) == Err(0)) as u32 * 10_000_000 + (opt::root(x[i]) != opt::root(-x[i])) as u32 * 100_000_000;
        out[i] = v;
        codes[i] = code;
    }
}

#[test]
fn options_compile_through_ptxas() {
    assemble("options", options::PTX);
    assemble("chain", opt::chain::PTX);
}

#[test]
fn options_and_results_agree_with_the_host() {
    let x: Vec<f32> = (0..64).map(|i| ((i * 37) % 23) as f32 * 0.25 - 1.5).collect();
    let n = x.len();
    let (mut out, mut codes) = (vec![0.0f32; n], vec![0u32; n]);
    {
        let (o, c) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut codes));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || options(&x, unsafe { o.get() }, unsafe { c.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut cb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    options::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut ob, &mut cb).unwrap();
    let dev: Vec<u32> = ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
    let host: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
    assert_eq!(dev, host);
    assert_eq!(cb.to_vec().unwrap(), codes);
    // Each branch was taken by some thread and not by others: `chain`'s `Some` (10), `None`
    // bias (100), `while let` hits (1000s), `root`'s `Err` (10_000).
    for (digit, what) in [(10, "chain"), (100, "bias"), (10_000, "root error")] {
        assert!(codes.iter().any(|c| c / digit % 10 == 1) && codes.iter().any(|c| c / digit % 10 == 0), "{what}: {codes:?}");
    }
    assert!(codes.iter().any(|c| c / 1000 % 10 > 1), "{codes:?}");
}

pub mod tl {
    use ptx_runtime::device_fn;

    /// Sets bit `k` and mixes in the value when there is one.
    #[device_fn]
    pub fn tally(o: Option<u64>, k: u32, acc: (u32, u32)) -> (u32, u32) {
        match o {
            Some(v) => (acc.0 | 1 << k, acc.1.rotate_left(5) ^ v as u32 ^ (v >> 32) as u32),
            None => acc,
        }
    }

    #[device_fn]
    pub fn of_i32(o: Option<i32>) -> Option<u64> {
        match o {
            Some(v) => Some(v as u64),
            None => None,
        }
    }

    #[device_fn]
    pub fn of_u32(o: Option<u32>) -> Option<u64> {
        if let Some(v) = o {
            Some(v as u64)
        } else {
            None
        }
    }

    #[device_fn]
    pub fn of_u8(o: Option<u8>) -> Option<u64> {
        let Some(v) = o else { return None };
        Some(v as u64)
    }

    #[device_fn]
    pub fn of_i8(o: Result<i8, core::num::TryFromIntError>) -> Option<u64> {
        Some(o.ok()? as u64)
    }

    #[device_fn]
    pub fn of_i64(o: Option<i64>) -> Option<u64> {
        Some(o? as u64)
    }
}

/// Integer `checked_*` and `try_from` at the boundaries of each type: each outcome sets a bit
/// and mixes in its value. One block per pair of operands.
#[kernel]
pub fn checked_block(a: &[i32], b: &[i32], out: &mut [u32]) {
    let i = block_idx_x() as usize;
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        let (ux, uy) = (x as u32, y as u32);
        let (bx, by) = (x as u8, y as u8);
        let (lx, ly) = ((x as i64).wrapping_mul(0x1_0000_0001), (y as i64).wrapping_mul(0x7fff_ffff));
        let (qx, qy) = (lx as u64, ly as u64);
        let mut acc = (0u32, 0u32);
        acc = tl::tally(tl::of_i32(x.checked_add(y)), 0, acc);
        acc = tl::tally(tl::of_i32(x.checked_sub(y)), 1, acc);
        acc = tl::tally(tl::of_i32(x.checked_mul(y)), 2, acc);
        acc = tl::tally(tl::of_i32(x.checked_div(y)), 3, acc);
        acc = tl::tally(tl::of_i32(x.checked_rem(y)), 4, acc);
        acc = tl::tally(tl::of_u32(ux.checked_add(uy)), 5, acc);
        acc = tl::tally(tl::of_u32(ux.checked_sub(uy)), 6, acc);
        acc = tl::tally(tl::of_u32(ux.checked_mul(uy)), 7, acc);
        acc = tl::tally(tl::of_u32(ux.checked_div(uy)), 8, acc);
        acc = tl::tally(tl::of_u8(bx.checked_add(by)), 9, acc);
        acc = tl::tally(tl::of_u8(bx.checked_sub(by)), 10, acc);
        acc = tl::tally(tl::of_u8(bx.checked_mul(by)), 11, acc);
        acc = tl::tally(tl::of_i64(lx.checked_add(ly)), 12, acc);
        acc = tl::tally(tl::of_i64(lx.checked_sub(ly)), 13, acc);
        acc = tl::tally(tl::of_i64(lx.checked_mul(ly)), 14, acc);
        acc = tl::tally(tl::of_i64(lx.checked_div(ly)), 15, acc);
        acc = tl::tally(qx.checked_add(qy), 16, acc);
        acc = tl::tally(qx.checked_sub(qy), 17, acc);
        acc = tl::tally(qx.checked_mul(qy), 18, acc);
        acc = tl::tally(qx.checked_rem(qy), 19, acc);
        acc = tl::tally(tl::of_u8(u8::try_from(x).ok()), 20, acc);
        acc = tl::tally(tl::of_i8(i8::try_from(x)), 21, acc);
        acc = tl::tally(tl::of_u32(u32::try_from(lx).ok()), 22, acc);
        acc = tl::tally(tl::of_i64(i64::try_from(qx).ok()), 23, acc);
        acc = tl::tally(tl::of_u32(u32::try_from(x).ok()), 24, acc);
        acc = tl::tally(Some(u64::try_from(ux).unwrap_or(7)), 25, acc);
        let t: Result<u8, _> = x.try_into();
        acc = tl::tally(tl::of_u8(t.ok()), 26, acc);
        let w: i16 = lx.try_into().unwrap_or(-9);
        acc = tl::tally(Some(w as u64), 27, acc);
        let z: Result<u32, _> = qx.try_into();
        acc = tl::tally(tl::of_u32(z.ok()), 28, acc);
        out[i] = acc.0 ^ acc.1.rotate_left(13);
        out[i + a.len()] = acc.0;
    }
}

#[test]
fn checked_arithmetic_and_try_from_agree_with_the_host() {
    assemble("checked", checked_block::PTX);
    let edges = [0, 1, -1, 2, -2, 7, 127, 128, 255, 256, -128, -129, 46341, -46341, 65536, i32::MAX, i32::MIN, i32::MAX - 1, i32::MIN + 1];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let mut out = vec![0u32; 2 * n];
    {
        let o = host::Disjoint::new(&mut out);
        // SAFETY: each block writes its own two elements, `i` and `i + n`.
        host::run([n as u32, 1, 1], [1, 1, 1], 0, || checked_block(&a, &b, unsafe { o.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (ab, bb) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap());
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 2 * n).unwrap();
    checked_block::launch(&stream, LaunchConfig::new(n as u32, 1), &ab, &bb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
    // Every outcome both happened and did not, somewhere.
    let bits = &out[n..];
    for k in 0..29 {
        let varies = bits.iter().any(|v| v >> k & 1 == 1) && bits.iter().any(|v| v >> k & 1 == 0);
        assert!(varies || k == 25 || k == 27, "outcome {k} never varies");
    }
}

#[kernel]
pub fn unwraps(x: &[u32], out: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let r = u8::try_from(x[i]);
        let v = x.get(i + 1).copied();
        out[i] = r.expect("the byte fits") as u32 + v.unwrap();
    }
}

fn line_of(text: &str) -> u32 {
    include_str!("body_option.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

/// `unwrap` on `None` and `expect` on `Err` stop the kernel as a failed assertion, with Rust's
/// message and the line of the call (as `#[track_caller]` gives it in Rust).
#[test]
fn unwrap_of_none_and_expect_of_err_report_rusts_message() {
    assemble("unwraps", unwraps::PTX);
    let stream = crate::body_exec::cpu_stream();
    let run = |x: &[u32], n: u32| {
        let xb = DeviceBuffer::from_slice(&stream, x).unwrap();
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n as usize).unwrap();
        unwraps::launch(&stream, LaunchConfig::new(1, n), &xb, &mut ob).and_then(|_| stream.synchronize()).map(|_| ob.to_vec().unwrap())
    };
    assert_eq!(run(&[1, 2, 3], 2).unwrap(), [3, 5]);
    for (x, n, message) in [(&[1u32, 2, 3][..], 3, "called `Option::unwrap()` on a `None` value"), (&[1, 300, 3], 2, "the byte fits")] {
        match run(x, n) {
            Err(ptx_runtime::Error::Assert { message: m, file, line, .. }) => {
                assert_eq!(m, message);
                assert!(file.ends_with("body_option.rs"), "{file}");
                assert_eq!(line, line_of("out[i] = r.expect"));
            }
            other => panic!("expected `{message}`, got {other:?}"),
        }
    }
}
