//! C-like enums as a type of their own on the device (issue 15): methods of a `#[device_fn]
//! impl` called on locals, slice elements and struct fields (`self`, `&self`, `&mut self`,
//! associated functions and constants), `From`/`Into`/`TryFrom` impls from and into them, `as`
//! casts, derived `==` and `<`, and variants imported by a `use` at module level. Each kernel
//! runs on the host and on the CPU backend, compared bit for bit; every module goes through
//! ptxas.

use crate::body_iter::agree;
use ptx_runtime::device::*;
use ptx_runtime::kernel;

pub mod ops {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[repr(u8)]
    #[derive(DeviceRepr, Clone, Copy, PartialEq, Eq, PartialOrd, Debug)]
    pub enum Op {
        Add,
        Sub = 5,
        Mul,
        Min = 200,
    }

    #[device_fn]
    impl Op {
        pub const ALL: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Min];

        pub fn apply(self, a: f32, b: f32) -> f32 {
            match self {
                Op::Add => a + b,
                Op::Sub => a - b,
                Op::Mul => a * b,
                Op::Min => a.min(b),
            }
        }

        pub fn code(&self) -> u32 {
            *self as u32 + 1
        }

        pub fn next(&mut self) {
            *self = match *self {
                Op::Add => Op::Sub,
                Op::Sub => Op::Mul,
                Op::Mul => Op::Min,
                Op::Min => Op::Add,
            };
        }

        pub fn new(k: u32) -> Self {
            match k % 4 {
                0 => Op::Add,
                1 => Op::Sub,
                2 => Op::Mul,
                _ => Op::Min,
            }
        }
    }

    #[device_fn]
    impl From<Op> for u32 {
        fn from(op: Op) -> u32 {
            op as u32 * 10
        }
    }

    #[device_fn]
    impl From<u8> for Op {
        fn from(k: u8) -> Op {
            if k > 100 { Op::Min } else { Op::Add }
        }
    }

    #[device_fn]
    impl TryFrom<u32> for Op {
        type Error = u32;
        fn try_from(v: u32) -> Result<Self, Self::Error> {
            match v {
                0 => Ok(Op::Add),
                5 => Ok(Op::Sub),
                6 => Ok(Op::Mul),
                200 => Ok(Op::Min),
                other => Err(other + 1000),
            }
        }
    }

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, PartialEq, Debug)]
    pub struct Instr {
        pub op: Op,
        pub k: f32,
    }

    /// `?` converts the error into the function's `u32` through `impl From<Op> for u32`.
    #[device_fn]
    pub fn checked(v: u32) -> Result<f32, u32> {
        let op = parse(v)?;
        Ok(op.apply(2.0, 3.0))
    }

    #[device_fn]
    pub fn parse(v: u32) -> Result<Op, Op> {
        if v % 3 == 0 { Err(Op::Mul) } else { Ok(Op::new(v)) }
    }
}

// Methods are found through their type's module: its items are imported whole.
use ops::*;

#[kernel]
pub fn enum_methods(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let o = &mut out[t * 16..t * 16 + 16];
    let mut op = Op::new(y[t]);
    o[0] = op.apply(x[t], x[t + 1]);
    o[1] = op.code() as f32;
    op.next();
    o[2] = Op::apply(op, x[t], 2.0);
    // Through an array of the enum (an associated constant) and its elements.
    let mut all: [Op; 4] = Op::ALL;
    all[(y[t + 1] % 4) as usize].next();
    o[3] = all[(y[t + 2] % 4) as usize].apply(x[t], x[t + 2]) + all[0].code() as f32;
    // Conversions: `From` both ways, `Into` with its target written, `as`, `TryFrom`.
    let c: u32 = op.into();
    o[4] = (u32::from(op) + c) as f32 + (op as i64 - 3) as f32;
    o[5] = Op::from(y[t] as u8).code() as f32;
    o[6] = match Op::try_from(y[t] % 8) {
        Ok(p) => p.apply(1.5, x[t]),
        Err(e) => e as f32,
    };
    o[7] = match ops::checked(y[t + 3]) {
        Ok(v) => v,
        Err(e) => e as f32 + 0.25,
    };
    // Derived `==` and `<`.
    o[8] = if op == Op::Mul { 1.0 } else { 0.0 } + if op < Op::Min { 2.0 } else { 0.0 } + if Op::Sub >= op { 4.0 } else { 0.0 };
    o[9] = match op {
        Op::Add | Op::Mul => 3.0,
        p if p.code() > 100 => 7.0,
        _ => 9.0,
    };
    o[10] = (op.code() + all[3].code()) as f32;
    o[11] = if matches!(Op::new(y[t + 4]), Op::Sub | Op::Min) { 1.0 } else { 0.0 };
    // Inside other values: a struct (derived `==` field by field), a tuple, an array, an `Option`.
    let a = Instr { op, k: x[t] };
    let b = Instr { op: if y[t + 5] % 2 == 0 { op } else { Op::Min }, k: x[t] };
    o[12] = if a == b { 1.0 } else { 0.0 } + if a.op == b.op { 2.0 } else { 0.0 };
    let (p, w) = (Op::new(y[t + 6]), 0.5f32);
    let mut ring = [Op::Add; 3];
    ring[(y[t] % 3) as usize] = p;
    o[13] = ring[1].apply(w, x[t]) + ring[2].code() as f32;
    let found: Option<Op> = if y[t + 7] % 2 == 0 { Some(p) } else { None };
    o[14] = match found {
        Some(Op::Mul) => 1.0,
        Some(q) => q.apply(x[t], 3.0),
        None => -2.0,
    };
    o[15] = found.map_or(0.0, |q| q.code() as f32);
}

