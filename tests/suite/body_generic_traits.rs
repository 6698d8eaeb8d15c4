//! Trait impls for generic types: the `core::ops` operators (`impl<T: ..> Add for Pair<T>`,
//! `Mul<T>`, `Neg`, `AddAssign`, `Index`) and a user trait (`impl<T: ..> Flip for Pair<T>`,
//! with the trait's default method compiled for the generic impl) on `Pair<f32>` and
//! `Pair<u32>`, instantiated per argument in the caller. Run on the host and on the CPU backend
//! and compared bit for bit; the module through ptxas; the operators' symbols equal to nvcc's
//! for the members of the C++ class template instance (checked with nvcc and `c++filt`).

use crate::host_vs_cpu::{bits, run_both};
use crate::tools::{assemble, nvcc_ptx};

bits!(cplx::Pair<f32> { a, b });
bits!(cplx::Pair<u32> { a, b });

pub mod cplx {
    use core::ops::{Add, AddAssign, Index, Mul, Neg, Sub};
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[device_fn]
    impl<T: Copy + Add<Output = T>> Add for Pair<T> {
        type Output = Self;
        fn add(self, o: Self) -> Self {
            Pair { a: self.a + o.a, b: self.b + o.b }
        }
    }

    #[device_fn]
    impl<T> Sub<Pair<T>> for Pair<T>
    where
        T: Copy + Sub<Output = T>,
    {
        type Output = Pair<T>;
        fn sub(self, o: Pair<T>) -> Pair<T> {
            Self { a: self.a - o.a, b: self.b - o.b }
        }
    }

    /// A type parameter on the right: called with a primitive.
    #[device_fn]
    impl<T: Copy + Mul<Output = T>> Mul<T> for Pair<T> {
        type Output = Self;
        fn mul(self, s: T) -> Self::Output {
            Self { a: self.a * s, b: self.b * s }
        }
    }

    #[device_fn]
    impl<T: Copy + Neg<Output = T>> Neg for Pair<T> {
        type Output = Self;
        fn neg(self) -> Self {
            Self { a: -self.a, b: -self.b }
        }
    }

    #[device_fn]
    impl<T: Copy + AddAssign> AddAssign for Pair<T> {
        fn add_assign(&mut self, o: Self) {
            self.a += o.a;
            self.b += o.b;
        }
    }

    #[device_fn]
    impl<T> Index<usize> for Pair<T> {
        type Output = T;
        fn index(&self, i: usize) -> &T {
            if i == 0 {
                &self.a
            } else {
                &self.b
            }
        }
    }

    /// A user trait with a default method, implemented once for every `Pair<T>`.
    #[device_fn]
    pub trait Flip: Copy {
        fn flip(self) -> Self;
        fn flip_add(self) -> Self;
        fn twice(self) -> Self {
            self.flip().flip_add()
        }
    }

    #[device_fn]
    impl<T: Copy + Add<Output = T>> Flip for Pair<T> {
        fn flip(self) -> Self {
            Pair { a: self.b, b: self.a }
        }
        fn flip_add(self) -> Self {
            self.flip() + self
        }
    }
}

mod user {
    use super::cplx::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn pair_ops(ps: &[Pair<f32>], qs: &[Pair<u32>], out: &mut [Pair<f32>], outq: &mut [Pair<u32>], outs: &mut [f32]) {
        let i = thread_idx_x() as usize;
        let p = ps[i];
        let q = ps[(i + 1) % ps.len()];
        let mut r = p + q * 2.0 - -p;
        r += q;
        out[i] = r.twice();
        let u = qs[i] + qs[0];
        let mut v = u * 3;
        v += qs[i];
        outq[i] = v.flip_add();
        outs[i] = r[0] + r[1] * 0.5 + v[1] as f32;
    }
}

#[test]
fn generic_trait_impls_run_as_on_the_host() {
    use cplx::Pair;
    assemble("generic_trait_impls", user::pair_ops::PTX);
    let n = 32;
    let ps: Vec<Pair<f32>> = (0..n).map(|i| Pair { a: i as f32 * 0.25, b: 1.0 - i as f32 / 3.0 }).collect();
    let qs: Vec<Pair<u32>> = (0..n as u32).map(|i| Pair { a: i * 7 + 1, b: 1000 - i }).collect();
    run_both!(user::pair_ops, n, [ps, qs], [out: Pair<f32> = Pair { a: 0.0, b: 0.0 }, outq: Pair<u32> = Pair { a: 0, b: 0 }, outs: f32 = 0.0]);
}

