//! The methods of `Option` and `Result` that take closures (`map`, `and_then`, `or_else`,
//! `unwrap_or_else`, `map_or`, `map_or_else`, `filter`, `is_some_and`, `is_none_or`,
//! `ok_or_else`, `map_err`, `is_ok_and`, `is_err_and`), each the `match` it stands for, with
//! closures written in the call, bound to a local, capturing and not, and a function's path.
//! The kernel runs on the host (`host::run`) and on the CPU backend and the results are
//! compared bit for bit; the module goes through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod oc {
    use ptx_runtime::device_fn;

    #[device_fn]
    pub fn halve(x: u32) -> u32 {
        x / 2
    }

    /// `Err` with a code for odd input.
    #[device_fn]
    pub fn even(x: u32) -> Result<u32, u32> {
        if x % 2 == 0 {
            Ok(x)
        } else {
            Err(x % 7)
        }
    }

    /// `and_then` with a closure that returns an `Option`, in a device function.
    #[device_fn]
    pub fn third_after(xs: &[u32], i: usize) -> Option<u32> {
        xs.get(i).and_then(|v| if *v % 3 == 0 { Some(*v / 3) } else { None })
    }
}

#[kernel]
pub fn option_closures(x: &[u32], out: &mut [u32], flags: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let k = x[i] % 5;
        let o = if x[i] % 4 == 0 { None } else { Some(x[i]) };
        let mut v = x.get(i + 3).map(|v| *v + 1).unwrap_or(0);
        v = v.wrapping_mul(3) + o.map(|a| a * k).unwrap_or_else(|| k + 100);
        v += o.map_or(7, |a| a ^ k) * 5;
        v += o.map_or_else(|| i as u32, oc::halve) * 11;
        v += o.filter(|a| *a > 20).unwrap_or(1) * 13;
        let double = |a: u32| a * 2;
        v += o.and_then(|a| if a > 10 { Some(double(a)) } else { None }).unwrap_or(9) * 17;
        v += o.or_else(|| if k > 2 { Some(k) } else { None }).map(double).unwrap_or(3) * 19;
        v += oc::third_after(x, i + 1).unwrap_or(2) * 23;
        let r = oc::even(x[i]);
        v += r.map(|a| a + 1).map_err(|e| e * 10).unwrap_or_else(|e| e + 1000) * 29;
        v += r.and_then(|a| oc::even(a / 2)).unwrap_or_else(|e| e) * 31;
        v += r.or_else(|e| if e > 3 { Ok(e) } else { Err(e) }).map_or(4, |a| a + k) * 37;
        v += r.map_or_else(|e| e + 50, |a| a + 2) * 41;
        let e = o.ok_or_else(|| k * 3);
        v += match e {
            Ok(a) => a,
            Err(c) => c + 200,
        } * 43;
        let mut flag = 0u32;
        flag |= o.is_some_and(|a| a > 15) as u32;
        flag |= (o.is_none_or(|a| a % 3 == 0) as u32) << 1;
        flag |= (r.is_ok_and(|a| a > 8) as u32) << 2;
        flag |= (r.is_err_and(|e| e == k) as u32) << 3;
        // A capturing `move` closure and a closure's name passed on.
        let base = k + 1;
        let add = move |a: u32| a + base;
        v += o.map(add).unwrap_or(base) * 47;
        out[i] = v;
        flags[i] = flag;
    }
}

#[test]
fn option_closures_compile_through_ptxas() {
    assemble("option_closures", option_closures::PTX);
    assemble("third_after", oc::third_after::PTX);
}

#[test]
fn option_closure_methods_agree_with_the_host() {
    let x: Vec<u32> = (0..96u32).map(|i| (i * 37 + 5) % 41).collect();
    let n = x.len() - 3;
    let (mut out, mut flags) = (vec![0u32; n], vec![0u32; n]);
    {
        let (o, f) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut flags));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || option_closures(&x, unsafe { o.get() }, unsafe { f.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    let mut fb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    option_closures::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut ob, &mut fb).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
    assert_eq!(fb.to_vec().unwrap(), flags);
    // Each predicate held for some thread and not for others.
    for bit in 0..4 {
        assert!(flags.iter().any(|f| f >> bit & 1 == 1) && flags.iter().any(|f| f >> bit & 1 == 0), "bit {bit}: {flags:?}");
    }
}
