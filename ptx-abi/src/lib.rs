//! The PTX ABI, as NVIDIA's *PTX Writer's Guide to Interoperability* defines it, written once as
//! `const` tables and rules.
//!
//! Both halves of the project use this crate: `ptx-macros` consults it while it expands
//! `#[kernel]`, `#[device_fn]` and `#[derive(DeviceRepr)]`, and `ptx-runtime` re-exports it so the
//! code those macros generate can evaluate the same rules at compile time, on types only rustc
//! can resolve (aliases, generics, types from other crates).
//!
//! | module      | guide section                                                   |
//! |-------------|-----------------------------------------------------------------|
//! | [`scalar`]  | §1.1 fundamental types                                          |
//! | [`layout`]  | §1.2 aggregates, unions and native vectors                      |
//! | [`bitfield`] | §1.3 bit fields: allocation, storage units, unnamed and zero-width |
//! | [`param`]   | §2.3 parameter passing, notes A–E                               |
//! | [`syscall`] | chapter 3 system calls: vprintf, malloc, free, __assertfail      |
//! | [`report`]  | failed checks' locations, reported without `__assertfail`'s call    |
//! | [`atomic`]  | chapter 4 atomics: (operation, order, scope) → PTX              |
//! | [`target`]  | `.target` / `.version`: the lowest PTX ISA a module needs       |
//! | [`launch`]  | grid shapes, launch bounds, and CUDA's launch limits table      |
//! | [`symbol`]  | symbol names (chapter 7: Itanium-style mangling)                |
//! | [`tagged`]  | §1.2 applied to data-carrying enums (RFC 2195 `repr(C, u8)`)     |
//! | [`text`]    | assembling PTX text at compile time from literal and const parts |
//! | [`const_test`] | tests on a kernel's outside constants, evaluated by rustc     |
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod atomic;
pub mod bitfield;
pub mod const_test;
pub mod cpp;
pub mod launch;
pub mod mbarrier;
pub mod layout;
pub mod param;
pub mod report;
pub mod scalar;
pub mod symbol;
pub mod tagged;
pub mod syscall;
pub mod target;
pub mod lineinfo;
pub mod template;
pub mod text;

pub use layout::Layout;
pub use param::{ParamAbi, Site};
pub use scalar::Scalar;
pub use target::{Isa, Target};

/// `.address_size` of every module: pointers are 64-bit generic addresses on every host CUDA
/// still supports (§1.1).
pub const ADDRESS_SIZE: u32 = 64;
