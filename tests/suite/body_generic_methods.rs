//! Generic methods: methods with type and const parameters of their own, inherent (on a plain
//! and on a generic `DeviceRepr` type, receivers by value, by reference and `&mut self`,
//! associated functions) and of a user trait (required and default), with their arguments
//! written (`v.get::<2>()`, `Vec3::get::<1>(&v)`) or inferred (`v.scale(2u8)`). Run on the host
//! and on the CPU backend and compared bit for bit; the module through ptxas; each instance
//! named as nvcc names the member template's instance (checked against nvcc's symbols).

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

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
    impl Vec3 {
        pub fn get<const I: usize>(&self) -> f32 {
            if I == 0 {
                self.x
            } else if I == 1 {
                self.y
            } else {
                self.z
            }
        }
        pub fn scale<U: Into<f32>>(self, u: U) -> Self {
            let s: f32 = u.into();
            Vec3 { x: self.x * s, y: self.y * s, z: self.z * s }
        }
        pub fn splat<T: Into<f32>>(t: T) -> Self {
            let v: f32 = t.into();
            Self { x: v, y: v, z: v }
        }
        pub fn add_n<const N: u32>(&mut self) {
            self.x += N as f32;
        }
        /// A plain method calling a generic one.
        pub fn last(&self) -> f32 {
            self.get::<2>()
        }
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[device_fn]
    impl<T: Copy + Into<f64>> Pair<T> {
        pub fn weighted<W: Into<f64>>(self, w: W) -> f64 {
            let w: f64 = w.into();
            let (a, b): (f64, f64) = (self.a.into(), self.b.into());
            a * w + b
        }
    }

    /// A user trait with generic methods: one required, one default calling it.
    #[device_fn]
    pub trait Pick {
        fn pick<const I: usize>(&self) -> f32;
        fn pick_sum<const I: usize, const J: usize>(&self) -> f32 {
            self.pick::<I>() + self.pick::<J>() * 0.5
        }
    }

    #[device_fn]
    impl Pick for Vec3 {
        fn pick<const I: usize>(&self) -> f32 {
            self.get::<I>()
        }
    }
}

mod user {
    use super::geo::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn gen_methods(vs: &[Vec3], ps: &[Pair<f32>], out: &mut [f32], outv: &mut [Vec3], outd: &mut [f64]) {
        let i = thread_idx_x() as usize;
        let v = vs[i];
        let mut w = v.scale(2u8).scale(0.5f32);
        w.add_n::<3>();
        let s = Vec3::splat(i as u16);
        outv[i] = Vec3 { x: w.x + s.x, y: w.y - s.y, z: w.z * s.z };
        out[i] = v.get::<0>() + v.get::<1>() * 2.0 + Vec3::get::<2>(&v) + v.pick_sum::<0, 2>() + v.last();
        outd[i] = ps[i].weighted(3u16) + ps[i].weighted(0.25f32);
    }
}

