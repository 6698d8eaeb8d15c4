//! The `Option` an iterator consumer returns (`position`, `find`, `min`, `max`, `last`,
//! `reduce`) kept in a variable and used later as a value: passed on, matched, combined with the
//! closure-taking `Option` methods; `.copied()` keeps a slice's item. The kernel runs on the host
//! (`host::run`) and on the CPU backend and the results are compared bit for bit; the module goes
//! through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod io {
    use ptx_runtime::device_fn;

    /// An `Option` parameter, from a kept consumer result.
    #[device_fn]
    pub fn or_code(o: Option<usize>, code: u32) -> u32 {
        match o {
            Some(p) => p as u32,
            None => code,
        }
    }
}

#[kernel]
pub fn kept_options(x: &[u32], out: &mut [u32], flags: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let w = &x[i..i + 8];
        let t = x[i] % 40;
        let p = w.iter().position(|v| *v > t + 20);
        let big = w.iter().copied().filter(|v| *v > 42).max();
        let small = w.iter().min().copied();
        let last_even = w.iter().map(|v| *v * 3).filter(|v| v % 16 == 0).last();
        let first_sq = (0..i as u32 + 2).find(|k| k * k > t);
        let prod = w.iter().map(|v| v % 5 + 1).reduce(|a, b| a * b % 1009);
        let mut v = io::or_code(p, 77);
        v += big.map_or(1, |b| b * 3) * 7;
        v += small.unwrap_or(500) * 11;
        if let Some(e) = last_even {
            v += e * 13;
        }
        v += first_sq.map(|k| k + 1).unwrap_or(0) * 17;
        v += prod.unwrap_or(3) * 19;
        let q = p.filter(|k| *k > 2);
        out[i] = v + q.unwrap_or(9) as u32 * 23;
        flags[i] = p.is_some() as u32 | (big.is_some() as u32) << 1 | (last_even.is_none() as u32) << 2 | (q.is_some() as u32) << 3;
    }
}

#[test]
fn kept_options_compile_through_ptxas() {
    assemble("kept_options", kept_options::PTX);
}

#[test]
fn kept_iterator_options_agree_with_the_host() {
    let x: Vec<u32> = (0..80u32).map(|i| (i * 29 + 3) % 47).collect();
    let n = x.len() - 8;
    let (mut out, mut flags) = (vec![0u32; n], vec![0u32; n]);
    {
        let (o, f) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut flags));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || kept_options(&x, unsafe { o.get() }, unsafe { f.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    let mut fb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    kept_options::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut ob, &mut fb).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
    assert_eq!(fb.to_vec().unwrap(), flags);
    // Each `Option` was `Some` for some thread and `None` for others.
    for bit in 0..4 {
        assert!(flags.iter().any(|f| f >> bit & 1 == 1) && flags.iter().any(|f| f >> bit & 1 == 0), "bit {bit}: {flags:?}");
    }
}
