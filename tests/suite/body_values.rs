//! Values beyond scalars and structs: C-like enums (`#[repr(u8)]` ... `#[repr(i64)]`) as
//! kernel parameters, buffer elements, struct fields and device-function values, `match` on
//! their variants, `==`, `as`. Every kernel runs on the host (`host::run`) and on the CPU
//! backend and the results are compared; every module goes through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod ops {
    use ptx_runtime::{device_fn, DeviceRepr};

    /// Discriminants implicit, explicit, and counting on from an explicit one.
    #[repr(u8)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Op {
        Add,
        Sub = 5,
        Mul,
        Min = 200,
    }

    #[repr(i32)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Eq, PartialOrd)]
    pub enum Sign {
        Neg = -1,
        Zero,
        Pos,
    }

    /// No variant is 0: a zeroed buffer holds no valid value.
    #[repr(u64)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Level {
        Low = 1,
        High = 0x1_0000_0000,
    }

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
    pub struct Instr {
        pub op: Op,
        pub arg: f32,
    }

    #[device_fn]
    pub fn apply(op: Op, a: f32, b: f32) -> f32 {
        match op {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Min => a.min(b),
        }
    }

    #[device_fn]
    pub fn sign_of(x: f32) -> Sign {
        if x < 0.0 {
            Sign::Neg
        } else if x == 0.0 {
            Sign::Zero
        } else {
            Sign::Pos
        }
    }
}

use ops::{Instr, Level, Op, Sign};

#[kernel]
pub fn run_ops(default: Op, ops: &[Op], instrs: &[Instr], x: &[f32], out: &mut [f32], signs: &mut [Sign], codes: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let op = if i % 7 == 0 { default } else { ops[i] };
        let mut v = ops::apply(op, x[i], 2.0);
        let ins = instrs[i];
        v = ops::apply(ins.op, v, ins.arg);
        match ins.op {
            Op::Add | Op::Sub if v > 0.0 => v += 100.0,
            Op::Mul => v *= 0.5,
            _ => {}
        }
        if op == Op::Min && ins.op != Op::Add {
            v = -v;
        }
        out[i] = v;
        let s = ops::sign_of(v);
        signs[i] = s;
        let rank = match s {
            Sign::Neg => 0u32,
            t if t > Sign::Zero => 2,
            _ => 1,
        };
        codes[i] = op as u32 + (signs[i] as i32 + 1) as u32 * 1000 + rank * 10_000 + (Op::Mul as u8 as u32) * 100_000;
    }
}

#[kernel]
pub fn levels(ls: &[Level], out: &mut [u64]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        out[i] = match ls[i] {
            Level::Low => 10,
            Level::High => ls[i] as u64,
        };
    }
}

fn inputs() -> (Vec<Op>, Vec<Instr>, Vec<f32>) {
    let all = [Op::Add, Op::Sub, Op::Mul, Op::Min];
    let ops: Vec<Op> = (0..64).map(|i| all[(i * 3 + 1) % 4]).collect();
    let instrs: Vec<Instr> = (0..64).map(|i| Instr { op: all[(i * 5) % 4], arg: i as f32 * 0.75 - 20.0 }).collect();
    let x: Vec<f32> = (0..64).map(|i| (i as f32 - 30.0) * 1.5).collect();
    (ops, instrs, x)
}

#[test]
fn enums_compile_through_ptxas() {
    assemble("run_ops", run_ops::PTX);
    assemble("levels", levels::PTX);
}

#[test]
fn enum_parameters_buffers_fields_and_matches_agree_with_the_host() {
    let (ops, instrs, x) = inputs();
    let n = x.len();
    let (mut out, mut signs, mut codes) = (vec![0.0f32; n], vec![Sign::Zero; n], vec![0u32; n]);
    {
        let (o, s, c) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut signs), host::Disjoint::new(&mut codes));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || run_ops(Op::Min, &ops, &instrs, &x, unsafe { o.get() }, unsafe { s.get() }, unsafe { c.get() }));
    }
    assert!(signs.contains(&Sign::Neg) && signs.contains(&Sign::Pos), "the inputs reach both signs: {signs:?}");
    let stream = crate::body_exec::cpu_stream();
    let (ob, ib, xb) = (DeviceBuffer::from_slice(&stream, &ops).unwrap(), DeviceBuffer::from_slice(&stream, &instrs).unwrap(), DeviceBuffer::from_slice(&stream, &x).unwrap());
    let mut outb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    let mut sb = DeviceBuffer::<Sign>::zeroed(&stream, n).unwrap();
    let mut cb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    run_ops::launch(&stream, LaunchConfig::new(1, n as u32), Op::Min, &ob, &ib, &xb, &mut outb, &mut sb, &mut cb).unwrap();
    let dev: Vec<u32> = outb.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
    assert_eq!(dev, out.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    assert_eq!(sb.to_vec().unwrap(), signs);
    assert_eq!(cb.to_vec().unwrap(), codes);
}

