//! Generic kernels: `#[kernel(instances(..))]` compiles one `.entry` per declared instance
//! (type and const parameters, primitives and a `DeviceRepr` struct), named as nvcc names the
//! instance of the `__global__` function template (checked against nvcc and `c++filt`),
//! launched through the typed launcher `k::launch::<f32>(..)`; run on the host and on the CPU
//! backend and compared bit for bit; every instance's module through ptxas.

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod kernels {
    use core::ops::{Add, Mul};
    use ptx_runtime::device::*;
    use ptx_runtime::{device_fn, kernel, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    pub struct V2 {
        pub x: f32,
        pub y: f32,
    }

    #[device_fn]
    impl Add for V2 {
        type Output = V2;
        fn add(self, o: V2) -> V2 {
            V2 { x: self.x + o.x, y: self.y + o.y }
        }
    }

    #[kernel(instances(f32, f64, u32))]
    pub fn axpy<T: Copy + Add<Output = T> + Mul<Output = T>>(a: T, x: &[T], y: &mut [T]) {
        let i = thread_idx_x() as usize;
        if i < y.len() {
            y[i] = a * x[i] + y[i];
        }
    }

    /// A type and a const parameter; a struct as an instance's type.
    #[kernel(instances((f32, 3), (V2, 2)))]
    pub fn window<T: Copy + Add<Output = T>, const W: usize>(x: &[T], out: &mut [T]) {
        let i = thread_idx_x() as usize;
        let mut acc = x[i];
        for k in 1..W {
            if i + k < x.len() {
                acc = acc + x[i + k];
            }
        }
        out[i] = acc;
    }
}

use kernels::V2;

#[test]
fn generic_kernels_run_as_on_the_host() {
    use kernels::{axpy, window};
    for (name, ptx) in [
        ("axpy_f32", <axpy::Instances as axpy::Instance<f32>>::PTX),
        ("axpy_f64", <axpy::Instances as axpy::Instance<f64>>::PTX),
        ("axpy_u32", <axpy::Instances as axpy::Instance<u32>>::PTX),
        ("window_f32_3", <window::Instances as window::Instance<f32, 3>>::PTX),
        ("window_v2_2", <window::Instances as window::Instance<V2, 2>>::PTX),
    ] {
        assemble(name, ptx);
    }
    let n = 32;
    let stream = crate::body_exec::cpu_stream();
    let cfg = LaunchConfig::new(1, n as u32);
    // axpy over f32, f64 and u32.
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.375 - 2.0).collect();
    let mut host = vec![1.5f32; n];
    {
        let o = host::Disjoint::new(&mut host);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || kernels::axpy(0.75f32, &xs, unsafe { o.get() }));
    }
    let xb = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut yb = DeviceBuffer::from_slice(&stream, &vec![1.5f32; n]).unwrap();
    axpy::launch::<f32>(&stream, cfg, 0.75, &xb, &mut yb).unwrap();
    assert_eq!(host.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), yb.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>());

    let xd: Vec<f64> = (0..n).map(|i| i as f64 / 7.0).collect();
    let mut host = vec![-0.5f64; n];
    {
        let o = host::Disjoint::new(&mut host);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || kernels::axpy(3.25f64, &xd, unsafe { o.get() }));
    }
    let xb = DeviceBuffer::from_slice(&stream, &xd).unwrap();
    let mut yb = DeviceBuffer::from_slice(&stream, &vec![-0.5f64; n]).unwrap();
    // The instance inferred from the arguments.
    axpy::launch(&stream, cfg, 3.25f64, &xb, &mut yb).unwrap();
    assert_eq!(host.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), yb.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>());

    let xu: Vec<u32> = (0..n as u32).map(|i| i * 1000 + 17).collect();
    let mut host = vec![7u32; n];
    {
        let o = host::Disjoint::new(&mut host);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || kernels::axpy(3u32, &xu, unsafe { o.get() }));
    }
    let xb = DeviceBuffer::from_slice(&stream, &xu).unwrap();
    let mut yb = DeviceBuffer::from_slice(&stream, &vec![7u32; n]).unwrap();
    axpy::launch::<u32>(&stream, cfg, 3, &xb, &mut yb).unwrap();
    assert_eq!(host, yb.to_vec().unwrap());

    // window over f32 with W = 3 and over V2 with W = 2.
    let mut host = vec![0.0f32; n];
    {
        let o = host::Disjoint::new(&mut host);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || kernels::window::<f32, 3>(&xs, unsafe { o.get() }));
    }
    let xb = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    window::launch::<f32, 3>(&stream, cfg, &xb, &mut ob).unwrap();
    assert_eq!(host.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>());

    let vs: Vec<V2> = (0..n).map(|i| V2 { x: i as f32 * 0.5, y: 1.0 / (i as f32 + 1.0) }).collect();
    let zero = V2 { x: 0.0, y: 0.0 };
    let mut host = vec![zero; n];
    {
        let o = host::Disjoint::new(&mut host);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || kernels::window::<V2, 2>(&vs, unsafe { o.get() }));
    }
    let vb = DeviceBuffer::from_slice(&stream, &vs).unwrap();
    let mut ob = DeviceBuffer::from_slice(&stream, &vec![zero; n]).unwrap();
    window::launch::<V2, 2>(&stream, cfg, &vb, &mut ob).unwrap();
    let d = ob.to_vec().unwrap();
    for i in 0..n {
        assert_eq!((host[i].x.to_bits(), host[i].y.to_bits()), (d[i].x.to_bits(), d[i].y.to_bits()), "thread {i}");
    }
}

