//! Small device functions are inlined into the kernels that call them, as nvcc inlines a small
//! `__device__` function (`expand/inline_form.rs`, `front/inline_call.rs`): no `.func`, no
//! call, the body's checks analysed with the kernel's; the failed check of an inlined body
//! reports its own file and line, as Rust does. Functions that name something of their module
//! other than the device API (a constant, another function), declare shared memory, are larger
//! or `#[inline(never)]` stay calls.

use crate::tools::assemble;
use ptx_runtime::device::host::{self, Disjoint};
use ptx_runtime::{DeviceBuffer, Error, LaunchConfig};

#[path = "body_inline_helpers.rs"]
mod helpers;

const HELPERS: &str = include_str!("body_inline_helpers.rs");

mod k {
    use super::helpers::{at, gid, scaled};
    use ptx_runtime::device::*;
    use ptx_runtime::{device_fn, kernel};

    #[device_fn]
    fn sq(v: f32) -> f32 {
        v * v
    }

    /// Early `return`, a local, an API call in a branch.
    #[device_fn]
    fn clamp_lane(v: f32, lo: f32) -> f32 {
        if v < lo {
            return lo;
        }
        let hi = lo + (lane_id() as f32) * 0.0 + 100.0;
        if v > hi { hi } else { v }
    }

    #[device_fn]
    #[inline(never)]
    fn kept(v: f32) -> f32 {
        v + 1.0
    }

    /// Calls another device function: stays a call.
    #[device_fn]
    fn twice_sq(v: f32) -> f32 {
        2.0 * sq(v)
    }

    #[kernel]
    pub fn inlined(x: &[f32], y: &mut [f32]) {
        let i = gid();
        if i < y.len() {
            y[i] = clamp_lane(sq(at(x, i)), -1.0) + at(x, i + 1);
        }
    }

    /// Under `debug` nothing is inlined by default (nvcc -G inlines only `__forceinline__`):
    /// a debugger steps into the calls.
    #[kernel(debug)]
    pub fn debugged(x: &[f32], y: &mut [f32]) {
        let i = gid();
        if i < y.len() {
            y[i] = sq(at(x, i));
        }
    }

    /// Declares shared memory: each inlined copy would have a tile of its own. Stays a call.
    #[device_fn]
    fn through_tile(v: f32) -> f32 {
        let mut t = unsafe { shared_array::<f32, 32>() };
        let l = lane_id() as usize;
        t[l] = v;
        t[l]
    }

    #[kernel]
    pub fn called(x: &[f32], y: &mut [f32]) {
        let i = gid();
        if i < y.len() && i < x.len() {
            y[i] = scaled(x[i]) + kept(x[i]) + twice_sq(x[i]) + through_tile(x[i]);
        }
    }
}

/// The file and line where the host run of `f` panics in the helpers' file (Rust's own report;
/// the host runner panics again, elsewhere, when one of its threads did).
fn host_panic_at(f: impl FnOnce()) -> (String, u32) {
    use std::sync::{Arc, Mutex};
    let at = Arc::new(Mutex::new(None));
    let seen = at.clone();
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Some(l) = info.location().filter(|l| l.file().ends_with("body_inline_helpers.rs")) {
            seen.lock().unwrap().get_or_insert((l.file().to_owned(), l.line()));
        }
    }));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(prev);
    assert!(r.is_err(), "the host run panics");
    let at = at.lock().unwrap().clone();
    at.expect("a location")
}

fn host_inlined(x: &[f32], n: usize) -> Vec<f32> {
    let mut y = vec![0.0f32; n];
    let o = Disjoint::new(&mut y);
    host::run([2, 1, 1], [32, 1, 1], 0, || k::inlined(x, unsafe { o.get() }));
    y
}