#[test]
fn an_invalid_discriminant_is_an_error_on_the_host_and_a_trap_on_the_device() {
    let stream = crate::body_exec::cpu_stream();
    // Valid values round-trip, including one above 32 bits.
    let ls = [Level::Low, Level::High, Level::High, Level::Low];
    let lb = DeviceBuffer::from_slice(&stream, &ls).unwrap();
    let mut ob = DeviceBuffer::<u64>::zeroed(&stream, 4).unwrap();
    levels::launch(&stream, LaunchConfig::new(1, 4), &lb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [10, 0x1_0000_0000, 0x1_0000_0000, 10]);
    assert_eq!(lb.to_vec().unwrap(), ls);
    // A zeroed buffer holds 0, which no variant of `Level` has: reading it back is an `Err`.
    let zeroed = DeviceBuffer::<Level>::zeroed(&stream, 4).unwrap();
    match zeroed.to_vec() {
        Err(ptx_runtime::Error::InvalidBuffer { reason }) => assert!(reason.contains("element 0") && reason.contains("Level"), "{reason}"),
        other => panic!("expected InvalidBuffer, got {other:?}"),
    }
    // On the device, a `match` without `_` over such a value traps: the launch fails.
    let r = levels::launch(&stream, LaunchConfig::new(1, 4), &zeroed, &mut ob).and_then(|_| stream.synchronize());
    assert!(r.is_err(), "a match on a discriminant no variant has must stop the kernel, got {r:?}");
}

/// Constants defined outside the body: a local array's length, `match` patterns.
pub const BINS: usize = 6;
pub mod limits {
    pub const SPECIAL: u32 = 7;
    pub const LOW: i16 = -3;
}

#[kernel]
pub fn const_hist(x: &[u32], w: &[i16], out: &mut [u32]) {
    let t = thread_idx_x() as usize;
    let mut h: [u32; BINS] = [0; BINS];
    let mut i = t;
    while i < x.len() {
        h[x[i] as usize % BINS] += 1;
        i += block_dim_x() as usize;
    }
    let code = match x[t] {
        limits::SPECIAL => 1000,
        0 | BINS_U32 => 1,
        _ => 0,
    } + match w[t] {
        limits::LOW => 20_000,
        _ => 0,
    };
    let row = t * (BINS + 1);
    for b in 0..BINS {
        out[row + b] = h[b];
    }
    out[row + BINS] = code + h.len() as u32 * 100;
}

pub const BINS_U32: u32 = 6;

#[test]
fn outside_constants_as_array_lengths_and_patterns_agree_with_the_host() {
    assemble("const_hist", const_hist::PTX);
    let n = 64usize;
    let x: Vec<u32> = (0..200).map(|i| (i * 7 + i / 3) as u32 % 13).collect();
    let w: Vec<i16> = (0..n).map(|i| (i as i16 % 5) - 4).collect();
    let mut out = vec![0u32; n * (BINS + 1)];
    {
        let o = host::Disjoint::new(&mut out);
        // SAFETY: each thread writes its own row.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || const_hist(&x, &w, unsafe { o.get() }));
    }
    assert!(out.iter().any(|&c| c % 100_000 >= 20_000) && out.iter().any(|&c| c % 20_000 >= 1000));
    let stream = crate::body_exec::cpu_stream();
    let (xb, wb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &w).unwrap());
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, out.len()).unwrap();
    const_hist::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &wb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
    // The array is in `.local`, sized by rustc: 6 × 4 bytes.
    assert!(const_hist::PTX.contains(".local .align 4 .b8 __local_") && const_hist::PTX.contains("[24];"), "{}", const_hist::PTX);
}

/// Tables defined outside the body, read at run time: `.const` data of the module.
pub const LUT: [u8; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 255];
pub static TABLE: [f32; 4] = [1.0, 0.5, -2.0, 3.25];
pub mod tables {
    /// Same name as the one in `body_values`' own scope in another module: a different table.
    pub const LUT: [i16; 3] = [-7, 300, i16::MIN];
}

