//! Write NVIDIA GPU kernels in Rust.
//!
//! `#[kernel]` and `#[device_fn]` compile the annotated function to PTX while `cargo build`
//! runs, following NVIDIA's *PTX Writer's Guide to Interoperability*; `#[derive(DeviceRepr)]`
//! gives a `#[repr(C)]` type its device layout. This crate holds what those macros expand
//! against:
//!
//! - [`DeviceRepr`] and [`ParamType`]: how a type is laid out in device memory and passed as a
//!   parameter, computed by the ABI rules in [`abi`] and checked against rustc's own layout;
//! - [`vector`]: the native vector types (`f32x4` is CUDA's `float4`);
//! - [`handle`]: texture, sampler and surface handles;
//! - [`texture`]: typed texture and surface handles (`Texture2d<f32>`, `Surface2d<u32>`).
//!
//! ```
//! use ptx_runtime::{kernel, DeviceRepr};
//!
//! #[derive(Clone, Copy, DeviceRepr)]
//! #[repr(C)]
//! pub struct Particle { pub pos: [f32; 3], pub mass: f64 }
//!
//! #[kernel]
//! pub fn touch(_p: Particle, _out: &mut [f32]) {}
//!
//! fn main() {
//!     assert!(touch::PTX.contains(".param .align 8 .b8 _ZN"));
//!     assert!(touch::ENTRY.ends_with("5touchE"));
//! }
//! ```

pub use ptx_macros::{bitfields, cpp_header, device_extern, device_fn, kernel, DeviceRepr};

// The macros' expansions name `::ptx_runtime`, also inside this crate (the device API and the
// math library are compiled by them).
extern crate self as ptx_runtime;

/// The `half` crate, for `f16` and `bf16` storage types.
pub use half;

/// The PTX ABI tables and layout rules (re-exported from `ptx-abi`).
pub use ptx_abi as abi;

mod arg;
mod backend;
mod buffer;
mod capture;
mod config;
mod cooperative;
pub mod cubin;
mod cuda;
mod devices;
mod error;
mod event;
mod graph;
mod half_pair;
mod half_pair_math;
mod host_memory;
mod kernel;
mod launch;
mod link;
pub mod limits;
mod occupancy;
mod pinned;
mod pinned_shared;
mod properties;
mod range;
mod repr;
mod report;
mod sum_param;
mod tuple_param;
mod sanitize;
mod stream;

pub use arg::{Args, KernelArg};
pub use buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut};
pub use backend::BackendKind;
pub use config::{Dim3, LaunchBounds, LaunchConfig};
pub use devices::{Device, DEVICE_ENV};
pub use error::{Error, Fault, FaultKind, Result, Site, SourceLoc};
pub use event::Event;
pub use graph::Graph;
pub use kernel::Kernel;
pub use link::{BinaryKind, LinkedModule, Linker};
pub use occupancy::PotentialBlockSize;
pub use pinned::{PinnedBuffer, PinnedMut, PinnedRef, PinnedSlice, PinnedSliceMut};
pub use properties::DeviceProperties;
pub use repr::{DeviceRepr, ParamType};
pub use stream::Stream;
pub use ptx_cpu::{Sanitizers, SANITIZE_ENV};

/// cudarc, whose `CudaSlice` and `CudaStream` interoperate with this crate's launches.
pub use cudarc;

/// The CPU backend's emulator (the `ptx-cpu` crate), for using it directly: load PTX text from
/// any producer, allocate, copy, launch, read the memcheck's reports.
pub use ptx_cpu as cpu;
pub mod device;

pub mod handle;
pub mod texture;
pub mod vector;

#[doc(hidden)]
pub mod __private;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
