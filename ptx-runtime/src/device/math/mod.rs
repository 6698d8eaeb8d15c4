//! Accurate float functions, written in Rust and compiled for the device by `#[device_fn]`,
//! so the device runs the same algorithm the host runs here. `x.exp()` in a kernel calls
//! `exp_f32(x)`.
