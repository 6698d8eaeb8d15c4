//! The `cust` feature (docs/cust.md) on a GPU: cust buffers and slices as kernel arguments,
//! mixed with the runtime's buffers, launches ordered on a cust stream, and the errors of a
//! cust buffer passed to a launch on the CPU backend. `cargo xtask test` builds this with a
//! stub libcuda where there is no driver, and runs it where there is one; without a GPU each
//! test says it skipped.

use cust::memory::{CopyDestination, DeviceBuffer as CustBuffer};
use cust::stream::{Stream as CustStream, StreamFlags};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, Error, LaunchConfig, Stream};
use std::io::Write;

#[kernel]
pub fn cust_axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// cust's context on GPU 0, or `None` after saying why the test skipped.
fn cust_context(test: &str) -> Option<cust::context::Context> {
    match cust::quick_init() {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            // Debug, not Display: cust's Display asks the driver (`cuGetErrorString`), which the
            // stub libcuda `cargo xtask test` links against without a driver cannot answer.
            let _ = writeln!(std::io::stderr(), "SKIPPED ({test}: no CUDA device for cust: {e:?})");
            None
        }
    }
}

fn inputs(n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    let want = x.iter().zip(&y).map(|(x, y)| 3.0 * x + y).collect();
    (x, y, want)
}

#[test]
fn cust_buffers_are_kernel_arguments_on_a_cust_stream() {
    let Some(_ctx) = cust_context("cust buffers") else { return };
    let n = 10_000;
    let (x, y, want) = inputs(n);
    let dx = CustBuffer::from_slice(&x).unwrap();
    let mut dy = CustBuffer::from_slice(&y).unwrap();
    let stream = CustStream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    Stream::on_cust(&stream, |s| cust_axpy::launch(s, LaunchConfig::for_num_elems(n as u32), 3.0, &dx, &mut dy)).unwrap();
    stream.synchronize().unwrap();
    let mut got = vec![0f32; n];
    dy.copy_to(&mut got[..]).unwrap();
    assert_eq!(got, want);
}

#[test]
fn cust_slices_mix_with_runtime_buffers() {
    let Some(_ctx) = cust_context("cust slices") else { return };
    let device = Device::cuda(0).unwrap();
    let stream = device.stream();
    let n = 4096;
    let (x, y, want) = inputs(n);
    let dx = CustBuffer::from_slice(&x).unwrap();
    let mut dy = DeviceBuffer::from_slice(&stream, &y).unwrap();
    // A cust slice (the buffer dereferenced) beside a runtime buffer, on a runtime stream.
    cust_axpy::launch(&stream, LaunchConfig::for_num_elems(n as u32), 3.0, &*dx, &mut dy).unwrap();
    assert_eq!(dy.to_vec().unwrap(), want);
    // And the other way round, the output in cust memory, on a cust stream.
    let rx = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut cy = CustBuffer::from_slice(&y).unwrap();
    let cs = CustStream::new(StreamFlags::DEFAULT, None).unwrap();
    Stream::on_cust(&cs, |s| cust_axpy::launch(s, LaunchConfig::for_num_elems(n as u32), 3.0, &rx, &mut *cy)).unwrap();
    cs.synchronize().unwrap();
    let mut got = vec![0f32; n];
    cy.copy_to(&mut got[..]).unwrap();
    assert_eq!(got, want);
}

#[test]
fn a_cust_buffer_on_the_cpu_backend_is_an_error() {
    let Some(_ctx) = cust_context("cust on the CPU backend") else { return };
    let stream = Device::new_cpu().stream();
    let dx = CustBuffer::from_slice(&[1.0f32; 4]).unwrap();
    let mut dy = DeviceBuffer::from_slice(&stream, &[0.0f32; 4]).unwrap();
    match cust_axpy::launch(&stream, LaunchConfig::for_num_elems(4), 1.0, &dx, &mut dy) {
        Err(Error::InvalidBuffer { reason }) => assert!(reason.contains("cust buffer"), "{reason}"),
        other => panic!("{other:?}"),
    }
}
