//! Device functions taking and returning structs by value: complex arithmetic, and a struct
//! with mixed field sizes (a `u8`, an `f64`, an `i16`: padding on both sides of the `f64`).

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Complex {
    pub re: f32,
    pub im: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Mixed {
    pub tag: u8,
    pub value: f64,
    pub delta: i16,
}

#[device_fn]
pub fn cmul(a: Complex, b: Complex) -> Complex {
    Complex { re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re }
}

#[device_fn]
pub fn cpow(z: Complex, n: u32) -> Complex {
    let mut r = Complex { re: 1.0, im: 0.0 };
    for _ in 0..n {
        r = cmul(r, z);
    }
    r
}

#[device_fn]
pub fn bump(m: Mixed, by: i16) -> Mixed {
    Mixed { tag: m.tag.wrapping_add(1), value: m.value * 2.0, delta: m.delta.wrapping_add(by) }
}

#[kernel]
pub fn struct_fn(z: &[Complex], out: &mut [Complex], ms: &mut [Mixed], n: u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < z.len() {
        out[i] = cpow(z[i], n);
        ms[i] = bump(ms[i], -300);
    }
}

pub const PTX: &[(&str, &str)] = &[("struct_fn", struct_fn::PTX), ("cmul", cmul::PTX), ("bump", bump::PTX)];
const N: usize = 50;
const POWER: u32 = 5;

fn inputs() -> (Vec<Complex>, Vec<Mixed>) {
    let mut r = Rng::new(13);
    let z = (0..N).map(|_| Complex { re: r.f32(-1.5, 1.5), im: r.f32(-1.5, 1.5) }).collect();
    let m = (0..N).map(|i| Mixed { tag: (250 + i) as u8, value: i as f64 * 0.1, delta: (i as i16) * 500 - 12000 }).collect();
    (z, m)
}

fn on_host() -> (Vec<Complex>, Vec<Mixed>) {
    let (z, mut m) = inputs();
    let mut out = vec![Complex { re: 0.0, im: 0.0 }; N];
    let (oo, mo) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut m));
    // SAFETY: one element per thread.
    host::run([2, 1, 1], [32, 1, 1], 0, || struct_fn(&z, unsafe { oo.get() }, unsafe { mo.get() }, POWER));
    (out, m)
}

pub fn check_host() {
    let (z, m0) = inputs();
    let (out, m) = on_host();
    for i in 0..N {
        let mut r = Complex { re: 1.0, im: 0.0 };
        for _ in 0..POWER {
            r = Complex { re: r.re * z[i].re - r.im * z[i].im, im: r.re * z[i].im + r.im * z[i].re };
        }
        assert_eq!(out[i], r);
        assert_eq!(m[i], Mixed { tag: m0[i].tag.wrapping_add(1), value: m0[i].value * 2.0, delta: m0[i].delta.wrapping_add(-300) });
    }
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (z, m) = inputs();
    let zb = DeviceBuffer::from_slice(stream, &z)?;
    let mut out = DeviceBuffer::<Complex>::zeroed(stream, N)?;
    let mut mb = DeviceBuffer::from_slice(stream, &m)?;
    struct_fn::launch(stream, LaunchConfig::new(2, 32), &zb, &mut out, &mut mb, POWER)?;
    let (ho, hm) = on_host();
    assert_eq!(out.to_vec()?, ho);
    assert_eq!(mb.to_vec()?, hm);
    Ok(())
}
