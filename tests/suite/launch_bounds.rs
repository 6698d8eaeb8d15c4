//! Launch bounds (`#[kernel(block = ...)]`, `launch_bounds(max_threads, min_blocks)`): the PTX
//! directives nvcc writes for `__launch_bounds__`, ptxas accepting them, launches outside the
//! bounds refused with an `Err` before they run (the generated launcher and the CPU backend
//! reading the directives of raw PTX), and the body relying on the declared shape.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::cpu::Error as CpuError;
use ptx_runtime::cpu::CpuDevice;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

const TILE: usize = 16;

/// A 16 × 16 tile through shared memory: with the shape declared, `block_dim_x()` is the
/// constant 16 and the shared index `ty * 16 + tx` is provably below 256, so its checks go.
/// (Literals, not `TILE`: a `const` item's value is rustc's, which the macro never sees.)
#[kernel(block = (16, 16))]
pub fn tile_flip(x: &[f32], y: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 256>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let bx = block_idx_x() as usize;
    let i = bx * (block_dim_x() * block_dim_y()) as usize + ty * block_dim_x() as usize + tx;
    tile[ty * 16 + tx] = x[i];
    sync_threads();
    y[i] = tile[(15 - ty) * 16 + (15 - tx)];
}

/// The same body without the declared shape: the shared checks stay.
#[kernel]
pub fn tile_flip_unbounded(x: &[f32], y: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 256>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let bx = block_idx_x() as usize;
    let i = bx * (block_dim_x() * block_dim_y()) as usize + ty * block_dim_x() as usize + tx;
    tile[ty * 16 + tx] = x[i];
    sync_threads();
    y[i] = tile[(15 - ty) * 16 + (15 - tx)];
}

/// CUDA's `__launch_bounds__(256, 2)`.
#[kernel(launch_bounds(max_threads = 256, min_blocks = 2))]
pub fn scale_bounded(x: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] *= 2.0;
    }
}

#[kernel(launch_bounds(max_threads = 128))]
pub fn scale_max_only(x: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] *= 2.0;
    }
}

/// A fixed shape with a residency hint (`.minnctapersm` goes with `.reqntid` as with `.maxntid`).
#[kernel(block = (8, 4, 2), launch_bounds(min_blocks = 4))]
pub fn scale_shaped(x: &mut [f32]) {
    let t = (thread_idx_z() * 32 + thread_idx_y() * 8 + thread_idx_x()) as usize;
    let i = block_idx_x() as usize * (block_dim_x() * block_dim_y() * block_dim_z()) as usize + t;
    if i < x.len() {
        x[i] *= 2.0;
    }
}

