//! Data-carrying enums with Rust's defined layout (`#[repr(C, u32)]`, `#[repr(u8)]` with
//! fields, RFC 2195): kernel parameters, buffer elements read and written, device-function
//! parameters and returns, methods, construction, `match` with bindings, guards, `|` and `..`,
//! `if let`, `matches!`, `==`. Every kernel runs on the host (`host::run`) and on the CPU
//! backend and the results are compared; every module goes through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, DeviceRepr, LaunchConfig};

pub mod sh {
    use ptx_runtime::{device_fn, DeviceRepr};

    /// `repr(C, u32)`: the tag, then a union of the variants' fields (at offset 4 here, and 8
    /// for `Wide`'s `f64`).
    #[repr(C, u32)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    pub enum Shape {
        Circle { r: f32 },
        Rect(f32, f32),
        Tri { a: f32, b: f32, tag: u16 },
        Empty,
    }

    /// `repr(u8)`: each variant's fields right after the one-byte tag (`Op`'s `u8` at 1,
    /// `Num`'s `i32` at 4, `Wide`'s `f64` at 8).
    #[repr(u8)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    pub enum Tok {
        Num(i32),
        Op(u8),
        Wide(u8, f64),
        End,
    }

    #[device_fn]
    impl Shape {
        pub fn area(self) -> f32 {
            match self {
                Shape::Circle { r } => 3.0 * r * r,
                Shape::Rect(w, h) => w * h,
                Shape::Tri { a, b, .. } => 0.5 * a * b,
                Shape::Empty => 0.0,
            }
        }
    }

    /// A shape chosen by `k`, built each way a variant can be written.
    #[device_fn]
    pub fn make(k: u32, x: f32) -> Shape {
        match k % 4 {
            0 => Shape::Circle { r: x },
            1 => Shape::Rect(x, x + 1.0),
            2 => Shape::Tri { a: x, b: 2.0, tag: k as u16 },
            _ => Shape::Empty,
        }
    }

    /// Guards, `|` with bindings, `..` and a nested literal pattern.
    #[device_fn]
    pub fn classify(s: Shape) -> u32 {
        match s {
            Shape::Circle { r } if r > 4.0 => 1,
            Shape::Circle { r } | Shape::Rect(r, _) if r < 0.0 => 2,
            Shape::Rect(w, h) if w == h => 3,
            Shape::Tri { tag: 7, .. } => 4,
            Shape::Circle { .. } | Shape::Rect(..) => 5,
            Shape::Tri { .. } => 6,
            Shape::Empty => 7,
        }
    }

    #[device_fn]
    pub fn tok_value(t: Tok) -> f64 {
        match t {
            Tok::Num(n) => n as f64,
            Tok::Op(c) => c as f64 * 0.5,
            Tok::Wide(c, w) => w + c as f64,
            Tok::End => -1.0,
        }
    }
}

use sh::{Shape, Tok};

/// Reads shapes and tokens from buffers and a shape parameter, writes shapes back.
#[kernel]
pub fn shape_ops(shapes: &[sh::Shape], toks: &[sh::Tok], param: sh::Shape, out: &mut [f32], codes: &mut [u32], made: &mut [sh::Shape], tout: &mut [sh::Tok]) {
    let i = thread_idx_x() as usize;
    if i < shapes.len() {
        let s = shapes[i];
        let m = sh::make(i as u32, i as f32 * 0.5 - 2.0);
        let mut code = sh::classify(s);
        code += sh::classify(m) * 10;
        if let sh::Shape::Rect(w, _) = s {
            code += (w > 1.0) as u32 * 100;
        }
        code += matches!(s, sh::Shape::Tri { .. } | sh::Shape::Empty) as u32 * 1000;
        code += (s == param) as u32 * 10_000 + (m != s) as u32 * 100_000 + (m == shapes[(i + 1) % shapes.len()]) as u32 * 1_000_000;
        code += (param == sh::Shape::Empty) as u32 * 10_000_000;
        out[i] = s.area() + m.area() * 0.25 + param.area() * 0.125 + sh::tok_value(toks[i % toks.len()]) as f32;
        codes[i] = code;
        made[i] = if i % 5 == 0 { s } else { m };
        tout[i] = match toks[i % toks.len()] {
            sh::Tok::Num(n) if n > 3 => sh::Tok::Op(n as u8),
            sh::Tok::Num(n) => sh::Tok::Wide(n as u8, n as f64 * 1.5),
            sh::Tok::Op(c) => sh::Tok::Num(c as i32 - 100),
            t @ sh::Tok::Wide(..) => t,
            sh::Tok::End => sh::Tok::End,
        };
    }
}

#[test]
fn data_enums_compile_through_ptxas() {
    assemble("shape_ops", shape_ops::PTX);
    assemble("make", sh::make::PTX);
    assemble("classify", sh::classify::PTX);
}

#[test]
fn data_enum_layouts_are_rfc_2195() {
    // `repr(C, u32)`: tag, then the union of the variants' structs (largest: `Tri`, 12 bytes).
    assert_eq!((Shape::LAYOUT.size, Shape::LAYOUT.align), (16, 4));
    // `repr(u8)`: the union of `{u8 tag, fields}` structs (largest: `Wide`, 16 bytes, align 8).
    assert_eq!((Tok::LAYOUT.size, Tok::LAYOUT.align), (16, 8));
    let mut b = [0xffu8; 16];
    Tok::Wide(3, 2.5).write_bytes(&mut b);
    let mut want = [0u8; 16];
    want[0] = 2;
    want[1] = 3;
    want[8..].copy_from_slice(&2.5f64.to_le_bytes());
    assert_eq!(b, want);
    assert!(Tok::is_valid(&b));
    b[0] = 4;
    assert!(!Tok::is_valid(&b), "tag 4 is no variant of Tok");
    let mut c = [0u8; 16];
    Shape::Rect(1.0, 2.0).write_bytes(&mut c);
    assert_eq!(&c[..12], [&1u32.to_le_bytes()[..], &1.0f32.to_le_bytes(), &2.0f32.to_le_bytes()].concat());
    // rustc's bytes are the same (the derive also checks every offset at compile time).
    let v = Shape::Rect(1.0, 2.0);
    // SAFETY: `Shape` is 16 bytes, its padding is not read here (only the first 12).
    let raw = unsafe { core::slice::from_raw_parts(&v as *const Shape as *const u8, 12) };
    assert_eq!(raw, &c[..12]);
}

