//! `f16` / `bf16` arithmetic (`half::f16`, `half::bf16`) in device code: the same body run on
//! the host (the `half` crate: each operation in `f32`, rounded once) and on the CPU backend
//! must agree bit for bit over random bit patterns and every special value (zeros, subnormals,
//! the largest finite values, infinities, NaNs — any NaN equals any NaN), for each of the
//! three ways a target computes `bf16` (sm_75: in `f32`; sm_80: `fma.rn.bf16`; sm_90:
//! `add/sub/mul.rn.bf16`). The instructions are checked against nvcc's for the same
//! `cuda_fp16.h` / `cuda_bf16.h` calls.

use crate::body_subset::{check_map, Same};
use crate::tools::{assemble, scratch_dir, tool};
use std::collections::BTreeSet;
use ptx_runtime::device::*;
use ptx_runtime::half::{bf16, f16};
use ptx_runtime::kernel;

/// Two operands, as the kernels read them.
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Pair {
    pub a: u16,
    pub b: u16,
}

/// Every result, as bits (`flags`: `<`, `<=`, `>`, `>=`, `==`, `!=` in bits 0–5, then
/// `is_nan`, `is_infinite`, `is_finite`, `is_sign_negative`, `is_sign_positive`).
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Results {
    pub add: u16,
    pub sub: u16,
    pub mul: u16,
    pub div: u16,
    pub rem: u16,
    pub neg: u16,
    pub min: u16,
    pub max: u16,
    pub chain: u16,
    pub copysign: u16,
    pub from_u8: u16,
    pub from_i8: u16,
    pub flags: u16,
}

/// NaN in f16 (`bf16 == false`) or bf16 bits.
pub(crate) fn is_nan(bits: u16, bf16: bool) -> bool {
    if bf16 {
        bits & 0x7f80 == 0x7f80 && bits & 0x007f != 0
    } else {
        bits & 0x7c00 == 0x7c00 && bits & 0x03ff != 0
    }
}

fn same_results(x: &Results, y: &Results, bf16: bool) -> bool {
    let v = |r: &Results| [r.add, r.sub, r.mul, r.div, r.rem, r.neg, r.min, r.max, r.chain, r.copysign, r.from_u8, r.from_i8];
    x.flags == y.flags && v(x).iter().zip(v(y)).all(|(&p, q)| p == q || (is_nan(p, bf16) && is_nan(q, bf16)))
}

/// [`Results`] of f16 operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct F16Results(pub Results);

/// [`Results`] of bf16 operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Bf16Results(pub Results);

impl Same for F16Results {
    fn same(&self, o: &Self) -> bool {
        same_results(&self.0, &o.0, false)
    }
}

impl Same for Bf16Results {
    fn same(&self, o: &Self) -> bool {
        same_results(&self.0, &o.0, true)
    }
}

/// One kernel per (type, target): the body is the same text.
macro_rules! half_kernel {
    ($name:ident, $t:ident, $out:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[Pair], out: &mut [$out]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let a = $t::from_bits(x[i].a);
                let b = $t::from_bits(x[i].b);
                let mut acc = a;
                acc += b;
                acc *= a;
                acc -= b;
                let flags = (a < b) as u16 | ((a <= b) as u16) << 1 | ((a > b) as u16) << 2 | ((a >= b) as u16) << 3 | ((a == b) as u16) << 4 | ((a != b) as u16) << 5;
                let class = (a.is_nan() as u16) << 6 | (a.is_infinite() as u16) << 7 | (a.is_finite() as u16) << 8 | (a.is_sign_negative() as u16) << 9 | (a.is_sign_positive() as u16) << 10;
                out[i] = $out(Results {
                    add: (a + b).to_bits(),
                    sub: (a - b).to_bits(),
                    mul: (a * b).to_bits(),
                    div: (a / b).to_bits(),
                    rem: (a % b).to_bits(),
                    neg: (-a).to_bits(),
                    min: a.min(b).to_bits(),
                    max: a.max(b).to_bits(),
                    chain: (a * b + a - b * b).to_bits(),
                    copysign: a.copysign(b).to_bits(),
                    from_u8: $t::from(x[i].a as u8).to_bits(),
                    from_i8: $t::from(x[i].b as i8).to_bits(),
                    flags: flags | class,
                });
            }
        }
    };
}

