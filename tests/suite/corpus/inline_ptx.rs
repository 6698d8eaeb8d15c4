//! Inline PTX: `ptx_asm!` with typed register operands. The body cannot run on the host (it
//! panics there, by design): the reference is written separately.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, ptx_asm, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]

pub fn madd_asm(a: &[i32], b: &[i32], c: &mut [i32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < c.len() {
        let x = a[i];
        let y = b[i];
        let r: i32;
        let mut acc = x;
        ptx_asm!("mad.lo.s32 {0}, {1}, {2}, {3};", out(i32) r, in(i32) x, in(i32) y, in(i32) 7);
        ptx_asm!("add.s32 {0}, {0}, {1};", inout(i32) acc, in(i32) r);
        c[i] = acc;
    }
}

pub const PTX: &[(&str, &str)] = &[("madd_asm", madd_asm::PTX)];
const N: usize = 200;

fn inputs() -> (Vec<i32>, Vec<i32>) {
    let mut r = Rng::new(18);
    ((0..N).map(|_| r.u32() as i32 >> 8).collect(), (0..N).map(|_| r.u32() as i32 >> 8).collect())
}

fn reference() -> Vec<i32> {
    let (a, b) = inputs();
    a.iter().zip(&b).map(|(x, y)| x.wrapping_mul(*y).wrapping_add(7).wrapping_add(*x)).collect()
}

pub fn check_host() {
    // Inline PTX has no host definition: the body panics with a message saying so.
    let (a, b) = inputs();
    let mut c = vec![0; N];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| madd_asm(&a, &b, &mut c)));
    let msg = r.expect_err("ptx_asm! runs only on the device");
    let text = msg.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| msg.downcast_ref::<String>().cloned()).unwrap_or_default();
    assert!(text.contains("only on the device"), "{text}");
    assert!(madd_asm::PTX.contains("mad.lo.s32"), "{}", madd_asm::PTX);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (a, b) = inputs();
    let (a, b) = (DeviceBuffer::from_slice(stream, &a)?, DeviceBuffer::from_slice(stream, &b)?);
    let mut c = DeviceBuffer::<i32>::zeroed(stream, N)?;
    madd_asm::launch(stream, LaunchConfig::new(1, 256), &a, &b, &mut c)?;
    assert_eq!(c.to_vec()?, reference());
    Ok(())
}
