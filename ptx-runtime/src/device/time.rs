//! Clocks.
//!
//! | here | CUDA | PTX |
//! |------|------|-----|
//! | [`clock`] | `clock()` | `%clock` |
//! | [`clock64`] | `clock64()` | `%clock64` |
//! | [`global_timer`] | `%globaltimer` (ns) | `%globaltimer` |
//! | [`nanosleep`] | `__nanosleep(ns)` | `nanosleep.u32` |
//!
//! On the host the clocks count nanoseconds since the first call.

use ptx_macros::__device_api as device_api;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn nanos() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// The SM's cycle counter, low 32 bits (CUDA `clock()`).
#[device_api]
#[inline]
pub fn clock() -> u32 {
    nanos() as u32
}

/// The SM's cycle counter (CUDA `clock64()`).
#[device_api]
#[inline]
pub fn clock64() -> u64 {
    nanos()
}

/// A global nanosecond timer (PTX `%globaltimer`).
#[device_api]
#[inline]
pub fn global_timer() -> u64 {
    nanos()
}

/// Suspends the thread for about `ns` nanoseconds (CUDA `__nanosleep`, sm_70+).
#[device_api]
#[inline]
pub fn nanosleep(ns: u32) {
    std::thread::sleep(Duration::from_nanos(ns as u64));
}
