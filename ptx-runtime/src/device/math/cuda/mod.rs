//! CUDA's single-precision math functions as nvcc compiles them: the same operations on the
//! same constants, read from nvcc 13.5's PTX for `logf`, `sinf`, ... (`-O3`), written in Rust.
//! `x.ln()`, `x.sin()`, ... on an `f32` in device code are these functions, inlined where
//! they are called (each is `#[inline(always)]`, as nvcc inlines CUDA's), so a kernel's
//! `f32` math costs what the same CUDA C costs; the host runs the same operations, so a call
//! by name (`math::cuda::logf(x)`) gives the device's bits on the host too, except where a
//! function uses an `.approx` instruction (`device::fast`), whose host definition is `std`'s
//! function.
//!
//! The bounds are CUDA's (CUDA C++ Programming Guide, "Mathematical Functions", single
//! precision, counted from the correctly rounded result), as `tests/suite/body_cuda_libm.rs`
//! measures them against `f64` over the whole range and checks the results bit for bit against
//! nvcc's own PTX run on the CPU backend. The functions of [`super`] (`ln_f32`, `sin_f32`, ...)
//! stay callable by name: within 1 ulp of the exact result for most (3 for `tan_f32`), at
//! several times the instructions; [`super::precise`] rounds once from `f64`.
//!
//! | method | here | CUDA's bound (ulp) |
//! |--------|------|--------------------|
//! | `ln`, `log2`, `log10` | [`logf`], [`log2f`], [`log10f`] | 1, 1, 2 |
//! | `ln_1p` | [`log1pf`] | 1 |
//! | `exp_m1` | [`expm1f`] | 1 |
//! | `atan`, `atan2` | [`atanf`], [`atan2f`] | 2, 3 |
//! | `asin`, `acos` | [`asinf`], [`acosf`] | 2 |
//! | `hypot` | [`hypotf`] | 3 |
//! | `sin`, `cos`, `sin_cos` | [`sinf`], [`cosf`], [`sincosf`] | 2 |
//! | `tan` | [`tanf`] | 4 |
//! | `sinh`, `cosh`, `tanh` | [`sinhf`], [`coshf`], [`tanhf`] | 3, 2, 2 |
//! | `powf` | [`powf`] | 4 |
//! | `cbrt` | [`cbrtf`] | 1 |
//! | `asinh`, `acosh`, `atanh` | [`asinhf`], [`acoshf`], [`atanhf`] | 3, 4, 3 |

mod atan;
mod cbrt;
mod exp;
mod hyper;
mod inverse_hyper;
mod log;
mod pow;
mod trig;

pub use atan::{acosf, asinf, atan2f, atanf, hypotf};
pub use cbrt::cbrtf;
pub use exp::expm1f;
pub use hyper::{coshf, sinhf, tanhf};
pub use inverse_hyper::{acoshf, asinhf, atanhf};
pub use log::{log10f, log1pf, log2f, logf};
pub use pow::powf;
pub use trig::{cosf, sincosf, sinf, tanf};
// The shared steps, reached by the inlined bodies through this module's path.
#[doc(hidden)]
pub use atan::asin_argument;
#[doc(hidden)]
pub use hyper::exp_quarter;
#[doc(hidden)]
pub use trig::{sincos_poly_f32, trig_reduce_f32};
