//! `printf!`: CUDA's device-side `printf`, with C's format syntax.
//!
//! On the device the format and the arguments go to the `vprintf` system call (PTX
//! Interoperability §3), which formats on the GPU and prints when the host synchronizes (on
//! the CPU backend, when the launch ends). The format is C's because `vprintf` interprets it:
//! what is written is what runs. The device compiler checks every conversion against its
//! argument's type at compile time.
//!
//! On the host the same C semantics format the arguments (the CPU backend's formatter, which
//! its tests compare with the C library), and the line is written to standard output in one
//! piece, so host and device print the same text.

use std::io::Write;

/// Prints from device code with C's `printf` format: `printf!("i = %d, x = %f\n", i, x)`.
///
/// Arguments are scalars (promoted as C's variadic arguments are: integers narrower than 32
/// bits and `bool` to `int`, `f32` to `double`), raw pointers (`%p`, or `%s` for a
/// `*const u8` to a NUL-terminated string) and string literals (`%s`). Each conversion must
/// match its argument — `%d %u %x %c` a 32-bit or narrower integer, `%ld %lu %lx` (`l`, `ll`,
/// `z`, `j`, `t`) a 64-bit one, `%f %e %g %a` a float — or the kernel does not compile.
///
/// Output appears when the host synchronizes with the device (CUDA) or when the launch ends
/// (CPU backend); lines of different threads do not interleave within a line.
///
/// ```
/// use ptx_runtime::device::*;
/// use ptx_runtime::{kernel, Device, LaunchConfig};
///
/// #[kernel]
/// pub fn hello(x: f32) {
///     printf!("block %u thread %u: %s %5.2f\n", block_idx_x(), thread_idx_x(), "x =", x);
/// }
///
/// fn main() -> ptx_runtime::Result<()> {
///     let stream = Device::cpu().stream();
///     hello::launch(&stream, LaunchConfig::new(2, 2), 1.5) // four lines on standard output
/// }
/// ```
#[macro_export]
macro_rules! printf {
    ($format:literal $(, $arg:expr)* $(,)?) => {
        $crate::device::printf_on_host($format, &[$($crate::device::PrintfArg::printf_arg($arg)),*])
    };
}

/// A value `printf!` can pass, as the device passes it (after C's default promotions).
pub trait PrintfArg {
    #[doc(hidden)]
    fn printf_arg(self) -> HostArg;
}

/// One `printf!` argument on the host: its bits as `vprintf` would read them, or a string.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub enum HostArg {
    Bits(u64),
    Str(&'static str),
}

macro_rules! int_args {
    ($($t:ty),*) => {$(
        impl PrintfArg for $t {
            fn printf_arg(self) -> HostArg {
                // Sign- or zero-extended as the promotion does; `%d` reads the low 32 bits.
                HostArg::Bits(self as i64 as u64)
            }
        }
    )*};
}
int_args!(i8, i16, i32, i64, isize);

macro_rules! uint_args {
    ($($t:ty),*) => {$(
        impl PrintfArg for $t {
            fn printf_arg(self) -> HostArg {
                HostArg::Bits(self as u64)
            }
        }
    )*};
}
uint_args!(u8, u16, u32, u64, usize);

impl PrintfArg for bool {
    fn printf_arg(self) -> HostArg {
        HostArg::Bits(self as u64)
    }
}

impl PrintfArg for f32 {
    fn printf_arg(self) -> HostArg {
        HostArg::Bits((self as f64).to_bits())
    }
}

impl PrintfArg for f64 {
    fn printf_arg(self) -> HostArg {
        HostArg::Bits(self.to_bits())
    }
}

impl PrintfArg for &'static str {
    fn printf_arg(self) -> HostArg {
        HostArg::Str(self)
    }
}

impl<T> PrintfArg for *const T {
    fn printf_arg(self) -> HostArg {
        HostArg::Bits(self as u64)
    }
}

impl<T> PrintfArg for *mut T {
    fn printf_arg(self) -> HostArg {
        HostArg::Bits(self as u64)
    }
}

/// The arguments in order, as the formatter asks for them.
struct Reader<'a> {
    args: &'a [HostArg],
    next: usize,
    /// The string of the `%s` argument read last (its "address" is its index, plus one).
    last_str: Option<&'static str>,
}

impl crate::cpu::PrintfArgs for Reader<'_> {
    fn arg(&mut self, _size: u32) -> Result<u64, String> {
        let a = self.args.get(self.next).ok_or("printf!: fewer arguments than the format reads")?;
        self.next += 1;
        Ok(match a {
            HostArg::Bits(b) => *b,
            HostArg::Str(s) => {
                self.last_str = Some(s);
                // Any non-null value: `string` answers for it.
                self.next as u64
            }
        })
    }

    fn string(&mut self, addr: u64) -> Result<Vec<u8>, String> {
        if let Some(s) = self.last_str.take() {
            return Ok(s.as_bytes().to_vec());
        }
        // A `*const u8` to a NUL-terminated string in host memory.
        let mut out = Vec::new();
        let mut p = addr as *const u8;
        // SAFETY: `printf!("%s", p)` promises `p` points to a NUL-terminated string, as C's
        // printf requires (the body is `unsafe` to dereference it on the device too).
        unsafe {
            while *p != 0 {
                out.push(*p);
                p = p.add(1);
            }
        }
        Ok(out)
    }
}

/// The text `printf!` prints on the host for `format` and `args`: C's `printf` semantics, as
/// the device's `vprintf` formats.
#[doc(hidden)]
pub fn format_on_host(format: &str, args: &[HostArg]) -> String {
    let mut r = Reader { args, next: 0, last_str: None };
    match crate::cpu::printf_format(format.as_bytes(), &mut r) {
        Ok((text, _)) => String::from_utf8_lossy(&text).into_owned(),
        Err(e) => format!("<printf!: {e}>"),
    }
}

/// `printf!` on the host: formats as the device does and writes the text to standard output
/// in one piece (threads of `host::run` do not interleave within a call).
#[doc(hidden)]
pub fn printf_on_host(format: &str, args: &[HostArg]) {
    let text = format_on_host(format, args);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
