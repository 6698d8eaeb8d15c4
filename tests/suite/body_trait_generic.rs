//! Generic user traits: `trait Scale<T>` implemented for one type at several arguments
//! (`impl Scale<f32> for Vec3`, `impl Scale<Vec3> for Vec3`), called directly (the argument's
//! type picks the impl, an unsuffixed literal the one impl its kind fits), through the trait's
//! path, through bounds (`V: Scale<f32>`, `where V: Scale<V>`) and through a default method
//! compiled per impl. Run on the host and on the CPU backend and compared bit for bit; the
//! module through ptxas; each impl's function has its own symbol, nvcc's member template
//! specialization, checked with `c++filt`.

use crate::host_vs_cpu::{bits, demangle, has_cxxfilt, run_both};
use crate::tools::assemble;

bits!(geo::Vec3 { x, y, z });

pub mod geo {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Vec3 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }

    #[device_fn]
    pub trait Scale<T: Copy>: Copy {
        fn scale(self, by: T) -> Self;
        // A default method: compiled for each impl with its argument.
        fn scale_twice(self, by: T) -> Self {
            self.scale(by).scale(by)
        }
    }

    #[device_fn]
    impl Scale<f32> for Vec3 {
        fn scale(self, by: f32) -> Vec3 {
            Vec3 { x: self.x * by, y: self.y * by, z: self.z * by }
        }
    }

    #[device_fn]
    impl Scale<Vec3> for Vec3 {
        fn scale(self, by: Vec3) -> Self {
            Vec3 { x: self.x * by.x, y: self.y * by.y, z: self.z * by.z }
        }
    }

    #[device_fn]
    impl Scale<u32> for Vec3 {
        fn scale(self, by: u32) -> Vec3 {
            let s = by as f32 + 0.5;
            Vec3 { x: self.x - s, y: self.y + s, z: self.z }
        }
        // The default overridden in one impl.
        fn scale_twice(self, by: u32) -> Vec3 {
            self.scale(by + 1)
        }
    }

    #[device_fn]
    pub fn through_bound<V: Scale<f32>>(v: V, a: f32) -> V {
        v.scale(a).scale(0.5)
    }

    #[device_fn]
    pub fn through_where<V>(v: V, w: V) -> V
    where
        V: Scale<f32> + Scale<V>,
    {
        v.scale(w).scale(2.0f32)
    }
}

/// Associated types and constants: each impl picks its `Out`, a generic function reaches it
/// through its bound.
pub mod shapes {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy)]
    #[repr(C)]
    pub struct Sq {
        pub s: f32,
    }

    #[derive(DeviceRepr, Clone, Copy)]
    #[repr(C)]
    pub struct Grid {
        pub n: u32,
    }

    #[device_fn]
    pub trait Measure: Copy {
        type Out: Copy;
        const ZERO: Self::Out;
        fn area(&self) -> Self::Out;
        fn area_plus(&self, extra: Self::Out) -> Self::Out;
        // A default naming the impl's type.
        fn area_twice(&self) -> Self::Out {
            let a: Self::Out = self.area();
            self.area_plus(a)
        }
    }

    #[device_fn]
    impl Measure for Sq {
        type Out = f32;
        const ZERO: f32 = 0.25;
        fn area(&self) -> f32 {
            self.s * self.s
        }
        fn area_plus(&self, extra: Self::Out) -> Self::Out {
            self.area() + extra
        }
    }

    #[device_fn]
    impl Measure for Grid {
        type Out = u32;
        const ZERO: u32 = 7;
        fn area(&self) -> u32 {
            self.n * self.n
        }
        fn area_plus(&self, extra: <Self as Measure>::Out) -> u32 {
            self.area() + extra * 3
        }
    }

    #[device_fn]
    pub fn area_of<S: Measure>(s: S) -> S::Out {
        let a: S::Out = s.area();
        a
    }

    #[device_fn]
    pub fn area_from<S: Measure>(s: S, z: <S as Measure>::Out) -> <S as Measure>::Out {
        s.area_plus(z)
    }

    #[device_fn]
    pub fn start<S: Measure>(s: S) -> S::Out {
        let z: S::Out = S::ZERO;
        s.area_plus(z)
    }
}