#[test]
fn methods_and_conversions_of_a_c_like_enum_agree_with_the_host() {
    let out = agree("enum_methods", enum_methods::PTX, 16, enum_methods, |s, c, x, y, o| enum_methods::launch(s, c, x, y, o));
    // Every arm was taken somewhere.
    for (col, want) in [(6usize, 1004.0f32), (9, 3.0), (9, 7.0), (9, 9.0), (12, 3.0), (12, 0.0), (14, 1.0), (14, -2.0)] {
        assert!(out.chunks(16).any(|r| r[col] == want), "column {col} never {want}: {out:?}");
    }
}

/// Methods on slice elements and struct fields, with buffers of the enum and of a struct
/// holding it (their bytes are the `repr` integer's).
#[kernel]
pub fn enum_places(prog: &[Instr], ops: &mut [Op], progs: &mut [Instr], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    out[t] = prog[t].op.apply(prog[t].k, 2.0) + ops[t].apply(1.0, prog[t].k);
    ops[t].next();
    progs[t].op.next();
    progs[t].k = progs[t].op.code() as f32;
}

#[test]
fn methods_on_slice_elements_and_fields_write_back() {
    use ptx_runtime::{DeviceBuffer, LaunchConfig};
    crate::tools::assemble("enum_places", enum_places::PTX);
    let n = 16usize;
    let prog: Vec<Instr> = (0..n).map(|i| Instr { op: Op::ALL[i % 4], k: i as f32 * 0.5 - 3.0 }).collect();
    let ops0: Vec<Op> = (0..n).map(|i| Op::ALL[(i * 3) % 4]).collect();
    let (mut ops, mut progs, mut out) = (ops0.clone(), prog.clone(), vec![0.0f32; n]);
    {
        let (a, b, o) = (host::Disjoint::new(&mut ops), host::Disjoint::new(&mut progs), host::Disjoint::new(&mut out));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || enum_places(&prog, unsafe { a.get() }, unsafe { b.get() }, unsafe { o.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let pb = DeviceBuffer::from_slice(&stream, &prog).unwrap();
    let mut ob = DeviceBuffer::from_slice(&stream, &ops0).unwrap();
    let mut qb = DeviceBuffer::from_slice(&stream, &prog).unwrap();
    let mut outb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    enum_places::launch(&stream, LaunchConfig::new(1, n as u32), &pb, &mut ob, &mut qb, &mut outb).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(outb.to_vec().unwrap(), out);
    assert_eq!(ob.to_vec().unwrap(), ops);
    assert_eq!(qb.to_vec().unwrap(), progs);
    assert!(ops.iter().zip(&ops0).all(|(a, b)| a != b), "every element moved on");
}

/// Variants imported by a `use` outside the function: as patterns they are found through the
/// scrutinee's type, as values rustc evaluates them where the function is.
pub mod glob {
    use super::ops::Op::*;
    use super::ops::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    #[kernel]
    pub fn enum_glob(x: &[f32], y: &[u32], out: &mut [f32]) {
        let t = thread_idx_x() as usize;
        let op = Op::new(y[t]);
        let other: Op = Mul;
        out[t * 3] = match op {
            Add => x[t],
            Sub | Mul => x[t] * 2.0,
            Min => -1.0,
        };
        out[t * 3 + 1] = if matches!(op, Add | Min) { 1.0 } else { 0.0 } + if op == other { 10.0 } else { 0.0 };
        let s: Op = Sub;
        out[t * 3 + 2] = s.apply(x[t], 1.0) + op.apply(x[t + 1], 0.5);
    }
}

#[test]
fn variants_imported_at_module_level_agree_with_the_host() {
    let out = agree("enum_glob", glob::enum_glob::PTX, 3, glob::enum_glob, |s, c, x, y, o| glob::enum_glob::launch(s, c, x, y, o));
    assert!(out.chunks(3).any(|r| r[1] == 10.0) && out.chunks(3).any(|r| r[0] == -1.0));
}
