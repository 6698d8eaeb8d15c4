//! Calls through a `#[device_fn] trait` outside a generic instance: a user trait's function of
//! a primitive (`num::Float::halve(x)`, `<f32 as Float>::zero()`) and of a `DeviceRepr` type
//! (`Shape::area(&c)`, `<Circle as Shape>::perimeter(&c)`), in a kernel with no bounds. Run on
//! the host and on the CPU backend and compared bit for bit; the module through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

mod user {
    use crate::body_generics::num;
    use crate::body_traits::shapes::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn trait_calls(xs: &[f32], ds: &[f64], cs: &[Circle], out: &mut [f32], out64: &mut [f64]) {
        let i = thread_idx_x() as usize;
        let x = xs[i];
        out[i] = num::Float::halve(x) + <f32 as num::Float>::zero() + <f32 as num::Float>::halve(2.5) + Shape::area(&cs[i]) + <Circle as Shape>::perimeter(&cs[i]) + cs[i].score();
        out64[i] = num::Float::halve(ds[i]) + <f64 as num::Float>::zero();
    }
}

#[test]
fn trait_path_calls_run_as_on_the_host() {
    use crate::body_traits::shapes::Circle;
    assemble("trait_path_calls", user::trait_calls::PTX);
    let n = 32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.75 - 3.0).collect();
    let ds: Vec<f64> = (0..n).map(|i| i as f64 / 7.0).collect();
    let cs: Vec<Circle> = (0..n).map(|i| Circle { r: 0.5 + i as f32 * 0.125 }).collect();
    let (mut out, mut out64) = (vec![0.0f32; n], vec![0.0f64; n]);
    {
        let (o, o64) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut out64));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || user::trait_calls(&xs, &ds, &cs, unsafe { o.get() }, unsafe { o64.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (xb, db, cb) = (DeviceBuffer::from_slice(&stream, &xs).unwrap(), DeviceBuffer::from_slice(&stream, &ds).unwrap(), DeviceBuffer::from_slice(&stream, &cs).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut ob64 = DeviceBuffer::<f64>::zeroed(&stream, n).unwrap();
    user::trait_calls::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &db, &cb, &mut ob, &mut ob64).unwrap();
    let (d, d64) = (ob.to_vec().unwrap(), ob64.to_vec().unwrap());
    for i in 0..n {
        assert_eq!(out[i].to_bits(), d[i].to_bits(), "thread {i}: host {}, device {}", out[i], d[i]);
        assert_eq!(out64[i].to_bits(), d64[i].to_bits(), "thread {i}: host {}, device {}", out64[i], d64[i]);
    }
    // The primitive's functions are the impl's, by their symbols (`num::Float_f32::halve`).
    let ptx = user::trait_calls::PTX;
    for sym in ["_ZNK5suite13body_generics3num9Float_f325halveE", "_ZN5suite13body_generics3num9Float_f324zeroE"] {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}:\n{ptx}");
    }
}