#[test]
fn generic_methods_run_as_on_the_host() {
    use geo::{Pair, Vec3};
    assemble("generic_methods", user::gen_methods::PTX);
    let n = 32;
    let vs: Vec<Vec3> = (0..n).map(|i| Vec3 { x: i as f32 * 0.5, y: 1.0 - i as f32 / 7.0, z: (i * i) as f32 * 0.125 }).collect();
    let ps: Vec<Pair<f32>> = (0..n).map(|i| Pair { a: i as f32 / 3.0, b: 2.5 - i as f32 }).collect();
    let zero = Vec3 { x: 0.0, y: 0.0, z: 0.0 };
    let (mut out, mut outv, mut outd) = (vec![0.0f32; n], vec![zero; n], vec![0.0f64; n]);
    {
        let (o, ov, od) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut outv), host::Disjoint::new(&mut outd));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || user::gen_methods(&vs, &ps, unsafe { o.get() }, unsafe { ov.get() }, unsafe { od.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (vb, pb) = (DeviceBuffer::from_slice(&stream, &vs).unwrap(), DeviceBuffer::from_slice(&stream, &ps).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut obv = DeviceBuffer::from_slice(&stream, &vec![zero; n]).unwrap();
    let mut obd = DeviceBuffer::<f64>::zeroed(&stream, n).unwrap();
    user::gen_methods::launch(&stream, LaunchConfig::new(1, n as u32), &vb, &pb, &mut ob, &mut obv, &mut obd).unwrap();
    let (d, dv, dd) = (ob.to_vec().unwrap(), obv.to_vec().unwrap(), obd.to_vec().unwrap());
    for i in 0..n {
        assert_eq!(out[i].to_bits(), d[i].to_bits(), "thread {i}: host {}, device {}", out[i], d[i]);
        let bits = |v: &Vec3| (v.x.to_bits(), v.y.to_bits(), v.z.to_bits());
        assert_eq!(bits(&outv[i]), bits(&dv[i]), "thread {i}: host {:?}, device {:?}", outv[i], dv[i]);
        assert_eq!(outd[i].to_bits(), dd[i].to_bits(), "thread {i}: host {}, device {}", outd[i], dd[i]);
    }
}

/// The member templates' instances: ours leave out the return and parameter types (as for
/// every device function), so nvcc's symbols for the same C++ start with them.
const SYMBOLS: [&str; 8] = [
    "_ZNK5suite20body_generic_methods3geo4Vec33getILm0EEE",
    "_ZNK5suite20body_generic_methods3geo4Vec33getILm2EEE",
    "_ZNK5suite20body_generic_methods3geo4Vec35scaleIhEE",
    "_ZNK5suite20body_generic_methods3geo4Vec35scaleIfEE",
    "_ZN5suite20body_generic_methods3geo4Vec35splatItEE",
    "_ZN5suite20body_generic_methods3geo4Vec35add_nILj3EEE",
    "_ZNK5suite20body_generic_methods3geo4PairIfE8weightedItEE",
    "_ZNK5suite20body_generic_methods3geo4Vec38pick_sumILm0ELm2EEE",
];

#[test]
fn member_template_symbols_are_nvccs() {
    let ptx = user::gen_methods::PTX;
    for sym in SYMBOLS {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
    let cuda = r#"
namespace suite { namespace body_generic_methods { namespace geo {
struct Vec3 {
    float x, y, z;
    template <unsigned long I> __device__ __noinline__ float get() const { return I == 0 ? x : I == 1 ? y : z; }
    template <typename U> __device__ __noinline__ Vec3 scale(U u) const { float s = u; Vec3 r = {x * s, y * s, z * s}; return r; }
    template <typename T> __device__ __noinline__ static Vec3 splat(T t) { float v = t; Vec3 r = {v, v, v}; return r; }
    template <unsigned N> __device__ __noinline__ void add_n() { x += N; }
    template <unsigned long I, unsigned long J> __device__ __noinline__ float pick_sum() const { return get<I>() + get<J>() * 0.5f; }
};
template <typename T> struct Pair {
    T a, b;
    template <typename W> __device__ __noinline__ double weighted(W w) const { return (double)a * (double)w + (double)b; }
};
}}}
using namespace suite::body_generic_methods::geo;
__global__ void k(Vec3 *v, Pair<float> *p, float *o, double *d) {
    o[0] = v[0].get<0>() + v[0].get<2>() + v[0].pick_sum<0, 2>();
    v[1] = v[0].scale((unsigned char)2).scale(0.5f);
    v[2] = Vec3::splat((unsigned short)3);
    v[3].add_n<3>();
    d[0] = p[0].weighted((unsigned short)3);
}
"#;
    let Some(theirs) = nvcc_ptx("generic_method_symbols", cuda) else { return };
    for sym in SYMBOLS {
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(|w| w.starts_with(sym)));
        assert!(defined, "nvcc has no `{sym}...`:\n{theirs}");
    }
}
