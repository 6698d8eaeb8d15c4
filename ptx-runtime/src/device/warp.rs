//! Warp shuffles and votes.
//!
//! | here | CUDA | PTX |
//! |------|------|-----|
//! | [`shfl_sync`] | `__shfl_sync(mask, v, lane)` | `shfl.sync.idx.b32` |
//! | [`shfl_up_sync`] | `__shfl_up_sync(mask, v, delta)` | `shfl.sync.up.b32` |
//! | [`shfl_down_sync`] | `__shfl_down_sync(mask, v, delta)` | `shfl.sync.down.b32` |
//! | [`shfl_xor_sync`] | `__shfl_xor_sync(mask, v, lane_mask)` | `shfl.sync.bfly.b32` |
//! | [`all_sync`] / [`any_sync`] / [`uni_sync`] | `__all_sync` / `__any_sync` / `__uni_sync` | `vote.sync.all/any/uni.pred` |
//! | [`ballot_sync`] | `__ballot_sync(mask, p)` | `vote.sync.ballot.b32` |
//! | [`active_mask`] | `__activemask()` | `activemask.b32` |
//!
//! Shuffles move any integer, float or `bool` value; 64-bit values take two `shfl`s. The
//! width is the whole warp (CUDA's default `width = warpSize`). On the host, every lane of the
//! warp (every thread of the block in that warp) must take part, as with a full `mask`.

use super::host::{ctx, warp_exchange};
use ptx_macros::__device_api as device_api;

/// Values a warp shuffle can move.
pub trait ShflValue: Copy {
    #[doc(hidden)]
    fn to_bits64(self) -> u64;
    #[doc(hidden)]
    fn from_bits64(b: u64) -> Self;
}

macro_rules! shfl_ints {
    ($($t:ty),*) => {$(
        impl ShflValue for $t {
            fn to_bits64(self) -> u64 { self as u64 }
            fn from_bits64(b: u64) -> Self { b as $t }
        }
    )*};
}
shfl_ints!(i8, u8, i16, u16, i32, u32, i64, u64);

impl ShflValue for f32 {
    fn to_bits64(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
}

impl ShflValue for f64 {
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b)
    }
}

impl ShflValue for bool {
    fn to_bits64(self) -> u64 {
        self as u64
    }
    fn from_bits64(b: u64) -> Self {
        b != 0
    }
}

fn shuffle<T: ShflValue>(value: T, source: impl Fn(u32) -> Option<u32>) -> T {
    let lane = ctx(|c| c.lane());
    let all = warp_exchange(value.to_bits64());
    match source(lane) {
        Some(src) if (src as usize) < all.len() => T::from_bits64(all[src as usize]),
        _ => value,
    }
}

/// The value `value` of lane `src_lane % 32` (CUDA `__shfl_sync`).
#[device_api]
#[inline]
pub fn shfl_sync<T: ShflValue>(mask: u32, value: T, src_lane: u32) -> T {
    let _ = mask;
    shuffle(value, |_| Some(src_lane % 32))
}

/// The value of lane `lane - delta`, or this lane's own below lane 0 (CUDA `__shfl_up_sync`).
#[device_api]
#[inline]
pub fn shfl_up_sync<T: ShflValue>(mask: u32, value: T, delta: u32) -> T {
    let _ = mask;
    shuffle(value, |lane| lane.checked_sub(delta))
}

/// The value of lane `lane + delta`, or this lane's own past lane 31
/// (CUDA `__shfl_down_sync`).
#[device_api]
#[inline]
pub fn shfl_down_sync<T: ShflValue>(mask: u32, value: T, delta: u32) -> T {
    let _ = mask;
    shuffle(value, |lane| lane.checked_add(delta).filter(|&l| l < 32))
}

/// The value of lane `lane ^ lane_mask` (CUDA `__shfl_xor_sync`; PTX `shfl.sync.bfly`).
#[device_api]
#[inline]
pub fn shfl_xor_sync<T: ShflValue>(mask: u32, value: T, lane_mask: u32) -> T {
    let _ = mask;
    shuffle(value, |lane| Some((lane ^ lane_mask) % 32))
}

/// Whether `predicate` holds on every lane (CUDA `__all_sync`).
#[device_api]
#[inline]
pub fn all_sync(mask: u32, predicate: bool) -> bool {
    let _ = mask;
    warp_exchange(predicate as u64).iter().all(|&v| v != 0)
}

/// Whether `predicate` holds on any lane (CUDA `__any_sync`).
#[device_api]
#[inline]
pub fn any_sync(mask: u32, predicate: bool) -> bool {
    let _ = mask;
    warp_exchange(predicate as u64).iter().any(|&v| v != 0)
}

/// Whether `predicate` is the same on every lane (CUDA `__uni_sync`).
#[device_api]
#[inline]
pub fn uni_sync(mask: u32, predicate: bool) -> bool {
    let _ = mask;
    let all = warp_exchange(predicate as u64);
    all.iter().all(|&v| v == all[0])
}

/// Bit `i` set when `predicate` holds on lane `i` (CUDA `__ballot_sync`).
#[device_api]
#[inline]
pub fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    let _ = mask;
    warp_exchange(predicate as u64).iter().enumerate().fold(0, |acc, (i, &v)| acc | ((v as u32) << i))
}

/// The lanes executing this call (CUDA `__activemask()`). On the host: every lane of the warp.
#[device_api]
#[inline]
pub fn active_mask() -> u32 {
    let n = warp_exchange(0).len() as u32;
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}
