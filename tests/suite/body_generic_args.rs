//! Instances of generic types as arguments of generic device functions: `total::<S: Shape>`
//! called with `&[Vec3]`, `&[Pair<Vec3>]` and `&[Pair<Pair<Vec3>>]` (inferred from the slice),
//! `first::<Pair<f32>>` written, `total` over `&[Pair<f32>]` (the generic impl's `T: Shape`
//! met by `impl Shape for f32`), and a generic type's method on a nested instance
//! (`Pair<Pair<Vec3>>::area`). Run on the host and on the CPU backend and compared bit for bit;
//! the module through ptxas; the instances' symbols equal to nvcc's for the same function
//! templates instantiated with the C++ class template instances (checked with nvcc and
//! `c++filt`).

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod geo {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[device_fn]
    pub trait Shape {
        fn area(&self) -> f32;
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Vec3 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }

    #[device_fn]
    impl Shape for Vec3 {
        fn area(&self) -> f32 {
            2.0 * (self.x * self.y + self.y * self.z + self.z * self.x)
        }
    }

    /// A primitive's impl (in the trait's module): `Pair<f32>` is a `Shape` through it.
    #[device_fn]
    impl Shape for f32 {
        fn area(&self) -> f32 {
            *self * 0.75
        }
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[device_fn]
    impl<T: Shape> Shape for Pair<T> {
        fn area(&self) -> f32 {
            self.a.area() + 0.5 * self.b.area()
        }
    }
}

pub mod algo {
    use super::geo::Shape;
    use ptx_runtime::device_fn;

    #[device_fn]
    pub fn total<S: Shape>(s: &[S]) -> f32 {
        let mut t = 0.0;
        for x in s {
            t += x.area();
        }
        t
    }

    #[device_fn]
    pub fn first<T: Copy>(s: &[T]) -> T {
        s[0]
    }
}

mod user {
    use super::algo::{first, total};
    use super::geo::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn totals(vs: &[Vec3], ps: &[Pair<Vec3>], qs: &[Pair<Pair<Vec3>>], fs: &[Pair<f32>], out: &mut [f32]) {
        let i = thread_idx_x() as usize;
        if i == 0 {
            out[0] = total(vs);
            out[1] = total(ps);
            out[2] = total::<Pair<Pair<Vec3>>>(qs);
            let f = first::<Pair<f32>>(fs);
            out[3] = f.a - f.b;
            out[4] = qs[1].area();
            out[5] = first(ps).b.area();
            out[6] = total(fs);
        }
    }
}

#[test]
fn generic_type_arguments_run_as_on_the_host() {
    use geo::{Pair, Vec3};
    assemble("generic_type_arguments", user::totals::PTX);
    let v = |i: usize| Vec3 { x: i as f32 * 0.5 + 0.25, y: 1.0 - i as f32 / 7.0, z: 0.125 * i as f32 };
    let vs: Vec<Vec3> = (0..5).map(v).collect();
    let ps: Vec<Pair<Vec3>> = (0..4).map(|i| Pair { a: v(i), b: v(i + 3) }).collect();
    let qs: Vec<Pair<Pair<Vec3>>> = (0..3).map(|i| Pair { a: ps[i], b: ps[i + 1] }).collect();
    let fs = vec![Pair { a: 3.5f32, b: -1.25 }, Pair { a: 0.0, b: 0.0 }];
    let mut out = vec![0.0f32; 7];
    {
        let o = host::Disjoint::new(&mut out);
        // SAFETY: one thread.
        host::run([1, 1, 1], [1, 1, 1], 0, || user::totals(&vs, &ps, &qs, &fs, unsafe { o.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let vb = DeviceBuffer::from_slice(&stream, &vs).unwrap();
    let pb = DeviceBuffer::from_slice(&stream, &ps).unwrap();
    let qb = DeviceBuffer::from_slice(&stream, &qs).unwrap();
    let fb = DeviceBuffer::from_slice(&stream, &fs).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 7).unwrap();
    user::totals::launch(&stream, LaunchConfig::new(1, 1), &vb, &pb, &qb, &fb, &mut ob).unwrap();
    let d = ob.to_vec().unwrap();
    for i in 0..7 {
        assert_eq!(out[i].to_bits(), d[i].to_bits(), "out[{i}]: host {}, device {}", out[i], d[i]);
    }
    assert_eq!(out[3], 4.75);
    assert_eq!(out[6], (3.5 * 0.75 + 0.5 * (-1.25 * 0.75)) + 0.0);
    assert!(out[2] > out[1] && out[1] > 0.0, "{out:?}");
}

/// `total<Vec3>`, `total<Pair<Vec3>>`, `total<Pair<Pair<Vec3>>>` and `first<Pair<float>>` as
/// nvcc names the function template instances (our symbols leave out the parameter types).
const SYMBOLS: [(&str, &str); 4] = [
    ("_ZN5suite17body_generic_args4algo5totalINS0_3geo4PairINS3_4Vec3EEEEE", "suite::body_generic_args::algo::total<suite::body_generic_args::geo::Pair<suite::body_generic_args::geo::Vec3> >"),
    ("_ZN5suite17body_generic_args4algo5totalINS0_3geo4PairINS4_INS3_4Vec3EEEEEEE", "suite::body_generic_args::algo::total<suite::body_generic_args::geo::Pair<suite::body_generic_args::geo::Pair<suite::body_generic_args::geo::Vec3> > >"),
    ("_ZN5suite17body_generic_args4algo5firstINS0_3geo4PairIfEEEE", "suite::body_generic_args::algo::first<suite::body_generic_args::geo::Pair<float> >"),
    ("_ZN5suite17body_generic_args4algo5totalINS0_3geo4Vec3EEE", "suite::body_generic_args::algo::total<suite::body_generic_args::geo::Vec3>"),
];

#[test]
fn generic_type_argument_symbols_are_nvccs() {
    let ptx = user::totals::PTX;
    for (sym, _) in SYMBOLS {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
    // The nested instance's method: Pair<Pair<Vec3>>::area() const.
    let nested = "_ZNK5suite17body_generic_args3geo4PairINS2_INS1_4Vec3EEEE4areaE";
    assert_eq!(ptx.matches(&format!("{nested}(")).count(), 2, "{nested}:\n{ptx}");
    if let Ok(out) = std::process::Command::new("c++filt").args(SYMBOLS.iter().map(|s| s.0)).output() {
        let text = String::from_utf8_lossy(&out.stdout);
        for (line, (sym, want)) in text.lines().zip(&SYMBOLS) {
            assert_eq!(line, *want, "c++filt {sym}");
        }
    }
    let cuda = r#"
namespace suite { namespace body_generic_args {
namespace geo {
struct Vec3 { float x, y, z; __device__ __noinline__ float area() const { return 2.0f * (x * y + y * z + z * x); } };
template <typename T> struct Pair { T a, b; __device__ __noinline__ float area() const { return a.area() + 0.5f * b.area(); } };
}
namespace algo {
template <typename S> __device__ __noinline__ float total(const S *s, unsigned long n) { float t = 0; for (unsigned long i = 0; i < n; i++) t += s[i].area(); return t; }
template <typename T> __device__ __noinline__ T first(const T *s, unsigned long n) { return s[0]; }
}
}}
using namespace suite::body_generic_args;
__global__ void k(geo::Vec3 *v, geo::Pair<geo::Vec3> *p, geo::Pair<geo::Pair<geo::Vec3>> *q, geo::Pair<float> *f, float *o) {
    o[0] = algo::total(v, 5);
    o[1] = algo::total(p, 4);
    o[2] = algo::total(q, 3);
    geo::Pair<float> x = algo::first(f, 2);
    o[3] = x.a - x.b;
    o[4] = q[1].area();
}
"#;
    let Some(theirs) = nvcc_ptx("generic_type_argument_symbols", cuda) else { return };
    for sym in SYMBOLS.iter().map(|s| s.0).chain([nested]) {
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(|w| w.starts_with(sym)));
        assert!(defined, "nvcc has no `{sym}...`:\n{theirs}");
    }
}
