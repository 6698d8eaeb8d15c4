//! Kernel arguments: what a typed launcher accepts for each parameter, and the parameter bytes
//! it produces — exactly as the ABI lays the parameter out (aggregate bytes with zeroed
//! padding; a slice as `{ u64 address, u64 length }`; a pointer as its 64-bit address).

use crate::backend::LaunchGuard;
use crate::buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut};
use crate::error::{Error, Result};
use crate::repr::DeviceRepr;
use crate::stream::Stream;
use std::sync::Arc;

/// The encoded arguments of one launch. On CUDA it also holds the guards that make other
/// streams wait for this launch before they touch the buffers it uses.
pub struct Args<'a> {
    pub(crate) stream: &'a Stream,
    params: Vec<Vec<u8>>,
    pub(crate) guards: Vec<Box<dyn LaunchGuard + 'a>>,
    /// The liveness of each device buffer passed, for a graph that captures the launch.
    pub(crate) uses: Vec<Arc<()>>,
}

impl<'a> Args<'a> {
    pub fn new(stream: &'a Stream) -> Args<'a> {
        Args { stream, params: Vec::new(), guards: Vec::new(), uses: Vec::new() }
    }

    /// Appends one parameter's bytes.
    pub fn push_bytes(&mut self, bytes: Vec<u8>) {
        self.params.push(bytes);
    }

    pub(crate) fn params(&self) -> &[Vec<u8>] {
        &self.params
    }

    pub(crate) fn push_view(&mut self, address: u64, len: usize) {
        let mut bytes = Vec::with_capacity(16);
        bytes.extend_from_slice(&address.to_le_bytes());
        bytes.extend_from_slice(&(len as u64).to_le_bytes());
        self.params.push(bytes);
    }

    /// The address of elements `start..` of `buf`, checking it lives on this launch's device.
    fn address_of<T: DeviceRepr>(&mut self, buf: &'a DeviceBuffer<T>, start: usize) -> Result<u64> {
        if !buf.on_device_of(self.stream) {
            return Err(Error::InvalidBuffer { reason: "a buffer passed to a kernel lives on a different device than the launch's stream".into() });
        }
        self.uses.push(buf.alive.clone());
        let (base, guard) = buf.mem.launch_address(&*self.stream.inner);
        self.guards.extend(guard);
        Ok(base + (start * T::LAYOUT.size) as u64)
    }

    fn address_of_mut<T: DeviceRepr>(&mut self, buf: &'a mut DeviceBuffer<T>, start: usize) -> Result<u64> {
        if !buf.on_device_of(self.stream) {
            return Err(Error::InvalidBuffer { reason: "a buffer passed to a kernel lives on a different device than the launch's stream".into() });
        }
        self.uses.push(buf.alive.clone());
        let (base, guard) = buf.mem.launch_address_mut(&*self.stream.inner);
        self.guards.extend(guard);
        Ok(base + (start * T::LAYOUT.size) as u64)
    }
}

/// A value that can be passed for a kernel parameter of type `P`.
///
/// | parameter            | accepted arguments |
/// |----------------------|--------------------|
/// | a value type `T` (scalar, struct, vector, array, handle, raw pointer) | `T` |
/// | `&[T]`               | `&DeviceBuffer<T>`, `DeviceSlice<T>`, `&DeviceSliceMut<T>`, `&CudaSlice<T>` |
/// | `&mut [T]`           | `&mut DeviceBuffer<T>`, `DeviceSliceMut<T>`, `&mut DeviceSliceMut<T>`, `&mut CudaSlice<T>` |
/// | `&T` / `&mut T`      | a buffer or view (its first element; it must not be empty) |
/// | `*const T` / `*mut T`| a buffer or view (its address), or a raw address |
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter of type `{P}`",
    label = "expected an argument for a `{P}` parameter",
    note = "slice parameters take `&DeviceBuffer<T>` / `DeviceSlice<T>` (`&mut DeviceBuffer<T>` / `DeviceSliceMut<T>` for `&mut [T]`) of the same element type; value parameters take the value itself"
)]
pub trait KernelArg<P: ?Sized> {
    /// Appends this argument's parameter bytes.
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a;
}

impl<T: DeviceRepr> KernelArg<T> for T {
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a,
    {
        let mut bytes = vec![0u8; T::LAYOUT.size];
        self.write_bytes(&mut bytes);
        args.push_bytes(bytes);
        Ok(())
    }
}

/// Shared views: slices, references and const pointers.
macro_rules! shared_views {
    ($($param:ty, $push:ident;)*) => {$(
        impl<'b, T: DeviceRepr> KernelArg<$param> for &'b DeviceBuffer<T> {
            fn push<'a>(self, args: &mut Args<'a>) -> Result<()> where Self: 'a {
                $push(args, self.as_slice())
            }
        }
        impl<'b, T: DeviceRepr> KernelArg<$param> for DeviceSlice<'b, T> {
            fn push<'a>(self, args: &mut Args<'a>) -> Result<()> where Self: 'a {
                $push(args, self)
            }
        }
        impl<'b, 'c, T: DeviceRepr> KernelArg<$param> for &'c DeviceSliceMut<'b, T> {
            fn push<'a>(self, args: &mut Args<'a>) -> Result<()> where Self: 'a {
                $push(args, self.as_slice())
            }
        }
    )*};
}

