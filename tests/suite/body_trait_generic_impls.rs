//! Generic user traits beyond non-generic `DeviceRepr` types: `trait Scale<T>` implemented for
//! a primitive at several arguments (`impl Scale<f32> for f32`, `impl Scale<u32> for f32`) and
//! for a generic type (`impl<T> Scale<T> for Pair<T>`); an unsuffixed literal argument picks the
//! impl as rustc does, the one its kind fits or, where several fit, the one at the literal's
//! fallback type (`f64`, `i32`); `Self::Out` inside a generic type's impl; and const parameters
//! on traits (`trait Dims<const N: usize>`). Run on the host
//! and on the CPU backend and compared bit for bit (the host build is the oracle for which
//! impl each call reaches: each impl computes something different); the module through
//! ptxas; the symbols through `c++filt`.

use crate::host_vs_cpu::{has_cxxfilt, run_both, symbols};
use crate::tools::assemble;

pub mod num {
    use core::ops::{Add, Mul};
    use ptx_runtime::{device_fn, DeviceRepr};

    #[device_fn]
    pub trait Scale<T: Copy>: Copy {
        fn scale(self, by: T) -> Self;
        // A default method: compiled for each impl with its argument.
        fn scale_twice(self, by: T) -> Self {
            self.scale(by).scale(by)
        }
    }

    // Four impls for one primitive: a float literal fits two (`f64` is rustc's fallback), an
    // integer literal two (`i32`). Each computes something else, so a wrong pick shows.
    #[device_fn]
    impl Scale<f32> for f32 {
        fn scale(self, by: f32) -> f32 {
            self * by
        }
    }

    #[device_fn]
    impl Scale<f64> for f32 {
        fn scale(self, by: f64) -> f32 {
            (self as f64 * by + 0.25) as f32
        }
    }

    #[device_fn]
    impl Scale<u32> for f32 {
        fn scale(self, by: u32) -> f32 {
            self * by as f32 + 1.0
        }
    }

    #[device_fn]
    impl Scale<i32> for f32 {
        fn scale(self, by: i32) -> Self {
            self - by as f32
        }
    }

    // One impl for `u32`: a float literal has no impl to fit, an integer literal one.
    #[device_fn]
    impl Scale<u32> for u32 {
        fn scale(self, by: u32) -> u32 {
            self * by + 3
        }
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct V2 {
        pub x: f32,
        pub y: f32,
    }

    // A `DeviceRepr` type with a float impl besides the fallback one.
    #[device_fn]
    impl Scale<f32> for V2 {
        fn scale(self, by: f32) -> V2 {
            V2 { x: self.x * by, y: self.y }
        }
    }

    #[device_fn]
    impl Scale<f64> for V2 {
        fn scale(self, by: f64) -> V2 {
            V2 { x: self.x, y: (self.y as f64 * by) as f32 }
        }
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    // A generic trait for a generic type: the trait's argument is the type's.
    #[device_fn]
    impl<T: Copy + Mul<Output = T> + Add<Output = T>> Scale<T> for Pair<T> {
        fn scale(self, by: T) -> Self {
            Pair { a: self.a * by, b: self.b * by + self.a }
        }
    }

    #[device_fn]
    pub trait Ops: Copy {
        type Out: Copy;
        fn first(self) -> Self::Out;
        fn both(self) -> Self::Out;
        // A default naming the associated type.
        fn first_twice(self) -> Self::Out {
            let f: Self::Out = self.first();
            f
        }
    }

    // `Self::Out` inside a generic type's impl: the impl's `T` per instance.
    #[device_fn]
    impl<T: Copy + Add<Output = T>> Ops for Pair<T> {
        type Out = T;
        fn first(self) -> Self::Out {
            self.a
        }
        fn both(self) -> <Self as Ops>::Out {
            let s: Self::Out = self.a + self.b;
            s
        }
    }
}

/// Const parameters on traits: bound from an array argument's length, or the one impl there is
/// when only the return type mentions the parameter.
pub mod dims {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct V3 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }

    #[device_fn]
    pub trait Dims<const N: usize>: Copy {
        fn dims(&self) -> [f32; N];
        // A default using the parameter as a value.
        fn total(&self) -> f32 {
            let d = self.dims();
            let mut s = 0.0;
            for i in 0..N {
                s += d[i] * (i + 1) as f32;
            }
            s
        }
    }

    #[device_fn]
    impl Dims<3> for V3 {
        fn dims(&self) -> [f32; 3] {
            [self.x, self.y, self.z]
        }
    }

