//! Texture, sampler and surface handles (PTX Interoperability §1.4).
//!
//! When a kernel does not know at compile time which texture or surface it reads, it receives a
//! 64-bit handle: `.b64` in a device function's parameters and return value (§2.3 note E),
//! `.u64` in a kernel's, as nvcc declares `cudaTextureObject_t`. These types carry that handle.

use crate::abi::{Layout, ParamAbi, Scalar};
use crate::{DeviceRepr, ParamType};

macro_rules! handles {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(pub u64);

        unsafe impl DeviceRepr for $name {
            const LAYOUT: Layout = Layout::scalar(Scalar::U64);
            const PARAM: ParamAbi = ParamAbi::Handle;
            const NO_PADDING: bool = true;
            fn write_bytes(&self, out: &mut [u8]) {
                self.0.write_bytes(out)
            }
        }
        impl ParamType for $name {
            const ABI: ParamAbi = ParamAbi::Handle;
        }
    )*};
}

handles! {
    /// A texture object (`.texref`), CUDA's `cudaTextureObject_t`.
    Texture;
    /// A sampler (`.samplerref`).
    Sampler;
    /// A surface object (`.surfref`), CUDA's `cudaSurfaceObject_t`.
    Surface;
}
