//! Integer hashing: wrapping multiplies, shifts, rotations, bit counts, 8- and 64-bit
//! arithmetic, through a device function.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, LaunchConfig, Result, Stream};

/// MurmurHash3's 32-bit finaliser.
#[device_fn]
pub fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[kernel]
pub fn hash(seeds: &[u32], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= seeds.len() {
        return;
    }
    let h = fmix32(seeds[i]);
    let small = (h as u8).wrapping_add(200).rotate_left(3);
    let signed = (h as i16).wrapping_mul(-3) >> 2;
    let wide = (h as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_right(17);
    let bits = h.count_ones() + (h.leading_zeros() << 6) + (h.trailing_zeros() << 12);
    out[i] = wide ^ ((small as u64) << 56) ^ ((signed as u16 as u64) << 32) ^ bits as u64 ^ (h.swap_bytes().reverse_bits() as u64);
}

pub const PTX: &[(&str, &str)] = &[("hash", hash::PTX), ("fmix32", fmix32::PTX)];
const N: usize = 500;

fn input() -> Vec<u32> {
    let mut r = Rng::new(17);
    let mut v: Vec<u32> = (0..N - 3).map(|_| r.u32()).collect();
    v.extend([0, u32::MAX, 1]);
    v
}

fn reference(seed: u32) -> u64 {
    let mut h = seed;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    let small = (h as u8).wrapping_add(200).rotate_left(3);
    let signed = (h as i16).wrapping_mul(-3) >> 2;
    let wide = (h as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_right(17);
    let bits = h.count_ones() + (h.leading_zeros() << 6) + (h.trailing_zeros() << 12);
    wide ^ ((small as u64) << 56) ^ ((signed as u16 as u64) << 32) ^ bits as u64 ^ (h.swap_bytes().reverse_bits() as u64)
}

fn on_host() -> Vec<u64> {
    let s = input();
    let mut out = vec![0; N];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([4, 1, 1], [128, 1, 1], 0, || hash(&s, unsafe { o.get() }));
    out
}

pub fn check_host() {
    let want: Vec<u64> = input().into_iter().map(reference).collect();
    assert_eq!(on_host(), want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let s = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<u64>::zeroed(stream, N)?;
    hash::launch(stream, LaunchConfig::new(4, 128), &s, &mut out)?;
    assert_eq!(out.to_vec()?, on_host());
    Ok(())
}
