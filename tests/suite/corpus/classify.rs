//! Control flow: `match` on integer ranges and alternatives, a labelled block left with
//! `break 'label value`, `loop` with `break value`, `continue`, and an inclusive reversed
//! range.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn classify(x: &[i32], out: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let class = match v {
        i32::MIN..=-1000 => 0,
        -999..=-1 => 1,
        0 => 2,
        1 | 2 | 3 => 3,
        4..100 => 4,
        n if n % 2 == 0 => 5,
        _ => 6,
    };
    // The smallest divisor of |v| greater than 1 (or |v| itself).
    let a = v.unsigned_abs();
    let divisor = 'search: {
        if a <= 1 {
            break 'search a;
        }
        let mut d = 2u32;
        loop {
            if d > a / d {
                break 'search a;
            }
            if a % d == 0 {
                break 'search d;
            }
            d += 1;
        }
    };
    // Digits of |v| from the most significant, skipping 7s, in reverse powers of ten.
    let mut digits = 0u32;
    for p in (0..=9).rev() {
        let digit = a / 10u32.pow(p) % 10;
        if digit == 7 {
            continue;
        }
        digits += digit;
    }
    let steps = loop {
        let mut n = a;
        let mut k = 0u32;
        while n > 1 && k < 1000 {
            n = if n % 2 == 0 { n / 2 } else { n.wrapping_mul(3).wrapping_add(1) };
            k += 1;
        }
        break k;
    };
    out[i] = class * 1_000_000 + (divisor % 1000) * 1000 + digits * 10 + steps % 10;
}

pub const PTX: &[(&str, &str)] = &[("classify", classify::PTX)];
const N: usize = 300;

fn input() -> Vec<i32> {
    let mut r = Rng::new(16);
    let mut v: Vec<i32> = (0..N - 8).map(|_| (r.u32() as i32) >> (r.u32() % 31)).collect();
    v.extend([0, 1, 2, 3, -1, i32::MIN, i32::MAX, 97]);
    v
}

fn reference(v: i32) -> u32 {
    let class = if v <= -1000 {
        0
    } else if v < 0 {
        1
    } else if v == 0 {
        2
    } else if v <= 3 {
        3
    } else if v < 100 {
        4
    } else if v % 2 == 0 {
        5
    } else {
        6
    };
    let a = v.unsigned_abs();
    let divisor = if a <= 1 { a } else { (2..).take_while(|d| *d <= a / d).find(|d| a % d == 0).unwrap_or(a) };
    let digits: u32 = (0..=9).map(|p| a / 10u32.pow(p) % 10).filter(|d| *d != 7).sum();
    let (mut n, mut k) = (a, 0u32);
    while n > 1 && k < 1000 {
        n = if n % 2 == 0 { n / 2 } else { n.wrapping_mul(3).wrapping_add(1) };
        k += 1;
    }
    class * 1_000_000 + (divisor % 1000) * 1000 + digits * 10 + k % 10
}

fn on_host() -> Vec<u32> {
    let x = input();
    let mut out = vec![0; N];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([3, 1, 1], [128, 1, 1], 0, || classify(&x, unsafe { o.get() }));
    out
}

pub fn check_host() {
    let want: Vec<u32> = input().into_iter().map(reference).collect();
    assert_eq!(on_host(), want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<u32>::zeroed(stream, N)?;
    classify::launch(stream, LaunchConfig::new(3, 128), &x, &mut out)?;
    assert_eq!(out.to_vec()?, on_host());
    Ok(())
}
