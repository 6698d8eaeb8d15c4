//! `?` on a `Result` whose error converts through `From` (issue 15): the numeric `From`
//! (`u8` into `u32`) and a `#[device_fn] impl From<X> for T` into a `DeviceRepr` error type;
//! `T::from(x)` called directly. Each kernel runs on the host and on the CPU backend, compared
//! bit for bit; every module goes through ptxas.

use crate::body_iter::agree;
use ptx_runtime::device::*;
use ptx_runtime::kernel;

pub mod conv {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, PartialEq)]
    #[repr(C)]
    pub struct Fault {
        pub code: u32,
        pub weight: f32,
    }

    /// What went wrong (`kind` 1: out of range, 2: not a digit, 3: other) and a value.
    #[derive(DeviceRepr, Clone, Copy, PartialEq)]
    #[repr(C)]
    pub struct AppErr {
        pub kind: u32,
        pub val: u32,
    }

    #[device_fn]
    impl From<Fault> for AppErr {
        fn from(f: Fault) -> AppErr {
            if f.weight > 0.5 { AppErr { kind: 1, val: f.code } } else { AppErr { kind: 3, val: 0 } }
        }
    }

    #[device_fn]
    impl From<u8> for AppErr {
        fn from(b: u8) -> AppErr {
            AppErr { kind: 2, val: b as u32 }
        }
    }

    /// A digit's value, or the byte.
    #[device_fn]
    pub fn digit(b: u8) -> Result<u32, u8> {
        if b >= b'0' && b <= b'9' { Ok((b - b'0') as u32) } else { Err(b) }
    }

    /// Two digits: the error converts from `u8` to `u32` (the numeric `From`).
    #[device_fn]
    pub fn two_digits(a: u8, b: u8) -> Result<u32, u32> {
        let x = digit(a)?;
        let y = digit(b)?;
        Ok(x * 10 + y)
    }

    #[device_fn]
    pub fn checked(v: f32, code: u32) -> Result<f32, Fault> {
        if v >= 0.0 { Ok(v.sqrt()) } else { Err(Fault { code, weight: -v }) }
    }

    /// Errors of two types converted into `AppErr` by its `From` impls.
    #[device_fn]
    pub fn combined(v: f32, b: u8, code: u32) -> Result<f32, AppErr> {
        let r = checked(v, code)?;
        let d = digit(b)?;
        Ok(r + d as f32)
    }
}

#[kernel]
pub fn try_from_errors(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let o = &mut out[t * 4..t * 4 + 4];
    let (a, b) = ((y[t] % 14) as u8 + 46, (y[t + 1] % 12) as u8 + 47);
    o[0] = match conv::two_digits(a, b) {
        Ok(v) => v as f32,
        Err(e) => -(e as f32),
    };
    o[1] = match conv::combined(x[t] * 2.0, b, t as u32) {
        Ok(v) => v,
        Err(e) => 1000.0 * e.kind as f32 + e.val as f32,
    };
    let e = conv::AppErr::from(a);
    o[2] = if e == (conv::AppErr { kind: 2, val: a as u32 }) { 1.0 } else { 0.0 };
    let f = conv::AppErr::from(conv::Fault { code: 7, weight: x[t] });
    o[3] = (f.kind * 10 + f.val) as f32;
}

#[test]
fn question_mark_converts_errors_as_the_host_does() {
    let out = agree("try_from_errors", try_from_errors::PTX, 4, try_from_errors, |s, c, x, y, o| try_from_errors::launch(s, c, x, y, o));
    let errs = out.chunks(4).filter(|r| r[0] < 0.0).count();
    assert!(errs > 0 && errs < 32, "both outcomes of `?` occur: {errs}");
    assert!(out.chunks(4).any(|r| r[1] >= 2000.0) && out.chunks(4).any(|r| (1000.0..2000.0).contains(&r[1])));
    assert!(out.chunks(4).all(|r| r[2] == 1.0));
}
