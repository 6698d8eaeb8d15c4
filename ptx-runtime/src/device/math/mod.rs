//! Accurate float functions, written in Rust and compiled for the device by `#[device_fn]`,
//! so the device runs the same algorithm the host runs here: `x.exp()` in a kernel calls
//! [`exp_f32`], and calling `exp_f32` yourself gives bit-identical results on host and device.
//!
//! Accuracy (the tests measure it over many inputs against `std`'s `f64` functions, or against
//! exact arithmetic where there is any, and fail if the bound below is exceeded):
//!
//! | function | `f32` | `f64` | how |
//! |----------|-------|-------|-----|
//! | `exp`, `exp2` | ≤ 1 ulp | ≤ 1 ulp | range reduction, Taylor polynomial (see [`exp`]) |
//! | `exp_m1` | ≤ 1 ulp (via `f64`) | ≤ 2 ulp | polynomial near 0, `2^k·p + (2^k − 1)` beyond |
//! | `ln`, `log2`, `log10` | ≤ 1 ulp | ≤ 1 ulp | `atanh` series, double-double in `f64` (see [`log`]) |
//! | `ln_1p` | ≤ 1 ulp (via `f64`) | ≤ 2 ulp | `ln(1 + x)·x/((1 + x) − 1)` |
//! | `sin`, `cos`, `tan` | ≤ 1 ulp (via `f64`) | ≤ 1 ulp (`tan` ≤ 2) | Cody–Waite or Payne–Hanek reduction, Taylor polynomials (see [`trig`]) |
//! | `atan`, `atan2`, `asin`, `acos` | ≤ 1 ulp (via `f64`) | ≤ 2 ulp | argument folding, series (see [`atan`]) |
//! | `sinh`, `cosh`, `tanh` | ≤ 1 ulp (via `f64`) | ≤ 2 ulp | `exp`, `exp_m1` (see [`hyper`]) |
//! | `powf` | ≤ 1 ulp (via `f64`) | ≤ 1 ulp | `exp(y·ln x)` in double-double (see [`pow`]) |
//! | `powi` | as `std` | as `std` | compiler-rt's algorithm: bit-identical to the host |
//! | `hypot` | ≤ 1 ulp | ≤ 1 ulp | scaled `fma` and `sqrt` |
//! | `%` (`fmod`) | exact | exact | subtraction of scaled divisors |
//!
//! "via `f64`": the `f32` function evaluates in `f64` and rounds once. That is accurate but
//! runs at the device's `f64` rate (1/64 of `f32` on consumer GPUs); `device::fast` has the
//! single-instruction approximations.

pub mod atan;
pub mod exp;
pub mod hyper;
pub mod log;
pub mod pow;
pub(crate) mod reduce;
pub mod trig;

pub use atan::{acos_f32, acos_f64, asin_f32, asin_f64, atan2_f32, atan2_f64, atan_f32, atan_f64};
pub use exp::{exp2_f32, exp2_f64, exp_f32, exp_f64, exp_m1_f32, exp_m1_f64};
pub use hyper::{cosh_f32, cosh_f64, sinh_f32, sinh_f64, tanh_f32, tanh_f64};
pub use log::{ln_1p_f32, ln_1p_f64, ln_f32, ln_f64, log10_f32, log10_f64, log2_f32, log2_f64};
pub use pow::{fmod_f32, fmod_f64, hypot_f32, hypot_f64, powf_f32, powf_f64, powi_f32, powi_f64};
pub use trig::{cos_f32, cos_f64, sin_f32, sin_f64, tan_f32, tan_f64};
