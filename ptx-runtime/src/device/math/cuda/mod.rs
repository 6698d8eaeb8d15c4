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
//! stay callable by name: within 1 ulp of the exact result (CUDA's bound counts half an ulp
//! more), at several times the instructions; [`super::precise`] rounds once from `f64`.
//!
//! | method | here | CUDA's bound (ulp) |
//! |--------|------|--------------------|
//! | `ln` | [`logf`] | 1 |

mod log;

pub use log::logf;