#[kernel]
pub fn lookup(x: &[u32], out: &mut [f32], small: &mut [i32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() {
        let j = x[i] as usize;
        // The element type comes from the context, as for every outside constant.
        let (a, b): (u8, f32) = (LUT[j & 15], TABLE[j & 3]);
        out[i] = a as f32 * b;
        let s: i16 = tables::LUT[j % tables::LUT.len()];
        let last: u8 = LUT[15];
        small[i] = s as i32 + last as i32;
    }
}

#[kernel]
pub fn lookup_out_of_bounds(x: &[u32], out: &mut [u8]) {
    let i = thread_idx_x() as usize;
    out[i] = LUT[x[i] as usize];
}

#[test]
fn tables_defined_outside_the_body_are_const_data_read_at_run_time() {
    assemble("lookup", lookup::PTX);
    assemble("lookup_out_of_bounds", lookup_out_of_bounds::PTX);
    let n = 40usize;
    let x: Vec<u32> = (0..n as u32).map(|i| i * 7 + 3).collect();
    let (mut out, mut small) = (vec![0f32; n], vec![0i32; n]);
    {
        let (o, s) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut small));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || lookup(&x, unsafe { o.get() }, unsafe { s.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let (mut ob, mut sb) = (DeviceBuffer::<f32>::zeroed(&stream, n).unwrap(), DeviceBuffer::<i32>::zeroed(&stream, n).unwrap());
    lookup::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut ob, &mut sb).unwrap();
    assert_eq!(ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), out.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    assert_eq!(sb.to_vec().unwrap(), small);
    // Two tables named `LUT` (two modules) are two symbols, each read with `ld.const`.
    let decls: Vec<&str> = lookup::PTX.lines().filter(|l| l.starts_with(".const") && !l.contains("$report")).collect();
    assert_eq!(decls.len(), 3, "{}", lookup::PTX);
    assert!(lookup::PTX.contains("ld.const.u8") && lookup::PTX.contains("ld.const.f32") && lookup::PTX.contains("ld.const.s16"), "{}", lookup::PTX);
    // An index past the end is a failed bounds check, as in Rust.
    let xb = DeviceBuffer::from_slice(&stream, &[3u32, 16]).unwrap();
    let mut ob = DeviceBuffer::<u8>::zeroed(&stream, 2).unwrap();
    let r = lookup_out_of_bounds::launch(&stream, LaunchConfig::new(1, 2), &xb, &mut ob).and_then(|_| stream.synchronize());
    assert!(matches!(r, Err(ptx_runtime::Error::Assert { .. })), "{r:?}");
}

/// The declarations are nvcc's for the same `__constant__` arrays, but for the names.
#[test]
fn table_declarations_are_nvccs_for_constant_arrays() {
    let cuda = "__constant__ unsigned char LUT[16] = {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,255};\n\
                __constant__ float TABLE[4] = {1.0f, 0.5f, -2.0f, 3.25f};\n\
                __constant__ short LUT2[3] = {-7, 300, -32768};\n\
                extern \"C\" __global__ void k(const unsigned int* x, float* out, int* s) {\n\
                  int i = threadIdx.x; unsigned j = x[i];\n\
                  out[i] = LUT[j & 15] * TABLE[j & 3]; s[i] = LUT2[j % 3] + LUT[15];\n\
                }\n";
    let Some(nvcc) = crate::tools::nvcc_ptx("values_tables", cuda) else { return };
    // nvcc under `-rdc=true` makes them `.visible`; ours are private to the module.
    let strip_name = |l: &str| {
        let l = l.trim_start_matches(".visible ");
        let (head, rest) = l.split_once(".b8 ").unwrap();
        format!("{head}.b8 {}", &rest[rest.find('[').unwrap()..])
    };
    let mut ours: Vec<String> = lookup::PTX.lines().filter(|l| l.starts_with(".const") && !l.contains("$report")).map(|l| strip_name(l.trim_end_matches(';'))).collect();
    let mut theirs: Vec<String> = nvcc.lines().filter(|l| l.contains(".const .align")).map(|l| strip_name(l.trim_end_matches(';'))).collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
}

/// `From`/`Into` between numeric types, `matches!`, `debug_assert!`/`debug_assert_eq!`.
#[kernel]
pub fn conversions(x: &[u8], y: &[f32], out: &mut [f64], words: &mut [u64], counts: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i >= x.len() {
        return;
    }
    let c = x[i];
    let a = f64::from(c) + f64::from(y[i]);
    let w: u64 = c.into();
    let h: i32 = i16::from(c).into();
    let lower = matches!(c, b'a'..=b'z');
    let digitish = matches!(c, b'0'..=b'9' | b'_' if i % 2 == 0);
    let op = if i % 3 == 0 { ops::Op::Mul } else { ops::Op::Add };
    let is_mul = matches!(op, ops::Op::Mul | ops::Op::Min);
    debug_assert!(w < 256);
    debug_assert_eq!(w as u8, c);
    out[i] = a;
    words[i] = (w << 8) | u64::from(lower);
    let lb: u32 = lower.into();
    counts[i] = lb + u32::from(digitish) * 2 + u32::from(is_mul) * 4 + (h as u32) * 8;
}

#[test]
fn conversions_and_matches_agree_with_the_host() {
    assemble("conversions", conversions::PTX);
    let x: Vec<u8> = (0..96u32).map(|i| (i * 37 % 256) as u8).chain(*b"az09_Zq").collect();
    let n = x.len();
    let y: Vec<f32> = (0..n).map(|i| i as f32 * -0.3).collect();
    let (mut out, mut words, mut counts) = (vec![0f64; n], vec![0u64; n], vec![0u32; n]);
    {
        let (o, w, c) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut words), host::Disjoint::new(&mut counts));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || conversions(&x, &y, unsafe { o.get() }, unsafe { w.get() }, unsafe { c.get() }));
    }
    assert!(counts.iter().any(|c| c & 1 == 1) && counts.iter().any(|c| c & 2 == 2) && counts.iter().any(|c| c & 4 == 4));
    let stream = crate::body_exec::cpu_stream();
    let (xb, yb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &y).unwrap());
    let mut ob = DeviceBuffer::<f64>::zeroed(&stream, n).unwrap();
    let mut wb = DeviceBuffer::<u64>::zeroed(&stream, n).unwrap();
    let mut cb = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    conversions::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &yb, &mut ob, &mut wb, &mut cb).unwrap();
    assert_eq!(ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), out.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    assert_eq!(wb.to_vec().unwrap(), words);
    assert_eq!(cb.to_vec().unwrap(), counts);
}

