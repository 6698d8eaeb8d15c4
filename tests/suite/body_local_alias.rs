//! Type aliases inside a body (`type Tile = [f32; 4];`), written out by the front end where
//! the block names them: as a type, a struct literal's and a pattern's type, a path's first
//! segment (`P::new`), with type and const parameters (`type Row<T> = [T; 2];`), hidden by an inner
//! block's alias of the same name, and in a generic device function's body. Run on the host and
//! on the CPU backend and compared bit for bit; the module through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod geo {
    use core::ops::Add;
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy)]
    #[repr(C)]
    pub struct Pair<T> {
        pub a: T,
        pub b: T,
    }

    #[device_fn]
    impl<T: Copy + Add<Output = T>> Pair<T> {
        pub fn new(a: T, b: T) -> Self {
            Pair { a, b }
        }
        pub fn sum(self) -> T {
            self.a + self.b
        }
    }

    // A generic alias in a generic function, given the function's parameter.
    #[device_fn]
    pub fn pair_sum<T: Copy + Add<Output = T>>(a: T, b: T) -> T {
        type P<U> = Pair<U>;
        let p: P<T> = P::<T>::new(a, b);
        p.sum()
    }
}

pub mod k {
    use super::geo;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn tiles(xs: &[f32], out: &mut [f32]) {
        type Tile = [f32; 4];
        type Idx = usize;
        let i = thread_idx_x() as Idx;
        // Used before its definition, as an item is.
        let mut t: Tile = [0.0; 4];
        type P = geo::Pair<f32>;
        type Row<T> = [T; 2];
        type Lane<T, const N: usize> = [T; N];
        for j in 0..4 {
            t[j] = xs[(i * 4 + j) % xs.len()];
        }
        let p = P { a: t[0], b: t[3] };
        let q: P = P::new(t[1], t[2]);
        let P { a, b } = q;
        let r: Row<u32> = [i as u32, 3];
        let l: Lane<f32, 3> = [t[2], 0.5, t[1]];
        let s = {
            type Tile = Row<f32>;
            let h: Tile = [p.a, q.b];
            h[0] * 2.0 + h[1]
        };
        let tt: [Tile; 2] = [t, t];
        out[i] = l[0] * l[1] - l[2] + s + p.sum() + a - b + (r[0] * r[1]) as f32 + tt[1][2] + geo::pair_sum(t[0], 1.5) + geo::pair_sum(2u32, r[0]) as f32;
    }
}

#[test]
fn type_aliases_in_a_body_run_as_on_the_host() {
    assemble("local_alias_tiles", k::tiles::PTX);
    let n = 32;
    let xs: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.25 - 3.0).collect();
    let mut out = vec![0.0f32; n];
    {
        let o = host::Disjoint::new(&mut out);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || k::tiles(&xs, unsafe { o.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    k::tiles::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut ob).unwrap();
    let d = ob.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(out[i].to_bits(), d[i].to_bits(), "thread {i}: host {}, device {}", out[i], d[i]);
    }
}