half_kernel!(f16_ops, f16, F16Results);
half_kernel!(f16_ops_sm90, f16, F16Results, 90);
half_kernel!(bf16_ops, bf16, Bf16Results);
half_kernel!(bf16_ops_sm80, bf16, Bf16Results, 80);
half_kernel!(bf16_ops_sm90, bf16, Bf16Results, 90);

/// Special values of a format (`bf16`: its bits), signed.
pub(crate) fn specials(bf16: bool) -> Vec<u16> {
    let v: &[u16] = if bf16 {
        // 0, min subnormal, max subnormal, min normal, 1, 1+ulp, 1.5, 3, max finite, inf, qNaN, sNaN, 2^-126·1.5
        &[0x0000, 0x0001, 0x007f, 0x0080, 0x3f80, 0x3f81, 0x3fc0, 0x4040, 0x7f7f, 0x7f80, 0x7fc0, 0x7f81, 0x00c0, 0x4b80, 0x3380]
    } else {
        // 0, min subnormal, max subnormal, min normal, 1, 1+ulp, 1.5, 3, max finite, inf, qNaN, sNaN, 2048, 2^-11
        &[0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x3e00, 0x4200, 0x7bff, 0x7c00, 0x7e00, 0x7c01, 0x6800, 0x1000, 0x0200]
    };
    v.iter().flat_map(|&b| [b, b | 0x8000]).collect()
}

/// Every pair of special values, then random bit patterns (and random values near 1, where
/// sums and products round).
pub(crate) fn pairs(bf16: bool) -> Vec<Pair> {
    let sp = specials(bf16);
    let mut out: Vec<Pair> = sp.iter().flat_map(|&a| sp.iter().map(move |&b| Pair { a, b })).collect();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let one = if bf16 { 0x3f80u16 } else { 0x3c00 };
    for _ in 0..6000 {
        let r = next();
        out.push(Pair { a: r as u16, b: (r >> 16) as u16 });
        let near = |v: u64| one.wrapping_add((v as u16) & 0x01ff).wrapping_sub(0x100) | (v as u16 & 0x8000);
        out.push(Pair { a: near(r >> 32), b: near(r >> 48) });
    }
    out
}

#[test]
fn f16_arithmetic_matches_the_host() {
    let inputs = pairs(false);
    check_map("f16_ops", f16_ops::PTX, &inputs, |x, o| f16_ops(x, o), |s, c, i, o| f16_ops::launch(s, c, i, o));
    check_map("f16_ops_sm90", f16_ops_sm90::PTX, &inputs, |x, o| f16_ops_sm90(x, o), |s, c, i, o| f16_ops_sm90::launch(s, c, i, o));
}

#[test]
fn bf16_arithmetic_matches_the_host_on_every_target() {
    let inputs = pairs(true);
    check_map("bf16_ops", bf16_ops::PTX, &inputs, |x, o| bf16_ops(x, o), |s, c, i, o| bf16_ops::launch(s, c, i, o));
    check_map("bf16_ops_sm80", bf16_ops_sm80::PTX, &inputs, |x, o| bf16_ops_sm80(x, o), |s, c, i, o| bf16_ops_sm80::launch(s, c, i, o));
    check_map("bf16_ops_sm90", bf16_ops_sm90::PTX, &inputs, |x, o| bf16_ops_sm90(x, o), |s, c, i, o| bf16_ops_sm90::launch(s, c, i, o));
}

// ---- the instructions, against nvcc's for the same cuda_fp16.h / cuda_bf16.h calls ----

/// The operators whose PTX nvcc and we must spell alike, one kernel per (type, target).
macro_rules! shapes_kernel {
    ($name:ident, $t:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[$t], out: &mut [$t], flags: &mut [bool]) {
            let (a, b) = (x[0], x[1]);
            out[0] = a + b;
            out[1] = a - b;
            out[2] = a * b;
            flags[0] = a < b;
            flags[1] = a <= b;
            flags[2] = a > b;
            flags[3] = a >= b;
            flags[4] = a == b;
            flags[5] = a != b;
        }
    };
}

