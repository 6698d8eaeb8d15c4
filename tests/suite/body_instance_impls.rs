//! Impls for one instance of a generic type, as rustc accepts them: an inherent `impl
//! Pair<f32> { fn sum(self) }` and `impl Pair<u32>` with their own `sum`, a generic trait's
//! impls for `Pair<f32>` (two, told apart by the trait's argument) and for `Pair<u32>`, beside
//! a generic impl (`impl<T> Pair<T>`) of the same type; called with method syntax (a literal
//! argument picking the impl its kind fits), through the type's path and through a bound in a
//! generic function. Each impl computes something else, so a wrong pick shows: run on the host
//! and on the CPU backend and compared bit for bit; the module through ptxas; each method
//! named as nvcc names a member of the class template's explicit specialization.

use crate::host_vs_cpu::{has_cxxfilt, run_both, symbols};
use crate::tools::assemble;

pub mod geo {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[device_fn]
    pub trait Scale<T: Copy>: Copy {
        fn scale(self, by: T) -> Self;
    }

    #[device_fn]
    impl Scale<f32> for Pair<f32> {
        fn scale(self, by: f32) -> Self {
            Pair { a: self.a * by, b: self.b }
        }
    }

    #[device_fn]
    impl Scale<u32> for Pair<f32> {
        fn scale(self, by: u32) -> Self {
            Pair { a: self.a, b: self.b * by as f32 - 1.0 }
        }
    }

    #[device_fn]
    impl Scale<u32> for Pair<u32> {
        fn scale(self, by: u32) -> Self {
            Pair { a: self.a * by, b: self.b + by }
        }
    }

    #[device_fn]
    impl Pair<f32> {
        pub fn sum(self) -> f32 {
            self.a + self.b
        }
    }

    #[device_fn]
    impl Pair<u32> {
        pub fn sum(self) -> f32 {
            (self.a * 2 + self.b) as f32
        }

        /// A generic method of one instance's impl: one instance per argument type.
        pub fn weighted<U: Into<f32> + Copy>(self, u: U) -> f32 {
            self.a as f32 * u.into() - self.b as f32
        }
    }

    // Operators for one instance each: `+` of `Pair<f32>` and of `Pair<u32>` differ.
    #[device_fn]
    impl core::ops::Add for Pair<f32> {
        type Output = Pair<f32>;
        fn add(self, o: Pair<f32>) -> Pair<f32> {
            Pair { a: self.a + o.a, b: self.b - o.b }
        }
    }

    #[device_fn]
    impl core::ops::Add for Pair<u32> {
        type Output = Self;
        fn add(self, o: Self) -> Self {
            Pair { a: self.a + o.a * 2, b: self.b ^ o.b }
        }
    }

    #[device_fn]
    impl core::ops::Mul<f32> for Pair<f32> {
        type Output = Self;
        fn mul(self, k: f32) -> Self {
            Pair { a: self.a * k, b: self.b + k }
        }
    }

    #[device_fn]
    impl core::ops::Neg for Pair<f32> {
        type Output = Self;
        fn neg(self) -> Self {
            Pair { a: -self.a, b: self.b * 0.5 }
        }
    }

    #[device_fn]
    impl<T: Copy> Pair<T> {
        pub fn first(self) -> T {
            self.a
        }
    }

    #[device_fn]
    pub fn doubled<P: Scale<u32>>(p: P) -> P {
        p.scale(2u32)
    }
}

mod user {
    use super::geo::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn instance_impls(ps: &[Pair<f32>], qs: &[Pair<u32>], out: &mut [f32]) {
        let i = thread_idx_x() as usize;
        let (p, q) = (ps[i], qs[i]);
        let a = p.scale(2.0f32).sum() + p.scale(3u32).sum() * 0.5 + p.scale(0.25).sum();
        let b = q.scale(4u32).sum() + q.sum() + doubled(q).sum() + doubled(p).sum();
        let c = (p + p * 0.5).sum() + (-p).sum() + (q + q).sum() + q.weighted(1.5f32) + q.weighted(3u8) + q.weighted::<u16>(7);
        out[i] = a + b + c + Pair::<f32>::sum(p) + p.first() + q.first() as f32;
    }
}

#[test]
fn impls_for_one_instance_run_as_on_the_host() {
    use geo::Pair;
    assemble("instance_impls", user::instance_impls::PTX);
    let n = 32;
    let ps: Vec<Pair<f32>> = (0..n).map(|i| Pair { a: i as f32 / 3.0, b: 2.5 - i as f32 }).collect();
    let qs: Vec<Pair<u32>> = (0..n).map(|i| Pair { a: i as u32 * 3, b: 100 - i as u32 }).collect();
    run_both!(user::instance_impls, n, [ps, qs], [out: f32 = 0.0]);
}

/// Members of the explicit specializations (`template <> struct Pair<float>`), the trait's
/// argument a member template's (as for a plain type's impls of a generic trait).
#[test]
fn instance_methods_are_members_of_the_specialization() {
    let syms = symbols(user::instance_impls::PTX);
    if !has_cxxfilt() {
        return;
    }
    let geo = "suite::body_instance_impls::geo";
    for want in [
        format!("{geo}::Pair<float>::sum const"),
        format!("{geo}::Pair<unsigned int>::sum const"),
        format!("{geo}::Pair<float>::scale<float> const"),
        format!("{geo}::Pair<float>::scale<unsigned int> const"),
        format!("{geo}::Pair<unsigned int>::scale<unsigned int> const"),
        format!("{geo}::Pair<unsigned int>::weighted<float> const"),
        format!("{geo}::Pair<unsigned int>::weighted<unsigned char> const"),
        format!("{geo}::Pair<unsigned int>::weighted<unsigned short> const"),
    ] {
        assert_eq!(syms.iter().filter(|s| **s == want).count(), 2, "{want}: one prototype and one definition in {syms:#?}");
    }
}

/// An instance's operators as nvcc names `template <> struct Pair<float> { Pair operator+(Pair)
/// const; .. }`'s: with their parameter types, the instance itself abbreviated (`S3_`).
#[test]
fn instance_operators_are_nvccs() {
    let ptx = user::instance_impls::PTX;
    let geo = "suite::body_instance_impls::geo";
    let want = [
        ("_ZNK5suite19body_instance_impls3geo4PairIfEplES3_", format!("{geo}::Pair<float>::operator+({geo}::Pair<float>) const")),
        ("_ZNK5suite19body_instance_impls3geo4PairIjEplES3_", format!("{geo}::Pair<unsigned int>::operator+({geo}::Pair<unsigned int>) const")),
        ("_ZNK5suite19body_instance_impls3geo4PairIfEmlEf", format!("{geo}::Pair<float>::operator*(float) const")),
        ("_ZNK5suite19body_instance_impls3geo4PairIfEngEv", format!("{geo}::Pair<float>::operator-() const")),
    ];
    for (sym, _) in &want {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
    if has_cxxfilt() {
        let out = std::process::Command::new("c++filt").args(want.iter().map(|w| w.0)).output().expect("c++filt runs");
        let text = String::from_utf8_lossy(&out.stdout);
        for (line, (sym, demangled)) in text.lines().zip(&want) {
            assert_eq!(line, demangled, "c++filt {sym}");
        }
    }
}
