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
        out[i] = a + b + Pair::<f32>::sum(p) + p.first() + q.first() as f32;
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
    ] {
        assert_eq!(syms.iter().filter(|s| **s == want).count(), 2, "{want}: one prototype and one definition in {syms:#?}");
    }
}
