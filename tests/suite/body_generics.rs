//! Generic device functions, monomorphized: type parameters with trait bounds and `where`
//! clauses, const parameters, explicit and inferred arguments, a generic function calling
//! another, user traits implemented for the types, and a user trait implemented for `f32` and
//! `f64` used through a bound (`T::zero()`, `x.halve()`, `Float::halve(x)`). Each instantiation a kernel reaches is in
//! its module once, under its Itanium template name (checked against nvcc's symbol for the
//! same C++ template and demangled by `c++filt` where present); run on the host and on the CPU
//! backend and compared bit for bit; every module through ptxas.

use crate::host_vs_cpu::run_both;
use crate::tools::{assemble, nvcc_ptx};

pub mod algo {
    use crate::body_traits::shapes::Shape;
    use core::ops::{Add, Mul, Sub};
    use ptx_runtime::device_fn;

    /// A non-generic helper a generic body calls (public: the instance is compiled where the
    /// caller is, and names it through this module).
    #[device_fn]
    pub fn sq(x: f32) -> f32 {
        x * x
    }

    #[device_fn]
    pub fn horner<const N: usize>(c: [f32; N], x: f32) -> f32 {
        let mut acc = 0.0f32;
        let mut i = N;
        while i > 0 {
            i -= 1;
            acc = acc * x + c[i];
        }
        acc + sq(0.0) * N as f32
    }

    #[device_fn]
    pub(crate) fn lerp<T>(a: T, b: T, t: T) -> T
    where
        T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T>,
    {
        a + (b - a) * t
    }

    #[device_fn]
    pub fn total<S: Shape>(s: &[S]) -> f32 {
        let mut acc = 0.0;
        for i in 0..s.len() {
            acc += s[i].area();
        }
        acc
    }

    /// A generic function calling another with its own parameter, and a trait constant.
    #[device_fn]
    pub fn weighted<S: Shape + Copy>(s: &[S], w: f32) -> f32 {
        lerp(total(s), sq(w), 0.25) + S::SIDES as f32
    }
}

/// A user trait implemented for primitives, used through a bound.
pub mod num {
    use core::ops::Add;
    use ptx_runtime::device_fn;

    #[device_fn]
    pub trait Float: Copy {
        fn zero() -> Self;
        fn halve(self) -> Self;
    }

    #[device_fn]
    impl Float for f32 {
        fn zero() -> f32 {
            0.0
        }
        fn halve(self) -> f32 {
            self * 0.5
        }
    }

    #[device_fn]
    impl Float for f64 {
        fn zero() -> Self {
            0.0
        }
        fn halve(self) -> Self {
            self / 3.0
        }
    }

    #[device_fn]
    pub fn half_sum<T: Float + Add<Output = T>>(xs: &[T]) -> T {
        let mut acc = T::zero();
        for i in 0..xs.len() {
            acc = acc + xs[i].halve() + Float::halve(xs[0]);
        }
        acc
    }
}

mod user {
    use super::algo;
    use crate::body_traits::shapes::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn generics(cs: &[Circle], rs: &[Rect], xs: &[f32], ds: &[f64], out: &mut [f32], out64: &mut [f64]) {
        let i = thread_idx_x() as usize;
        let x = xs[i];
        let c4 = [1.0f32, -0.5, 0.25, x];
        let a = algo::horner::<4>(c4, x);
        let b = algo::horner([x, 2.0, 3.0], 0.5);
        let l = algo::lerp(x, 2.0, 0.75) + algo::lerp::<f32>(1.0, x, 0.5);
        let t = algo::total(cs) + algo::total::<Rect>(rs);
        out[i] = a + b + l + t + algo::weighted(rs, x) + algo::weighted(cs, 0.5);
        out64[i] = algo::lerp(ds[i], 1.0, 0.5) + super::num::half_sum(ds);
        out[i] += super::num::half_sum(xs);
    }
}

#[test]
fn generic_functions_run_as_on_the_host() {
    use crate::body_traits::shapes::{Circle, Rect};
    assemble("generics", user::generics::PTX);
    let n = 32;
    let cs: Vec<Circle> = (0..n).map(|i| Circle { r: i as f32 * 0.25 }).collect();
    let rs: Vec<Rect> = (0..n).map(|i| Rect { w: i as f32, h: 0.5 }).collect();
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.125 - 1.0).collect();
    let ds: Vec<f64> = (0..n).map(|i| i as f64 / 3.0).collect();
    run_both!(user::generics, n, [cs, rs, xs, ds], [out: f32 = 0.0, out64: f64 = 0.0]);
}

