//! Method syntax for a user trait's methods on primitives outside a generic instance:
//! `x.halve()` in a kernel on an `f32` or `u32` local, the trait's default method included,
//! found through the impl's module glob-imported (`use super::prims::*`) or from inside it. Run
//! on the host and on the CPU backend and compared bit for bit; the modules through ptxas, the
//! symbols through `c++filt`.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod prims {
    use ptx_runtime::device::*;
    use ptx_runtime::{device_fn, kernel};

    #[device_fn]
    pub trait Halve: Copy {
        fn halve(self) -> Self;
        fn scaled(self, k: f32) -> f32;
        // A default method, compiled for each primitive.
        fn quarter(self) -> Self {
            self.halve().halve()
        }
    }

    #[device_fn]
    impl Halve for f32 {
        fn halve(self) -> f32 {
            self * 0.5
        }
        fn scaled(self, k: f32) -> f32 {
            self * k
        }
    }

    #[device_fn]
    impl Halve for u32 {
        fn halve(self) -> Self {
            self >> 1
        }
        fn scaled(self, k: f32) -> f32 {
            self as f32 * k
        }
    }

    // In the impl's own module.
    #[kernel]
    pub fn near(xs: &[f32], out: &mut [f32]) {
        let i = thread_idx_x() as usize;
        let x = xs[i];
        out[i] = x.halve() + (x - 1.0).quarter();
    }
}

mod user {
    use super::prims::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    // Elsewhere, with the impl's module glob-imported: rustc sees the trait, the body the
    // impl's names.
    #[kernel]
    pub fn far(xs: &[f32], ns: &[u32], out: &mut [f32], outn: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let x = xs[i];
        let n = ns[i];
        let h: f32 = x.halve();
        out[i] = h.scaled(3.0) + xs[i].quarter() + n.scaled(0.25) + (x * 2.0).halve();
        outn[i] = n.halve() + ns[i].quarter();
    }
}

#[test]
fn method_syntax_on_primitives_runs_as_on_the_host() {
    assemble("prim_methods_near", prims::near::PTX);
    assemble("prim_methods_far", user::far::PTX);
    let n = 32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.75 - 3.0).collect();
    let ns: Vec<u32> = (0..n).map(|i| i as u32 * 37 + 5).collect();
    let (mut out, mut near, mut outn) = (vec![0.0f32; n], vec![0.0f32; n], vec![0u32; n]);
    {
        let (o, nr, on) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut near), host::Disjoint::new(&mut outn));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || user::far(&xs, &ns, unsafe { o.get() }, unsafe { on.get() }));
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || prims::near(&xs, unsafe { nr.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (xb, nb) = (DeviceBuffer::from_slice(&stream, &xs).unwrap(), DeviceBuffer::from_slice(&stream, &ns).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut nrb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut onb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    user::far::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &nb, &mut ob, &mut onb).unwrap();
    prims::near::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut nrb).unwrap();
    let (d, dn, dnear) = (ob.to_vec().unwrap(), onb.to_vec().unwrap(), nrb.to_vec().unwrap());
    for i in 0..n {
        assert_eq!(out[i].to_bits(), d[i].to_bits(), "thread {i}: host {}, device {}", out[i], d[i]);
        assert_eq!(near[i].to_bits(), dnear[i].to_bits(), "thread {i}: host {}, device {}", near[i], dnear[i]);
        assert_eq!(outn[i], dn[i], "thread {i}");
    }
    // The calls are the impls' functions, the default compiled per primitive, each under the
    // name nvcc gives a member of the class the trait is for the primitive.
    let ptx = user::far::PTX;
    for (sym, shown) in [
        ("_ZNK5suite17body_prim_methods5prims9Halve_f325halveE", "suite::body_prim_methods::prims::Halve_f32::halve const"),
        ("_ZNK5suite17body_prim_methods5prims9Halve_f327quarterE", "suite::body_prim_methods::prims::Halve_f32::quarter const"),
        ("_ZNK5suite17body_prim_methods5prims9Halve_u325halveE", "suite::body_prim_methods::prims::Halve_u32::halve const"),
        ("_ZNK5suite17body_prim_methods5prims9Halve_u326scaledE", "suite::body_prim_methods::prims::Halve_u32::scaled const"),
    ] {
        assert!(ptx.contains(&format!(".func {sym}(")) || ptx.contains(&format!("{sym}(")), "{sym}:\n{ptx}");
        demangles_to(sym, shown);
    }
}

/// `c++filt` prints `sym` as `shown` (where `c++filt` is installed).
pub fn demangles_to(sym: &str, shown: &str) {
    if let Ok(out) = std::process::Command::new("c++filt").arg(sym).output() {
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), shown, "c++filt {sym}");
    }
}
