//! Accurate float functions, written in Rust and compiled for the device by `#[device_fn]`,
//! so the device runs the same algorithm the host runs here: `x.exp()` in a kernel calls
//! [`exp_f32`], and calling `exp_f32` yourself gives bit-identical results on host and device.
//!
//! Accuracy, as `tests/suite/body_math.rs` measures it over 40 000 inputs per function and
//! range (and fails beyond these bounds): `f32` against the exact value (`std`'s `f64`
//! result, good to 2^-29 `f32` ulp), `f64` as the largest difference from `std` (the platform
//! libm, itself within 1 ulp of exact).
//!
//! | function | `f32` (vs exact) | `f64` (vs `std`) | how |
//! |----------|------------------|------------------|-----|
//! | `exp`, `exp2` | ≤ 1 ulp (0.96) | ≤ 1 ulp | range reduction, Taylor polynomial (see [`exp`]) |
//! | `exp_m1` | ≤ 0.5 ulp (via `f64`) | ≤ 2 ulp | polynomial near 0, `2^k·p + (2^k − 1)` beyond |
//! | `ln`, `log2`, `log10` | ≤ 0.5 ulp (via `f64`) | ≤ 1 ulp | `atanh` series in double-double (see [`log`]) |
//! | `ln_1p` | ≤ 0.5 ulp (via `f64`) | ≤ 2 ulp | `ln(1 + x)·x/((1 + x) − 1)` |
//! | `sin`, `cos` | ≤ 0.5 ulp (via `f64`) | ≤ 1 ulp, all of ±1e300 | Cody–Waite or Payne–Hanek reduction, Taylor polynomials (see [`trig`]) |
//! | `tan` | ≤ 0.5 ulp (via `f64`) | ≤ 2 ulp | `sin / cos` of the reduced argument |
//! | `atan`, `atan2` | ≤ 0.5 ulp (via `f64`) | ≤ 1 ulp (`atan`), ≤ 2 (`atan2`) | argument folding, series (see [`atan`]) |
//! | `asin`, `acos` | ≤ 0.5 ulp (via `f64`) | ≤ 3 ulp | `atan2` of `x` and `√((1−x)(1+x))` |
//! | `sinh`, `cosh`, `tanh` | ≤ 0.5 ulp (via `f64`) | ≤ 2 ulp | `exp`, `exp_m1` (see [`hyper`]) |
//! | `powf` | ≤ 0.5 ulp (via `f64`) | ≤ 1 ulp | `exp(y·ln x)` in double-double (see [`pow`]) |
//! | `powi` | as `std` | as `std` | compiler-rt's algorithm: bit-identical to the host |
//! | `hypot` | ≤ 0.5 ulp | ≤ 1 ulp | scaled `fma` and `sqrt` |
//! | `%` (`fmod`) | exact | exact | subtraction of scaled divisors |
//!
//! Special values (NaN, ±0, ±∞, C's `pow` and `atan2` tables) are those of `std`.
//!
//! "via `f64`": the `f32` function evaluates in `f64` and rounds once. That is accurate but
//! runs at the device's `f64` rate (1/64 of `f32` on consumer GPUs); `device::fast` has the
//! single-instruction approximations.

pub mod atan;
pub mod exp;
pub mod hyper;
pub mod log;
pub mod log_f32;
pub mod pow;
pub mod pow_f32;
pub mod precise;
pub(crate) mod reduce;
pub(crate) mod reduce_f32;
pub mod trig;
pub mod trig_f32;

pub use atan::{acos_f32, acos_f64, asin_f32, asin_f64, atan2_f32, atan2_f64, atan_f32, atan_f64};
pub use exp::{exp2_f32, exp2_f64, exp_f32, exp_f64, exp_m1_f32, exp_m1_f64};
pub use hyper::{cosh_f32, cosh_f64, sinh_f32, sinh_f64, tanh_f32, tanh_f64};
pub use log::{ln_1p_f64, ln_f64, log10_f64, log2_f64};
pub use log_f32::{ln_1p_f32, ln_f32, log10_f32, log2_f32};
pub use pow::{fmod_f32, fmod_f64, hypot_f64, powf_f64, powi_f32, powi_f64};
pub use pow_f32::{hypot_f32, powf_f32};
pub use trig::{cos_f64, sin_f64, tan_f64};
pub use trig_f32::{cos_f32, sin_f32, tan_f32};
