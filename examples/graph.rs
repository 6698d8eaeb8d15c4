//! One relaxation, three ways to launch it: Jacobi steps of the 1-D heat equation
//! (`v[i] = u[i]/2 + (u[i-1] + u[i+1])/4`, the ends held fixed), run
//!
//! 1. eagerly: one launch per step, the data copied in and out through pinned memory with
//!    asynchronous copies;
//! 2. as a graph: two steps captured once and replayed (one submission per replay instead of a
//!    launch per step, CUDA's way to cut launch overhead);
//! 3. as one cooperative kernel: every step in a single launch, the grid meeting at
//!    `grid_sync()` between steps (the grid is as large as the device holds at once, and each
//!    thread walks the array with a grid-stride loop).
//!
//! All three must agree bit for bit with each other and with the host. Without a GPU it runs on
//! the CPU backend.
//!
//! ```sh
//! cargo run --release --example graph
//! ```

use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig, PinnedBuffer};
use std::time::Instant;

/// The new value of element `i` from `u`.
#[ptx_runtime::device_fn]
pub fn jacobi(u: &[f32], i: usize) -> f32 {
    if i == 0 || i + 1 == u.len() {
        u[i]
    } else {
        0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1])
    }
}

#[kernel]
pub fn relax(u: &[f32], v: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < v.len() {
        v[i] = jacobi(u, i);
    }
}

/// `steps` (even) steps in one launch, `u → v → u` in turn.
#[kernel]
pub fn relax_all(u: &mut [f32], v: &mut [f32], steps: u32) {
    let first = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut s = 0;
    while s < steps {
        let mut i = first;
        while i < v.len() {
            v[i] = jacobi(u, i);
            i += stride;
        }
        grid_sync();
        i = first;
        while i < u.len() {
            u[i] = jacobi(v, i);
            i += stride;
        }
        grid_sync();
        s += 2;
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> ptx_runtime::Result<()> {
    let device = Device::select()?;
    println!("device: {}", device.name());
    let stream = device.new_stream()?;
    let (n, steps) = (1usize << 12, 40u32);
    let start: Vec<f32> = (0..n).map(|i| if i % 512 < 8 { 100.0 } else { 0.0 }).collect();
    let cfg = LaunchConfig::for_num_elems(n as u32);

    // The host's answer.
    let mut want = start.clone();
    for _ in 0..steps {
        want = (0..n).map(|i| jacobi(&want, i)).collect();
    }

    let input = PinnedBuffer::from_slice(&device, &start)?;
    let mut output = PinnedBuffer::<f32>::zeroed(&device, n)?;
    let mut u = DeviceBuffer::<f32>::zeroed(&stream, n)?;
    let mut v = DeviceBuffer::<f32>::zeroed(&stream, n)?;

    // 1. Eager: a launch per step.
    u.copy_from_pinned_async(&input, &stream)?;
    let t = Instant::now();
    for _ in 0..steps / 2 {
        relax::launch(&stream, cfg, &u, &mut v)?;
        relax::launch(&stream, cfg, &v, &mut u)?;
    }
    u.copy_to_pinned_async(&mut output, &stream)?;
    let eager = output.to_vec()?;
    let eager_time = t.elapsed();

    // 2. A graph of two steps, replayed.
    u.copy_from_pinned_async(&input, &stream)?;
    let graph = stream.capture(|s| {
        relax::launch(s, cfg, &u, &mut v)?;
        relax::launch(s, cfg, &v, &mut u)
    })?;
    let t = Instant::now();
    for _ in 0..steps / 2 {
        graph.launch(&stream)?;
    }
    u.copy_to_pinned_async(&mut output, &stream)?;
    let replayed = output.to_vec()?;
    let graph_time = t.elapsed();

    // 3. One cooperative launch: the whole grid resident, meeting at grid_sync().
    u.copy_from_pinned_async(&input, &stream)?;
    let block = 256;
    let blocks = device.max_cooperative_grid(&relax_all::KERNEL, block, 0)?.min(n as u32 / block);
    let t = Instant::now();
    relax_all::launch(&stream, LaunchConfig::new(blocks, block).cooperative(), &mut u, &mut v, steps)?;
    u.copy_to_pinned_async(&mut output, &stream)?;
    let cooperative = output.to_vec()?;
    let cooperative_time = t.elapsed();

    let per_step = |d: std::time::Duration| d.as_secs_f64() * 1e6 / steps as f64;
    println!("{steps} steps over {n} elements:");
    println!("  eager launches   {:9.1} µs per step", per_step(eager_time));
    println!("  graph replays    {:9.1} µs per step", per_step(graph_time));
    println!("  one cooperative  {:9.1} µs per step ({blocks} blocks of {block})", per_step(cooperative_time));
    let same = |name: &str, got: &[f32]| {
        let bad = got.iter().zip(&want).position(|(g, w)| g.to_bits() != w.to_bits());
        match bad {
            None => Ok(()),
            Some(i) => Err(ptx_runtime::Error::InvalidBuffer { reason: format!("{name}: element {i} is {}, the host says {}", got[i], want[i]) }),
        }
    };
    same("eager", &eager)?;
    same("graph", &replayed)?;
    same("cooperative", &cooperative)?;
    println!("all three equal the host's result, bit for bit");
    Ok(())
}
