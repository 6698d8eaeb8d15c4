//! User traits with static dispatch: `#[device_fn] trait` (required and default methods,
//! associated constants, a supertrait) implemented by `#[device_fn] impl Trait for T` for
//! several `DeviceRepr` types; calls on concrete receivers resolve to the type's impl or to the
//! trait's default compiled for that type. Run on the host and on the CPU backend and compared
//! bit for bit, every module through ptxas, symbols against nvcc's for the C++ members.

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod shapes {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[device_fn]
    pub trait Shape {
        const SIDES: u32;
        const SCALE: f32 = 1.0;
        fn area(&self) -> f32;
        fn perimeter(&self) -> f32;
        /// A default calling the required methods and the constants of the implementing type.
        fn score(&self) -> f32 {
            self.area() * Self::SCALE + self.perimeter() + Self::SIDES as f32
        }
        /// A default that one impl overrides.
        fn label(&self) -> u32 {
            Self::SIDES * 10
        }
        fn grow(&mut self, by: f32);
    }

    /// A supertrait: its defaults call the supertrait's methods.
    #[device_fn]
    pub trait Solid: Shape {
        fn height(&self) -> f32;
        fn volume(&self) -> f32 {
            self.area() * self.height()
        }
    }

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Default)]
    pub struct Circle {
        pub r: f32,
    }

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Default)]
    pub struct Rect {
        pub w: f32,
        pub h: f32,
    }

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Default)]
    pub struct Prism {
        pub base: Rect,
        pub depth: f32,
    }

    #[device_fn]
    impl Shape for Circle {
        const SIDES: u32 = 0;
        const SCALE: f32 = 0.5;
        fn area(&self) -> f32 {
            3.14159 * self.r * self.r
        }
        fn perimeter(&self) -> f32 {
            2.0 * 3.14159 * self.r
        }
        fn grow(&mut self, by: f32) {
            self.r += by;
        }
    }

    #[device_fn]
    impl Shape for Rect {
        const SIDES: u32 = 4;
        fn area(&self) -> f32 {
            self.w * self.h
        }
        fn perimeter(&self) -> f32 {
            2.0 * (self.w + self.h)
        }
        fn label(&self) -> u32 {
            if self.w == self.h {
                return 1;
            }
            2
        }
        fn grow(&mut self, by: f32) {
            self.w += by;
            self.h += by;
        }
    }

    #[device_fn]
    impl Shape for Prism {
        const SIDES: u32 = 6;
        fn area(&self) -> f32 {
            self.base.area()
        }
        fn perimeter(&self) -> f32 {
            self.base.perimeter()
        }
        fn grow(&mut self, by: f32) {
            self.base.grow(by);
            self.depth += by;
        }
    }

    #[device_fn]
    impl Solid for Prism {
        fn height(&self) -> f32 {
            self.depth
        }
    }
}

mod user {
    use super::shapes::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn measure(cs: &[Circle], rs: &[Rect], ps: &[Prism], out: &mut [f32], labels: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let mut c = cs[i];
        c.grow(0.25);
        let mut p = ps[i];
        p.grow(1.0);
        out[i] = c.score() + rs[i].score() + Rect::area(&rs[i]) + p.volume() + Circle::SCALE + Rect::SCALE + ps[i].score();
        labels[i] = cs[i].label() + rs[i].label() * 100 + p.label() * 1000 + Prism::SIDES;
    }
}

