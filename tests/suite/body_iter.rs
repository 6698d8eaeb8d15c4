//! Iterators and closures (issue 15): chains over slices, arrays and ranges compiled to counted
//! loops, closures inlined. Every kernel runs on the host (`host::run`) and on the CPU backend
//! and the results are compared bit for bit; every module goes through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

/// Rows of 8 (the last thread's row is followed by 5 more elements).
pub const ROW: usize = 8;
pub const THREADS: usize = 32;

#[kernel]
pub fn it_sources(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let mut a = 0.0f32;
    for v in row.iter() {
        a += *v * 2.0;
    }
    for v in row {
        a += v;
    }
    for &v in row.iter().rev() {
        a = a * 0.5 + v;
    }
    let arr = [1.0f32, 2.0, 3.0, 4.0];
    for v in arr {
        a += v * row[0];
    }
    for v in arr.into_iter() {
        a -= v;
    }
    // By value: the loop sees the array as it was (a copy), not the body's writes.
    let mut grow = [row[1], row[2], row[3]];
    for v in grow {
        grow[2] += v;
        a += grow[2] * 0.25 + v;
    }
    let mut loc = [0.0f32; 4];
    for (i, v) in loc.iter_mut().enumerate() {
        *v = row[i] + i as f32;
    }
    for v in &mut loc {
        *v *= 2.0;
    }
    a += loc.iter().sum::<f32>();
    let mut n = 0u32;
    for w in &y[t..t + 4] {
        n += w;
    }
    let o = &mut out[t * 4..t * 4 + 4];
    for (j, slot) in o.iter_mut().enumerate() {
        *slot = a + j as f32 + n as f32;
    }
}

/// Inputs: `x` has rows of `ROW` and 5 more, with negatives, zeros and repeats; `y` counts.
pub(crate) fn inputs() -> (Vec<f32>, Vec<u32>) {
    let x: Vec<f32> = (0..THREADS * ROW + 5).map(|i| ((i * 37 % 23) as f32 - 9.0) * 0.75).collect();
    let y: Vec<u32> = (0..THREADS * ROW + 5).map(|i| (i as u32).wrapping_mul(2654435761) >> 27).collect();
    (x, y)
}

pub(crate) type Launch = fn(&ptx_runtime::Stream, LaunchConfig, &DeviceBuffer<f32>, &DeviceBuffer<u32>, &mut DeviceBuffer<f32>) -> ptx_runtime::Result<()>;

