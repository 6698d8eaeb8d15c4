//! Enum variants imported inside a body (`use Op::*;`, `use Op::{Add, Sub};`) as values,
//! patterns and in `matches!`, and methods of a data-carrying enum (issue 15). Each kernel runs
//! on the host and on the CPU backend, compared bit for bit; every module goes through ptxas.

use crate::body_iter::agree;
use ptx_runtime::device::*;
use ptx_runtime::kernel;

pub mod ops {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[repr(u8)]
    #[derive(DeviceRepr, Clone, Copy, PartialEq, Eq)]
    pub enum Op {
        Add,
        Sub = 5,
        Mul,
        Min = 200,
    }

    #[repr(C, u32)]
    #[derive(DeviceRepr, Clone, Copy, PartialEq)]
    pub enum Shape {
        Circle { r: f32 },
        Rect(f32, f32),
        Empty,
    }

    #[device_fn]
    impl Shape {
        pub fn area(self) -> f32 {
            use Shape::*;
            match self {
                Circle { r } => 3.0 * r * r,
                Rect(w, h) => w * h,
                Empty => 0.0,
            }
        }

        pub fn widened(self, k: f32) -> Shape {
            use Shape::{Circle, Rect};
            match self {
                Circle { r } => Circle { r: r + k },
                Rect(w, h) => Rect(w + k, h),
                other => other,
            }
        }
    }

    #[device_fn]
    pub fn apply(op: Op, a: f32, b: f32) -> f32 {
        use Op::{Add, Mul, Sub as Minus};
        match op {
            Add => a + b,
            Minus => a - b,
            Mul => a * b,
            Op::Min => a.min(b),
        }
    }
}

#[kernel]
pub fn enum_use(x: &[f32], y: &[u32], out: &mut [f32]) {
    use ops::Op::*;
    let t = thread_idx_x() as usize;
    let o = &mut out[t * 4..t * 4 + 4];
    let op = match y[t] % 4 {
        0 => Add,
        1 => Sub,
        2 => Mul,
        _ => Min,
    };
    o[0] = ops::apply(op, x[t], x[t + 1]);
    o[1] = if matches!(op, Add | Mul) { 1.0 } else { 0.0 } + if op == Min { 10.0 } else { 0.0 };
    let s = match y[t + 1] % 3 {
        0 => ops::Shape::Circle { r: x[t] },
        1 => ops::Shape::Rect(x[t], x[t + 2]),
        _ => ops::Shape::Empty,
    };
    o[2] = s.area();
    o[3] = s.widened(0.5).area();
}

#[test]
fn imported_variants_and_enum_methods_agree_with_the_host() {
    let out = agree("enum_use", enum_use::PTX, 4, enum_use, |s, c, x, y, o| enum_use::launch(s, c, x, y, o));
    assert!(out.chunks(4).any(|r| r[1] == 10.0) && out.chunks(4).any(|r| r[1] == 1.0));
}

pub mod tokens {
    use ptx_runtime::DeviceRepr;

    /// Explicit discriminants on an enum with fields (RFC 2363): `Op` is 4, after `Num`'s 3.
    #[repr(u8)]
    #[derive(DeviceRepr, Clone, Copy, PartialEq, Debug)]
    pub enum Tok {
        Num(i32) = 3,
        Op(u8),
        Wide(u8, f64) = 40,
        End = 7,
    }
}

use tokens::Tok;

#[kernel]
pub fn tok_tags(input: &[Tok], y: &[u32], made: &mut [Tok], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    out[t] = match input[t] {
        Tok::Num(n) => n as f32,
        Tok::Op(c) => 100.0 + c as f32,
        Tok::Wide(a, w) => (a as f64 * w) as f32,
        Tok::End => -1.0,
    } + if input[t] == Tok::End { 0.5 } else { 0.0 };
    made[t] = match y[t] % 4 {
        0 => Tok::Num(y[t] as i32 - 9),
        1 => Tok::Op(y[t] as u8),
        2 => Tok::Wide(2, y[t] as f64 * 0.25),
        _ => Tok::End,
    };
}

#[test]
fn explicit_discriminants_of_an_enum_with_fields_are_its_tags() {
    use ptx_runtime::{DeviceBuffer, LaunchConfig};
    crate::tools::assemble("tok_tags", tok_tags::PTX);
    // rustc's bytes: the tag byte holds the discriminant.
    // SAFETY: `Tok` is `repr(u8)`: its first byte is the tag.
    let tag = |t: &Tok| unsafe { *(t as *const Tok as *const u8) };
    assert_eq!([tag(&Tok::Num(1)), tag(&Tok::Op(1)), tag(&Tok::Wide(1, 1.0)), tag(&Tok::End)], [3, 4, 40, 7]);
    let n = 16usize;
    let input: Vec<Tok> = (0..n).map(|i| match i % 4 { 0 => Tok::Num(i as i32 * 3 - 7), 1 => Tok::Op(i as u8 * 11), 2 => Tok::Wide(i as u8, 0.5 + i as f64), _ => Tok::End }).collect();
    let y: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761) >> 26).collect();
    let (mut made, mut out) = (vec![Tok::End; n], vec![0.0f32; n]);
    {
        let (m, o) = (host::Disjoint::new(&mut made), host::Disjoint::new(&mut out));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || tok_tags(&input, &y, unsafe { m.get() }, unsafe { o.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
    let yb = DeviceBuffer::from_slice(&stream, &y).unwrap();
    let mut mb = DeviceBuffer::from_slice(&stream, &vec![Tok::End; n]).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    tok_tags::launch(&stream, LaunchConfig::new(1, n as u32), &ib, &yb, &mut mb, &mut ob).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
    // Read back with the tags checked (`is_valid`): the device wrote the discriminants.
    assert_eq!(mb.to_vec().unwrap(), made);
}