/// Each instance's entry, as nvcc names the instance of the `__global__` function template
/// (nvcc adds the parameter types, which our symbols leave out as for every function).
#[test]
fn instance_entries_are_nvccs() {
    use kernels::{axpy, window};
    let entries = [
        (<axpy::Instances as axpy::Instance<f32>>::ENTRY, "_ZN5suite20body_generic_kernels7kernels4axpyIfEE", "suite::body_generic_kernels::kernels::axpy<float>"),
        (<axpy::Instances as axpy::Instance<u32>>::ENTRY, "_ZN5suite20body_generic_kernels7kernels4axpyIjEE", "suite::body_generic_kernels::kernels::axpy<unsigned int>"),
        (<window::Instances as window::Instance<f32, 3>>::ENTRY, "_ZN5suite20body_generic_kernels7kernels6windowIfLm3EEE", "suite::body_generic_kernels::kernels::window<float, 3ul>"),
        (<window::Instances as window::Instance<V2, 2>>::ENTRY, "_ZN5suite20body_generic_kernels7kernels6windowINS1_2V2ELm2EEE", "suite::body_generic_kernels::kernels::window<suite::body_generic_kernels::kernels::V2, 2ul>"),
    ];
    for (entry, want, _) in entries {
        assert_eq!(entry, want);
    }
    assert!(<axpy::Instances as axpy::Instance<f32>>::PTX.contains(".entry _ZN5suite20body_generic_kernels7kernels4axpyIfEE("));
    if let Ok(out) = std::process::Command::new("c++filt").args(entries.iter().map(|e| e.1)).output() {
        let text = String::from_utf8_lossy(&out.stdout);
        for (line, (_, sym, shown)) in text.lines().zip(&entries) {
            assert_eq!(line, *shown, "c++filt {sym}");
        }
    }
    let cuda = r#"
namespace suite { namespace body_generic_kernels { namespace kernels {
struct V2 { float x, y; };
__device__ V2 operator+(V2 a, V2 b) { return V2{a.x + b.x, a.y + b.y}; }
template <typename T> __global__ void axpy(T a, const T *x, T *y, unsigned long n) { unsigned i = threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }
template <typename T, unsigned long W> __global__ void window(const T *x, T *out) { out[0] = x[0] + x[W]; }
template __global__ void axpy<float>(float, const float *, float *, unsigned long);
template __global__ void axpy<unsigned>(unsigned, const unsigned *, unsigned *, unsigned long);
template __global__ void window<float, 3>(const float *, float *);
template __global__ void window<V2, 2>(const V2 *, V2 *);
}}}
"#;
    let Some(theirs) = nvcc_ptx("generic_kernel_entries", cuda) else { return };
    for (_, sym, _) in entries {
        let defined = theirs.lines().any(|l| l.contains(".entry") && l.split_whitespace().any(|w| w.starts_with(sym)));
        assert!(defined, "nvcc has no `.entry {sym}...`:\n{theirs}");
    }
}