/// The operators of `Pair<float>` and `Pair<unsigned>` as nvcc names them: the class template
/// instance's members with their parameter types (`S3_` is the instance).
const OPERATORS: [(&str, &str); 7] = [
    ("_ZNK5suite19body_generic_traits4cplx4PairIfEplES3_", "suite::body_generic_traits::cplx::Pair<float>::operator+(suite::body_generic_traits::cplx::Pair<float>) const"),
    ("_ZNK5suite19body_generic_traits4cplx4PairIfEmiES3_", "suite::body_generic_traits::cplx::Pair<float>::operator-(suite::body_generic_traits::cplx::Pair<float>) const"),
    ("_ZNK5suite19body_generic_traits4cplx4PairIfEmlEf", "suite::body_generic_traits::cplx::Pair<float>::operator*(float) const"),
    ("_ZNK5suite19body_generic_traits4cplx4PairIfEngEv", "suite::body_generic_traits::cplx::Pair<float>::operator-() const"),
    ("_ZN5suite19body_generic_traits4cplx4PairIfEpLES3_", "suite::body_generic_traits::cplx::Pair<float>::operator+=(suite::body_generic_traits::cplx::Pair<float>)"),
    ("_ZNK5suite19body_generic_traits4cplx4PairIfEixEm", "suite::body_generic_traits::cplx::Pair<float>::operator[](unsigned long) const"),
    ("_ZNK5suite19body_generic_traits4cplx4PairIjEmlEj", "suite::body_generic_traits::cplx::Pair<unsigned int>::operator*(unsigned int) const"),
];

#[test]
fn generic_operator_symbols_are_nvccs() {
    let ptx = user::pair_ops::PTX;
    for (sym, _) in OPERATORS {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
    // The user trait's methods (the default `twice` too), as members of the instance.
    for sym in ["_ZNK5suite19body_generic_traits4cplx4PairIfE4flipE", "_ZNK5suite19body_generic_traits4cplx4PairIfE5twiceE", "_ZNK5suite19body_generic_traits4cplx4PairIjE8flip_addE"] {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}:\n{ptx}");
    }
    if let Ok(out) = std::process::Command::new("c++filt").args(OPERATORS.iter().map(|s| s.0)).output() {
        let text = String::from_utf8_lossy(&out.stdout);
        for (line, (sym, want)) in text.lines().zip(&OPERATORS) {
            assert_eq!(line, *want, "c++filt {sym}");
        }
    }
    let cuda = r#"
namespace suite { namespace body_generic_traits { namespace cplx {
template <typename T> struct Pair {
    T a, b;
    __device__ __noinline__ Pair operator+(Pair o) const { Pair r; r.a = a + o.a; r.b = b + o.b; return r; }
    __device__ __noinline__ Pair operator-(Pair o) const { Pair r; r.a = a - o.a; r.b = b - o.b; return r; }
    __device__ __noinline__ Pair operator*(T s) const { Pair r; r.a = a * s; r.b = b * s; return r; }
    __device__ __noinline__ Pair operator-() const { Pair r; r.a = -a; r.b = -b; return r; }
    __device__ __noinline__ void operator+=(Pair o) { a += o.a; b += o.b; }
    __device__ __noinline__ T operator[](unsigned long i) const { return i == 0 ? a : b; }
};
}}}
using namespace suite::body_generic_traits::cplx;
__global__ void k(Pair<float> *p, Pair<unsigned> *u, float *o) {
    Pair<float> r = p[0] + p[1] * 2.0f - -p[2];
    r += p[3];
    p[4] = r;
    o[0] = r[0];
    u[1] = u[0] * 3u;
}
"#;
    let Some(theirs) = nvcc_ptx("generic_operator_symbols", cuda) else { return };
    for (sym, _) in OPERATORS {
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(|w| w.trim_end_matches('(') == sym));
        assert!(defined, "nvcc has no `{sym}`:\n{theirs}");
    }
}
