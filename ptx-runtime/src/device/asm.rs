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
    ($template:literal $(, $dir:ident ($t:ty) $e:expr)* $(,)?) => {{
        let _ = $template;
        ::core::panic!("ptx_asm!: inline PTX runs only on the device")
    }};
}
