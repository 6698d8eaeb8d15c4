//! Instances of generic types as a generic trait's arguments: `impl Scale<Pair<f32>> for V2`
//! and `impl Scale<Pair<u32>> for V2` side by side (the instance picks the impl), and a generic
//! type's impl at its own instance (`impl<T> Scale<Pair<T>> for Pair<T>`); called with method
//! syntax, through the trait's path, a default method and a bound (`V: Scale<Pair<f32>>`).
//! Run on the host and on the CPU backend and compared bit for bit; the module through ptxas;
//! each impl's function is the member template specialized at the class template's instance,
//! as `c++filt` reads it.

use crate::host_vs_cpu::{bits, has_cxxfilt, run_both, symbols};
use crate::tools::assemble;

pub mod geo {
    use core::ops::{Add, Mul};
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct V2 {
        pub x: f32,
        pub y: f32,
    }

    #[device_fn]
    pub trait Scale<T: Copy>: Copy {
        fn scale(self, by: T) -> Self;
        fn scale_twice(self, by: T) -> Self {
            self.scale(by).scale(by)
        }
    }

    #[device_fn]
    impl Scale<Pair<f32>> for V2 {
        fn scale(self, by: Pair<f32>) -> V2 {
            V2 { x: self.x * by.a, y: self.y + by.b }
        }
    }

    #[device_fn]
    impl Scale<Pair<u32>> for V2 {
        fn scale(self, by: Pair<u32>) -> V2 {
            V2 { x: self.x - by.a as f32, y: self.y * by.b as f32 }
        }
    }

    #[device_fn]
    impl Scale<f32> for V2 {
        fn scale(self, by: f32) -> V2 {
            V2 { x: self.x * by, y: self.y * by }
        }
    }

    #[device_fn]
    impl<T: Copy + Add<Output = T> + Mul<Output = T>> Scale<Pair<T>> for Pair<T> {
        fn scale(self, by: Pair<T>) -> Self {
            Pair { a: self.a * by.a, b: self.b + by.b }
        }
    }

    #[device_fn]
    pub fn through_bound<V: Scale<Pair<f32>>>(v: V, p: Pair<f32>) -> V {
        v.scale(p)
    }
}

bits!(geo::V2 { x, y });
bits!(geo::Pair<f32> { a, b });

pub mod user {
    use super::geo::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn instance_args(vs: &[V2], ps: &[Pair<f32>], out: &mut [V2], outp: &mut [Pair<f32>]) {
        let i = thread_idx_x() as usize;
        let (v, p) = (vs[i], ps[i]);
        let q = Pair { a: i as u32, b: 3u32 };
        let w = v.scale(p).scale(q).scale(0.5f32);
        let x = Scale::scale(v, q).scale_twice(p);
        let y = through_bound(v, Pair { a: 2.0f32, b: -1.0 });
        out[i] = V2 { x: w.x + x.x + y.x, y: w.y + x.y + y.y };
        outp[i] = p.scale(Pair { a: 1.5f32, b: 0.25 }).scale_twice(p);
    }
}

#[test]
fn generic_type_instances_as_trait_arguments_run_as_on_the_host() {
    use geo::{Pair, V2};
    assemble("trait_generic_args", user::instance_args::PTX);
    let n = 32;
    let vs: Vec<V2> = (0..n).map(|i| V2 { x: i as f32 * 0.25 - 2.0, y: 1.0 + i as f32 * 0.5 }).collect();
    let ps: Vec<Pair<f32>> = (0..n).map(|i| Pair { a: 0.75 + i as f32 * 0.125, b: 3.0 - i as f32 }).collect();
    let zero = V2 { x: 0.0, y: 0.0 };
    run_both!(user::instance_args, n, [vs, ps], [out: V2 = zero, outp: Pair<f32> = Pair { a: 0.0, b: 0.0 }]);
    let m = "suite::body_trait_generic_args::geo";
    let shown = symbols(user::instance_args::PTX);
    if has_cxxfilt() {
        for want in [
            format!("{m}::V2::scale<{m}::Pair<float> > const"),
            format!("{m}::V2::scale<{m}::Pair<unsigned int> > const"),
            format!("{m}::V2::scale_twice<{m}::Pair<float> > const"),
            format!("{m}::V2::scale<float> const"),
        ] {
            assert!(shown.iter().any(|s| s.replace("> >", ">>") == want.replace("> >", ">>")), "{want} not among {shown:#?}");
        }
    }
}
