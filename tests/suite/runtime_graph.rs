//! Graphs: a stream's launches and asynchronous copies captured, then replayed — N replays
//! against N eager runs of the same work, on the CPU backend (and on a GPU where one is lent) —
//! and the errors: captures not begun or begun twice, a graph on another device's stream, a
//! buffer dropped after the capture, a pinned buffer the host holds during a replay.

use ptx_runtime::device::*;
use ptx_runtime::{Device, DeviceBuffer, Error, Graph, LaunchConfig, PinnedBuffer, Stream};

#[ptx_runtime::kernel]
pub fn step(x: &mut [u32], acc: &mut [u32], k: u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] = x[i].wrapping_mul(1_664_525).wrapping_add(k);
        acc[i] = acc[i].wrapping_add(x[i] >> 7);
    }
}

fn device() -> Device {
    Device::select().unwrap_or_else(|_| Device::cpu())
}

const N: usize = 1000;

/// One iteration: the input copied in from pinned memory, two dependent launches, the state
/// copied out to pinned memory.
fn iteration(s: &Stream, input: &PinnedBuffer<u32>, x: &mut DeviceBuffer<u32>, acc: &mut DeviceBuffer<u32>, out: &mut PinnedBuffer<u32>) -> ptx_runtime::Result<()> {
    let cfg = LaunchConfig::for_num_elems(N as u32);
    acc.copy_from_pinned_async(input, s)?;
    step::launch(s, cfg, &mut *x, &mut *acc, 12_345)?;
    step::launch(s, cfg, &mut *x, &mut *acc, 1)?;
    x.copy_to_pinned_async(&mut *out, s)
}

#[test]
fn replaying_a_graph_n_times_equals_n_eager_runs() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let seed: Vec<u32> = (0..N as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let input = PinnedBuffer::from_slice(&device, &(0..N as u32).collect::<Vec<_>>()).unwrap();
    let run = |replays: bool, times: usize| {
        let mut x = DeviceBuffer::from_slice(&stream, &seed).unwrap();
        let mut acc = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
        let mut out = PinnedBuffer::<u32>::zeroed(&device, N).unwrap();
        if replays {
            let graph = stream.capture(|s| iteration(s, &input, &mut x, &mut acc, &mut out)).unwrap();
            assert_eq!(x.to_vec().unwrap(), seed, "capturing runs nothing");
            for _ in 0..times {
                graph.launch(&stream).unwrap();
            }
        } else {
            for _ in 0..times {
                iteration(&stream, &input, &mut x, &mut acc, &mut out).unwrap();
            }
        }
        (x.to_vec().unwrap(), acc.to_vec().unwrap(), out.to_vec().unwrap())
    };
    for times in [1, 4] {
        let eager = run(false, times);
        assert_eq!(run(true, times), eager, "{times} replay(s)");
        assert_eq!(eager.0, eager.2, "the pinned output holds the last state");
    }
}

#[test]
fn a_graph_replays_on_any_stream_of_its_device() {
    let device = device();
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let mut x = DeviceBuffer::<u32>::zeroed(&a, N).unwrap();
    let mut acc = DeviceBuffer::<u32>::zeroed(&a, N).unwrap();
    let graph = a.capture(|s| step::launch(s, LaunchConfig::for_num_elems(N as u32), &mut x, &mut acc, 3)).unwrap();
    graph.launch(&b).unwrap();
    b.synchronize().unwrap();
    graph.launch(&a).unwrap();
    assert_eq!(x.to_vec().unwrap()[0], 3u32.wrapping_mul(1_664_525).wrapping_add(3));
}

