//! CPU backend throughput: thread-instructions per second, and the time of saxpy over 2^20
//! elements. The kernels are nvcc's PTX for `tests/cuda/bench.cu` (`benches/cpu_interp.ptx`),
//! so the benchmark needs no CUDA tools.
//!
//! Run with `cargo xtask bench-cpu` (or `cargo bench --bench cpu_interp`).

use ptx_runtime::cpu::{CpuDevice, CpuModule};
use std::time::{Duration, Instant};

const PTX: &str = include_str!("cpu_interp.ptx");

struct Case {
    name: &'static str,
    kernel: &'static str,
    grid: u32,
    block: u32,
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Median wall time and the launch's statistics over `runs` launches.
fn time(dev: &CpuDevice, m: &CpuModule, c: &Case, params: &[&[u8]], runs: usize) -> (Duration, u64, u64) {
    dev.launch(m, c.kernel, [c.grid, 1, 1], [c.block, 1, 1], 0, params).expect("warm-up launch");
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        dev.launch(m, c.kernel, [c.grid, 1, 1], [c.block, 1, 1], 0, params).expect("launch");
        times.push(t.elapsed());
    }
    times.sort();
    let s = dev.last_launch_stats();
    (times[runs / 2], s.thread_instructions, s.warp_instructions)
}

fn main() {
    let threads_available = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("CPU backend benchmark ({threads_available} hardware threads)\n");
    println!("{:<34} {:>8} {:>10} {:>12} {:>11} {:>14}", "case", "workers", "threads", "thread-insts", "time", "thread-inst/s");
    let n: usize = 1 << 20;
    let mut saxpy_times = Vec::new();
    for workers in [1, threads_available.max(1)] {
        let dev = CpuDevice::new();
        dev.set_parallelism(workers);
        let m = dev.load_module(PTX).expect("load");
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let (dx, dy) = (dev.alloc(n * 4).unwrap(), dev.alloc(n * 4).unwrap());
        dev.write(dx, &bytes_f32(&x)).unwrap();
        let (dxb, dyb) = (dx.to_le_bytes(), dy.to_le_bytes());
        let (nb, ab) = ((n as i32).to_le_bytes(), 2.0f32.to_le_bytes());

        // saxpy: y = 2x + y over 2^20 elements.
        let c = Case { name: "saxpy 2^20 (256/block)", kernel: "saxpy", grid: (n / 256) as u32, block: 256 };
        dev.write(dy, &bytes_f32(&y)).unwrap();
        let (t, ti, _) = time(&dev, &m, &c, &[&nb, &ab, &dxb, &dyb], 5);
        // Check the result once: every launch adds 2x again (7 launches).
        let mut out = vec![0u8; n * 4];
        dev.read(dy, &mut out).unwrap();
        for i in (0..n).step_by(4097) {
            let got = f32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
            let mut want = y[i];
            for _ in 0..6 {
                want = 2.0f32.mul_add(x[i], want);
            }
            assert_eq!(got, want, "saxpy element {i}");
        }
        report(c.name, workers, n, ti, t);
        saxpy_times.push((workers, t));

        // Compute-bound: a 64-step polynomial per thread (fma loop, uniform control flow).
        let c = Case { name: "fma loop x64 (2^18 threads)", kernel: "polynomial", grid: 1024, block: 256 };
        let iters = 64i32.to_le_bytes();
        let (t, ti, _) = time(&dev, &m, &c, &[&dyb, &iters], 3);
        report(c.name, workers, 1 << 18, ti, t);

        // Barrier-heavy: a shared-memory tree reduction per block.
        let c = Case { name: "block reduction (9 bar.sync)", kernel: "block_sum", grid: 4096, block: 256 };
        let (t, ti, _) = time(&dev, &m, &c, &[&dxb, &dyb], 3);
        report(c.name, workers, 1 << 20, ti, t);

        // Divergent: per-lane trip counts and data-dependent branches.
        let c = Case { name: "divergent collatz (2^16 threads)", kernel: "divergent", grid: 256, block: 256 };
        let iters = 100i32.to_le_bytes();
        let (t, ti, _) = time(&dev, &m, &c, &[&dyb, &iters], 3);
        report(c.name, workers, 1 << 16, ti, t);
        println!();
    }
    for (w, t) in saxpy_times {
        println!("saxpy over 2^20 elements with {w} worker(s): {:.1} ms", t.as_secs_f64() * 1e3);
    }
}

fn report(name: &str, workers: usize, threads: usize, ti: u64, t: Duration) {
    println!(
        "{:<34} {:>8} {:>10} {:>12} {:>9.2}ms {:>12.1}M",
        name,
        workers,
        threads,
        ti,
        t.as_secs_f64() * 1e3,
        ti as f64 / t.as_secs_f64() / 1e6
    );
}