/// The template symbols of the instantiations the kernel reaches, each defined once.
const SYMBOLS: [&str; 8] = [
    "_ZN5suite13body_generics4algo6hornerILm4EEE",
    "_ZN5suite13body_generics4algo6hornerILm3EEE",
    "_ZN5suite13body_generics4algo4lerpIfEE",
    "_ZN5suite13body_generics4algo4lerpIdEE",
    "_ZN5suite13body_generics4algo5totalINS_11body_traits6shapes6CircleEEE",
    "_ZN5suite13body_generics4algo5totalINS_11body_traits6shapes4RectEEE",
    "_ZN5suite13body_generics4algo8weightedINS_11body_traits6shapes4RectEEE",
    "_ZN5suite13body_generics4algo8weightedINS_11body_traits6shapes6CircleEEE",
];

#[test]
fn each_instantiation_is_in_the_module_once() {
    let ptx = user::generics::PTX;
    for sym in SYMBOLS {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
    // The primitives' trait functions, members of `Float_f32`/`Float_f64` in the trait's
    // namespace, each defined once.
    for f in ["_ZN5suite13body_generics3num9Float_f324zeroE", "_ZNK5suite13body_generics3num9Float_f325halveE", "_ZN5suite13body_generics3num9Float_f644zeroE", "_ZNK5suite13body_generics3num9Float_f645halveE"] {
        assert_eq!(ptx.matches(&format!("{f}(")).count(), 2, "{f}:\n{ptx}");
    }
    // `sq` is reached from three instances and defined once.
    assert_eq!(ptx.matches(&format!("{}(", algo::sq::SYMBOL)).count(), 2, "{ptx}");
}

/// `c++filt` reads the symbols as the C++ templates; nvcc names the same templates with the
/// same prefix (then its return and parameter types, which our symbols leave out as for every
/// device function).
#[test]
fn template_symbols_are_nvccs() {
    let shown: std::collections::HashMap<&str, &str> = [
        (SYMBOLS[0], "suite::body_generics::algo::horner<4ul>"),
        (SYMBOLS[2], "suite::body_generics::algo::lerp<float>"),
        (SYMBOLS[4], "suite::body_generics::algo::total<suite::body_traits::shapes::Circle>"),
    ]
    .into_iter()
    .collect();
    if let Ok(out) = std::process::Command::new("c++filt").args(shown.keys()).output() {
        let text = String::from_utf8_lossy(&out.stdout);
        for (line, sym) in text.lines().zip(shown.keys()) {
            assert_eq!(line, shown[sym], "c++filt {sym}");
        }
    }
    let cuda = r#"
namespace suite { namespace body_traits { namespace shapes { struct Circle { float r; }; struct Rect { float w, h; }; }}}
namespace suite { namespace body_generics { namespace algo {
template <unsigned long N> __device__ __noinline__ float horner(const float *c, float x) { float a = 0; for (unsigned long i = N; i > 0; i--) a = a * x + c[i - 1]; return a; }
template <typename T> __device__ __noinline__ T lerp(T a, T b, T t) { return a + (b - a) * t; }
template <typename S> __device__ __noinline__ float total(const S *s, unsigned long n) { return n; }
template <typename S> __device__ __noinline__ float weighted(const S *s, unsigned long n, float w) { return total(s, n) * w; }
}}}
using namespace suite::body_generics::algo;
using namespace suite::body_traits::shapes;
__global__ void k(float *p, double *d, const Circle *c, const Rect *r) {
    p[0] = horner<4>(p, p[1]) + horner<3>(p, p[2]) + lerp(p[3], p[4], p[5]) + total(c, 3) + total(r, 2) + weighted(r, 1, p[6]) + weighted(c, 1, p[7]);
    d[0] = lerp(d[1], d[2], d[3]);
}
"#;
    let Some(theirs) = nvcc_ptx("template_symbols", cuda) else { return };
    for sym in SYMBOLS {
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(|w| w.starts_with(sym)));
        assert!(defined, "nvcc has no `{sym}...`:\n{theirs}");
    }
}
