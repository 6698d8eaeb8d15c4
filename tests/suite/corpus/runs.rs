//! Run-length statistics of integer segments, one thread per segment, written with `windows`,
//! a device function returning `Option`, `match` on it, `filter_map`, `position` and tuples:
//! the number of non-rising runs, the longest rising run, the biggest rise and where the first
//! drop is. Integer results: the device equals the host bit for bit, and the host equals an
//! index-loop reference.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, LaunchConfig, Result, Stream};

/// How much `b` rises above `a`, if it does.
#[device_fn]
pub fn rise(a: i32, b: i32) -> Option<u32> {
    if b > a {
        Some((b - a) as u32)
    } else {
        None
    }
}

#[kernel]
pub fn runs(x: &[i32], out: &mut [u32], segs: u32, seg: u32) {
    let t = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let n = seg as usize;
    if t < segs as usize {
        let s = &x[t * n..t * n + n];
        let (mut cur, mut longest, mut count) = (1u32, 1u32, 1u32);
        for w in s.windows(2) {
            match rise(w[0], w[1]) {
                Some(_) => {
                    cur += 1;
                    longest = longest.max(cur);
                }
                None => {
                    cur = 1;
                    count += 1;
                }
            }
        }
        let biggest = s.windows(2).filter_map(|w| rise(w[0], w[1])).max().unwrap_or(0);
        let first_drop = s.windows(2).position(|w| w[1] < w[0]).map_or(seg, |p| p as u32);
        let o = &mut out[t * 4..t * 4 + 4];
        o[0] = count;
        o[1] = longest;
        o[2] = biggest;
        o[3] = first_drop;
    }
}

pub const PTX: &[(&str, &str)] = &[("runs", runs::PTX)];
const SEGS: usize = 90;
const SEG: usize = 13;

fn input() -> Vec<i32> {
    let mut r = Rng::new(23);
    // Some segments constant (no rise, no drop), the rest small steps with repeats.
    (0..SEGS * SEG).map(|i| if (i / SEG) % 9 == 4 { 7 } else { (r.u32() % 7) as i32 - 3 }).collect()
}

fn on_host() -> Vec<u32> {
    let x = input();
    let mut out = vec![0u32; SEGS * 4];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: each thread writes its own four elements.
    host::run([3, 1, 1], [32, 1, 1], 0, || runs(&x, unsafe { o.get() }, SEGS as u32, SEG as u32));
    out
}

pub fn check_host() {
    let x = input();
    let got = on_host();
    for t in 0..SEGS {
        let s = &x[t * SEG..(t + 1) * SEG];
        let (mut cur, mut longest, mut count, mut biggest, mut drop) = (1u32, 1u32, 1u32, 0u32, SEG as u32);
        for i in 1..SEG {
            if s[i] > s[i - 1] {
                cur += 1;
                longest = longest.max(cur);
                biggest = biggest.max((s[i] - s[i - 1]) as u32);
            } else {
                cur = 1;
                count += 1;
            }
            if s[i] < s[i - 1] && drop == SEG as u32 {
                drop = (i - 1) as u32;
            }
        }
        assert_eq!(&got[t * 4..t * 4 + 4], &[count, longest, biggest, drop], "segment {t}: {s:?}");
    }
    // Constant segments have neither a rise nor a drop.
    assert_eq!(&got[4 * 4..4 * 4 + 4], &[SEG as u32, 1, 0, SEG as u32]);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<u32>::zeroed(stream, SEGS * 4)?;
    runs::launch(stream, LaunchConfig::new(3, 32), &x, &mut out, SEGS as u32, SEG as u32)?;
    assert_eq!(out.to_vec()?, on_host(), "runs on the device");
    Ok(())
}
