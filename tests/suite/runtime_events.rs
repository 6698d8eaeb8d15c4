//! Events and stream priorities: ordering across streams, timing, and the errors a CUDA user
//! would otherwise meet as silent clamping or undefined behaviour. The CPU backend runs here;
//! on a GPU the same checks hold (`PTX_DEVICE=cuda` in the GPU pack runs the suite there).

use ptx_runtime::device::*;
use ptx_runtime::{Device, DeviceBuffer, Error, LaunchConfig};
use std::time::Duration;

#[ptx_runtime::kernel]
pub fn bump(x: &mut [u32], times: u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let mut k = 0;
        while k < times {
            x[i] = x[i].wrapping_mul(3).wrapping_add(1);
            k += 1;
        }
    }
}

fn device() -> Device {
    Device::select().unwrap_or_else(|_| Device::cpu())
}

#[test]
fn a_stream_waits_for_an_event_of_another() {
    let device = device();
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let n = 4096;
    let mut x = DeviceBuffer::<u32>::zeroed(&a, n).unwrap();
    bump::launch(&a, LaunchConfig::for_num_elems(n as u32), &mut x, 200).unwrap();
    let done = a.record_event().unwrap();
    b.wait_event(&done).unwrap();
    // Queued on `b` after the wait: sees `a`'s result, whatever the streams' timing.
    bump::launch(&b, LaunchConfig::for_num_elems(n as u32), &mut x, 1).unwrap();
    b.synchronize().unwrap();
    let mut want = 0u32;
    for _ in 0..201 {
        want = want.wrapping_mul(3).wrapping_add(1);
    }
    assert!(x.to_vec().unwrap().iter().all(|&v| v == want));
    assert!(done.is_complete().unwrap());
}

#[test]
fn events_time_the_work_between_them() {
    let device = device();
    let stream = device.stream();
    let n = 1 << 14;
    let mut x = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    let start = stream.record_event().unwrap();
    bump::launch(&stream, LaunchConfig::for_num_elems(n as u32), &mut x, 64).unwrap();
    let end = stream.record_event().unwrap();
    end.synchronize().unwrap();
    let took = end.elapsed_since(&start).unwrap();
    assert!(took > Duration::ZERO, "a launch of {n} threads takes time");
    assert!(took < Duration::from_secs(60));
    // The other way round is no time at all, not a negative one.
    assert!(start.elapsed_since(&end).unwrap() <= took);
}

#[test]
fn stream_priorities_are_checked_against_the_device_range() {
    let device = device();
    let (least, greatest) = device.stream_priority_range().unwrap();
    assert!(greatest <= least, "CUDA numbers the greatest priority smallest");
    let s = device.new_stream_with_priority(greatest).unwrap();
    let mut x = DeviceBuffer::<u32>::zeroed(&s, 32).unwrap();
    bump::launch(&s, LaunchConfig::for_num_elems(32), &mut x, 1).unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![1; 32]);
    for p in [greatest - 1, least + 1] {
        match device.new_stream_with_priority(p) {
            Err(Error::InvalidConfig { reason }) => assert!(reason.contains("priority"), "{reason}"),
            other => panic!("priority {p}: {:?}", other.map(|_| ())),
        }
    }
}
