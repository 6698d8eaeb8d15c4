//! Independence check: PTX that nvcc produces for ordinary CUDA C kernels runs on the CPU
//! backend with results equal to host-Rust references. The CUDA sources are in `tests/cuda/`.

use crate::cpu_harness::{arg, nvcc, nvcc_archs, Harness};

const BASICS: &str = include_str!("../cuda/basics.cu");

/// nvcc's default (sm_75) output and its -O3 output for sm_90.
fn modules() -> Vec<Harness> {
    let mut v: Vec<Harness> = nvcc("cpu_basics", BASICS).iter().map(|p| Harness::new(p)).collect();
    v.extend(nvcc_archs("cpu_basics", BASICS, &["sm_90"]).iter().map(|p| Harness::new(p)));
    v
}

#[test]
fn vector_add() {
    for mut k in modules() {
        let n = 1000usize;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
        let (da, db, dc) = (k.upload(&a), k.upload(&b), k.zeroed::<f32>(n));
        k.launch("vadd", [(n as u32).div_ceil(128), 1, 1], [128, 1, 1], 0, &[da.ptr(), db.ptr(), dc.ptr(), arg(n as i32)]).unwrap();
        let c: Vec<f32> = k.download(dc);
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "element {i}");
        }
    }
}

#[test]
fn shared_memory_reduction() {
    for mut k in modules() {
        let n = 5000usize;
        let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 / 8.0).collect();
        let threads = 256u32;
        let blocks = (n as u32).div_ceil(threads * 2);
        let (dx, dout) = (k.upload(&x), k.zeroed::<f32>(blocks as usize));
        k.launch("reduce", [blocks, 1, 1], [threads, 1, 1], threads * 4, &[dx.ptr(), dout.ptr(), arg(n as i32)]).unwrap();
        let out: Vec<f32> = k.download(dout);
        for (b, got) in out.iter().enumerate() {
            // The same tree the kernel computes, in f32.
            let lo = b * threads as usize * 2;
            let mut s: Vec<f32> = (0..threads as usize)
                .map(|t| {
                    let i = lo + t;
                    let mut v = if i < n { x[i] } else { 0.0 };
                    if i + (threads as usize) < n {
                        v += x[i + threads as usize];
                    }
                    v
                })
                .collect();
            let mut k2 = threads as usize / 2;
            while k2 > 0 {
                for t in 0..k2 {
                    s[t] += s[t + k2];
                }
                k2 /= 2;
            }
            assert_eq!(*got, s[0], "block {b}");
        }
    }
}

/// The struct nvcc's `calls` kernel reads.
#[derive(Clone, Copy, ptx_runtime::DeviceRepr)]
#[repr(C)]
struct P {
    x: f32,
    y: f64,
    z: i32,
}

#[test]
fn device_function_calls_and_recursion() {
    for mut k in modules() {
        let n = 64usize;
        let ps: Vec<P> = (0..n).map(|i| P { x: i as f32, y: 1.5 * i as f64, z: 100 - i as i32 }).collect();
        let (dout, dp) = (k.zeroed::<i32>(n), k.upload(&ps));
        k.launch("calls", [1, 1, 1], [n as u32, 1, 1], 0, &[dout.ptr(), dp.ptr()]).unwrap();
        let out: Vec<i32> = k.download(dout);
        fn collatz(mut x: i64) -> i32 {
            let mut n = 0;
            while x != 1 {
                x = if x & 1 == 1 { 3 * x + 1 } else { x / 2 };
                n += 1;
            }
            n
        }
        fn fib(x: i32) -> i32 {
            if x < 2 {
                x
            } else {
                fib(x - 1) + fib(x - 2)
            }
        }
        for (i, got) in out.iter().enumerate() {
            assert_eq!(*got, collatz(i as i64 + 1) + fib(i as i32 % 10), "thread {i}");
        }
        let raw: Vec<u8> = k.download(crate::cpu_harness::Buf { elem: 1, len: n * 24, ..dp });
        for i in 0..n {
            let r = &raw[i * 24..];
            assert_eq!(f32::from_le_bytes(r[0..4].try_into().unwrap()), i as f32 * 2.0);
            assert_eq!(f64::from_le_bytes(r[8..16].try_into().unwrap()), 1.5 * i as f64 * i as f64);
            assert_eq!(i32::from_le_bytes(r[16..20].try_into().unwrap()), 100 - 2 * i as i32);
        }
    }
}

/// A callee writing through a generic pointer to its caller's locals (`&x`, `&y[i]` passed to a
/// `__noinline__` function that also takes global pointers, so it keeps generic `ld`/`st`).
/// Every thread's locals sit at the same generic address; the emulator once read all lanes
/// from the first lane's local memory when their addresses were equal, so every thread but
/// thread 0 lost its own `x`.
const LOCALS: &str = r#"
__device__ __noinline__ void bump(int *p, int v) { *p += v; }
extern "C" __global__ void locals(int *out, int *g) {
    int x = threadIdx.x;
    int y[4];
    for (int j = 0; j < 4; j++) y[j] = threadIdx.x * j;
    bump(&x, 100);
    bump(&y[threadIdx.x & 3], 1000);
    if (threadIdx.x == 0) bump(&g[blockIdx.x], 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y[threadIdx.x & 3];
}
"#;

#[test]
fn generic_pointers_to_each_threads_locals() {
    let mut ptx: Vec<String> = nvcc("cpu_locals", LOCALS).into_iter().collect();
    ptx.extend(nvcc_archs("cpu_locals", LOCALS, &["sm_90"]));
    for p in &ptx {
        let mut k = Harness::new(p);
        let (blocks, threads) = (2u32, 40u32);
        let n = (blocks * threads) as usize;
        let (dout, dg) = (k.zeroed::<i32>(n), k.zeroed::<i32>(blocks as usize));
        k.launch("locals", [blocks, 1, 1], [threads, 1, 1], 0, &[dout.ptr(), dg.ptr()]).unwrap();
        let out: Vec<i32> = k.download(dout);
        for (i, got) in out.iter().enumerate() {
            let t = (i % threads as usize) as i32;
            assert_eq!(*got, t + 100 + t * (t & 3) + 1000, "thread {t} of block {}", i / threads as usize);
        }
        // One slot per block: two blocks bumping one global int without an atomic race
        // (blocks run in parallel on the CPU backend, as on a GPU).
        assert_eq!(k.download::<i32>(dg), vec![1; blocks as usize]);
    }
}
