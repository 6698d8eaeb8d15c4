//! Block maximum in dynamic shared memory, sized at launch (`extern __shared__`).

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn block_max(x: &[i32], out: &mut [i32]) {
    let mut buf = unsafe { dynamic_shared::<i32>() };
    let tid = thread_idx_x() as usize;
    let i = block_idx_x() as usize * block_dim_x() as usize + tid;
    buf[tid] = if i < x.len() { x[i] } else { i32::MIN };
    sync_threads();
    let mut s = block_dim_x() as usize / 2;
    while s > 0 {
        if tid < s {
            buf[tid] = buf[tid].max(buf[tid + s]);
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        out[block_idx_x() as usize] = buf[0];
    }
}

pub const PTX: &[(&str, &str)] = &[("block_max", block_max::PTX)];
const N: usize = 1000;
const BLOCK: usize = 128;
const BLOCKS: usize = N.div_ceil(BLOCK);

fn input() -> Vec<i32> {
    let mut r = Rng::new(14);
    (0..N).map(|_| r.u32() as i32).collect()
}

fn on_host() -> Vec<i32> {
    let x = input();
    let mut out = vec![0; BLOCKS];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: thread 0 of each block writes its element.
    host::run([BLOCKS as u32, 1, 1], [BLOCK as u32, 1, 1], BLOCK * 4, || block_max(&x, unsafe { o.get() }));
    out
}

pub fn check_host() {
    let want: Vec<i32> = input().chunks(BLOCK).map(|c| *c.iter().max().unwrap_or(&i32::MIN)).collect();
    assert_eq!(on_host(), want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<i32>::zeroed(stream, BLOCKS)?;
    let config = LaunchConfig::new(BLOCKS as u32, BLOCK as u32).with_shared_bytes((BLOCK * 4) as u32);
    block_max::launch(stream, config, &x, &mut out)?;
    assert_eq!(out.to_vec()?, on_host());
    Ok(())
}
