//! Recursive device functions: Fibonacci and Euclid's gcd call themselves; `is_even` and
//! `is_odd` call each other. The kernel's module holds each function once.

use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[device_fn]
pub fn fib(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[device_fn]
pub fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        return a;
    }
    gcd(b, a % b)
}

#[device_fn]
pub fn is_even(n: u32) -> bool {
    if n == 0 {
        true
    } else {
        is_odd(n - 1)
    }
}

#[device_fn]
pub fn is_odd(n: u32) -> bool {
    if n == 0 {
        false
    } else {
        is_even(n - 1)
    }
}

#[kernel]
pub fn recursion(fibs: &mut [u64], gcds: &mut [u32], parity: &mut [u8]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < fibs.len() {
        let n = i as u32;
        fibs[i] = fib(n % 20);
        gcds[i] = gcd(n * 7 + 3, 84);
        parity[i] = is_even(n) as u8;
    }
}

pub const PTX: &[(&str, &str)] = &[("recursion", recursion::PTX), ("fib", fib::PTX), ("is_even", is_even::PTX)];
const N: usize = 40;

fn on_host() -> (Vec<u64>, Vec<u32>, Vec<u8>) {
    let (mut f, mut g, mut p) = (vec![0; N], vec![0; N], vec![0; N]);
    let (fo, go, po) = (host::Disjoint::new(&mut f), host::Disjoint::new(&mut g), host::Disjoint::new(&mut p));
    // SAFETY: one element per thread.
    host::run([2, 1, 1], [32, 1, 1], 0, || recursion(unsafe { fo.get() }, unsafe { go.get() }, unsafe { po.get() }));
    (f, g, p)
}

pub fn check_host() {
    let (f, g, p) = on_host();
    let mut fibs = vec![0u64, 1];
    for i in 2..20 {
        fibs.push(fibs[i - 1] + fibs[i - 2]);
    }
    for i in 0..N {
        assert_eq!(f[i], fibs[i % 20]);
        let (mut a, mut b) = (i as u32 * 7 + 3, 84u32);
        while b != 0 {
            (a, b) = (b, a % b);
        }
        assert_eq!(g[i], a);
        assert_eq!(p[i], (i % 2 == 0) as u8);
    }
    // Each function exactly once in the kernel's module, recursion or not.
    let ptx = recursion::PTX;
    for sym in [fib::SYMBOL, gcd::SYMBOL, is_even::SYMBOL, is_odd::SYMBOL] {
        assert_eq!(ptx.matches(&format!("{sym}(\n")).count(), 2, "prototype and definition of {sym}");
    }
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let mut f = DeviceBuffer::<u64>::zeroed(stream, N)?;
    let mut g = DeviceBuffer::<u32>::zeroed(stream, N)?;
    let mut p = DeviceBuffer::<u8>::zeroed(stream, N)?;
    recursion::launch(stream, LaunchConfig::new(2, 32), &mut f, &mut g, &mut p)?;
    let (hf, hg, hp) = on_host();
    assert_eq!(f.to_vec()?, hf);
    assert_eq!(g.to_vec()?, hg);
    assert_eq!(p.to_vec()?, hp);
    Ok(())
}
