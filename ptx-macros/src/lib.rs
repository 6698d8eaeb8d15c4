//! `#[kernel]`, `#[device_fn]` and `#[derive(DeviceRepr)]`.
//!
//! Each attribute compiles the function it annotates to PTX while the crate builds:
//!
//! ```text
//! syn::ItemFn ─ syntax ─▶ Signature, Ty ─ check ─▶ ABI rules ─ lower ─▶ ir::Body ─ back ─▶ Text
//! ```
//!
//! - [`syntax`]: the attribute arguments, the signature and the types, as this crate models them;
//! - [`check`]: the ABI and language rules a signature must follow, reported as spanned errors;
//! - [`lower`] and [`ir`]: the body, lowered to an IR;
//! - [`back`]: the PTX writer, producing [`text::Text`] — literal PTX plus the parts only rustc
//!   can evaluate (symbols from `module_path!()`, the ABI of types resolved through aliases);
//! - [`expand`]: the items each macro expands to.
//!
//! Every error goes into a [`report::Errors`], so one build shows all of them; no input panics.
//! The ABI's tables and rules come from `ptx-abi`, which the runtime shares.

use proc_macro::TokenStream;

mod back;
mod check;
mod expand;
mod front;
mod ir;
mod link;
mod lower;
mod report;
mod syntax;
mod text;

/// Compiles a function to a PTX kernel (`.entry`).
///
/// Expands to the function itself (so the body runs on the host too) and a module of the same
/// name holding `PTX`, the complete PTX module, and `ENTRY`, the kernel's symbol.
///
/// Arguments: `sm = 90` (or `sm = "90a"`) selects the target; the default is `sm_75`.
/// `#[no_mangle]` on the function gives the kernel its plain name.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::kernel(args.into(), item.into()).into()
}

/// Compiles a function to a PTX device function (`.func`) callable from kernels and other
/// device functions; the function stays callable from host code.
///
/// Adds a module of the same name holding `PTX` (a module with its `.visible .func`) and
/// `SYMBOL`.
#[proc_macro_attribute]
pub fn device_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::device_fn(args.into(), item.into()).into()
}

/// Declares CUDA C++ `__device__` functions for kernels and device functions to call: on an
/// `extern "C" { fn f(x: f32) -> f32; }` block, each function's symbol is its name (C++'s
/// `extern "C"`), `#[cpp = "ns::f"]` (the Itanium name nvcc gives `ns::f` with these parameter
/// types) or `#[link_name = "..."]` (any symbol, e.g. a template instance's). Calls are
/// type-checked like calls of `#[device_fn]`s and emitted as calls of an `.extern .func`,
/// which `ptx_runtime::Linker` resolves against nvcc `-rdc=true` output. See docs/interop.md.
#[proc_macro_attribute]
pub fn device_extern(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::device_extern(args.into(), item.into()).into()
}

/// `cpp_header!(pub NAME: Type, device_fn, ...)` defines `const NAME: &str`, a C++ header for
/// CUDA C++ (`nvcc -rdc=true`): each `DeviceRepr` struct's definition with `static_assert`s on
/// its size, alignment and member offsets (rustc's values), and each `#[device_fn]`'s
/// declaration under the symbol we emit (plus an inline wrapper under its Rust path as C++
/// namespaces). Link the C++ with the functions' PTX (`ptx_runtime::Linker`). See
/// docs/interop.md.
#[proc_macro]
pub fn cpp_header(input: TokenStream) -> TokenStream {
    expand::cpp_header(input.into()).into()
}

/// C bit fields (PTX Interoperability §1.3) in a `#[repr(C)]` struct or union: fields marked
/// `#[bits(N)]` are laid out as C lays them out, and get a getter and a setter that work on the
/// host and in device code. Write it next to `#[derive(DeviceRepr)]` (above or below).
#[proc_macro_attribute]
pub fn bitfields(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::bitfields(args.into(), item.into()).into()
}

/// A later round of the device compiler, at the end of a fetch chain (see `link`). Not an
/// API: `ptx_runtime::__private::compile!` re-exports it for the chains' use.
#[doc(hidden)]
#[proc_macro]
pub fn __compile(input: TokenStream) -> TokenStream {
    expand::compile(input.into()).into()
}

/// A user trait's default methods compiled for one `#[device_fn] impl` of it (invoked by the
/// trait's replay). Not an API: `ptx_runtime::__private::trait_defaults!` re-exports it.
#[doc(hidden)]
#[proc_macro]
pub fn __trait_defaults(input: TokenStream) -> TokenStream {
    expand::trait_defaults(input.into()).into()
}

/// Marks a function of `ptx_runtime::device` as part of the device API: emits its replay
/// (`@api name`), so bodies calling it by any path compile it to its instructions. The
/// argument overrides the API name (`#[__device_api(fast_sin)]`). Not an API.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn __device_api(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::device_api(args.into(), item.into()).into()
}

/// Gives a `#[repr(C)]` struct or union its PTX layout (`ptx_runtime::DeviceRepr`), computed by
/// the guide's rules and checked against rustc's layout at compile time.
#[proc_macro_derive(DeviceRepr, attributes(bits))]
pub fn derive_device_repr(item: TokenStream) -> TokenStream {
    expand::derive_device_repr(item.into()).into()
}

#[cfg(test)]
mod no_panic;

#[cfg(test)]
mod fuzz;