/// Mutable views: mutable slices, references and pointers.
macro_rules! mut_views {
    ($($param:ty, $push:ident;)*) => {$(
        impl<'b, T: DeviceRepr> KernelArg<$param> for &'b mut DeviceBuffer<T> {
            fn push<'a>(self, args: &mut Args<'a>) -> Result<()> where Self: 'a {
                $push(args, self.as_slice_mut())
            }
        }
        impl<'b, T: DeviceRepr> KernelArg<$param> for DeviceSliceMut<'b, T> {
            fn push<'a>(self, args: &mut Args<'a>) -> Result<()> where Self: 'a {
                $push(args, self)
            }
        }
        impl<'b, 'c, T: DeviceRepr> KernelArg<$param> for &'c mut DeviceSliceMut<'b, T> {
            fn push<'a>(self, args: &mut Args<'a>) -> Result<()> where Self: 'a {
                $push(args, self.reborrow())
            }
        }
    )*};
}

shared_views! {
    &'static [T], push_slice;
    &'static T, push_ref;
    *const T, push_pointer;
}

mut_views! {
    &'static mut [T], push_slice_mut;
    &'static mut T, push_ref_mut;
    *mut T, push_pointer_mut;
}

fn push_slice<'a, T: DeviceRepr>(args: &mut Args<'a>, view: DeviceSlice<'a, T>) -> Result<()> {
    let address = args.address_of(view.buf, view.start)?;
    args.push_view(address, view.len());
    Ok(())
}

fn push_pointer<'a, T: DeviceRepr>(args: &mut Args<'a>, view: DeviceSlice<'a, T>) -> Result<()> {
    let address = args.address_of(view.buf, view.start)?;
    args.push_bytes(address.to_le_bytes().to_vec());
    Ok(())
}

fn push_ref<'a, T: DeviceRepr>(args: &mut Args<'a>, view: DeviceSlice<'a, T>) -> Result<()> {
    if view.is_empty() {
        return Err(Error::InvalidBuffer { reason: "a reference parameter needs a non-empty buffer or view".into() });
    }
    push_pointer(args, view)
}

fn push_slice_mut<'a, T: DeviceRepr>(args: &mut Args<'a>, view: DeviceSliceMut<'a, T>) -> Result<()> {
    let len = view.len();
    let address = args.address_of_mut(view.buf, view.start)?;
    args.push_view(address, len);
    Ok(())
}

fn push_pointer_mut<'a, T: DeviceRepr>(args: &mut Args<'a>, view: DeviceSliceMut<'a, T>) -> Result<()> {
    let address = args.address_of_mut(view.buf, view.start)?;
    args.push_bytes(address.to_le_bytes().to_vec());
    Ok(())
}

fn push_ref_mut<'a, T: DeviceRepr>(args: &mut Args<'a>, view: DeviceSliceMut<'a, T>) -> Result<()> {
    if view.is_empty() {
        return Err(Error::InvalidBuffer { reason: "a reference parameter needs a non-empty buffer or view".into() });
    }
    push_pointer_mut(args, view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{Layout, ParamAbi};
    use crate::Device;

    #[derive(Clone, Copy)]
    #[repr(C)]
    struct Padded {
        a: u8,
        b: u32,
    }
    unsafe impl DeviceRepr for Padded {
        const LAYOUT: Layout = Layout::new(8, 4);
        const PARAM: ParamAbi = ParamAbi::Aggregate(Self::LAYOUT);
        fn write_bytes(&self, out: &mut [u8]) {
            self.a.write_bytes(&mut out[0..]);
            self.b.write_bytes(&mut out[4..]);
        }
    }

    #[test]
    fn parameters_are_laid_out_as_the_abi_says() {
        let stream = Device::cpu().stream();
        let mut buf = DeviceBuffer::<f32>::zeroed(&stream, 10).unwrap();
        let base = buf.device_address();
        let mut args = Args::new(&stream);
        KernelArg::<u8>::push(7u8, &mut args).unwrap();
        KernelArg::<Padded>::push(Padded { a: 1, b: 0x0203_0405 }, &mut args).unwrap();
        KernelArg::<&'static mut [f32]>::push(buf.slice_mut(2..5).unwrap(), &mut args).unwrap();
        let p = args.params();
        assert_eq!(p[0], [7]);
        assert_eq!(p[1], [1, 0, 0, 0, 5, 4, 3, 2], "padding is zero, fields little-endian");
        let mut slice = (base + 8).to_le_bytes().to_vec();
        slice.extend_from_slice(&3u64.to_le_bytes());
        assert_eq!(p[2], slice, "a slice is {{address, length}}");
    }

    #[test]
    fn empty_reference_arguments_are_errors() {
        let stream = Device::cpu().stream();
        let buf = DeviceBuffer::<f32>::zeroed(&stream, 0).unwrap();
        let mut args = Args::new(&stream);
        assert!(matches!(KernelArg::<&'static f32>::push(&buf, &mut args), Err(Error::InvalidBuffer { .. })));
    }
}
