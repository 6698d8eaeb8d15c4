//! A generic user trait's methods on primitives called every way rustc accepts besides method
//! syntax: through the trait's path (`Scale::scale(x, 2.0f32)`, `super::num::Scale::scale(..)`),
//! a qualified path whose written argument types the literal (`<f32 as Scale<f32>>::scale(x,
//! 2.0)`), and through bounds in generic functions instantiated with primitives (`fn twice<T:
//! Scale<f32>>` with `T = f32`, where the bound's argument types `v.scale(2.0)`'s literal; a
//! `where` clause with two arguments of one trait, a default method, the trait's path inside
//! the instance). Each impl computes something else, so a wrong pick shows: run on the host
//! and on the CPU backend and compared bit for bit; the module through ptxas.

use crate::host_vs_cpu::run_both;
use crate::tools::assemble;

pub mod num {
    use ptx_runtime::device_fn;

    #[device_fn]
    pub trait Scale<T: Copy>: Copy {
        fn scale(self, by: T) -> Self;
        fn scale_twice(self, by: T) -> Self {
            self.scale(by).scale(by)
        }
    }

    #[device_fn]
    impl Scale<f32> for f32 {
        fn scale(self, by: f32) -> f32 {
            self * by
        }
    }

    // The fallback type of a float literal: method syntax's `x.scale(2.0)` picks it, a bound
    // `T: Scale<f32>` or `<f32 as Scale<f32>>` does not.
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
    impl Scale<u32> for u32 {
        fn scale(self, by: u32) -> u32 {
            self * by + 3
        }
    }

    // `f32`'s own methods stay built-ins beside the bound (`k.abs().sqrt()` with `T = f32`).
    #[device_fn]
    pub fn twice<T: Scale<f32> + Copy>(v: T, k: f32) -> T {
        v.scale(2.0).scale(k.abs().sqrt())
    }

    #[device_fn]
    pub fn both<T>(v: T) -> T
    where
        T: Scale<f32> + Scale<u32>,
    {
        v.scale(3u32).scale(0.5f32)
    }

    #[device_fn]
    pub fn by_path<T: Scale<u32>>(v: T, k: u32) -> T {
        Scale::scale(v, k).scale_twice(2)
    }
}

pub mod user {
    use super::num::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn prim_calls(xs: &[f32], ns: &[u32], out: &mut [f32], outn: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let (x, n) = (xs[i], ns[i]);
        let a = Scale::scale(x, 2.0f32) + <f32 as Scale<f32>>::scale(x, 1.5) + super::num::Scale::scale(x, 0.5f64);
        let b = <f32 as Scale<u32>>::scale(x, 3) + Scale::scale_twice(x, 2u32) + <f32 as Scale<f64>>::scale_twice(x, 0.5);
        let c = twice(x, x) + both(x) + by_path(x, 3) + Scale::scale(x, 2.0);
        out[i] = a + b + c;
        outn[i] = Scale::scale(n, 5) + <u32 as Scale<u32>>::scale(n, 2) + by_path(n, 4);
    }

    /// Through the primitive's path (`f32::scale(x, ..)`: the arguments pick the impl, as for
    /// method syntax) and with the trait's arguments on its path (`Scale::<u32>::scale(x, 4)`:
    /// they name the impl and type the literal, as in `<f32 as Scale<u32>>`).
    #[kernel]
    pub fn prim_path_calls(xs: &[f32], ns: &[u32], out: &mut [f32], outn: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let (x, n) = (xs[i], ns[i]);
        let a = f32::scale(x, 2.0f32) + f32::scale(x, 3u32) + f32::scale(x, 0.5) + f32::scale_twice(x, 2u32);
        let b = Scale::<u32>::scale(x, 4) + super::num::Scale::<f32>::scale(x, 0.5) + Scale::<f64>::scale_twice(x, 1.5);
        out[i] = a + b;
        outn[i] = u32::scale(n, 3) + Scale::<u32>::scale(n, 2);
    }
}

#[test]
fn generic_trait_methods_on_primitives_through_paths_and_bounds_run_as_on_the_host() {
    assemble("trait_generic_prims", user::prim_calls::PTX);
    let n = 32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.375 - 4.0).collect();
    let ns: Vec<u32> = (0..n).map(|i| i as u32 * 7 + 2).collect();
    run_both!(user::prim_calls, n, [xs, ns], [out: f32 = 0.0, outn: u32 = 0]);
}

#[test]
fn generic_trait_methods_through_the_primitive_and_the_trait_s_arguments_run_as_on_the_host() {
    assemble("trait_generic_prim_paths", user::prim_path_calls::PTX);
    let n = 32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.625 - 7.0).collect();
    let ns: Vec<u32> = (0..n).map(|i| i as u32 * 5 + 1).collect();
    run_both!(user::prim_path_calls, n, [xs, ns], [out: f32 = 0.0, outn: u32 = 0]);
}