#[test]
fn small_device_functions_are_inlined_into_kernels() {
    let ptx = k::inlined::PTX;
    assemble("inline_default", ptx);
    for name in ["3gidE", "2atE", "2sqE", "10clamp_laneE"] {
        assert!(!ptx.contains(name), "`{name}` is inlined, no `.func` of it:\n{ptx}");
    }
    assert!(!ptx.contains("call.uni (retval0)"), "{ptx}");
    // The check of `at(x, i + 1)` is not proven; that of `at(x, i)` is subsumed by it.
    let stream = crate::body_exec::cpu_stream();
    let n = 50;
    let x: Vec<f32> = (0..=n).map(|i| (i as f32 - 20.0) * 0.37).collect();
    let want = host_inlined(&x, n);
    let dx = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut dy = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    k::inlined::launch(&stream, LaunchConfig::new(2, 32), &dx, &mut dy).unwrap();
    crate::corpus::assert_bits_eq("inlined", &dy.to_vec().unwrap(), &want);
    assert!(want.iter().any(|&v| v == -1.0) || want.iter().any(|&v| v > 0.0));
    // `x` one short: the last thread's `at(x, i + 1)` fails, in the helper, at its line.
    let short = &x[..n];
    let (file, line) = host_panic_at(|| {
        host_inlined(short, n);
    });
    let mark = HELPERS.lines().position(|l| l.contains("MARK: helper index")).unwrap() as u32 + 1;
    assert_eq!(line, mark, "Rust reports the helper's line");
    assert!(file.ends_with("body_inline_helpers.rs"), "{file}");
    let dx = DeviceBuffer::from_slice(&stream, short).unwrap();
    match k::inlined::launch(&stream, LaunchConfig::new(2, 32), &dx, &mut dy) {
        Err(Error::Assert { message, file: f, line: l, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert_eq!((f.as_str(), l), (file.as_str(), line), "reported where Rust reports it");
        }
        other => panic!("expected a failed bounds check in the helper, got {other:?}"),
    }
}

#[test]
fn device_functions_naming_their_module_stay_calls() {
    let ptx = k::called::PTX;
    assemble("inline_kept", ptx);
    // `gid` is inlined; `scaled` reads its module's constant, `kept` is `#[inline(never)]`,
    // `twice_sq` calls `sq`, `through_tile` declares shared memory: four calls.
    assert!(!ptx.contains("3gidE"), "{ptx}");
    for name in ["6scaledE", "4keptE", "8twice_sqE", "12through_tileE"] {
        assert!(ptx.contains(&format!("call.uni (retval0), _ZN")) && ptx.contains(name), "`{name}` stays a call:\n{ptx}");
    }
    let x: Vec<f32> = (0..40).map(|i| i as f32 * 0.5 - 7.0).collect();
    agrees_with_host("called", k::called, &|s, c, x, y| k::called::launch(s, c, x, y), &x);
}

#[test]
fn a_debug_kernel_calls_its_device_functions() {
    let ptx = k::debugged::PTX;
    assemble("inline_debug", ptx);
    for name in ["3gidE", "2atE", "2sqE"] {
        assert!(ptx.contains(name), "`{name}` stays a call under `debug`:\n{ptx}");
    }
    let x: Vec<f32> = (0..40).map(|i| i as f32 * 0.25 - 3.0).collect();
    agrees_with_host("debugged", k::debugged, &|s, c, x, y| k::debugged::launch(s, c, x, y), &x);
}

type Launch = dyn Fn(&ptx_runtime::Stream, LaunchConfig, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>) -> ptx_runtime::Result<()>;

/// Runs a kernel of `x` (as long as `y`) on the host and on the CPU backend, two blocks of 32,
/// and compares the results bit for bit.
fn agrees_with_host(name: &str, body: fn(&[f32], &mut [f32]), launch: &Launch, x: &[f32]) {
    let mut want = vec![0.0f32; x.len()];
    let o = Disjoint::new(&mut want);
    host::run([2, 1, 1], [32, 1, 1], 0, || body(x, unsafe { o.get() }));
    let stream = crate::body_exec::cpu_stream();
    let dx = DeviceBuffer::from_slice(&stream, x).unwrap();
    let mut dy = DeviceBuffer::<f32>::zeroed(&stream, x.len()).unwrap();
    launch(&stream, LaunchConfig::new(2, 32), &dx, &mut dy).unwrap();
    crate::corpus::assert_bits_eq(name, &dy.to_vec().unwrap(), &want);
}
