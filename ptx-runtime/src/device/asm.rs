//! Inline PTX.

/// Inline PTX with typed register operands:
///
/// ```ignore
/// let r: i32;
/// ptx_asm!("add.s32 {0}, {1}, {2};", out(i32) r, in(i32) a, in(i32) b);
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
