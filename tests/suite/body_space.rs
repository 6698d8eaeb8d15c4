//! References kept in values (`x.get(i)`, `let Some(y) = y.get_mut(i) else { return }`) are
//! generic pointers made from global addresses; `ir/space.rs` gives the accesses through them
//! their global state space, as nvcc does. Each kernel runs on the CPU backend (whose memcheck
//! faults a global access outside a global allocation) against its host run; ptxas assembles
//! each; the PTX keeps a generic access only where the reference may point elsewhere.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

#[repr(C)]
#[derive(ptx_runtime::DeviceRepr, Clone, Copy, Debug, PartialEq)]
pub struct Span2 {
    pub lo: f32,
    pub hi: f32,
}

/// Both references through `get`/`get_mut`: `Some` on one path, `None` on the other.
#[kernel]
pub fn get_axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if let (Some(xi), Some(yi)) = (x.get(i), y.get_mut(i)) {
        *yi = a * *xi + *yi;
    }
}

/// `let … else`, and a struct's fields read through the reference (offsets from it).
#[kernel]
pub fn let_else_width(spans: &[Span2], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let Some(o) = out.get_mut(i) else { return };
    let Some(s) = spans.get(i) else { return };
    *o = s.hi - s.lo;
}

/// A reference to a slice's element or to a local: it may point outside global memory, so the
/// access stays generic.
#[kernel]
pub fn either(x: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let fallback = -1.0f32;
    let r = if i % 3 == 0 { &fallback } else { x.get(i).unwrap_or(&fallback) };
    if let Some(o) = out.get_mut(i) {
        *o = *r * 2.0;
    }
}

/// Plain (generic) loads and stores in `ptx`: `ld.f32`, `st.f32`, without a state space.
fn generic_accesses(ptx: &str) -> usize {
    ptx.lines().map(str::trim).filter(|l| l.starts_with("ld.f32") || l.starts_with("st.f32") || l.starts_with("ld.u32") || l.starts_with("st.u32")).count()
}

fn host_run(grid: u32, block: u32, f: impl Fn() + Sync) {
    host::run([grid, 1, 1], [block, 1, 1], 0, f);
}

#[test]
fn get_and_get_mut_access_global_memory() {
    let ptx = get_axpy::PTX;
    assert!(assemble("get_axpy", ptx));
    assert_eq!(generic_accesses(ptx), 0, "{ptx}");
    // `x` is a `&[f32]`: its element is read through the read-only cache, as `x[i]` is.
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    assert_eq!(lines.iter().filter(|l| l.starts_with("ld.global.nc.f32")).count(), 1, "{ptx}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("ld.global.f32") || l.starts_with("st.global.f32")).count(), 2, "{ptx}");
    let stream = cpu_stream();
    let x: Vec<f32> = (0..100).map(|k| k as f32 * 0.5 - 9.0).collect();
    let y0: Vec<f32> = (0..100).map(|k| 4.0 - k as f32 * 0.25).collect();
    // x shorter, y shorter, equal; a grid that covers more than both.
    for (nx, ny) in [(70, 100), (100, 55), (100, 100), (0, 30)] {
        let mut want = y0[..ny].to_vec();
        let out = host::Disjoint::new(&mut want);
        // SAFETY: each thread writes its own element.
        host_run(4, 32, || get_axpy(1.5, &x[..nx], unsafe { out.get() }));
        let xb = DeviceBuffer::from_slice(&stream, &x[..nx]).unwrap();
        let mut yb = DeviceBuffer::from_slice(&stream, &y0[..ny]).unwrap();
        get_axpy::launch(&stream, LaunchConfig::new(4, 32), 1.5, &xb, &mut yb).unwrap();
        assert_eq!(yb.to_vec().unwrap(), want, "x {nx}, y {ny}");
    }
}

#[test]
fn fields_through_a_let_else_reference_are_global_loads() {
    let ptx = let_else_width::PTX;
    assert!(assemble("let_else_width", ptx));
    assert_eq!(generic_accesses(ptx), 0, "{ptx}");
    assert_eq!(ptx.lines().filter(|l| l.trim().starts_with("ld.global.nc.f32")).count(), 2, "{ptx}");
    let stream = cpu_stream();
    let spans: Vec<Span2> = (0..80).map(|k| Span2 { lo: k as f32 * 0.5, hi: k as f32 * k as f32 * 0.125 }).collect();
    for (ns, no) in [(80, 80), (50, 80), (80, 20)] {
        let mut want = vec![7.0f32; no];
        let out = host::Disjoint::new(&mut want);
        // SAFETY: each thread writes its own element.
        host_run(3, 32, || let_else_width(&spans[..ns], unsafe { out.get() }));
        let sb = DeviceBuffer::from_slice(&stream, &spans[..ns]).unwrap();
        let mut ob = DeviceBuffer::from_slice(&stream, &vec![7.0f32; no]).unwrap();
        let_else_width::launch(&stream, LaunchConfig::new(3, 32), &sb, &mut ob).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "spans {ns}, out {no}");
    }
}

#[test]
fn a_reference_that_may_be_a_local_stays_generic() {
    let ptx = either::PTX;
    assert!(assemble("either", ptx));
    // The store through `out.get_mut(i)` is global; the load through `r` is not.
    assert_eq!(generic_accesses(ptx), 1, "{ptx}");
    let stream = cpu_stream();
    let x: Vec<f32> = (0..60).map(|k| k as f32 - 20.0).collect();
    let mut want = vec![0.0f32; 64];
    let out = host::Disjoint::new(&mut want);
    // SAFETY: each thread writes its own element.
    host_run(2, 32, || either(&x, unsafe { out.get() }));
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    either::launch(&stream, LaunchConfig::new(2, 32), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
}
