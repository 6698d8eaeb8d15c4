//! Type aliases inside a body (`type Tile = [f32; 4];`), written out by the front end where
//! the block names them: as a type, a struct literal's and a pattern's type, a path's first
//! segment (`P::new`), with type and const parameters (`type Row<T> = [T; 2];`), hidden by an inner
//! block's alias of the same name, in a generic device function's body, and inside the body's
//! macros (`assert!`, `debug_assert!`, `assert_eq!`, `assert_ne!`, `matches!`; a failing
//! `assert!` reports the condition as written, as the host's panic does). Run on the host and
//! on the CPU backend and compared bit for bit; the module through ptxas.

use crate::host_vs_cpu::run_both;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, Error, LaunchConfig};

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

    pub const N: u32 = 32;

    // Aliases inside the body's macros: the assertions', `matches!`'s value, pattern and guard.
    #[kernel]
    pub fn in_macros(xs: &[f32], lim: &[u32], out: &mut [f32]) {
        type Idx = u32;
        type P = geo::Pair<f32>;
        let i = thread_idx_x() as Idx;
        assert!(xs.len() == N as usize && out.len() as Idx == N);
        assert!(i < lim[0] as Idx);
        debug_assert!(i as Idx <= 1023, "a block has at most 1024 threads");
        assert_eq!(xs.len() as Idx, N as Idx);
        assert_ne!(i as Idx, N as Idx);
        let p = P::new(xs[i as usize], 2.0);
        let small = matches!(i as Idx, 0..=7);
        let positive = matches!(p, P { a, .. } if a > 0.0 as f32);
        out[i as usize] = p.sum() + if small { 1.0 } else { 0.0 } + if positive { 10.0 } else { 0.0 };
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

#[test]
fn type_aliases_inside_macros_run_as_on_the_host() {
    assemble("local_alias_macros", k::in_macros::PTX);
    let n = k::N as usize;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
    let lim = vec![n as u32];
    run_both!(k::in_macros, n, [xs, lim], [out: f32 = 0.0]);
}

#[test]
fn a_failing_assert_names_the_alias_as_written() {
    let n = k::N as usize;
    let xs: Vec<f32> = vec![1.0; n];
    let lim = [4u32];
    let stream = crate::body_exec::cpu_stream();
    let (xb, lb) = (DeviceBuffer::from_slice(&stream, &xs).unwrap(), DeviceBuffer::from_slice(&stream, &lim).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let message = match k::in_macros::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &lb, &mut ob) {
        Err(Error::Assert { message, .. }) => message,
        other => panic!("expected Error::Assert, got {other:?}"),
    };
    assert_eq!(message, "assertion failed: i < lim[0] as Idx");
    // The host panics with the same message (thread 0 of a direct call, with a limit of 0).
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut out = vec![0.0f32; n];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| k::in_macros(&xs, &[0], &mut out)));
    std::panic::set_hook(prev);
    let e = r.expect_err("the body panics on the host");
    let host = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).expect("a text payload");
    assert_eq!(host, message);
}
