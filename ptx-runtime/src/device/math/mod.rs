//! Accurate float functions, written in Rust and compiled for the device by `#[device_fn]`,
//! so the device runs the same algorithm the host runs here: calling `sin_f32` gives
//! bit-identical results on host and device. `x.sin()` on an `f64` in a kernel calls
//! [`sin_f64`]; on an `f32`, the methods are CUDA's functions as nvcc compiles them, inlined
//! ([`cuda`]: `x.sin()` is [`cuda::sinf`]), and `x.exp()`, `x.exp2()` nvcc's `expf`, `exp2f`
//! (docs/body-compiler.md, "f32 exp and exp2 as nvcc emits them"); the `f32` functions here
//! (within 1 ulp of the exact result for most, several times CUDA's instructions) are called
//! by name.
//!
//! The `f32` functions compute in `f32` (and integers) only, at the device's `f32` rate, within
//! CUDA's documented bounds; [`precise`] has each of them evaluated in `f64` and rounded once
//! (within 0.5 ulp plus 2^-29) for code that needs the last half ulp, at the `f64` rate (1/64
//! of `f32` on consumer GPUs); `device::fast` has the single-instruction approximations.
//!
//! Accuracy, as `tests/suite/body_math.rs` measures it over 40 000 inputs per function and
//! range plus hard cases (and fails beyond these bounds): `f32` against the exact value
//! (`std`'s `f64` result, good to 2^-29 `f32` ulp), beside CUDA's bound for the same function
//! (CUDA C++ Programming Guide, "Mathematical Functions", single precision; counted from the
//! correctly rounded result, so half an ulp more generous), `f64` as the largest difference
//! from `std` (the platform libm, itself within 1 ulp of exact).
//!
//! | function | `f32` (vs exact) | CUDA | `f64` (vs `std`) | how |
//! |----------|------------------|------|------------------|-----|
//! | `exp_f32`, `exp2_f32` (by name) | ≤ 1 ulp | 2 | ≤ 1 ulp | range reduction, Taylor polynomial (see [`exp`]) |
//! | `exp_m1` | ≤ 1 ulp | 1 | ≤ 2 ulp | polynomial near 0, `2^k·p + (2^k − 1)` beyond |
//! | `ln`, `log2`, `log10` | ≤ 1 ulp | 1, 1, 2 | ≤ 1 ulp | `atanh` series in double-float / double-double (see [`log_f32`], [`log`]) |
//! | `ln_1p` | ≤ 1 ulp | 1 | ≤ 2 ulp | the same, with the rounding of `1 + x` |
//! | `sin`, `cos` | ≤ 1 ulp, all of ±`f32::MAX` | 2 | ≤ 1 ulp, all of ±1e300 | Cody–Waite or Payne–Hanek reduction, Taylor polynomials (see [`trig_f32`], [`trig`]) |
//! | `tan` | ≤ 3 ulp | 4 | ≤ 2 ulp | `sin / cos` of the reduced argument |
//! | `atan`, `atan2` | ≤ 1 ulp | 2, 3 | ≤ 1 ulp (`atan`), ≤ 2 (`atan2`) | argument folding, series (see [`atan`]) |
//! | `asin`, `acos` | ≤ 1 ulp | 2 | ≤ 3 ulp | `atan2` of `x` and `√(1 − x²)` |
//! | `sinh`, `cosh` | ≤ 2 ulp | 3, 2 | ≤ 2 ulp | series, `exp`, `exp_m1` (see [`hyper`]) |
//! | `tanh` | ≤ 2 ulp | 2 | ≤ 2 ulp | series, `exp_m1` |
//! | `powf` | ≤ 1 ulp | 4 | ≤ 1 ulp | `2^(y·log₂ x)` in double-float (see [`pow_f32`]; `f64`: [`pow`]) |
//! | `powi` | as `std` | — | as `std` | compiler-rt's algorithm: bit-identical to the host |
//! | `hypot` | ≤ 1 ulp | 3 | ≤ 1 ulp | scaled `fma` and `sqrt` |
//! | `cbrt` | (CUDA's `cbrtf`) | 1 | ≤ 1 ulp | exponent over 3, polynomial, one Newton step (see [`cbrt`]) |
//! | `asinh`, `acosh`, `atanh` | (CUDA's) | 3, 4, 3 | ≤ 2 ulp (vs C's) | `ln_1p` of non-cancelling forms (see [`inverse_hyper`]) |
//! | `log` (to a base), `rem_euclid`, `div_euclid`, `midpoint`, `next_up`, `next_down`, `is_normal`, `is_subnormal` | `std`'s definitions | — | `std`'s | inlined (see [`derived`]) |
//! | `%` (`fmod`) | exact | exact | exact | subtraction of scaled divisors |
//!
//! Special values (NaN, ±0, ±∞, C's `pow` and `atan2` tables) are those of `std`.

pub mod atan;
mod atanh_series;
pub mod cbrt;
pub mod cuda;
pub mod derived;
pub mod exp;
pub mod hyper;
pub mod inverse_hyper;
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
pub use cbrt::cbrt_f64;
pub use derived::{
    div_euclid_f32, div_euclid_f64, is_normal_f32, is_normal_f64, is_subnormal_f32, is_subnormal_f64, log_base_f32, log_base_f64, midpoint_f32, midpoint_f64, next_down_f32, next_down_f64, next_up_f32,
    next_up_f64, rem_euclid_f32, rem_euclid_f64,
};
pub use exp::{exp2_f32, exp2_f64, exp_f32, exp_f64, exp_m1_f32, exp_m1_f64};
pub use hyper::{cosh_f32, cosh_f64, sinh_f32, sinh_f64, tanh_f32, tanh_f64};
pub use inverse_hyper::{acosh_f64, asinh_f64, atanh_f64};
pub use log::{ln_1p_f64, ln_f64, log10_f64, log2_f64};
pub use log_f32::{ln_1p_f32, ln_f32, log10_f32, log2_f32};
pub use pow::{fmod_f32, fmod_f64, hypot_f64, powf_f64, powi_f32, powi_f64};
pub use pow_f32::{hypot_f32, powf_f32};
pub use trig::{cos_f64, sin_f64, tan_f64};
pub use trig_f32::{cos_f32, sin_f32, tan_f32};