/// Runs `body` on the host and `launch` on the CPU backend with `per` outputs per thread, and
/// compares the results bit for bit; assembles `ptx`. Returns the host's results.
pub(crate) fn agree(name: &str, ptx: &str, per: usize, body: fn(&[f32], &[u32], &mut [f32]), launch: Launch) -> Vec<f32> {
    assemble(name, ptx);
    let (x, y) = inputs();
    let mut out = vec![0.0f32; THREADS * per];
    {
        let o = host::Disjoint::new(&mut out);
        // SAFETY: each thread writes its own `per` elements.
        host::run([1, 1, 1], [THREADS as u32, 1, 1], 0, || body(&x, &y, unsafe { o.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (xb, yb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &y).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, out.len()).unwrap();
    launch(&stream, LaunchConfig::new(1, THREADS as u32), &xb, &yb, &mut ob).unwrap();
    stream.synchronize().unwrap();
    let dev: Vec<u32> = ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
    assert_eq!(dev, out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "{name}: the CPU backend differs from the host");
    out
}

#[test]
fn sources_slices_arrays_and_mutable_elements_agree_with_the_host() {
    let out = agree("it_sources", it_sources::PTX, 4, it_sources, |s, c, x, y, o| it_sources::launch(s, c, x, y, o));
    assert!(out.iter().any(|v| *v != 0.0));
}

#[kernel]
pub fn it_adapters(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let ys = &y[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 12..t * 12 + 12];
    // zip, map, sum: a dot product.
    o[0] = row.iter().zip(ys).map(|(p, q)| p * *q as f32).sum();
    // enumerate, filter, skip, take, step_by, rev.
    let mut a = 0.0f32;
    for (i, v) in row.iter().enumerate().filter(|(_, v)| **v > 0.0) {
        a += v * i as f32;
    }
    o[1] = a;
    o[2] = row.iter().skip(2).take(4).map(|v| v * v).sum::<f32>();
    o[3] = row.iter().step_by(3).rev().fold(1.0f32, |acc, v| acc * 0.5 + v);
    o[4] = row.iter().rev().skip(1).step_by(2).enumerate().map(|(i, v)| v + i as f32).sum();
    // Streaming forms: adapters after a filter.
    o[5] = row.iter().filter(|v| **v != 0.0).skip(1).take(3).enumerate().map(|(i, &v)| v * (i + 1) as f32).sum();
    o[6] = row.iter().filter(|&&v| v > -3.0).step_by(2).zip(ys.iter()).map(|(a, b)| a - *b as f32).sum();
    // Ranges get the same adapters.
    o[7] = (0..ROW as u32).map(|k| k * k).filter(|k| k % 3 != 0).fold(0u32, |s, k| s + k) as f32;
    o[8] = (1..=5u32).rev().zip(row.iter()).map(|(k, v)| k as f32 * v).sum();
    o[9] = (0..ROW).step_by(3).map(|i| row[i]).sum();
    o[10] = row.iter().copied().take_while(|v| *v < 5.0).count() as f32;
    let mut inspected = 0u32;
    o[11] = (0..t as u32).skip(2).inspect(|_| inspected += 1).map(|k| k as f32).product::<f32>() + inspected as f32;
}

#[test]
fn adapters_on_slices_and_ranges_agree_with_the_host() {
    let out = agree("it_adapters", it_adapters::PTX, 12, it_adapters, |s, c, x, y, o| it_adapters::launch(s, c, x, y, o));
    assert!(out.chunks(12).all(|r| r[7] != 0.0));
}

#[kernel]
pub fn it_consumers(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let ys = &y[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 12..t * 12 + 12];
    o[0] = ys.iter().min().copied().unwrap_or(99) as f32;
    o[1] = *ys.iter().max().unwrap() as f32;
    o[2] = row.iter().position(|v| *v < 0.0).unwrap_or(ROW) as f32;
    o[3] = row.iter().find(|v| **v > 2.0).copied().unwrap_or(-1.0);
    o[4] = if row.iter().any(|v| *v == 0.0) { 1.0 } else { 0.0 } + if ys.iter().all(|&k| k < 31) { 10.0 } else { 0.0 };
    o[5] = match ys.iter().position(|&k| k > 29) {
        Some(i) => i as f32,
        None => -5.0,
    };
    o[6] = if let Some(v) = row.iter().rev().find(|v| **v < -1.0) { *v } else { 0.5 };
    o[7] = row.iter().copied().reduce(f32::max).unwrap();
    o[8] = ys.iter().filter(|k| **k % 2 == 1).count() as f32;
    o[9] = row.iter().last().copied().unwrap_or(0.0) + if (0..t).find(|k| k * k > 50).is_some() { 100.0 } else { 0.0 };
    let mut s = 0.0f32;
    row.iter().enumerate().for_each(|(i, v)| s += v * i as f32);
    o[10] = s;
    o[11] = (0..t as u32).map(|k| k % 7).max().unwrap_or(0) as f32;
}

#[test]
fn consumers_agree_with_the_host() {
    let out = agree("it_consumers", it_consumers::PTX, 12, it_consumers, |s, c, x, y, o| it_consumers::launch(s, c, x, y, o));
    assert!(out.chunks(12).any(|r| r[5] == -5.0) && out.chunks(12).any(|r| r[5] != -5.0), "both arms are taken");
}

#[kernel]
pub fn it_chunks(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    // Rows of 8 plus a tail of t % 5 elements: chunks of 3 leave a remainder.
    let s = &x[t * ROW..t * ROW + ROW + t % 5];
    let o = &mut out[t * 8..t * 8 + 8];
    let mut a = 0.0f32;
    for c in s.chunks_exact(3) {
        a = a * 0.5 + c[0] - c[2];
    }
    o[0] = a;
    o[1] = s.chunks_exact(3).remainder().iter().sum();
    o[2] = s.chunks(3).map(|c| c.len() as f32 * c[c.len() - 1]).sum();
    o[3] = s.windows(3).map(|w| w[0] * w[1] + w[2]).fold(0.0, |m: f32, v| m.max(v));
    o[4] = s.windows(ROW + 3).count() as f32;
    let mut pairs = 0u32;
    for (c, k) in o[..5].chunks_exact_mut(2).zip(y[t..].iter()) {
        c[1] = c[0] + *k as f32;
        pairs += 1;
    }
    o[5] = pairs as f32;
    o[6] = s.chunks(4).enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, c)| c[0]).sum();
    o[7] = s.windows(2).filter(|w| w[0] < w[1]).count() as f32;
}

#[test]
fn chunks_windows_and_remainders_agree_with_the_host() {
    let out = agree("it_chunks", it_chunks::PTX, 8, it_chunks, |s, c, x, y, o| it_chunks::launch(s, c, x, y, o));
    assert!(out.chunks(8).any(|r| r[1] != 0.0) && out.chunks(8).any(|r| r[4] != 0.0));
}

pub mod shapes {
    use ptx_runtime::device_fn;

    #[device_fn]
    pub fn twice(v: f32) -> f32 {
        v * 2.0
    }
}

#[kernel]
pub fn it_closures(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 8..t * 8 + 8];
    let k = y[t] as f32;
    // Bound to locals, capturing by reference and by move, called and passed to adapters.
    let sq = |v: f32| v * v;
    let scaled = |v: f32| -> f32 { v * k + 1.0 };
    o[0] = sq(row[0]) + scaled(row[1]) + sq(scaled(2.0));
    o[1] = row.iter().map(|v| sq(*v)).sum::<f32>() + row.iter().copied().map(scaled).sum::<f32>();
    let mut m = 1.0f32;
    let shift = move |v: f32| v + m;
    m = 100.0;
    o[2] = shift(1.0) + m;
    // FnMut: a closure that changes what it captures, by reference and as its own copy.
    let mut count = 0u32;
    let mut bump = |by: u32| count += by;
    bump(2);
    bump(3);
    let mut state = 10u32;
    let mut next = move || {
        state += 1;
        state
    };
    let (a, b) = (next(), next());
    o[3] = count as f32 + (a * 100 + b) as f32 + state as f32;
    // `return` leaves the closure; a name shadowed after the closure is not what it sees.
    let clamp = |v: f32| {
        if v < 0.0 {
            return 0.0;
        }
        v.min(k)
    };
    let k = -1.0f32;
    o[4] = row.iter().map(|v| clamp(*v)).sum::<f32>() + k;
    // A device function's path and `f32::max` as adapter functions.
    o[5] = row.iter().copied().map(shapes::twice).fold(f32::MIN, f32::max);
    let pos = |v: &f32| *v > 0.0;
    o[6] = row.iter().filter(|v| pos(v)).count() as f32;
    let mut acc = 0.0f32;
    for (i, v) in row.iter().enumerate() {
        let w = |s: f32| s * i as f32;
        acc += w(*v);
    }
    o[7] = acc;
}