fn shapes_input(n: usize) -> Vec<Shape> {
    (0..n)
        .map(|i| {
            let x = (i as f32 - 6.0) * 0.75;
            match i % 6 {
                0 => Shape::Circle { r: x },
                1 => Shape::Rect(x, if i % 4 == 1 { x } else { 2.0 }),
                2 => Shape::Tri { a: x, b: 1.5, tag: (i % 16) as u16 + 1 },
                3 => Shape::Empty,
                4 => Shape::Circle { r: 5.0 },
                _ => Shape::Rect(-x, 3.0),
            }
        })
        .enumerate()
        .map(|(i, s)| if i == 7 { Shape::Rect(2.0, 2.0) } else { s })
        .collect()
}

#[test]
fn data_enums_agree_with_the_host() {
    let n = 40;
    let shapes = shapes_input(n);
    let toks = [Tok::Num(7), Tok::Op(200), Tok::Wide(9, -2.25), Tok::End, Tok::Num(-3), Tok::Op(1)];
    for param in [Shape::Rect(2.0, 2.0), Shape::Empty] {
        let (mut out, mut codes) = (vec![0.0f32; n], vec![0u32; n]);
        let mut made = vec![Shape::Empty; n];
        let mut tout = vec![Tok::End; n];
        {
            let (o, c, m, t) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut codes), host::Disjoint::new(&mut made), host::Disjoint::new(&mut tout));
            // SAFETY: one element per thread.
            host::run([1, 1, 1], [n as u32, 1, 1], 0, || shape_ops(&shapes, &toks, param, unsafe { o.get() }, unsafe { c.get() }, unsafe { m.get() }, unsafe { t.get() }));
        }
        let stream = crate::body_exec::cpu_stream();
        let sb = DeviceBuffer::from_slice(&stream, &shapes).unwrap();
        let tb = DeviceBuffer::from_slice(&stream, &toks).unwrap();
        let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
        let mut cb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
        let mut mb = DeviceBuffer::from_slice(&stream, &vec![Shape::Empty; n]).unwrap();
        let mut tob = DeviceBuffer::from_slice(&stream, &vec![Tok::End; n]).unwrap();
        shape_ops::launch(&stream, LaunchConfig::new(1, n as u32), &sb, &tb, param, &mut ob, &mut cb, &mut mb, &mut tob).unwrap();
        let dev: Vec<u32> = ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
        assert_eq!(dev, out.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        assert_eq!(cb.to_vec().unwrap(), codes);
        assert_eq!(mb.to_vec().unwrap(), made);
        assert_eq!(tob.to_vec().unwrap(), tout);
        // Every arm of `classify` was taken by some thread.
        for arm in 1..=7 {
            assert!(codes.iter().any(|c| c % 10 == arm || c / 10 % 10 == arm), "arm {arm}: {codes:?}");
        }
        // `s == param` held for some threads and not for others.
        assert!(codes.iter().any(|c| c / 10_000 % 10 == 1) && codes.iter().any(|c| c / 10_000 % 10 == 0), "{codes:?}");
    }
}

/// A tag no variant has: an `Err` when read back on the host, a trap in a `match` without `_`.
#[kernel]
pub fn shape_areas(shapes: &[sh::Shape], out: &mut [f32]) {
    let i = thread_idx_x() as usize;
    if i < shapes.len() {
        out[i] = shapes[i].area();
    }
}

#[kernel]
pub fn poison(shapes: &mut [Shape]) {
    if thread_idx_x() == 0 {
        let p = shapes.as_mut_ptr() as *mut u32;
        // SAFETY: the first element's tag, a `u32` at offset 0.
        unsafe { *p = 9 };
    }
}

#[test]
fn an_invalid_tag_is_an_error_on_the_host_and_a_trap_on_the_device() {
    assemble("shape_areas", shape_areas::PTX);
    let stream = crate::body_exec::cpu_stream();
    let good = DeviceBuffer::from_slice(&stream, &[Shape::Circle { r: 1.0 }, Shape::Empty]).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 2).unwrap();
    shape_areas::launch(&stream, LaunchConfig::new(1, 2), &good, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [3.0, 0.0]);
    // Tag 9 written over the first element's tag by a kernel that views the bytes as `u32`s.
    let mut bad = DeviceBuffer::from_slice(&stream, &[Shape::Circle { r: 1.0 }, Shape::Empty]).unwrap();
    poison::launch(&stream, LaunchConfig::new(1, 1), &mut bad).unwrap();
    match bad.to_vec() {
        Err(ptx_runtime::Error::InvalidBuffer { reason }) => assert!(reason.contains("element 0") && reason.contains("Shape"), "{reason}"),
        other => panic!("expected InvalidBuffer, got {other:?}"),
    }
    let r = shape_areas::launch(&stream, LaunchConfig::new(1, 2), &bad, &mut ob).and_then(|_| stream.synchronize());
    assert!(r.is_err(), "a match on a tag no variant has must stop the kernel, got {r:?}");
}