mod user {
    use super::geo::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn generic_traits(vs: &[Vec3], out: &mut [Vec3]) {
        let i = thread_idx_x() as usize;
        let v = vs[i];
        let a = v.scale(2.0);
        let b = a.scale(v);
        let c = Scale::scale(b, 0.25f32);
        let d = through_bound(c, 3.0);
        let e = through_where(d, v);
        let f = v.scale_twice(1.5);
        let g = vs[i].scale(3).scale_twice(v).scale_twice(2u32);
        out[i] = Vec3 { x: e.x + f.x + g.x, y: e.y + f.y + g.y, z: e.z + f.z + g.z };
    }

    use super::shapes::*;

    #[kernel]
    pub fn assoc_types(sqs: &[Sq], gs: &[Grid], outf: &mut [f32], outu: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let (sq, g) = (sqs[i], gs[i]);
        outf[i] = area_of(sq) + area_from(sq, 1.5) + start(sq) + sq.area_twice();
        outu[i] = area_of(g) + area_from(g, 3) + start(g) + g.area_twice();
    }
}

#[test]
fn generic_traits_run_as_on_the_host() {
    use geo::Vec3;
    assemble("trait_generic", user::generic_traits::PTX);
    let n = 32;
    let vs: Vec<Vec3> = (0..n).map(|i| Vec3 { x: i as f32 * 0.5 - 4.0, y: 1.0 + i as f32 * 0.125, z: -(i as f32) * 0.375 }).collect();
    run_both!(user::generic_traits, n, [vs], [out: Vec3 = Vec3 { x: 0.0, y: 0.0, z: 0.0 }]);
    // One function per impl, each the member template `scale` specialized at the trait's
    // argument, as c++filt reads it.
    let ptx = user::generic_traits::PTX;
    let mut syms: Vec<&str> = ptx.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| w.starts_with("_ZNK5suite18body_trait_generic3geo4Vec3") && !w.contains("_param_")).collect();
    syms.sort();
    syms.dedup();
    let shown: Vec<String> = syms.iter().map(|s| demangle(s)).collect();
    let p = "suite::body_trait_generic::geo::Vec3";
    for want in [
        format!("{p}::scale<float> const"),
        format!("{p}::scale<{p}> const"),
        format!("{p}::scale<unsigned int> const"),
        format!("{p}::scale_twice<float> const"),
        format!("{p}::scale_twice<{p}> const"),
        format!("{p}::scale_twice<unsigned int> const"),
    ] {
        if has_cxxfilt() {
            assert!(shown.contains(&want), "{want} in {shown:?}");
        }
    }
    assert_eq!(syms.len(), 6, "{syms:?}");
    for s in &syms {
        assert_eq!(ptx.matches(&format!("{s}(")).count(), 2, "{s}: one prototype and one definition:\n{ptx}");
    }
}

#[test]
fn associated_types_run_as_on_the_host() {
    use shapes::{Grid, Sq};
    assemble("trait_assoc_types", user::assoc_types::PTX);
    let n = 32;
    let sqs: Vec<Sq> = (0..n).map(|i| Sq { s: i as f32 * 0.375 - 2.0 }).collect();
    let gs: Vec<Grid> = (0..n).map(|i| Grid { n: i as u32 * 3 + 1 }).collect();
    run_both!(user::assoc_types, n, [sqs, gs], [outf: f32 = 0.0, outu: u32 = 0]);
    // One instance per implementing type, named as nvcc names the function template's.
    let ptx = user::assoc_types::PTX;
    let p = "suite::body_trait_generic::shapes";
    for (f, t, sym) in [("area_of", "Sq", "_ZN5suite18body_trait_generic6shapes7area_ofINS1_2SqEEE"), ("area_from", "Grid", "_ZN5suite18body_trait_generic6shapes9area_fromINS1_4GridEEE"), ("start", "Sq", "_ZN5suite18body_trait_generic6shapes5startINS1_2SqEEE")] {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}:\n{ptx}");
        if has_cxxfilt() {
            assert_eq!(demangle(sym), format!("{p}::{f}<{p}::{t}>"));
        }
    }
}