#[test]
fn capture_errors() {
    let device = device();
    let stream = device.new_stream().unwrap();
    assert!(matches!(stream.end_capture(), Err(Error::InvalidOperation { .. })), "not begun");
    stream.begin_capture().unwrap();
    assert!(stream.is_capturing());
    assert!(matches!(stream.begin_capture(), Err(Error::InvalidOperation { .. })), "begun twice");
    let empty: Graph = stream.end_capture().unwrap();
    assert!(!stream.is_capturing());
    empty.launch(&stream).unwrap();

    // A launch the configuration check refuses fails at capture time; `capture` ends the
    // capture and returns that error.
    let mut x = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
    let mut acc = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
    let r = stream.capture(|s| step::launch(s, LaunchConfig::new(1, 2048), &mut x, &mut acc, 1));
    assert!(matches!(r, Err(Error::InvalidConfig { .. })), "{:?}", r.err());
    assert!(!stream.is_capturing(), "the failed capture was ended");

    // A graph cannot be launched into a stream that is capturing.
    let graph = stream.capture(|s| step::launch(s, LaunchConfig::for_num_elems(N as u32), &mut x, &mut acc, 1)).unwrap();
    let other = device.new_stream().unwrap();
    other.begin_capture().unwrap();
    assert!(matches!(graph.launch(&other), Err(Error::InvalidOperation { .. })));
    other.end_capture().unwrap();
}

#[test]
fn a_graph_on_another_devices_stream_is_an_err() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let mut x = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
    let mut acc = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
    let graph = stream.capture(|s| step::launch(s, LaunchConfig::for_num_elems(N as u32), &mut x, &mut acc, 1)).unwrap();
    let elsewhere = Device::new_cpu().stream();
    match graph.launch(&elsewhere) {
        Err(Error::InvalidOperation { reason }) => assert!(reason.contains("another device"), "{reason}"),
        other => panic!("expected InvalidOperation, got {other:?}"),
    }
    assert_eq!(x.to_vec().unwrap(), vec![0; N], "nothing ran");
}

#[test]
fn a_graph_whose_buffer_was_dropped_refuses_to_replay() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let mut x = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
    let graph = {
        let mut acc = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
        stream.capture(|s| step::launch(s, LaunchConfig::for_num_elems(N as u32), &mut x, &mut acc, 1)).unwrap()
    };
    match graph.launch(&stream) {
        Err(Error::InvalidOperation { reason }) => assert!(reason.contains("dropped"), "{reason}"),
        other => panic!("expected InvalidOperation, got {other:?}"),
    }
    assert_eq!(x.to_vec().unwrap(), vec![0; N], "nothing ran");
}

/// A replay may write a pinned buffer without borrowing it, so it refuses while the host holds
/// one, and the host's next borrow waits for the replay.
#[test]
fn a_replay_never_touches_pinned_memory_the_host_holds() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let x = DeviceBuffer::from_slice(&stream, &vec![5u32; N]).unwrap();
    let mut out = PinnedBuffer::<u32>::zeroed(&device, N).unwrap();
    let graph = stream.capture(|s| x.copy_to_pinned_async(&mut out, s)).unwrap();
    {
        let held = out.as_slice().unwrap();
        assert!(matches!(graph.launch(&stream), Err(Error::InvalidOperation { .. })));
        assert_eq!(held[0], 0);
    }
    graph.launch(&stream).unwrap();
    assert_eq!(out.as_slice().unwrap()[N - 1], 5);
    // The graph keeps the pinned memory alive: dropping the buffer first is fine.
    drop(out);
    graph.launch(&stream).unwrap();
    stream.synchronize().unwrap();
}

/// The host's `x` and `acc` after one `step` per `k` of `ks`, from `x = seed`, `acc = 0`.
fn host_steps(seed: &[u32], ks: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let (mut x, mut acc) = (seed.to_vec(), vec![0u32; seed.len()]);
    for &k in ks {
        for (x, acc) in x.iter_mut().zip(acc.iter_mut()) {
            *x = x.wrapping_mul(1_664_525).wrapping_add(k);
            *acc = acc.wrapping_add(*x >> 7);
        }
    }
    (x, acc)
}

