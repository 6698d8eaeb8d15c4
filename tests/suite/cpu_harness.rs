//! Running PTX on the CPU backend from a test, in a few lines:
//!
//! ```text
//! let mut k = Harness::new(ptx);                       // fresh device, module loaded
//! let a = k.upload(&[1.0f32, 2.0]);                    // device buffer from host data
//! let out = k.zeroed::<f32>(2);
//! k.launch("vadd", [1, 1, 1], [32, 1, 1], 0, &[a.ptr(), out.ptr(), arg(2u32)]).unwrap();
//! assert_eq!(k.download::<f32>(out), [1.0, 2.0]);
//! ```
//!
//! `Buf::ptr()` passes a buffer as a pointer parameter (8 bytes), `Buf::slice()` as a slice
//! (`{address, length}`, 16 bytes, the ABI of a `&[T]` parameter); `arg(x)` passes any
//! `DeviceRepr` value by its bytes. Every module is also assembled by ptxas (when present).

#![allow(dead_code)]

use ptx_runtime::cpu::{CpuDevice, CpuModule};
use ptx_runtime::{DeviceRepr, Error};
use std::sync::Arc;

/// A device buffer: address, element count and element size.
#[derive(Debug, Clone, Copy)]
pub struct Buf {
    pub addr: u64,
    pub len: usize,
    pub elem: usize,
}

impl Buf {
    pub fn ptr(&self) -> Vec<u8> {
        self.addr.to_le_bytes().to_vec()
    }
    pub fn slice(&self) -> Vec<u8> {
        let mut v = self.addr.to_le_bytes().to_vec();
        v.extend((self.len as u64).to_le_bytes());
        v
    }
    /// A pointer `n` elements in.
    pub fn at(&self, n: usize) -> Vec<u8> {
        (self.addr + (n * self.elem) as u64).to_le_bytes().to_vec()
    }
}

/// A parameter's bytes.
pub fn arg<T: DeviceRepr>(v: T) -> Vec<u8> {
    let mut b = vec![0u8; T::LAYOUT.size];
    v.write_bytes(&mut b);
    b
}

/// Types a test reads back from device memory.
pub trait FromBytes: DeviceRepr {
    fn from_le(b: &[u8]) -> Self;
}

macro_rules! from_bytes {
    ($($t:ty),*) => {$(
        impl FromBytes for $t {
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("element size"))
            }
        }
    )*};
}
from_bytes!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

pub struct Harness {
    pub dev: CpuDevice,
    pub module: Arc<CpuModule>,
}

impl Harness {
    /// Loads `ptx` on a fresh device (panicking with the loader's message if it does not load).
    pub fn new(ptx: &str) -> Harness {
        let dev = CpuDevice::new();
        dev.set_printf_capture(true);
        let module = dev.load_module(ptx).unwrap_or_else(|e| panic!("{e}"));
        Harness { dev, module }
    }

    pub fn upload<T: DeviceRepr>(&mut self, data: &[T]) -> Buf {
        let size = T::LAYOUT.size;
        let mut bytes = vec![0u8; data.len() * size];
        for (i, v) in data.iter().enumerate() {
            v.write_bytes(&mut bytes[i * size..]);
        }
        let addr = self.dev.alloc(bytes.len()).expect("alloc");
        self.dev.write(addr, &bytes).expect("write");
        Buf { addr, len: data.len(), elem: size }
    }

    pub fn zeroed<T: DeviceRepr>(&mut self, n: usize) -> Buf {
        let addr = self.dev.alloc(n * T::LAYOUT.size).expect("alloc");
        Buf { addr, len: n, elem: T::LAYOUT.size }
    }

    pub fn download<T: FromBytes>(&self, b: Buf) -> Vec<T> {
        let mut bytes = vec![0u8; b.len * b.elem];
        self.dev.read(b.addr, &mut bytes).expect("read");
        bytes.chunks(T::LAYOUT.size).map(T::from_le).collect()
    }

    /// A launch, its error as the runtime reports it (the emulator's, variant for variant).
    pub fn launch(&self, entry: &str, grid: [u32; 3], block: [u32; 3], shared: u32, params: &[Vec<u8>]) -> Result<(), Error> {
        let p: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
        self.dev.launch(&self.module, entry, grid, block, shared, &p).map_err(Error::from)
    }

    pub fn printf(&self) -> String {
        self.dev.take_printf_output()
    }
}

/// nvcc's PTX for `src` (also assembled by ptxas), or `None` when nvcc is absent.
pub fn nvcc(name: &str, src: &str) -> Option<String> {
    let ptx = crate::tools::nvcc_ptx(name, src)?;
    crate::tools::assemble(name, &ptx);
    Some(ptx)
}

/// nvcc's PTX for `src` at `-O3` for each of `archs` (e.g. `["sm_80", "sm_90"]`), each also
/// assembled by ptxas; empty when nvcc is absent. Newer targets get different instruction
/// selections (`redux`, `max.relu`, …), so tests run every variant.
pub fn nvcc_archs(name: &str, src: &str, archs: &[&str]) -> Vec<String> {
    let Some(nvcc) = crate::tools::tool("NVCC", "nvcc", name) else { return Vec::new() };
    let mut out = Vec::new();
    for arch in archs {
        let dir = crate::tools::scratch_dir("nvcc");
        let cu = dir.join(format!("{name}.cu"));
        let ptx = dir.join(format!("{name}.{arch}.ptx"));
        std::fs::write(&cu, src).expect("write .cu");
        let o = std::process::Command::new(&nvcc)
            .args(["-ptx", "-rdc=true", "-O3", &format!("-arch={arch}"), "-o"])
            .arg(&ptx)
            .arg(&cu)
            .output()
            .expect("run nvcc");
        assert!(o.status.success(), "nvcc -arch={arch} failed on `{name}`:\n{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&ptx).expect("read ptx");
        let _ = std::fs::remove_dir_all(&dir);
        crate::tools::assemble(&format!("{name}_{arch}"), &text);
        out.push(text);
    }
    out
}

/// [`nvcc_archs`] for sources that include cooperative groups (which need CUDA's C++ library
/// headers, see `tools::has_cccl`); empty when nvcc or the headers are missing.
pub fn nvcc_archs_cccl(name: &str, src: &str, archs: &[&str]) -> Vec<String> {
    match crate::tools::tool("NVCC", "nvcc", name) {
        Some(nvcc) if crate::tools::has_cccl(&nvcc, name) => nvcc_archs(name, src, archs),
        _ => Vec::new(),
    }
}

/// The fault inside an `Error::Fault`, or a panic naming what came instead.
pub fn fault(r: Result<(), Error>) -> ptx_runtime::Fault {
    match r {
        Err(Error::Fault(f)) => f,
        other => panic!("expected a fault, got {other:?}"),
    }
}
