//! Linking several modules into one before launching: `#[kernel]` modules that call
//! functions they only declare (`.extern .func`), nvcc `-rdc=true` output (PTX, cubins, fat
//! binaries, static libraries of relocatable device code), and PTX from any other producer.
//!
//! ```
//! # use ptx_runtime::{Device, Linker};
//! # fn main() -> ptx_runtime::Result<()> {
//! let device = Device::cpu();
//! let lib = ".version 7.0\n.target sm_75\n.address_size 64\n\
//!            .visible .func (.param .b32 r) twice(.param .b32 x)\n\
//!            { .reg .b32 %r<3>; ld.param.b32 %r1, [x]; add.s32 %r2, %r1, %r1; st.param.b32 [r], %r2; ret; }\n";
//! let user = ".version 7.0\n.target sm_75\n.address_size 64\n\
//!             .extern .func (.param .b32 r) twice(.param .b32 x);\n\
//!             .visible .entry k() { ret; }\n";
//! let linked = Linker::new(&device).add_ptx("lib", lib).add_ptx("user", user).finish()?;
//! assert!(linked.ptx().is_some_and(|t| t.contains(".visible .func (.param .b32 r) twice")));
//! // An unresolved symbol is an error naming it.
//! let err = Linker::new(&device).add_ptx("user", user).finish().err().unwrap();
//! assert!(err.to_string().contains("unresolved symbol `twice`"));
//! # Ok(()) }
//! ```
//!
//! [`Linker::add_kernel`] adds a kernel's module and makes the kernel's launcher
//! (`k::launch`) launch in the linked module on this device from then on. The CUDA backend
//! links with the driver's linker (`cuLinkCreate`/`cuLinkAddData`/`cuLinkComplete`); the
//! CPU backend with `ptx_cpu::link`, which links PTX only. Both first join the PTX inputs with
//! `ptx_cpu::link_partial`, so the same PTX links (or fails to) the same way on both.

use crate::devices::Device;
use crate::error::Result;
use crate::kernel::Kernel;

/// One input of a link.
#[derive(Debug, Clone)]
pub(crate) enum LinkInput {
    /// A `#[kernel]`'s module; its launcher launches in the linked module afterwards.
    Kernel(&'static Kernel),
    /// PTX text, named for messages.
    Ptx { name: String, text: String },
    /// A binary for the driver's linker (CUDA backend only).
    Binary { name: String, kind: BinaryKind, bytes: Vec<u8> },
}

/// What a binary input of a link is (the driver's `CUjitInputType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryKind {
    /// A cubin: `ptxas -c` or `nvcc -rdc=true -cubin` output (`CU_JIT_INPUT_CUBIN`).
    Cubin,
    /// A fat binary: `nvcc -rdc=true -fatbin` (`CU_JIT_INPUT_FATBINARY`).
    Fatbin,
    /// A host object holding relocatable device code: `nvcc -rdc=true -c` (`CU_JIT_INPUT_OBJECT`).
    Object,
    /// A static library of such objects: `nvcc -lib` (`CU_JIT_INPUT_LIBRARY`).
    Library,
}

/// Collects modules to link on one device; [`finish`](Linker::finish) links them.
#[must_use = "a Linker does nothing until `finish`"]
pub struct Linker<'d> {
    device: &'d Device,
    inputs: Vec<LinkInput>,
}

/// The result of a link: the kernels added with [`Linker::add_kernel`] launch in it.
#[derive(Debug, Clone)]
pub struct LinkedModule {
    ptx: Option<String>,
    kernels: Vec<&'static str>,
}

impl LinkedModule {
    /// The linked PTX where the backend produced one (the CPU backend; on CUDA the joined
    /// PTX inputs before the driver's linker added the binaries).
    pub fn ptx(&self) -> Option<&str> {
        self.ptx.as_deref()
    }

    /// The entries of the kernels that now launch in this module.
    pub fn kernels(&self) -> &[&'static str] {
        &self.kernels
    }
}

impl<'d> Linker<'d> {
    pub fn new(device: &'d Device) -> Linker<'d> {
        Linker { device, inputs: Vec::new() }
    }

    /// Adds a kernel's module (`&k::KERNEL`); after [`finish`](Linker::finish), `k::launch`
    /// on this device launches the kernel in the linked module.
    pub fn add_kernel(mut self, kernel: &'static Kernel) -> Self {
        self.inputs.push(LinkInput::Kernel(kernel));
        self
    }

    /// Adds PTX text: a `#[device_fn]`'s `f::PTX`, nvcc `-rdc=true -ptx` output, any
    /// producer's module. `name` appears in error messages.
    pub fn add_ptx(mut self, name: &str, ptx: &str) -> Self {
        self.inputs.push(LinkInput::Ptx { name: name.to_owned(), text: ptx.to_owned() });
        self
    }

    /// Adds a binary: a cubin, fat binary, object or library of relocatable device code. Only
    /// the CUDA backend links binaries; on the CPU backend `finish` is an `Err` that asks for
    /// the PTX (`nvcc -rdc=true -ptx`).
    pub fn add_binary(mut self, name: &str, kind: BinaryKind, bytes: &[u8]) -> Self {
        self.inputs.push(LinkInput::Binary { name: name.to_owned(), kind, bytes: bytes.to_vec() });
        self
    }

    /// Links everything added: `Err(Error::Link)` names each unresolved, duplicate or
    /// mismatched symbol (on CUDA: the driver linker's log).
    pub fn finish(self) -> Result<LinkedModule> {
        let ptx = self.device.inner.link(&self.inputs)?;
        let kernels = self.inputs.iter().filter_map(|i| if let LinkInput::Kernel(k) = i { Some(k.entry) } else { None }).collect();
        Ok(LinkedModule { ptx, kernels })
    }
}

impl LinkInput {
    /// The PTX inputs as (name, text), in order.
    pub(crate) fn ptx_inputs(inputs: &[LinkInput]) -> Vec<(&str, &str)> {
        inputs
            .iter()
            .filter_map(|i| match i {
                LinkInput::Kernel(k) => Some((k.entry, k.ptx)),
                LinkInput::Ptx { name, text } => Some((name.as_str(), text.as_str())),
                LinkInput::Binary { .. } => None,
            })
            .collect()
    }

    /// The kernels added.
    pub(crate) fn kernels(inputs: &[LinkInput]) -> Vec<&'static Kernel> {
        inputs.iter().filter_map(|i| if let LinkInput::Kernel(k) = i { Some(*k) } else { None }).collect()
    }
}
