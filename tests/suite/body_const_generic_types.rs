//! Const parameters on `DeviceRepr` structs: `Tile<const N: usize> { v: [f32; N] }` as a
//! kernel parameter, a buffer element and a local (built by a struct literal whose array fixes
//! `N`, and by `Tile::<4>::splat`), with the methods of `impl<const N: usize> Tile<N>`
//! instantiated per length, and a struct mixing a type and a const parameter. Run on the host
//! and on the CPU backend and compared bit for bit; the module through ptxas; the members
//! named as nvcc names those of the C++ class template instance (`Tile<4ul>::sum() const`).

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod tiles {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Tile<const N: usize> {
        pub v: [f32; N],
    }

    #[device_fn]
    impl<const N: usize> Tile<N> {
        pub fn splat(x: f32) -> Self {
            Tile { v: [x; N] }
        }
        pub fn sum(&self) -> f32 {
            let mut s = 0.0;
            for i in 0..N {
                s += self.v[i];
            }
            s
        }
        pub fn scale(&mut self, k: f32) {
            for i in 0..N {
                self.v[i] *= k;
            }
        }
        pub fn len(&self) -> usize {
            N
        }
    }

    /// A type and a const parameter.
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct Ring<T, const N: usize> {
        pub head: u32,
        pub items: [T; N],
    }

    #[device_fn]
    impl<T: Copy, const N: usize> Ring<T, N> {
        pub fn newest(&self) -> T {
            self.items[(self.head as usize + N - 1) % N]
        }
    }
}

mod user {
    use super::tiles::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn tiles(t: Tile<3>, ts: &[Tile<4>], rs: &[Ring<f64, 5>], out: &mut [Tile<4>], sums: &mut [f32], newest: &mut [f64]) {
        let i = thread_idx_x() as usize;
        let mut a = ts[i];
        a.scale(0.5);
        let b = Tile::<4>::splat(i as f32);
        let c = Tile { v: [1.0f32, 2.0, 3.0, i as f32] };
        let mut d = Tile { v: [0.0f32; 4] };
        for k in 0..4 {
            d.v[k] = a.v[k] + b.v[k] * c.v[k];
        }
        out[i] = d;
        sums[i] = d.sum() + t.sum() + a.len() as f32 + t.len() as f32;
        newest[i] = rs[i].newest();
    }
}

#[test]
fn const_generic_types_run_as_on_the_host() {
    use tiles::{Ring, Tile};
    assemble("const_generic_types", user::tiles::PTX);
    let n = 32;
    let t = Tile { v: [0.5f32, -1.25, 2.0] };
    let ts: Vec<Tile<4>> = (0..n).map(|i| Tile { v: [i as f32, 1.0 / (i + 1) as f32, -(i as f32), 0.75] }).collect();
    let rs: Vec<Ring<f64, 5>> = (0..n).map(|i| Ring { head: i as u32 % 5, items: [i as f64, 1.5, 2.5, 3.5, 4.5 + i as f64] }).collect();
    let zero = Tile { v: [0.0f32; 4] };
    let (mut out, mut sums, mut newest) = (vec![zero; n], vec![0.0f32; n], vec![0.0f64; n]);
    {
        let (o, s, w) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut sums), host::Disjoint::new(&mut newest));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || user::tiles(t, &ts, &rs, unsafe { o.get() }, unsafe { s.get() }, unsafe { w.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (tb, rb) = (DeviceBuffer::from_slice(&stream, &ts).unwrap(), DeviceBuffer::from_slice(&stream, &rs).unwrap());
    let mut ob = DeviceBuffer::from_slice(&stream, &vec![zero; n]).unwrap();
    let mut sb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut wb = DeviceBuffer::<f64>::zeroed(&stream, n).unwrap();
    user::tiles::launch(&stream, LaunchConfig::new(1, n as u32), t, &tb, &rb, &mut ob, &mut sb, &mut wb).unwrap();
    let (d, ds, dw) = (ob.to_vec().unwrap(), sb.to_vec().unwrap(), wb.to_vec().unwrap());
    for i in 0..n {
        assert_eq!(out[i].v.map(f32::to_bits), d[i].v.map(f32::to_bits), "thread {i}: host {:?}, device {:?}", out[i], d[i]);
        assert_eq!(sums[i].to_bits(), ds[i].to_bits(), "thread {i}: host {}, device {}", sums[i], ds[i]);
        assert_eq!(newest[i].to_bits(), dw[i].to_bits(), "thread {i}");
    }
}

const SYMBOLS: [&str; 6] = [
    "_ZNK5suite24body_const_generic_types5tiles4TileILm3EE3sumE",
    "_ZNK5suite24body_const_generic_types5tiles4TileILm4EE3sumE",
    "_ZN5suite24body_const_generic_types5tiles4TileILm4EE5scaleE",
    "_ZN5suite24body_const_generic_types5tiles4TileILm4EE5splatE",
    "_ZNK5suite24body_const_generic_types5tiles4TileILm4EE3lenE",
    "_ZNK5suite24body_const_generic_types5tiles4RingIdLm5EE6newestE",
];

#[test]
fn const_generic_member_symbols_are_nvccs() {
    let ptx = user::tiles::PTX;
    for sym in SYMBOLS {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}: one prototype and one definition:\n{ptx}");
    }
    let cuda = r#"
namespace suite { namespace body_const_generic_types { namespace tiles {
template <unsigned long N> struct Tile {
    float v[N];
    __device__ __noinline__ static Tile splat(float x) { Tile t; for (unsigned long i = 0; i < N; i++) t.v[i] = x; return t; }
    __device__ __noinline__ float sum() const { float s = 0; for (unsigned long i = 0; i < N; i++) s += v[i]; return s; }
    __device__ __noinline__ void scale(float k) { for (unsigned long i = 0; i < N; i++) v[i] *= k; }
    __device__ __noinline__ unsigned long len() const { return N; }
};
template <typename T, unsigned long N> struct Ring {
    unsigned head;
    T items[N];
    __device__ __noinline__ T newest() const { return items[(head + N - 1) % N]; }
};
}}}
using namespace suite::body_const_generic_types::tiles;
__global__ void k(Tile<3> t, Tile<4> *ts, Ring<double, 5> *r, float *o, double *d) {
    Tile<4> a = ts[0];
    a.scale(0.5f);
    ts[1] = Tile<4>::splat(2.0f);
    o[0] = a.sum() + t.sum() + a.len();
    d[0] = r[0].newest();
}
"#;
    let Some(theirs) = nvcc_ptx("const_generic_member_symbols", cuda) else { return };
    // nvcc folds `len()` (a constant) into its caller even when it is `__noinline__`.
    for sym in SYMBOLS.iter().filter(|s| !s.ends_with("3lenE")) {
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(|w| w.starts_with(sym)));
        assert!(defined, "nvcc has no `{sym}...`:\n{theirs}");
    }
}