shapes_kernel!(f16_shapes, f16);
shapes_kernel!(bf16_shapes_sm80, bf16, 80);
shapes_kernel!(bf16_shapes_sm90, bf16, 90);

/// The same operations through the CUDA headers (`T`: `__half` or `__nv_bfloat16`).
fn cuda_twin(header: &str, t: &str) -> String {
    format!(
        "#include <{header}>\n\
         extern \"C\" __global__ void k(const {t}* x, {t}* o, bool* p) {{\n\
           {t} a = x[0], b = x[1];\n\
           o[0] = __hadd_rn(a, b); o[1] = __hsub_rn(a, b); o[2] = __hmul_rn(a, b);\n\
           p[0] = __hlt(a, b); p[1] = __hle(a, b); p[2] = __hgt(a, b); p[3] = __hge(a, b); p[4] = __heq(a, b); p[5] = __hneu(a, b);\n\
         }}\n"
    )
}

/// nvcc's PTX for `cuda` at `-arch=sm_<sm>`; `None` (announced) without nvcc.
pub(crate) fn nvcc_for(name: &str, cuda: &str, sm: u32) -> Option<String> {
    let nvcc = tool("NVCC", "nvcc", name)?;
    let dir = scratch_dir("nvcc-half");
    let (src, out) = (dir.join("k.cu"), dir.join("k.ptx"));
    std::fs::write(&src, cuda).expect("write .cu");
    let run = std::process::Command::new(&nvcc).args(["-ptx", &format!("-arch=sm_{sm}"), "-o"]).arg(&out).arg(&src).output().expect("run nvcc");
    assert!(run.status.success(), "nvcc failed on `{name}`:\n{}\n--- source ---\n{cuda}", String::from_utf8_lossy(&run.stderr));
    let ptx = std::fs::read_to_string(&out).expect("read nvcc's ptx");
    let _ = std::fs::remove_dir_all(&dir);
    Some(ptx)
}

/// The distinct 16-bit float instructions of a module (`add.rn.f16`, `setp.lt.bf16`, ...):
/// conversions aside, which both sides write differently around the operations.
pub(crate) fn half_instructions(ptx: &str) -> BTreeSet<String> {
    ptx.split(|c: char| c.is_whitespace() || c == '{' || c == ';')
        .filter(|w| (w.ends_with(".f16") || w.ends_with(".bf16")) && w.starts_with(|c: char| c.is_ascii_lowercase()) && !w.starts_with("cvt."))
        .map(str::to_string)
        .collect()
}

#[test]
fn half_instructions_are_nvccs() {
    let cases = [
        ("f16_shapes", f16_shapes::PTX, "cuda_fp16.h", "__half", 75, &["add.rn.f16", "sub.rn.f16", "mul.rn.f16", "setp.lt.f16"][..]),
        ("bf16_shapes_sm80", bf16_shapes_sm80::PTX, "cuda_bf16.h", "__nv_bfloat16", 80, &["fma.rn.bf16"][..]),
        ("bf16_shapes_sm90", bf16_shapes_sm90::PTX, "cuda_bf16.h", "__nv_bfloat16", 90, &["add.rn.bf16", "mul.rn.bf16", "setp.neu.bf16"][..]),
    ];
    for (name, ours, header, t, sm, expect) in cases {
        assemble(name, ours);
        assert_eq!(crate::tools::target_sm(ours), sm, "{name}: the kernel's target");
        let mine = half_instructions(ours);
        for e in expect {
            assert!(mine.contains(*e), "{name}: no `{e}` in\n{ours}");
        }
        let Some(theirs) = nvcc_for(name, &cuda_twin(header, t), sm) else { continue };
        assert_eq!(mine, half_instructions(&theirs), "{name}: our 16-bit float instructions differ from nvcc's\n--- ours ---\n{ours}\n--- nvcc ---\n{theirs}");
    }
}
