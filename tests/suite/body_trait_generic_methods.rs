//! Generic methods of a generic user trait (`trait Mix<T> { fn mix<U: Into<f32>>(&self, u: U)
//! -> T; }`): on a plain type with two impls (`Mix<f32>`, `Mix<f64>`), called with the method's
//! argument inferred (`v.mix(2u8)`), written (`v.mix::<u16>(..)`), through the type's path and
//! through a bound in a generic function; and on a generic type's generic impl (`impl<T> Mix<T>
//! for Pair<T>`). Each impl computes something else, so a wrong pick shows: run on the host and
//! on the CPU backend and compared bit for bit; the module through ptxas; each instance named
//! as nvcc names a member template specialized at the trait's and the method's arguments.

use crate::host_vs_cpu::{demangle, has_cxxfilt, run_both, symbols};
use crate::tools::assemble;

pub mod geo {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct V {
        pub x: f32,
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[device_fn]
    pub trait Mix<T: Copy> {
        fn mix<U: Into<f32>>(&self, by: T, u: U) -> T;
        /// A default calling the generic method with its argument written.
        fn mix_twice<U: Into<f32> + Copy>(&self, by: T, u: U) -> T {
            let once = self.mix::<U>(by, u);
            self.mix(once, u)
        }
    }

    #[device_fn]
    impl Mix<f32> for V {
        fn mix<U: Into<f32>>(&self, by: f32, u: U) -> f32 {
            self.x * u.into() + by
        }
    }

    #[device_fn]
    impl Mix<f64> for V {
        fn mix<U: Into<f32>>(&self, by: f64, u: U) -> f64 {
            let u: f32 = u.into();
            self.x as f64 - u as f64 * by
        }
    }

    #[device_fn]
    impl<T: Copy + Into<f32> + core::ops::Add<Output = T>> Mix<T> for Pair<T> {
        fn mix<U: Into<f32>>(&self, by: T, u: U) -> T {
            let u: f32 = u.into();
            if u > 2.0 {
                self.a + by
            } else {
                self.b + by
            }
        }
    }

    #[device_fn]
    pub fn through_bound<M: Mix<f32>>(m: &M) -> f32 {
        m.mix(0.25f32, 3u8)
    }
}

mod user {
    use super::geo::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn trait_gmethods(vs: &[V], ps: &[Pair<f32>], out: &mut [f32], outd: &mut [f64]) {
        let i = thread_idx_x() as usize;
        let v = vs[i];
        let a = v.mix(0.5f32, 2u8);
        let b = v.mix::<u16>(1.5f32, i as u16);
        let c = v.mix(0.25f64, 1.5f32);
        let d = V::mix(&v, 2.0f32, 4u8);
        let e = v.mix_twice(0.75f32, 3u16);
        out[i] = a + b * 2.0 + d + through_bound(&v) + ps[i].mix(1.0f32, i as u8) + e;
        outd[i] = c + v.mix::<u8>(0.5f64, 2) + v.mix_twice(1.0f64, 1.25f32);
    }
}

#[test]
fn generic_methods_of_generic_traits_run_as_on_the_host() {
    use geo::{Pair, V};
    assemble("trait_generic_methods", user::trait_gmethods::PTX);
    let n = 32;
    let vs: Vec<V> = (0..n).map(|i| V { x: i as f32 * 0.75 - 3.0 }).collect();
    let ps: Vec<Pair<f32>> = (0..n).map(|i| Pair { a: i as f32 / 3.0, b: 2.5 - i as f32 }).collect();
    run_both!(user::trait_gmethods, n, [vs, ps], [out: f32 = 0.0, outd: f64 = 0.0]);
}

/// One instance per (trait arguments, method arguments), named as nvcc names the member
/// template `template <class T, class U> T mix(T, U) const` specialized at both (the return
/// and parameter types left out, as for every device function); a generic type's impl is a
/// member of the instance, the trait's argument being the type's.
#[test]
fn instances_are_member_template_specializations() {
    let ptx = user::trait_gmethods::PTX;
    let syms = symbols(ptx);
    let geo = "suite::body_trait_generic_methods::geo";
    for want in [
        format!("{geo}::V::mix<float, unsigned char> const"),
        format!("{geo}::V::mix<float, unsigned short> const"),
        format!("{geo}::V::mix<double, float> const"),
        format!("{geo}::V::mix<double, unsigned char> const"),
        format!("{geo}::V::mix_twice<float, unsigned short> const"),
        format!("{geo}::V::mix_twice<double, float> const"),
        format!("{geo}::Pair<float>::mix<unsigned char> const"),
    ] {
        let want = if has_cxxfilt() { want } else { continue };
        assert_eq!(syms.iter().filter(|s| **s == want).count(), 2, "{want}: one prototype and one definition in {syms:#?}");
    }
    assert!(ptx.contains("_ZNK5suite26body_trait_generic_methods3geo1V3mixIfhEE("), "{syms:#?}");
    let _ = demangle;
}
