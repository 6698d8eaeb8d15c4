//! Many devices: independent CPU devices standing in for several GPUs, enumeration and
//! properties, copies between devices, peer access, and the errors of mixing devices.

use ptx_runtime::device::*;
use ptx_runtime::{BackendKind, Device, DeviceBuffer, Error, LaunchConfig};

#[ptx_runtime::kernel]
pub fn double(x: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] *= 2;
    }
}

#[test]
fn cpu_devices_are_independent() {
    let (a, b) = (Device::new_cpu(), Device::new_cpu());
    assert_ne!(a, b);
    assert_eq!(Device::cpu(), Device::cpu());
    assert_ne!(a, Device::cpu());
    let (sa, sb) = (a.stream(), b.stream());
    let mut xa = DeviceBuffer::from_slice(&sa, &[1u32, 2, 3]).unwrap();
    let mut xb = DeviceBuffer::from_slice(&sb, &[10u32, 20, 30]).unwrap();
    double::launch(&sa, LaunchConfig::for_num_elems(3), &mut xa).unwrap();
    assert_eq!((xa.to_vec().unwrap(), xb.to_vec().unwrap()), (vec![2, 4, 6], vec![10, 20, 30]));
    // Each device loads the kernel's module for itself, once.
    assert_eq!((a.modules_loaded(), b.modules_loaded()), (1, 0));
    double::launch(&sb, LaunchConfig::for_num_elems(3), &mut xb).unwrap();
    double::launch(&sb, LaunchConfig::for_num_elems(3), &mut xb).unwrap();
    assert_eq!((b.modules_loaded(), xb.to_vec().unwrap()), (1, vec![40, 80, 120]));
    // A buffer of one device is not an argument of a launch on another.
    match double::launch(&sb, LaunchConfig::for_num_elems(3), &mut xa) {
        Err(Error::InvalidBuffer { reason }) => assert!(reason.contains("different device"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn copies_between_and_within_devices() {
    let (a, b) = (Device::new_cpu(), Device::new_cpu());
    let (sa, sb) = (a.stream(), b.stream());
    let src = DeviceBuffer::from_slice(&sa, &(0..100u32).collect::<Vec<_>>()).unwrap();
    // Across devices (through the host), into a sub-range.
    let mut dst = DeviceBuffer::<u32>::zeroed(&sb, 10).unwrap();
    dst.slice_mut(2..6).unwrap().copy_from_device(&src.slice(50..54).unwrap()).unwrap();
    assert_eq!(dst.to_vec().unwrap(), [0, 0, 50, 51, 52, 53, 0, 0, 0, 0]);
    // Within one device (device to device).
    let mut same = DeviceBuffer::<u32>::zeroed(&sa, 3).unwrap();
    same.as_slice_mut().copy_from_device(&src.slice(97..).unwrap()).unwrap();
    assert_eq!(same.to_vec().unwrap(), [97, 98, 99]);
    // A whole buffer moved over, then used there.
    let mut moved = src.to_device(&sb).unwrap();
    double::launch(&sb, LaunchConfig::for_num_elems(100), &mut moved).unwrap();
    assert_eq!(moved.to_vec().unwrap(), (0..100u32).map(|v| v * 2).collect::<Vec<_>>());
    // Lengths must match.
    match dst.as_slice_mut().copy_from_device(&src.as_slice()) {
        Err(Error::InvalidBuffer { reason }) => assert!(reason.contains("copy_from_device"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn enumeration_properties_and_peer_access() {
    let all = Device::all().unwrap();
    assert!(!all.is_empty());
    if all[0].kind() == BackendKind::Cpu {
        assert_eq!(all, vec![Device::cpu()]);
    }
    let p = Device::cpu().properties().unwrap();
    assert_eq!((p.warp_size, p.max_threads_per_block, p.total_memory), (32, 1024, None));
    assert_eq!(p.compute_capability, (7, 5));
    assert!(p.multiprocessors >= 1 && p.max_shared_bytes_per_block >= 48 * 1024);
    assert_eq!(Device::select_by(|p| p.warp_size == 32).unwrap(), all[0]);
    assert!(matches!(Device::select_by(|p| p.warp_size == 64), Err(Error::NoDevice { .. })));
    let (a, b) = (Device::new_cpu(), Device::new_cpu());
    assert!(!a.can_access_peer(&b).unwrap());
    match a.enable_peer_access(&b) {
        Err(Error::InvalidConfig { reason }) => assert!(reason.contains("peer access"), "{reason}"),
        other => panic!("{other:?}"),
    }
}
