//! Warp-level reductions: a sum by `shfl_down_sync` (lane 0 has the total), a maximum by
//! `shfl_xor_sync` (every lane has it), and a ballot of positive lanes.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn warp_reduce(x: &[f32], sums: &mut [f32], maxes: &mut [f32], ballots: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let v = if i < x.len() { x[i] } else { 0.0 };
    let mut sum = v;
    let mut offset = 16;
    while offset > 0 {
        sum += shfl_down_sync(0xffff_ffff, sum, offset);
        offset /= 2;
    }
    let mut m = v;
    for k in 0..5 {
        m = m.max(shfl_xor_sync(0xffff_ffff, m, 1 << k));
    }
    let positive = ballot_sync(0xffff_ffff, v > 0.0);
    let w = i / 32;
    if lane_id() == 0 {
        sums[w] = sum;
        ballots[w] = positive;
    }
    if lane_id() == 31 {
        maxes[w] = m;
    }
}

pub const PTX: &[(&str, &str)] = &[("warp_reduce", warp_reduce::PTX)];
const N: usize = 256;
const WARPS: usize = N / 32;

fn input() -> Vec<f32> {
    Rng::new(11).f32s(N, -1.0, 1.0)
}

fn on_host() -> (Vec<f32>, Vec<f32>, Vec<u32>) {
    let x = input();
    let (mut s, mut m, mut b) = (vec![0.0; WARPS], vec![0.0; WARPS], vec![0; WARPS]);
    let (so, mo, bo) = (host::Disjoint::new(&mut s), host::Disjoint::new(&mut m), host::Disjoint::new(&mut b));
    // SAFETY: lane 0 / lane 31 of each warp write their warp's elements.
    host::run([2, 1, 1], [128, 1, 1], 0, || warp_reduce(&x, unsafe { so.get() }, unsafe { mo.get() }, unsafe { bo.get() }));
    (s, m, b)
}

pub fn check_host() {
    let x = input();
    let (s, m, b) = on_host();
    for w in 0..WARPS {
        let lanes = &x[w * 32..w * 32 + 32];
        // The tree order of shfl_down: pairs (i, i + 16), then (i, i + 8), ...
        let mut t = lanes.to_vec();
        let mut off = 16;
        while off > 0 {
            for l in 0..off {
                t[l] += t[l + off];
            }
            off /= 2;
        }
        assert_eq!(s[w].to_bits(), t[0].to_bits(), "warp {w} sum");
        assert_eq!(m[w], lanes.iter().copied().fold(f32::MIN, f32::max), "warp {w} max");
        let want: u32 = lanes.iter().enumerate().map(|(l, v)| ((*v > 0.0) as u32) << l).sum();
        assert_eq!(b[w], want, "warp {w} ballot");
    }
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut s = DeviceBuffer::<f32>::zeroed(stream, WARPS)?;
    let mut m = DeviceBuffer::<f32>::zeroed(stream, WARPS)?;
    let mut b = DeviceBuffer::<u32>::zeroed(stream, WARPS)?;
    warp_reduce::launch(stream, LaunchConfig::new(2, 128), &x, &mut s, &mut m, &mut b)?;
    let (hs, hm, hb) = on_host();
    assert_bits_eq("warp sums on the device", &s.to_vec()?, &hs);
    assert_bits_eq("warp maxima on the device", &m.to_vec()?, &hm);
    assert_eq!(b.to_vec()?, hb);
    Ok(())
}
