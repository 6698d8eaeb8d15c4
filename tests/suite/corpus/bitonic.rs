//! Bitonic sort: one kernel launch per compare-exchange stage `(k, j)`; each thread orders
//! the pair `(i, i ^ j)`.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn bitonic_step(data: &mut [u32], j: u32, k: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    let ixj = i ^ j;
    if ixj > i && (ixj as usize) < data.len() {
        let a = data[i as usize];
        let b = data[ixj as usize];
        let up = (i & k) == 0;
        if (up && a > b) || (!up && a < b) {
            data[i as usize] = b;
            data[ixj as usize] = a;
        }
    }
}

pub const PTX: &[(&str, &str)] = &[("bitonic_step", bitonic_step::PTX)];
const N: usize = 512;

fn input() -> Vec<u32> {
    let mut r = Rng::new(10);
    (0..N).map(|_| r.u32() % 10_000).collect()
}

fn stages() -> Vec<(u32, u32)> {
    let mut s = Vec::new();
    let mut k = 2;
    while k <= N as u32 {
        let mut j = k / 2;
        while j > 0 {
            s.push((j, k));
            j /= 2;
        }
        k *= 2;
    }
    s
}

fn on_host() -> Vec<u32> {
    let mut d = input();
    for (j, k) in stages() {
        let o = host::Disjoint::new(&mut d);
        // SAFETY: the pairs (i, i ^ j) of a stage are disjoint.
        host::run([2, 1, 1], [256, 1, 1], 0, || bitonic_step(unsafe { o.get() }, j, k));
    }
    d
}

pub fn check_host() {
    let mut want = input();
    want.sort();
    assert_eq!(on_host(), want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let mut d = DeviceBuffer::from_slice(stream, &input())?;
    for (j, k) in stages() {
        bitonic_step::launch(stream, LaunchConfig::new(2, 256), &mut d, j, k)?;
    }
    assert_eq!(d.to_vec()?, on_host());
    Ok(())
}