    #[device_fn]
    impl Dims<2> for f32 {
        fn dims(&self) -> [f32; 2] {
            [*self, *self * 2.0]
        }
    }

    #[device_fn]
    pub trait Pad<const N: usize>: Copy {
        fn pad(self, a: [f32; N]) -> f32;
    }

    #[device_fn]
    impl Pad<2> for V3 {
        fn pad(self, a: [f32; 2]) -> f32 {
            self.x * a[0] + a[1]
        }
    }

    #[device_fn]
    impl Pad<3> for V3 {
        fn pad(self, a: [f32; 3]) -> f32 {
            self.y * a[2] - a[0]
        }
    }
}

pub mod user {
    use super::dims::*;
    use super::num::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn scales(xs: &[f32], ns: &[u32], ps: &[Pair<f32>], qs: &[Pair<u32>], out: &mut [f32], outn: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let x = xs[i];
        let n = ns[i];
        // The argument's type picks the impl; an unsuffixed literal its kind's one impl or
        // the fallback type's.
        let a = x.scale(2.0f32) + x.scale(3u32) + x.scale(-2i32) + x.scale(0.5f64);
        let b = x.scale(1.5) + x.scale(7) + x.scale_twice(1.25f32) + x.scale_twice(2);
        let v = V2 { x, y: x + 1.0 }.scale(3.0).scale(0.5f32);
        // The trait's written argument names the impl, not the literal's fallback type.
        let u = <V2 as Scale<f32>>::scale(V2 { x, y: x }, 2.0);
        let t = Scale::<f32>::scale(V2 { x: 1.0, y: x }, 3.0);
        let v = V2 { x: v.x + u.x + t.x, y: v.y + u.y + t.y };
        let p = ps[i].scale(2.0).scale_twice(0.5);
        let q = qs[i].scale(3);
        let w = V3 { x, y: 2.0 - x, z: 0.5 };
        let c = w.dims()[1] + w.total() + x.dims()[1] + x.total() + w.pad([1.5, 2.0]) + w.pad([x, 1.0, 3.0]);
        out[i] = a + b + v.x + v.y + p.a + p.b + p.first() + p.both() + p.first_twice() + c;
        outn[i] = n.scale(5) + n.scale_twice(2u32) + q.first() + q.both() + q.first_twice();
    }
}

#[test]
fn generic_traits_for_primitives_and_generic_types_run_as_on_the_host() {
    use num::Pair;
    assemble("trait_generic_impls", user::scales::PTX);
    let n = 32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.375 - 4.0).collect();
    let ns: Vec<u32> = (0..n).map(|i| i as u32 * 13 + 1).collect();
    let ps: Vec<Pair<f32>> = (0..n).map(|i| Pair { a: i as f32 * 0.5, b: 2.0 - i as f32 }).collect();
    let qs: Vec<Pair<u32>> = (0..n).map(|i| Pair { a: i as u32, b: 3 * i as u32 + 1 }).collect();
    run_both!(user::scales, n, [xs, ns, ps, qs], [out: f32 = 0.0, outn: u32 = 0]);
    // Each impl for a primitive is a member template of the class the trait is for it,
    // specialized at the trait's argument; the generic type's, a member of the instance.
    let m = "suite::body_trait_generic_impls::num";
    let d = "suite::body_trait_generic_impls::dims";
    let shown = symbols(user::scales::PTX);
    if has_cxxfilt() {
        for want in [
            format!("{m}::Scale_f32::scale<float> const"),
            format!("{m}::Scale_f32::scale<double> const"),
            format!("{m}::Scale_f32::scale<unsigned int> const"),
            format!("{m}::Scale_f32::scale<int> const"),
            format!("{m}::Scale_f32::scale_twice<int> const"),
            format!("{m}::Scale_u32::scale<unsigned int> const"),
            format!("{m}::V2::scale<double> const"),
            format!("{m}::Pair<float>::scale const"),
            format!("{m}::Pair<float>::first_twice const"),
            format!("{m}::Pair<unsigned int>::both const"),
            format!("{d}::V3::dims<3ul> const"),
            format!("{d}::V3::total<3ul> const"),
            format!("{d}::V3::pad<2ul> const"),
            format!("{d}::V3::pad<3ul> const"),
            format!("{d}::Dims_f32::dims<2ul> const"),
            format!("{d}::Dims_f32::total<2ul> const"),
        ] {
            assert!(shown.contains(&want), "{want} not among {shown:#?}");
        }
    }
}