#[test]
fn trait_methods_run_as_on_the_host() {
    use shapes::{Circle, Prism, Rect};
    assemble("traits_measure", user::measure::PTX);
    let n = 32;
    let cs: Vec<Circle> = (0..n).map(|i| Circle { r: i as f32 * 0.375 }).collect();
    let rs: Vec<Rect> = (0..n).map(|i| Rect { w: (i % 4) as f32, h: (i % 3) as f32 + 0.5 * (i % 2) as f32 }).collect();
    let ps: Vec<Prism> = (0..n).map(|i| Prism { base: Rect { w: i as f32, h: 2.0 }, depth: 0.5 * i as f32 }).collect();
    let (mut out, mut labels) = (vec![0.0f32; n], vec![0u32; n]);
    {
        let (o, l) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut labels));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || user::measure(&cs, &rs, &ps, unsafe { o.get() }, unsafe { l.get() }));
    }
    // The overriding impl and the defaults each took effect on the host.
    assert_eq!(labels[0], 1 * 100 + 60 * 1000 + 6, "{labels:?}");
    let stream = crate::body_exec::cpu_stream();
    let (cb, rb, pb) = (DeviceBuffer::from_slice(&stream, &cs).unwrap(), DeviceBuffer::from_slice(&stream, &rs).unwrap(), DeviceBuffer::from_slice(&stream, &ps).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut lb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    user::measure::launch(&stream, LaunchConfig::new(1, n as u32), &cb, &rb, &pb, &mut ob, &mut lb).unwrap();
    let (dev_out, dev_labels) = (ob.to_vec().unwrap(), lb.to_vec().unwrap());
    for i in 0..n {
        assert_eq!(out[i].to_bits(), dev_out[i].to_bits(), "thread {i}: host {}, device {}", out[i], dev_out[i]);
        assert_eq!(labels[i], dev_labels[i], "thread {i}");
    }
}

/// A default method is compiled once per implementing type that leaves it out, as a member of
/// that type; an impl that writes it has its own.
#[test]
fn defaults_are_compiled_per_type() {
    use shapes::{Circle, Prism, Rect};
    let ptx = user::measure::PTX;
    for sym in [Circle::__PTX_SYMBOL__score, Rect::__PTX_SYMBOL__score, Prism::__PTX_SYMBOL__score, Circle::__PTX_SYMBOL__label, Rect::__PTX_SYMBOL__label, Prism::__PTX_SYMBOL__label, Prism::__PTX_SYMBOL__volume] {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
    assert_eq!(Rect::__PTX_SYMBOL__score, "_ZNK5suite11body_traits6shapes4Rect5scoreE");
}

/// The symbols are nvcc's for the same members of C++ structs in the same namespaces, less the
/// parameter types (plain methods carry none, like free device functions: see the docs).
#[test]
fn trait_method_symbols_are_nvccs() {
    use shapes::{Circle, Prism, Rect};
    let cuda = r#"
namespace suite { namespace body_traits { namespace shapes {
struct Circle { float r; __device__ float area() const; __device__ void grow(float by); };
struct Rect { float w, h; __device__ float score() const; };
struct Prism { Rect base; float depth; __device__ float volume() const; };
__device__ __noinline__ float Circle::area() const { return r * r; }
__device__ __noinline__ void Circle::grow(float by) { r += by; }
__device__ __noinline__ float Rect::score() const { return w * h; }
__device__ __noinline__ float Prism::volume() const { return depth; }
}}}
using namespace suite::body_traits::shapes;
__global__ void k(float *p) { Circle c{p[0]}; c.grow(1.0f); Rect r{p[1], p[2]}; Prism q{r, p[3]}; p[4] = c.area() + r.score() + q.volume(); }
"#;
    let ours = [(Circle::__PTX_SYMBOL__area, "v"), (Circle::__PTX_SYMBOL__grow, "f"), (Rect::__PTX_SYMBOL__score, "v"), (Prism::__PTX_SYMBOL__volume, "v")];
    let Some(theirs) = nvcc_ptx("trait_symbols", cuda) else { return };
    for (sym, params) in ours {
        let named = |w: &str| w.strip_prefix(sym).and_then(|r| r.strip_prefix(params)).is_some_and(|rest| rest.is_empty() || rest.starts_with('(') || rest.starts_with('$'));
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(named));
        assert!(defined, "nvcc has no `{sym}`:\n{theirs}");
    }
}