/// `mem::swap` and `mem::replace` on locals, array elements and struct fields (no addresses:
/// the assignments they stand for).
#[repr(C)]
#[derive(ptx_runtime::DeviceRepr, Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub lo: f32,
    pub hi: f32,
}

#[kernel]
pub fn swaps(x: &[f32], out: &mut [f32], counts: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i >= out.len() {
        return;
    }
    let mut count = i as u32;
    let mut hist = [0u32; 4];
    for k in 0..4usize {
        hist[k] = (i * k) as u32;
    }
    let mut p = Pair { lo: x[i], hi: x[(i + 1) % x.len()] };
    if p.lo > p.hi {
        core::mem::swap(&mut p.lo, &mut p.hi);
    }
    let mut a = x[i] * 2.0;
    let mut b = p.hi;
    if a > b {
        core::mem::swap(&mut a, &mut b);
    }
    core::mem::swap(&mut count, &mut hist[3]);
    let old = core::mem::replace(&mut a, 0.5);
    let old_lo = std::mem::replace(&mut p.lo, -1.0);
    out[i] = b + a + old + old_lo * 3.0 + p.lo + p.hi;
    counts[i] = count + hist[3] * 1000 + hist[1] * 100_000;
}

#[test]
fn mem_swap_and_replace_agree_with_the_host() {
    assemble("swaps", swaps::PTX);
    let n = 48usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.7).sin() * 10.0).collect();
    let (mut out, mut counts) = (vec![0f32; n], vec![0u32; n]);
    {
        let (o, c) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut counts));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || swaps(&x, unsafe { o.get() }, unsafe { c.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let (mut ob, mut cb) = (DeviceBuffer::<f32>::zeroed(&stream, n).unwrap(), DeviceBuffer::<u32>::zeroed(&stream, n).unwrap());
    swaps::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut ob, &mut cb).unwrap();
    assert_eq!(ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), out.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    assert_eq!(cb.to_vec().unwrap(), counts);
    // No local memory: the swapped values stay in registers.
    assert!(!swaps::PTX.contains(".local"), "{}", swaps::PTX);
}
