//! The scaffolding of the tests that run one kernel body twice, on the host (rustc's build of
//! the same body, the oracle) and on the CPU backend (our PTX), and compare the outputs bit
//! for bit: [`run_both!`] runs it, [`Bits`] says what "the same" is for an element, and
//! [`symbols`] lists a module's function symbols as `c++filt` shows them.

use std::fmt::Debug;

/// An output element as the words it is compared by: floats by their bits (so `-0.0`, NaN
/// payloads and the last ulp count), integers by value, a struct field by field.
pub trait Bits {
    fn bits(&self) -> Vec<u64>;
}

macro_rules! float_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            fn bits(&self) -> Vec<u64> {
                vec![self.to_bits() as u64]
            }
        }
    )*};
}
float_bits!(f32, f64);

macro_rules! int_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            fn bits(&self) -> Vec<u64> {
                vec![*self as u64]
            }
        }
    )*};
}
int_bits!(u8, u16, u32, u64, i8, i16, i32, i64, usize);

/// `bits!(geo::Vec3 { x, y, z })`: a struct compared by the bits of its fields.
macro_rules! bits {
    ($t:ty { $($f:ident),+ $(,)? }) => {
        impl $crate::host_vs_cpu::Bits for $t {
            fn bits(&self) -> Vec<u64> {
                let mut v = Vec::new();
                $( v.extend($crate::host_vs_cpu::Bits::bits(&self.$f)); )+
                v
            }
        }
    };
}
pub(crate) use bits;

/// Asserts that the host's and the CPU backend's outputs `name` are the same, element by element.
pub fn same<T: Bits + Debug>(name: &str, host: &[T], device: &[T]) {
    assert_eq!(host.len(), device.len(), "{name}: lengths");
    for (i, (h, d)) in host.iter().zip(device).enumerate() {
        assert_eq!(h.bits(), d.bits(), "{name}, thread {i}: host {h:?}, device {d:?}");
    }
}

/// `run_both!(user::scales, n, [xs, ns], [out: f32 = 0.0, outn: u32 = 0])`: runs the kernel
/// with one block of `n` threads on the host and on the CPU backend, with the inputs (slices,
/// copied to device buffers) then the outputs (`n` elements each, starting at the value given)
/// as its parameters, and asserts that each output is the same on both ([`same`]).
macro_rules! run_both {
    ($($k:ident)::+, $n:expr, [$($input:expr),* $(,)?], [$($out:ident: $t:ty = $init:expr),+ $(,)?]) => {{
        let n: usize = $n;
        $( let mut $out: Vec<$t> = vec![$init; n]; )+
        {
            $( let $out = ::ptx_runtime::device::host::Disjoint::new(&mut $out); )+
            // SAFETY: one element per thread.
            ::ptx_runtime::device::host::run([1, 1, 1], [n as u32, 1, 1], 0, || $($k)::+($(&$input,)* $(unsafe { $out.get() }),+));
        }
        let stream = $crate::body_exec::cpu_stream();
        $( let mut $out = ($out, ::ptx_runtime::DeviceBuffer::<$t>::from_slice(&stream, &vec![$init; n]).unwrap()); )+
        $($k)::+::launch(&stream, ::ptx_runtime::LaunchConfig::new(1, n as u32), $(&::ptx_runtime::DeviceBuffer::from_slice(&stream, &$input).unwrap(),)* $(&mut $out.1),+).unwrap();
        $( $crate::host_vs_cpu::same(stringify!($out), &$out.0, &$out.1.to_vec().unwrap()); )+
    }};
}
pub(crate) use run_both;

/// Whether `c++filt` is on `PATH` (symbols are checked through it where it is).
pub fn has_cxxfilt() -> bool {
    std::process::Command::new("c++filt").arg("_Z1fv").output().is_ok()
}

/// `sym` as `c++filt` shows it (`sym` itself without `c++filt`).
pub fn demangle(sym: &str) -> String {
    match std::process::Command::new("c++filt").arg(sym).output() {
        Ok(o) => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Err(_) => sym.to_owned(),
    }
}

/// The functions a module defines or declares (`.func`, `.visible .func`), demangled.
pub fn symbols(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim().strip_prefix(".func ").or_else(|| l.trim().strip_prefix(".visible .func ")))
        .filter_map(|l| l.split(|c: char| c == '(' || c == ' ').find(|w| w.starts_with("_Z")))
        .map(demangle)
        .collect()
}
