//! Vector add: `c = a + b`, one thread per element.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn vadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

pub const PTX: &[(&str, &str)] = &[("vadd", vadd::PTX)];
const N: usize = 1000;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(1);
    (r.f32s(N, -100.0, 100.0), r.f32s(N, -100.0, 100.0))
}

fn on_host() -> Vec<f32> {
    let (a, b) = inputs();
    let mut c = vec![0.0; N];
    let out = host::Disjoint::new(&mut c);
    // SAFETY: each thread writes its own element.
    host::run([8, 1, 1], [128, 1, 1], 0, || vadd(&a, &b, unsafe { out.get() }));
    c
}

pub fn check_host() {
    let (a, b) = inputs();
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_bits_eq("vadd", &on_host(), &want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (a, b) = inputs();
    let (a, b) = (DeviceBuffer::from_slice(stream, &a)?, DeviceBuffer::from_slice(stream, &b)?);
    let mut c = DeviceBuffer::<f32>::zeroed(stream, N)?;
    vadd::launch(stream, LaunchConfig::new(8, 128), &a, &b, &mut c)?;
    assert_bits_eq("vadd on the device", &c.to_vec()?, &on_host());
    Ok(())
}
