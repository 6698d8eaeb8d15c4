//! A tiny stack-free interpreter: each thread runs the same program of `#[repr(u8)]` opcodes on
//! its own accumulator, with a `#[repr(u32)]` status enum as the result, a lookup table of
//! opcode costs defined outside the kernel (`.const` data), and an outside constant as the
//! length of a per-thread array. Enums and tables in the style of plain Rust.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

#[repr(u8)]
#[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opcode {
    Add,
    Mul,
    Div,
    Neg,
    JumpIfNeg = 10,
    Store,
    Halt = 255,
}

#[repr(u32)]
#[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    Done = 100,
    DivideByZero,
    OutOfFuel,
}

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
pub struct Instr {
    pub op: Opcode,
    pub arg: i32,
}

/// Fuel each opcode costs, by discriminant (`Opcode as usize & 15`).
pub const COST: [u8; 16] = [1, 3, 8, 1, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 1];
pub const SLOTS: usize = 4;
pub const FUEL: u32 = 60;

#[kernel]
pub fn interp(program: &[Instr], input: &[i32], out: &mut [i32], status: &mut [Status]) {
    let t = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if t >= input.len() {
        return;
    }
    let mut acc = input[t];
    let mut slots = [0i32; SLOTS];
    let mut pc = 0usize;
    let mut fuel = FUEL;
    let mut st = Status::Running;
    while st == Status::Running {
        if pc >= program.len() {
            st = Status::Done;
            break;
        }
        let ins = program[pc];
        let cost: u8 = COST[ins.op as usize & 15];
        if fuel < cost as u32 {
            st = Status::OutOfFuel;
            break;
        }
        fuel -= cost as u32;
        pc += 1;
        match ins.op {
            Opcode::Add => acc = acc.wrapping_add(ins.arg),
            Opcode::Mul => acc = acc.wrapping_mul(ins.arg),
            Opcode::Div if ins.arg == 0 => st = Status::DivideByZero,
            Opcode::Div => acc = acc.wrapping_div(ins.arg),
            Opcode::Neg => acc = acc.wrapping_neg(),
            Opcode::JumpIfNeg => {
                if acc < 0 {
                    pc = ins.arg as usize;
                }
            }
            Opcode::Store => slots[ins.arg as usize % SLOTS] = acc,
            Opcode::Halt => st = Status::Done,
        }
    }
    out[t] = acc ^ slots[0] ^ (slots[SLOTS - 1] << 1) ^ (fuel as i32) << 20;
    status[t] = st;
}

pub const PTX: &[(&str, &str)] = &[("interp", interp::PTX)];
const N: usize = 200;

fn program() -> Vec<Instr> {
    use Opcode::*;
    let i = |op, arg| Instr { op, arg };
    vec![i(Add, 5), i(Store, 3), i(Mul, 3), i(JumpIfNeg, 7), i(Div, 7), i(Neg, 0), i(JumpIfNeg, 10), i(Store, 0), i(Add, -1000), i(Halt, 0), i(Div, 0), i(Halt, 0)]
}

fn input() -> Vec<i32> {
    let mut r = Rng::new(21);
    (0..N).map(|_| (r.u32() as i32) >> (r.u32() % 24)).collect()
}

/// The same machine, written independently on the host.
fn reference(x: i32) -> (i32, Status) {
    let p = program();
    let (mut acc, mut slots, mut pc, mut fuel) = (x, [0i32; SLOTS], 0usize, FUEL);
    let st = loop {
        let Some(ins) = p.get(pc) else { break Status::Done };
        let cost = u32::from(COST[ins.op as usize & 15]);
        let Some(left) = fuel.checked_sub(cost) else { break Status::OutOfFuel };
        fuel = left;
        pc += 1;
        match (ins.op, ins.arg) {
            (Opcode::Add, a) => acc = acc.wrapping_add(a),
            (Opcode::Mul, a) => acc = acc.wrapping_mul(a),
            (Opcode::Div, 0) => break Status::DivideByZero,
            (Opcode::Div, a) => acc = acc.wrapping_div(a),
            (Opcode::Neg, _) => acc = acc.wrapping_neg(),
            (Opcode::JumpIfNeg, a) if acc < 0 => pc = a as usize,
            (Opcode::JumpIfNeg, _) => {}
            (Opcode::Store, a) => slots[a as usize % SLOTS] = acc,
            (Opcode::Halt, _) => break Status::Done,
        }
    };
    (acc ^ slots[0] ^ (slots[SLOTS - 1] << 1) ^ (fuel as i32) << 20, st)
}

fn on_host() -> (Vec<i32>, Vec<Status>) {
    let (p, x) = (program(), input());
    let (mut out, mut st) = (vec![0; N], vec![Status::Running; N]);
    let (o, s) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut st));
    // SAFETY: one element per thread.
    host::run([2, 1, 1], [128, 1, 1], 0, || interp(&p, &x, unsafe { o.get() }, unsafe { s.get() }));
    (out, st)
}

pub fn check_host() {
    let want: (Vec<i32>, Vec<Status>) = input().into_iter().map(reference).unzip();
    assert!(want.1.contains(&Status::DivideByZero) && want.1.contains(&Status::Done), "{:?}", want.1);
    assert_eq!(on_host(), want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (p, x) = (DeviceBuffer::from_slice(stream, &program())?, DeviceBuffer::from_slice(stream, &input())?);
    let mut out = DeviceBuffer::<i32>::zeroed(stream, N)?;
    let mut st = DeviceBuffer::from_slice(stream, &vec![Status::Running; N])?;
    interp::launch(stream, LaunchConfig::new(2, 128), &p, &x, &mut out, &mut st)?;
    assert_eq!((out.to_vec()?, st.to_vec()?), on_host());
    Ok(())
}
