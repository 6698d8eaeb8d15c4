//! Pinned host memory and asynchronous copies, and copies from and to host slices without a
//! staging `Vec`: results against host computations, the rule that the host never sees memory a
//! copy still uses, and the errors (lengths, ranges, allocations beyond the host's memory).

use ptx_runtime::device::*;
use ptx_runtime::{Device, DeviceBuffer, DeviceRepr, Error, LaunchConfig, PinnedBuffer};

#[ptx_runtime::kernel]
pub fn affine(x: &mut [f32], a: f32, b: f32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] = a * x[i] + b;
    }
}

fn device() -> Device {
    Device::select().unwrap_or_else(|_| Device::cpu())
}

#[test]
fn pinned_round_trip_through_a_kernel() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let n = 3000;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut host = PinnedBuffer::from_slice(&device, &x).unwrap();
    let mut dev = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    dev.copy_from_pinned_async(&host, &stream).unwrap();
    affine::launch(&stream, LaunchConfig::for_num_elems(n as u32), &mut dev, 2.0, 1.0).unwrap();
    dev.copy_to_pinned_async(&mut host, &stream).unwrap();
    // No synchronize: reading the pinned buffer waits for the copy into it.
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(&*host.as_slice().unwrap(), &want[..]);
    assert_eq!(host.to_vec().unwrap(), want);
}

/// The pattern pinned memory is for: chunks copied in, computed and copied out on several
/// streams, each chunk's copies overlapping the other streams' kernels.
#[test]
fn chunks_pipeline_over_streams() {
    let device = device();
    let streams: Vec<_> = (0..3).map(|_| device.new_stream().unwrap()).collect();
    let (n, chunk) = (4096usize, 1024usize);
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
    let src = PinnedBuffer::from_slice(&device, &x).unwrap();
    let mut dst = PinnedBuffer::<f32>::zeroed(&device, n).unwrap();
    let mut dev = DeviceBuffer::<f32>::zeroed(&streams[0], n).unwrap();
    for (c, start) in (0..n).step_by(chunk).enumerate() {
        let s = &streams[c % streams.len()];
        let r = start..start + chunk;
        let mut view = dev.slice_mut(r.clone()).unwrap();
        view.copy_from_pinned_async(src.slice(r.clone()).unwrap(), s).unwrap();
        affine::launch(s, LaunchConfig::for_num_elems(chunk as u32), &mut view, -1.0, 0.25).unwrap();
        view.as_slice().copy_to_pinned_async(dst.slice_mut(r).unwrap(), s).unwrap();
    }
    let want: Vec<f32> = x.iter().map(|v| 0.25 - v).collect();
    assert_eq!(dst.to_vec().unwrap(), want);
    // The source was only read: still the input.
    assert_eq!(src.to_vec().unwrap(), x);
}

#[test]
fn bad_pinned_copies_are_errors() {
    let device = device();
    let stream = device.stream();
    let host = PinnedBuffer::<f32>::zeroed(&device, 10).unwrap();
    let mut small = PinnedBuffer::<f32>::zeroed(&device, 4).unwrap();
    let mut dev = DeviceBuffer::<f32>::zeroed(&stream, 8).unwrap();
    let is_buffer_err = |r: ptx_runtime::Result<()>| matches!(r, Err(Error::InvalidBuffer { .. }));
    assert!(is_buffer_err(dev.copy_from_pinned_async(&host, &stream)), "10 into 8");
    assert!(is_buffer_err(dev.copy_to_pinned_async(&mut small, &stream)), "8 into 4");
    assert!(matches!(host.slice(5..11), Err(Error::InvalidBuffer { .. })));
    assert!(matches!(small.slice_mut(3..2), Err(Error::InvalidBuffer { .. })));
    // A buffer of another device.
    let other = Device::new_cpu().stream();
    assert!(is_buffer_err(dev.copy_from_pinned_async(host.slice(0..8).unwrap(), &other)));
    // The right lengths work.
    dev.copy_from_pinned_async(host.slice(2..10).unwrap(), &stream).unwrap();
}

