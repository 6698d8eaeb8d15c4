//! Generic `DeviceRepr` types and generic impls, monomorphized: `Pair<T>` as a local, a kernel
//! parameter of a concrete instantiation and a buffer element, built by a struct literal whose
//! fields fix `T`, by `Pair::<f32>::new` and by `Self { .. }` in the impl; methods of
//! `#[device_fn] impl<T: ..> Pair<T>` with each receiver kind, instantiated per argument and
//! named as nvcc names the members of the class template instance (checked against nvcc and
//! `c++filt`); run on the host and on the CPU backend and compared bit for bit; every module
//! through ptxas.

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod pair {
    use core::ops::{Add, Mul};
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[device_fn]
    impl<T: Copy + Add<Output = T> + Mul<Output = T>> Pair<T> {
        pub fn new(a: T, b: T) -> Self {
            Self { a, b }
        }
        pub fn sum(self) -> T {
            self.a + self.b
        }
        pub fn dot(&self, o: Self) -> T {
            self.a * o.a + self.b * o.b
        }
        pub fn swap(&mut self) {
            let t = self.a;
            self.a = self.b;
            self.b = t;
        }
        pub fn scaled(self, s: T) -> Self {
            Self::new(self.a * s, self.b * s)
        }
    }

    /// A generic type holding a non-generic one.
    #[derive(DeviceRepr, Clone, Copy, Debug)]
    #[repr(C)]
    pub struct Tagged<T> {
        pub tag: u8,
        pub value: T,
    }
}

mod user {
    use super::pair::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn pairs(ps: &[Pair<f32>], qs: &[Pair<f64>], k: Pair<u32>, t: Tagged<Pair<f32>>, out: &mut [Pair<f32>], out64: &mut [f64], outk: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let mut p = ps[i];
        p.swap();
        let q: Pair<f32> = Pair::<f32>::new(1.5, p.sum());
        let r = Pair { a: 2.0f32, b: q.dot(p) };
        let mut s = r.scaled(0.5);
        s.a += t.value.b + t.tag as f32;
        // A literal argument binds last: `T` is `s.a`'s type (`f32`), not the literal's `f64`.
        s.b += crate::body_generics::algo::lerp(0.5, s.a, 0.25);
        out[i] = s;
        out64[i] = qs[i].dot(qs[0]) + qs[i].sum();
        outk[i] = k.sum() + k.a * i as u32;
    }
}

#[test]
fn generic_types_run_as_on_the_host() {
    use pair::{Pair, Tagged};
    assemble("generic_types", user::pairs::PTX);
    let n = 32;
    let ps: Vec<Pair<f32>> = (0..n).map(|i| Pair { a: i as f32 * 0.25, b: 1.0 - i as f32 }).collect();
    let qs: Vec<Pair<f64>> = (0..n).map(|i| Pair { a: i as f64 / 3.0, b: 0.1 * i as f64 }).collect();
    let k = Pair { a: 7u32, b: 11 };
    let t = Tagged { tag: 3, value: Pair { a: 0.5f32, b: -2.25 } };
    let (mut out, mut out64, mut outk) = (vec![Pair { a: 0.0f32, b: 0.0 }; n], vec![0.0f64; n], vec![0u32; n]);
    {
        let (o, o64, ok) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut out64), host::Disjoint::new(&mut outk));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || user::pairs(&ps, &qs, k, t, unsafe { o.get() }, unsafe { o64.get() }, unsafe { ok.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (pb, qb) = (DeviceBuffer::from_slice(&stream, &ps).unwrap(), DeviceBuffer::from_slice(&stream, &qs).unwrap());
    let mut ob = DeviceBuffer::from_slice(&stream, &vec![Pair { a: 0.0f32, b: 0.0 }; n]).unwrap();
    let mut ob64 = DeviceBuffer::<f64>::zeroed(&stream, n).unwrap();
    let mut obk = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    user::pairs::launch(&stream, LaunchConfig::new(1, n as u32), &pb, &qb, k, t, &mut ob, &mut ob64, &mut obk).unwrap();
    let (d, d64, dk) = (ob.to_vec().unwrap(), ob64.to_vec().unwrap(), obk.to_vec().unwrap());
    for i in 0..n {
        assert_eq!((out[i].a.to_bits(), out[i].b.to_bits()), (d[i].a.to_bits(), d[i].b.to_bits()), "thread {i}: host {:?}, device {:?}", out[i], d[i]);
        assert_eq!(out64[i].to_bits(), d64[i].to_bits(), "thread {i}: host {}, device {}", out64[i], d64[i]);
        assert_eq!(outk[i], dk[i], "thread {i}");
    }
}

/// The members of the class template instances the kernel reaches, each defined once.
const SYMBOLS: [&str; 7] = [
    "_ZN5suite18body_generic_types4pair4PairIfE4swapE",
    "_ZNK5suite18body_generic_types4pair4PairIfE3sumE",
    "_ZN5suite18body_generic_types4pair4PairIfE3newE",
    "_ZNK5suite18body_generic_types4pair4PairIfE3dotE",
    "_ZNK5suite18body_generic_types4pair4PairIfE6scaledE",
    "_ZNK5suite18body_generic_types4pair4PairIdE3dotE",
    "_ZNK5suite18body_generic_types4pair4PairIjE3sumE",
];

#[test]
fn each_method_instance_is_in_the_module_once() {
    let ptx = user::pairs::PTX;
    for sym in SYMBOLS {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
}

/// `c++filt` reads the symbols as members of the C++ class template instances, and nvcc names
/// the same members with the same prefix (then their parameter types, which our symbols leave
/// out as for every device function).
#[test]
fn member_template_symbols_are_nvccs() {
    let shown: Vec<(&str, &str)> = vec![
        (SYMBOLS[1], "suite::body_generic_types::pair::Pair<float>::sum"),
        (SYMBOLS[5], "suite::body_generic_types::pair::Pair<double>::dot"),
    ];
    if let Ok(out) = std::process::Command::new("c++filt").args(shown.iter().map(|s| s.0)).output() {
        let text = String::from_utf8_lossy(&out.stdout);
        for (line, (sym, want)) in text.lines().zip(&shown) {
            assert!(line.starts_with(want), "c++filt {sym}: {line}");
        }
    }
    let cuda = r#"
namespace suite { namespace body_generic_types { namespace pair {
template <typename T> struct Pair {
    T a, b;
    __device__ __noinline__ static Pair make(T a, T b);
    __device__ __noinline__ T sum() const { return a + b; }
    __device__ __noinline__ T dot(Pair o) const { return a * o.a + b * o.b; }
    __device__ __noinline__ void swap() { T t = a; a = b; b = t; }
    __device__ __noinline__ Pair scaled(T s) const { Pair p; p.a = a * s; p.b = b * s; return p; }
};
}}}
using namespace suite::body_generic_types::pair;
__global__ void k(Pair<float> *p, Pair<double> *d, Pair<unsigned> *u, float *o, double *od, unsigned *ou) {
    p[1].swap();
    o[0] = p[0].sum() + p[0].dot(p[1]);
    p[2] = p[0].scaled(2.0f);
    od[0] = d[0].dot(d[1]);
    ou[0] = u[0].sum();
}
"#;
    let Some(theirs) = nvcc_ptx("member_template_symbols", cuda) else { return };
    for sym in [SYMBOLS[0], SYMBOLS[1], SYMBOLS[3], SYMBOLS[4], SYMBOLS[5], SYMBOLS[6]] {
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(|w| w.starts_with(sym)));
        assert!(defined, "nvcc has no `{sym}...`:\n{theirs}");
    }
}