/// The entry's directives: the lines between its parameter list and its body.
fn directives(ptx: &str) -> Vec<String> {
    let entry = &ptx[ptx.find(".entry").expect("an entry")..];
    let params_end = entry.find(')').expect("a parameter list");
    let body = entry.find('{').expect("a body");
    entry[params_end + 1..body].lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

#[test]
fn directives_are_those_nvcc_writes_for_launch_bounds() {
    assert!(assemble("tile_flip", tile_flip::PTX));
    assert!(assemble("scale_bounded", scale_bounded::PTX));
    assert!(assemble("scale_max_only", scale_max_only::PTX));
    assert_eq!(directives(tile_flip::PTX), [".reqntid 16, 16, 1"]);
    assert_eq!(directives(scale_max_only::PTX), [".maxntid 128, 1, 1"]);
    assert!(assemble("scale_shaped", scale_shaped::PTX));
    assert_eq!(directives(scale_shaped::PTX), [".reqntid 8, 4, 2", ".minnctapersm 4"]);
    let ours = directives(scale_bounded::PTX);
    assert_eq!(ours, [".maxntid 256, 1, 1", ".minnctapersm 2"]);
    // nvcc's own spelling of `__launch_bounds__(256, 2)`, where nvcc is at hand.
    if let Some(theirs) = nvcc_ptx("launch_bounds", "extern \"C\" __global__ void __launch_bounds__(256, 2) k(float* x) { x[threadIdx.x] *= 2.0f; }") {
        assert_eq!(directives(&theirs), ours, "{theirs}");
    }
}

#[test]
fn the_declared_shape_is_a_constant_and_proves_shared_indices() {
    assert!(assemble("tile_flip_unbounded", tile_flip_unbounded::PTX));
    let ptx = tile_flip::PTX;
    // `block_dim_x()` / `block_dim_y()` are never read: the launch guarantees 16 × 16.
    assert!(!ptx.contains("%ntid"), "{ptx}");
    assert!(tile_flip_unbounded::PTX.contains("%ntid.x"));
    // The two global accesses keep their checks (the slices' lengths are unknown); the shared
    // tile's two are decided by `%tid.x < 16`, `%tid.y < 16`.
    // Distinct comparisons: a check combined with another is compared again in the chain that
    // picks its report (`ir/combine.rs`).
    let compares = |p: &str| {
        let p = crate::tools::without_report_blocks(p);
        let mut c: Vec<String> = p.lines().map(str::trim).filter(|l| l.starts_with("setp.")).map(|l| l.split_once(',').map_or(l, |(op, rest)| if op.contains(' ') { rest } else { l }).to_owned() + l.split_whitespace().next().unwrap_or("")).collect();
        c.sort();
        c.dedup();
        c.len()
    };
    assert_eq!(compares(ptx), 2, "{ptx}");
    assert_eq!(compares(tile_flip_unbounded::PTX), 4, "{}", tile_flip_unbounded::PTX);
}

/// Without the shape, a thread outside 16 × 16 is caught by the shared tile's check: the
/// removed checks were needed only because the launch could not guarantee the shape.
#[test]
fn without_the_shape_the_shared_check_still_traps() {
    let stream = cpu_stream();
    let n = 2 * 32 * 16;
    let xb = DeviceBuffer::from_slice(&stream, &vec![1.0f32; n]).unwrap();
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let e = tile_flip_unbounded::launch(&stream, LaunchConfig::new(2, (32, 16)), &xb, &mut yb).unwrap_err();
    assert!(matches!(&e, Error::Assert { message, .. } if message.contains("index out of bounds")), "{e}");
}

#[test]
fn a_launch_with_the_declared_shape_runs() {
    let stream = cpu_stream();
    let n = 3 * TILE * TILE;
    let x: Vec<f32> = (0..n).map(|k| k as f32 * 0.5).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    tile_flip::launch(&stream, LaunchConfig::new(3, (16, 16)), &xb, &mut yb).unwrap();
    let want: Vec<f32> = (0..n).map(|k| x[(k / 256) * 256 + 255 - k % 256]).collect();
    assert_eq!(yb.to_vec().unwrap(), want);

    let mut sb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    scale_bounded::launch(&stream, LaunchConfig::new(3, 256), &mut sb).unwrap();
    assert_eq!(sb.to_vec().unwrap(), x.iter().map(|v| v * 2.0).collect::<Vec<_>>());
}

#[test]
fn a_launch_outside_the_bounds_is_an_error_before_it_runs() {
    let stream = cpu_stream();
    let n = 4 * TILE * TILE;
    let xb = DeviceBuffer::from_slice(&stream, &vec![1.0f32; n]).unwrap();
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    // The same 256 threads, another shape: refused, nothing written.
    let e = tile_flip::launch(&stream, LaunchConfig::new(4, (32, 8)), &xb, &mut yb).unwrap_err();
    assert!(matches!(&e, Error::InvalidConfig { reason } if reason.contains("(16, 16, 1)") && reason.contains("[32, 8, 1]")), "{e}");
    assert!(tile_flip::launch(&stream, LaunchConfig::new(4, 256), &xb, &mut yb).is_err());
    assert_eq!(yb.to_vec().unwrap(), vec![0.0; n]);

    let mut sb = DeviceBuffer::from_slice(&stream, &vec![1.0f32; n]).unwrap();
    let e = scale_bounded::launch(&stream, LaunchConfig::new(2, 512), &mut sb).unwrap_err();
    assert!(matches!(&e, Error::InvalidConfig { reason } if reason.contains("at most 256")), "{e}");
    let e = scale_max_only::launch(&stream, LaunchConfig::new(1, (16, 16)), &mut sb).unwrap_err();
    assert!(matches!(&e, Error::InvalidConfig { reason } if reason.contains("at most 128")), "{e}");
    assert_eq!(sb.to_vec().unwrap(), vec![1.0; n]);
    // Within the bound it runs.
    scale_max_only::launch(&stream, LaunchConfig::new(8, 128), &mut sb).unwrap();
    assert_eq!(sb.to_vec().unwrap(), vec![2.0; n]);
    // A 3-D declared shape: exactly it runs, its transpose does not.
    scale_shaped::launch(&stream, LaunchConfig::new(16, (8, 4, 2)), &mut sb).unwrap();
    assert_eq!(sb.to_vec().unwrap(), vec![4.0; n]);
    assert!(scale_shaped::launch(&stream, LaunchConfig::new(16, (2, 4, 8)), &mut sb).is_err());
    assert_eq!(sb.to_vec().unwrap(), vec![4.0; n]);
}

/// The CPU backend reads `.reqntid` and `.maxntid` from PTX it did not get from `#[kernel]`
/// (here nvcc's), and refuses what the driver would.
#[test]
fn the_cpu_backend_honours_the_directives_of_any_ptx() {
    let ptx = "\
.version 7.0
.target sm_75
.address_size 64
.visible .entry req()
.reqntid 32, 2
{
\tret;
}
.visible .entry most()
.maxntid 16, 4, 2
.minnctapersm 4
{
\tret;
}
";
    assert!(assemble("cpu_bounds", ptx));
    let cpu = CpuDevice::new();
    let m = cpu.load_module(ptx).unwrap();
    assert!(cpu.launch(&m, "req", [1, 1, 1], [32, 2, 1], 0, &[]).is_ok());
    assert!(matches!(cpu.launch(&m, "req", [1, 1, 1], [64, 1, 1], 0, &[]), Err(CpuError::InvalidConfig { .. })));
    assert!(cpu.launch(&m, "most", [1, 1, 1], [128, 1, 1], 0, &[]).is_ok());
    assert!(cpu.launch(&m, "most", [1, 1, 1], [8, 8, 1], 0, &[]).is_ok());
    assert!(matches!(cpu.launch(&m, "most", [1, 1, 1], [129, 1, 1], 0, &[]), Err(CpuError::InvalidConfig { .. })));
}
