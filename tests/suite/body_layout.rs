//! The PTX writer's block order (`ptx-macros/src/back/ptx/writer.rs`, `layout`): every block is
//! laid out after one of its predecessors. Started at the earliest-created block left instead,
//! the `while` loop of the second `wrapping_pow` below, created before the code leading to it,
//! was laid out above that code and reached by a backward jump; ptxas 13.5 crashed (segfault at
//! `-O3`, every architecture) on the kernel difftest seed 20261304 drew with that shape.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, blocks_above_all_predecessors};
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

/// An early `return`, then two loops (`wrapping_pow` squares while the exponent has bits).
#[kernel]
pub fn return_then_pows(q: u64, p: u32, r: u32, out: &mut [u32]) {
    'b: {
        if q.is_power_of_two() {
            return;
        }
        out[0] = 3u32.wrapping_pow(p & r);
        break 'b;
    }
    out[1] = 5u32.wrapping_pow(p);
}

#[test]
fn every_block_follows_one_of_its_predecessors() {
    assert_eq!(
        blocks_above_all_predecessors(return_then_pows::PTX),
        Vec::<String>::new(),
        "{}",
        return_then_pows::PTX
    );
    assert!(assemble("return_then_pows", return_then_pows::PTX));
}

#[test]
fn the_early_return_and_the_loops_compute_the_hosts_results() {
    let stream = cpu_stream();
    for (q, p, r) in [
        (6u64, 5u32, 3u32),
        (12, 31, 0xffff_ffff),
        (3, 0, 7),
        (8, 9, 9),
    ] {
        let mut ob = DeviceBuffer::from_slice(&stream, &[7u32, 7]).unwrap();
        return_then_pows::launch(&stream, LaunchConfig::new(1, 1), q, p, r, &mut ob).unwrap();
        let want = if q.is_power_of_two() {
            [7, 7]
        } else {
            [3u32.wrapping_pow(p & r), 5u32.wrapping_pow(p)]
        };
        assert_eq!(ob.to_vec().unwrap(), want, "q = {q}, p = {p}, r = {r}");
    }
}