#[test]
fn closures_agree_with_the_host() {
    agree("it_closures", it_closures::PTX, 8, it_closures, |s, c, x, y, o| it_closures::launch(s, c, x, y, o));
}

// Twins: the same loop written with iterators and with indices.

#[kernel]
pub fn sum_iter(x: &[f32], out: *mut f32) {
    let mut s = 0.0f32;
    for v in x.iter() {
        s += *v;
    }
    unsafe { out.write(s) }
}

#[kernel]
pub fn sum_index(x: &[f32], out: *mut f32) {
    let mut s = 0.0f32;
    for i in 0..x.len() {
        s += x[i];
    }
    unsafe { out.write(s) }
}

#[kernel]
pub fn dot_iter(a: &[f32], b: &[f32], out: *mut f32) {
    let d: f32 = a.iter().zip(b).map(|(p, q)| p * q).sum();
    unsafe { out.write(d) }
}

#[kernel]
pub fn dot_index(a: &[f32], b: &[f32], out: *mut f32) {
    let mut d = 0.0f32;
    for i in 0..a.len().min(b.len()) {
        d += a[i] * b[i];
    }
    unsafe { out.write(d) }
}

#[kernel]
pub fn axpy_iter(k: f32, x: &[f32], y: &mut [f32]) {
    for (o, v) in y.iter_mut().zip(x) {
        *o += k * v;
    }
}

#[kernel]
pub fn axpy_index(k: f32, x: &[f32], y: &mut [f32]) {
    for i in 0..y.len().min(x.len()) {
        y[i] += k * x[i];
    }
}

/// PTX instructions (not directives, labels or declarations).
pub(crate) fn instructions(ptx: &str) -> usize {
    ptx.lines().map(str::trim).filter(|l| l.ends_with(';') && !l.starts_with('.') && !l.starts_with("//")).count()
}