#[test]
fn pinned_allocations_beyond_the_hosts_memory_are_errors() {
    let device = device();
    for len in [usize::MAX, usize::MAX / 4, 1 << 50] {
        match PinnedBuffer::<f32>::zeroed(&device, len) {
            Err(Error::OutOfHostMemory { requested, .. }) => assert!(requested >= len.min(usize::MAX / 4)),
            other => panic!("{len} floats: expected OutOfHostMemory, got {other:?}"),
        }
    }
    let e = PinnedBuffer::<f64>::zeroed(&device, 1 << 50).unwrap_err();
    assert!(e.to_string().contains("page-locked"), "{e}");
    // An empty buffer is fine, as an empty Vec is.
    let empty = PinnedBuffer::<u8>::zeroed(&device, 0).unwrap();
    assert!(empty.is_empty() && empty.as_slice().unwrap().is_empty());
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Dense {
    pub pos: [f32; 3],
    pub id: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Padded {
    pub flag: u8,
    pub value: f64,
}

/// Which types copy as bytes: the derive adds up its fields; padding makes a type staged.
#[test]
fn no_padding_is_known_per_type() {
    assert!(<f32 as DeviceRepr>::NO_PADDING && <[u16; 3] as DeviceRepr>::NO_PADDING && <bool as DeviceRepr>::NO_PADDING);
    assert!(<ptx_runtime::vector::f32x3 as DeviceRepr>::NO_PADDING && <ptx_runtime::vector::f32x4 as DeviceRepr>::NO_PADDING);
    assert!(<Dense as DeviceRepr>::NO_PADDING);
    assert!(!<Padded as DeviceRepr>::NO_PADDING && !<[Padded; 2] as DeviceRepr>::NO_PADDING);
    let pinned = PinnedBuffer::from_slice(&Device::cpu(), &[Dense { pos: [1.0, 2.0, 3.0], id: 7 }]).unwrap();
    assert_eq!(pinned.to_vec().unwrap()[0].id, 7);
}

/// Host slices in and out, the direct path (padding-free) and the staged one (padded, whose
/// padding bytes arrive as zeros), both against the values written.
#[test]
fn slices_copy_in_and_out_of_views() {
    let stream = device().stream();
    let dense: Vec<Dense> = (0..50).map(|i| Dense { pos: [i as f32, -(i as f32), 0.5], id: i }).collect();
    let mut d = DeviceBuffer::from_slice(&stream, &dense).unwrap();
    let mut back = vec![Dense { pos: [0.0; 3], id: 0 }; 10];
    d.slice(20..30).unwrap().copy_to_slice(&mut back).unwrap();
    assert_eq!(back, &dense[20..30]);
    d.slice_mut(0..10).unwrap().copy_from_slice(&back).unwrap();
    assert_eq!(d.to_vec().unwrap()[..10], dense[20..30]);
    assert!(matches!(d.slice(0..10).unwrap().copy_to_slice(&mut back[..9]), Err(Error::InvalidBuffer { .. })));

    let padded: Vec<Padded> = (0..9).map(|i| Padded { flag: i as u8, value: i as f64 / 3.0 }).collect();
    let p = DeviceBuffer::from_slice(&stream, &padded).unwrap();
    assert_eq!(p.to_vec().unwrap(), padded);
    // The padding bytes of a staged upload are zeros: read the buffer back as bytes.
    let mut one = DeviceBuffer::<Padded>::zeroed(&stream, 1).unwrap();
    one.copy_from_slice(&[Padded { flag: 0xab, value: 1.5 }]).unwrap();
    let mut copy = DeviceBuffer::<[u8; 16]>::zeroed(&stream, 1).unwrap();
    copy_bytes(&one, &mut copy);
    let b = copy.to_vec().unwrap()[0];
    assert_eq!(b[0], 0xab);
    assert_eq!(&b[1..8], &[0; 7], "padding");
    assert_eq!(f64::from_le_bytes(b[8..].try_into().unwrap()), 1.5);
}

#[ptx_runtime::kernel]
pub fn copy16(src: *const u8, dst: *mut u8) {
    let i = thread_idx_x() as usize;
    unsafe { dst.add(i).write(src.add(i).read()) };
}

fn copy_bytes(src: &DeviceBuffer<Padded>, dst: &mut DeviceBuffer<[u8; 16]>) {
    let stream = device().stream();
    let (s, d) = (src.device_address() as *const u8, dst.device_address() as *mut u8);
    // SAFETY: both buffers hold 16 bytes.
    unsafe { copy16::launch(&stream, LaunchConfig::new(1, 16), s, d).unwrap() };
}

#[test]
fn modules_assemble() {
    crate::tools::assemble("affine", affine::PTX);
    crate::tools::assemble("copy16", copy16::PTX);
}

/// Random ranges on both sides of asynchronous copies: each is `Ok` exactly when both ranges
/// are in bounds and of one length, and then moves exactly those elements (a host model of both
/// buffers says which), never a panic.
#[test]
fn random_pinned_copies_are_exact_or_errors() {
    let device = Device::cpu();
    let stream = device.new_stream().unwrap();
    let n = 48usize;
    let mut host_model: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
    let mut dev_model = vec![0u32; n];
    let mut pinned = PinnedBuffer::from_slice(&device, &host_model).unwrap();
    let mut dev = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m as u64) as usize
    };
    let mut ok = 0;
    for case in 0..3000 {
        // Mostly equal lengths, sometimes one more on the device side or a reversed range.
        let len = next(n / 2 + 4);
        let (mut a, c) = (next(n + 4), next(n + 4));
        let (mut b, d) = (a + len, c + len + (next(4) == 0) as usize);
        if next(8) == 0 {
            std::mem::swap(&mut a, &mut b);
        }
        let valid = a <= b && b <= n && c <= d && d <= n && b - a == d - c;
        let to_device = next(2) == 0;
        let r = if to_device {
            pinned.slice(a..b).and_then(|src| dev.slice_mut(c..d)?.copy_from_pinned_async(src, &stream))
        } else {
            dev.slice(c..d).and_then(|src| src.copy_to_pinned_async(pinned.slice_mut(a..b)?, &stream))
        };
        assert_eq!(r.is_ok(), valid, "case {case}: pinned {a}..{b}, device {c}..{d}: {r:?}");
        if valid {
            ok += 1;
            if to_device {
                dev_model[c..d].copy_from_slice(&host_model[a..b]);
            } else {
                host_model[a..b].copy_from_slice(&dev_model[c..d]);
            }
        }
        if case % 100 == 0 {
            // A device-side change the model knows, so both directions keep moving data.
            dev_model[case % n] = case as u32;
            dev.slice_mut(case % n..case % n + 1).unwrap().copy_from_slice(&[case as u32]).unwrap();
        }
    }
    assert!(ok > 100, "only {ok} valid copies");
    assert_eq!(pinned.to_vec().unwrap(), host_model);
    assert_eq!(dev.to_vec().unwrap(), dev_model);
}
