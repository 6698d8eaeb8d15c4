//! Inline PTX.

/// Inline PTX with typed register operands:
///
/// ```
/// use ptx_runtime::device::*;
/// use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};
///
/// #[kernel]
/// pub fn add(a: i32, b: i32, out: &mut [i32]) {
///     let r: i32;
///     ptx_asm!("add.s32 {0}, {1}, {2};", out(i32) r, in(i32) a, in(i32) b);
///     out[0] = r;
/// }
///
/// fn main() -> ptx_runtime::Result<()> {
///     let stream = Device::cpu().stream();
///     let mut out = DeviceBuffer::<i32>::zeroed(&stream, 1)?;
///     add::launch(&stream, LaunchConfig::new(1, 1), 40, 2, &mut out)?;
///     assert_eq!(out.to_vec()?, [42]);
///     Ok(())
/// }
/// ```
///
/// `{n}` is operand `n` (counted from 0); `{{` and `}}` are literal braces. Operands are
/// `in(T) value`, `out(T) place` or `inout(T) place`, `T` a scalar (`bool` is a `.pred`
/// register; pass addresses as `u64`). The device compiler puts the text, operands replaced by
/// registers, in its own `{ }` scope.
///
/// On the host an inline-PTX body cannot run: reaching `ptx_asm!` there panics. Keep a host
/// reference of such a kernel next to it for tests.
#[macro_export]
macro_rules! ptx_asm {
    ($template:literal $(,)?) => {{
        let _: &str = $template;
        $crate::device::asm_on_host::<()>()
    }};
    ($template:literal, $($operands:tt)*) => {{
        let _: &str = $template;
        $crate::__ptx_asm_operands!($($operands)*);
        $crate::device::asm_on_host::<()>()
    }};
}

/// The host side of `ptx_asm!`'s operands: inputs are evaluated, outputs assigned (by a call
/// that panics, since the instruction cannot run here).
#[doc(hidden)]
#[macro_export]
macro_rules! __ptx_asm_operands {
    () => {};
    (in ($t:ty) $e:expr $(, $($rest:tt)*)?) => {
        let _: $t = $e;
        $($crate::__ptx_asm_operands!($($rest)*);)?
    };
    (out ($t:ty) $e:expr $(, $($rest:tt)*)?) => {
        $e = $crate::device::asm_on_host::<$t>();
        $($crate::__ptx_asm_operands!($($rest)*);)?
    };
    (inout ($t:ty) $e:expr $(, $($rest:tt)*)?) => {
        let _: $t = $e;
        $e = $crate::device::asm_on_host::<$t>();
        $($crate::__ptx_asm_operands!($($rest)*);)?
    };
}

/// What `ptx_asm!` does on the host: stops with a message (inline PTX runs only on the
/// device).
#[doc(hidden)]
#[track_caller]
pub fn asm_on_host<T>() -> T {
    panic!("ptx_asm!: inline PTX runs only on the device")
}