#[test]
fn iterator_loops_compile_to_the_index_loops() {
    for (name, iter, index) in [
        ("sum", sum_iter::PTX, sum_index::PTX),
        ("dot", dot_iter::PTX, dot_index::PTX),
        ("axpy", axpy_iter::PTX, axpy_index::PTX),
        ("layernorm", crate::corpus::layernorm_iter::layernorm_iter::PTX, crate::corpus::layernorm::layernorm::PTX),
    ] {
        assemble(&format!("{name}_iter"), iter);
        assemble(&format!("{name}_index"), index);
        // No bounds check: an iterator's index is below the length by construction.
        if name != "layernorm" {
            assert!(!iter.contains("__assertfail") && !iter.contains("trap;"), "{name}: the iterator loop has a check:\n{iter}");
        }
        let (i, j) = (instructions(iter), instructions(index));
        assert!(i <= j, "{name}: {i} PTX instructions with iterators, {j} with indices:\n{iter}\n---\n{index}");
        for sm in [80, 90] {
            let (Some(a), Some(b)) = (crate::body_quality::measure(&format!("{name}_iter"), iter, sm), crate::body_quality::measure(&format!("{name}_index"), index, sm)) else { continue };
            let (a, b) = (a[0].2, b[0].2);
            eprintln!("{name} sm_{sm}: SASS {a} with iterators, {b} with indices; PTX {i} / {j}");
            // The loops are the same (2%); layernorm's whole kernels differ in more than the
            // loops: the iterator form makes two checked sub-slices of the row where the index
            // form checks each loop's last index before it, and ptxas unrolls the two
            // differently. Both have their checks joined before the first loop (`ir/raise.rs`),
            // which took the index form 547 → 532 on sm_80 and the iterator form 566 → 562, so
            // it gets 6%.
            let budget = if name == "layernorm" { 1.06 } else { 1.02 };
            assert!(a as f64 <= b as f64 * budget, "{name} sm_{sm}: {a} SASS instructions with iterators, {b} with indices");
        }
    }
    // They compute the same: on the CPU backend, against the host.
    let stream = crate::body_exec::cpu_stream();
    let (x, _) = inputs();
    let y: Vec<f32> = x.iter().map(|v| v * 0.5 - 1.0).collect();
    let (xb, yb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &y[..100]).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 2).unwrap();
    let cfg = LaunchConfig::new(1, 1);
    unsafe { dot_iter::launch(&stream, cfg, &xb, &yb, &mut ob).unwrap() };
    stream.synchronize().unwrap();
    let host: f32 = x.iter().zip(&y[..100]).map(|(p, q)| p * q).sum();
    assert_eq!(ob.to_vec().unwrap()[0].to_bits(), host.to_bits());
    let mut yb2 = DeviceBuffer::from_slice(&stream, &y).unwrap();
    axpy_iter::launch(&stream, cfg, 1.5, &xb, &mut yb2).unwrap();
    let mut expect = y.clone();
    axpy_index(1.5, &x, &mut expect);
    assert_eq!(yb2.to_vec().unwrap(), expect);
}

pub mod algo {
    use ptx_runtime::device_fn;

    #[device_fn]
    pub fn apply_twice<F: Fn(f32) -> f32>(f: F, x: f32) -> f32 {
        f(f(x))
    }

    #[device_fn]
    pub fn transform<F>(row: &mut [f32], f: F)
    where
        F: Fn(f32) -> f32,
    {
        for v in row.iter_mut() {
            *v = f(*v);
        }
    }

    #[device_fn]
    pub fn count_if<T: Copy, P: Fn(T) -> bool>(xs: &[T], pred: P) -> u32 {
        let mut n = 0;
        for x in xs.iter() {
            if pred(*x) {
                n += 1;
            }
        }
        n
    }

    #[device_fn]
    pub fn first_over<F: Fn(f32) -> bool>(xs: &[f32], f: F) -> usize {
        for (i, x) in xs.iter().enumerate() {
            if f(*x) {
                return i;
            }
        }
        xs.len()
    }
}

#[kernel]
pub fn it_generic_closures(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let k = y[t] as f32 * 0.25;
    let row = &x[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 8..t * 8 + 8];
    // Closures passed to generic device functions with `F: Fn(..)` bounds: inlined.
    let add_k = |v: f32| v + k;
    o[0] = algo::apply_twice(add_k, row[0]);
    o[1] = algo::apply_twice(|v| v * 0.5, row[1]);
    o[2] = algo::count_if(row, |v: f32| v > k) as f32;
    o[3] = algo::count_if(&y[..ROW], |v: u32| v % 2 == 0) as f32;
    o[4] = algo::first_over(row, |v| v > 1.0) as f32;
    o[5] = row[2];
    o[7] = row[3];
    algo::transform(&mut o[5..8], |v| v * k - 1.0);
}

#[test]
fn closures_passed_to_generic_device_functions_agree_with_the_host() {
    let out = agree("it_generic_closures", it_generic_closures::PTX, 8, it_generic_closures, |s, c, x, y, o| it_generic_closures::launch(s, c, x, y, o));
    assert!(out.chunks(8).any(|r| r[4] != ROW as f32) && out.chunks(8).any(|r| r[5] != -1.0));
}
