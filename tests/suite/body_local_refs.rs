//! References to locals: `&mut x` / `&x` of a local scalar, struct, array, field or element
//! passed to a device function that writes or reads through it, as nvcc compiles a
//! `__noinline__` callee taking a pointer to a local (a `.local` slot, its generic address by
//! `cvta.local`). Every thread's locals hold different values, so a callee that read another
//! thread's slot would be caught. Run on the host and the CPU backend and compared; every module
//! goes through ptxas.

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod refs {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    pub struct Acc {
        pub sum: f32,
        pub count: u32,
    }

    #[device_fn]
    pub fn bump(v: &mut u32) {
        *v += 1;
    }

    /// Passes the reference it was given on (a generic pointer already).
    #[device_fn]
    pub fn bump_twice(v: &mut u32) {
        bump(v);
        bump(v);
    }

    #[device_fn]
    pub fn add(acc: &mut Acc, x: f32) {
        acc.sum += x;
        bump(&mut acc.count);
    }

    #[device_fn]
    pub fn fill(a: &mut [f32; 4], v: f32) {
        for i in 0..4 {
            a[i] = v * i as f32;
        }
    }

    #[device_fn]
    pub fn total(a: &[f32; 4]) -> f32 {
        a[0] + a[1] + a[2] + a[3]
    }

    #[device_fn]
    pub fn swap_through(a: &mut u32, b: &mut u32) {
        let t = *a;
        *a = *b;
        *b = t;
    }

    #[device_fn]
    pub fn scaled(x: &f32, by: f32) -> f32 {
        *x * by
    }
}

#[kernel]
pub fn local_refs(x: &[f32], out: &mut [f32], codes: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let mut c = i as u32;
        refs::bump(&mut c);
        refs::bump_twice(&mut c);
        let mut acc = refs::Acc { sum: x[i], count: 0 };
        refs::add(&mut acc, 1.5);
        refs::add(&mut acc, x[i] * 2.0);
        let mut a = [0.0f32; 4];
        refs::fill(&mut a, x[i]);
        a[i % 4] += 1.0;
        let t = refs::total(&a);
        let mut counts = [1u32, 2, 3, 4];
        refs::bump(&mut counts[i % 4]);
        refs::bump(&mut counts[3]);
        let (mut p, mut q) = (i as u32 * 7, 3u32);
        refs::swap_through(&mut p, &mut q);
        let r = &mut q;
        *r += 100;
        let s = refs::scaled(&(x[i] + 1.0), 3.0) + refs::scaled(&acc.sum, 0.5);
        out[i] = acc.sum + t + s;
        codes[i] = c * 1_000_000 + acc.count * 100_000 + counts[0] + counts[1] * 10 + counts[2] * 100 + counts[3] * 1000 + p * 7 + q * 3;
    }
}

#[test]
fn references_to_locals_compile_through_ptxas() {
    assemble("local_refs", local_refs::PTX);
    assemble("bump_twice", refs::bump_twice::PTX);
}

#[test]
fn references_to_locals_agree_with_the_host() {
    let x: Vec<f32> = (0..64).map(|i| (i as f32 - 20.0) * 0.75).collect();
    let n = x.len();
    let (mut out, mut codes) = (vec![0.0f32; n], vec![0u32; n]);
    {
        let (o, c) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut codes));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || local_refs(&x, unsafe { o.get() }, unsafe { c.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut cb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    local_refs::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut ob, &mut cb).unwrap();
    let dev: Vec<u32> = ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
    let host: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
    assert_eq!(dev, host);
    assert_eq!(cb.to_vec().unwrap(), codes);
}

/// The caller passes a local's address as nvcc does for a `__noinline__` callee: a `.local`
/// slot, its generic address (`cvta.local.u64`) in the `.param`; the callee writes through a
/// generic pointer (`ld.u32`/`st.u32`, no state space). A local whose address is never taken
/// stays in registers: the kernel has exactly one slot per local that is referenced.
#[test]
fn a_referenced_local_lives_in_local_memory_as_nvcc_puts_it() {
    let ptx = local_refs::PTX;
    assert!(ptx.contains("cvta.local.u64"), "{ptx}");
    let slots = ptx.lines().filter(|l| l.trim_start().starts_with(".local")).count();
    // c, acc, a, counts, p, q, and the temporary `x[i] + 1.0` passed to `scaled` (`&acc.sum`
    // is inside `acc`'s slot).
    assert_eq!(slots, 7, "{ptx}");
    let bump = refs::bump::PTX;
    let body = &bump[bump.rfind("bump").unwrap()..];
    assert!(body.contains("ld.u32") && body.contains("st.u32") && !body.contains(".local"), "{bump}");
    let Some(nvcc) = nvcc_ptx(
        "local_ref",
        "extern \"C\" __device__ __noinline__ void bump(unsigned *v) { *v += 1; }\n\
         extern \"C\" __global__ void k(unsigned *out) { unsigned c = threadIdx.x; bump(&c); *out = c; }\n",
    ) else {
        return;
    };
    assert!(nvcc.contains("cvta.local.u64") || nvcc.contains("add.u64 \t%rd") , "{nvcc}");
    let nb = &nvcc[nvcc.rfind("bump(").unwrap()..];
    assert!(nb.contains("ld.u32") && nb.contains("st.u32"), "{nvcc}");
}
