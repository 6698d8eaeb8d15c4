//! The runtime API: devices, streams, buffers, configurations and launch errors.

use ptx_runtime::{BackendKind, Device, DeviceBuffer, Error, LaunchConfig};

#[ptx_runtime::kernel]
pub fn nothing(_x: &[f32], _y: &mut [f32], _a: f32) {}

#[test]
fn cpu_device_is_always_available() {
    let d = Device::cpu();
    assert_eq!(d.kind(), BackendKind::Cpu);
    assert!(d.name().contains("CPU"));
    assert_eq!(Device::from_spec("cpu").unwrap().kind(), BackendKind::Cpu);
}

#[test]
fn asking_for_cuda_without_a_gpu_is_an_error_not_a_panic() {
    match Device::cuda(0) {
        Ok(d) => assert_eq!(d.kind(), BackendKind::Cuda), // a GPU machine
        Err(Error::NoDriver { detail }) => assert!(detail.contains("Device::cpu()"), "{detail}"),
        Err(Error::NoDevice { ordinal: 0, count: 0 }) => {}
        Err(e) => panic!("unexpected error: {e}"),
    }
    match Device::cuda(1000) {
        Err(Error::NoDriver { .. } | Error::NoDevice { ordinal: 1000, .. }) => {}
        other => panic!("cuda(1000) gave {other:?}"),
    }
    assert!(matches!(Device::from_spec("gpu"), Err(Error::InvalidConfig { .. })));
}

#[test]
fn buffers_round_trip_with_views() {
    let stream = Device::cpu().stream();
    let host: Vec<u32> = (0..100).collect();
    let mut buf = DeviceBuffer::from_slice(&stream, &host).unwrap();
    assert_eq!(buf.len(), 100);
    assert_eq!(buf.to_vec().unwrap(), host);
    buf.slice_mut(10..12).unwrap().copy_from_slice(&[1000, 1001]).unwrap();
    assert_eq!(buf.slice(9..13).unwrap().to_vec().unwrap(), [9, 1000, 1001, 12]);
    let view = buf.slice(50..).unwrap().into_slice(..3).unwrap();
    assert_eq!(view.to_vec().unwrap(), [50, 51, 52]);
    assert_eq!(view.device_address(), buf.device_address() + 200);
    assert!(matches!(buf.slice(90..101), Err(Error::InvalidBuffer { .. })));
    assert!(matches!(buf.copy_from_slice(&[1, 2, 3]), Err(Error::InvalidBuffer { .. })));
    let zeros = DeviceBuffer::<f64>::zeroed(&stream, 5).unwrap();
    assert_eq!(zeros.to_vec().unwrap(), [0.0; 5]);
    let empty = DeviceBuffer::<u8>::zeroed(&stream, 0).unwrap();
    assert!(empty.to_vec().unwrap().is_empty());
}

#[test]
fn invalid_configurations_are_rejected_before_launch() {
    let stream = Device::cpu().stream();
    let x = DeviceBuffer::<f32>::zeroed(&stream, 4).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 4).unwrap();
    let too_big = LaunchConfig::new(1, 1025);
    match nothing::launch(&stream, too_big, &x, &mut y, 1.0) {
        Err(Error::InvalidConfig { reason }) => assert!(reason.contains("1025"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[ptx_runtime::kernel]
pub fn loaded_once(_x: &mut [u32]) {}

#[test]
fn launches_run_on_the_cpu_backend() {
    let stream = Device::cpu().stream();
    let mut x = DeviceBuffer::<u32>::zeroed(&stream, 64).unwrap();
    for _ in 0..3 {
        loaded_once::launch(&stream, LaunchConfig::for_num_elems(64), &mut x).unwrap();
    }
    stream.synchronize().unwrap();
    assert!(Device::cpu().modules_loaded() >= 1);
}
