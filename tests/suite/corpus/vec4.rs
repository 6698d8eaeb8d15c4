//! Native vectors: `f32x4` elements read and written with one vector access each
//! (`ld.global.nc.v4.f32`, `st.global.v4.f32`).

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::vector::f32x4;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn scale4(v: &[f32x4], out: &mut [f32x4], s: f32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < v.len() {
        let a = v[i];
        out[i] = f32x4::new(a.x * s, a.y * s, a.z * s, a.w + a.x);
    }
}

pub const PTX: &[(&str, &str)] = &[("scale4", scale4::PTX)];
const N: usize = 100;
const S: f32 = -3.5;

fn input() -> Vec<f32x4> {
    let mut r = Rng::new(15);
    (0..N).map(|_| f32x4::new(r.f32(-1.0, 1.0), r.f32(-1.0, 1.0), r.f32(-1.0, 1.0), r.f32(-1.0, 1.0))).collect()
}

fn flat(v: &[f32x4]) -> Vec<f32> {
    v.iter().flat_map(|a| [a.x, a.y, a.z, a.w]).collect()
}

fn on_host() -> Vec<f32x4> {
    let v = input();
    let mut out = vec![f32x4::default(); N];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([4, 1, 1], [32, 1, 1], 0, || scale4(&v, unsafe { o.get() }, S));
    out
}

pub fn check_host() {
    let want: Vec<f32x4> = input().iter().map(|a| f32x4::new(a.x * S, a.y * S, a.z * S, a.w + a.x)).collect();
    assert_bits_eq("scale4", &flat(&on_host()), &flat(&want));
    assert!(scale4::PTX.contains("ld.global.nc.v4.f32") && scale4::PTX.contains("st.global.v4.f32"), "{}", scale4::PTX);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let v = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<f32x4>::zeroed(stream, N)?;
    scale4::launch(stream, LaunchConfig::new(4, 32), &v, &mut out, S)?;
    assert_bits_eq("scale4 on the device", &flat(&out.to_vec()?), &flat(&on_host()));
    Ok(())
}