/// A capture on one thread while other threads, on the same device handle and on handles of
/// their own, create streams, allocate, copy and launch: neither side disturbs the other (on
/// CUDA, a context-wide synchronization or a wait for an event from outside the capture would
/// fail both; docs/runtime-streams.md). The capture also allocates a buffer while capturing.
#[test]
fn a_capture_on_one_thread_leaves_other_threads_working() {
    use std::sync::Barrier;
    const WORKERS: usize = 4;
    let device = device();
    let seed: Vec<u32> = (0..N as u32).map(|i| i ^ 0x5a5a).collect();
    // Both barriers: the capture has begun; the workers are done.
    let (begun, done) = (Barrier::new(WORKERS + 1), Barrier::new(WORKERS + 1));
    std::thread::scope(|scope| {
        for w in 0..WORKERS {
            let (device, seed, begun, done) = (&device, &seed, &begun, &done);
            scope.spawn(move || {
                begun.wait();
                // Half the workers open the device again (a context handle of their own, whose
                // first stream is new), half share the capturing thread's.
                let mine;
                let device = if w % 2 == 0 { device } else { mine = self::device(); &mine };
                for round in 0..3u32 {
                    let s = device.new_stream().unwrap();
                    let input = PinnedBuffer::from_slice(device, seed).unwrap();
                    let mut x = DeviceBuffer::<u32>::zeroed(&s, N).unwrap();
                    let mut acc = DeviceBuffer::<u32>::zeroed(&s, N).unwrap();
                    x.copy_from_pinned_async(&input, &s).unwrap();
                    let ks = [w as u32, round, 7];
                    for &k in &ks {
                        step::launch(&s, LaunchConfig::for_num_elems(N as u32), &mut x, &mut acc, k).unwrap();
                    }
                    let mut out = PinnedBuffer::<u32>::zeroed(device, N).unwrap();
                    x.copy_to_pinned_async(&mut out, &s).unwrap();
                    s.synchronize().unwrap();
                    let want = host_steps(seed, &ks);
                    assert_eq!(out.to_vec().unwrap(), want.0, "worker {w} round {round}: x");
                    assert_eq!(acc.to_vec().unwrap(), want.1, "worker {w} round {round}: acc");
                }
                done.wait();
            });
        }
        let stream = device.new_stream().unwrap();
        let mut x = DeviceBuffer::from_slice(&stream, &seed).unwrap();
        let mut acc = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
        let cfg = LaunchConfig::for_num_elems(N as u32);
        stream.begin_capture().unwrap();
        step::launch(&stream, cfg, &mut x, &mut acc, 1).unwrap();
        begun.wait();
        let mut scratch = DeviceBuffer::<u32>::zeroed(&stream, N).unwrap();
        step::launch(&stream, cfg, &mut x, &mut scratch, 2).unwrap();
        done.wait();
        step::launch(&stream, cfg, &mut x, &mut acc, 3).unwrap();
        let graph = stream.end_capture().unwrap();
        assert_eq!(x.to_vec().unwrap(), seed, "capturing runs nothing");
        graph.launch(&stream).unwrap();
        let (want_x, _) = host_steps(&seed, &[1, 2, 3]);
        assert_eq!(x.to_vec().unwrap(), want_x, "the replay");
        let mut host_acc = vec![0u32; N];
        let (mut hx, mut hs) = (seed.clone(), vec![0u32; N]);
        for (i, k) in [1u32, 2, 3].into_iter().enumerate() {
            for j in 0..N {
                hx[j] = hx[j].wrapping_mul(1_664_525).wrapping_add(k);
                let a = if i == 1 { &mut hs[j] } else { &mut host_acc[j] };
                *a = a.wrapping_add(hx[j] >> 7);
            }
        }
        assert_eq!(acc.to_vec().unwrap(), host_acc);
        assert_eq!(scratch.to_vec().unwrap(), hs, "the buffer allocated while capturing");
    });
}

#[test]
fn modules_assemble() {
    crate::tools::assemble("graph_step", step::PTX);
}
