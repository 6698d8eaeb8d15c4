//! The packed pairs' remaining operations (`f16x2`, `bf16x2`): `mul_add` (`__hfma2`), `-`
//! (`__hneg2`), `abs` (`__habs2`), `min`/`max` (`__hmin2`/`__hmax2`), the lane-wise
//! comparisons (`__heq2`, `__hneu2`, `__hlt2`, …) and the both-lanes ones (`__hbeq2`, …).
//! Computed on the CPU backend from the PTX each target gets (`fma.rn.f16x2`, `min.bf16x2`,
//! `set.lt.f16x2.f16x2`, or the lanes in f32 where a target has no packed form) and on the
//! host by `half_pair_math`'s lane rules: bit-identical over every special triple and random
//! triples in each lane. The packed instructions are exactly nvcc's for the same calls.

use crate::body_half::{is_nan, nvcc_for};
use crate::body_half_fma::triples;
use crate::body_subset::{check_map, Same};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::half::{bf16, f16};
use ptx_runtime::kernel;
use ptx_runtime::vector::{bf16x2, f16x2};
use std::collections::BTreeSet;

/// `a`, `b`, `c` pairs as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Six {
    pub a: [u16; 2],
    pub b: [u16; 2],
    pub c: [u16; 2],
}

/// The lanes of `a.mul_add(b, c)`, `-a`, `a.abs()`, `a.min(b)`, `a.max(b)`, `eq2`, `ne2`,
/// `lt2`, `le2`, `gt2`, `ge2`, `(-a).mul_add(b.abs(), c).max(a)` (a chain); the six
/// `all_*` in bits 0–5 of `all`; the format (1: bf16).
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct MathOut {
    pub lanes: [u16; 24],
    pub all: u16,
    pub bf16: u16,
}

impl Same for MathOut {
    fn same(&self, o: &Self) -> bool {
        let bf = self.bf16 != 0;
        self.bf16 == o.bf16 && self.all == o.all && self.lanes.iter().zip(&o.lanes).all(|(&p, &q)| p == q || (is_nan(p, bf) && is_nan(q, bf)))
    }
}

macro_rules! math_kernel {
    ($name:ident, $v:ident, $t:ident, $bf:literal $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[Six], out: &mut [MathOut]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let s = x[i];
                let a = $v::new($t::from_bits(s.a[0]), $t::from_bits(s.a[1]));
                let b = $v::new($t::from_bits(s.b[0]), $t::from_bits(s.b[1]));
                let c = $v::new($t::from_bits(s.c[0]), $t::from_bits(s.c[1]));
                let r = [a.mul_add(b, c), -a, a.abs(), a.min(b), a.max(b), a.eq2(b), a.ne2(b), a.lt2(b), a.le2(b), a.gt2(b), a.ge2(b), (-a).mul_add(b.abs(), c).max(a)];
                let mut lanes = [0u16; 24];
                let mut k = 0;
                while k < 12 {
                    lanes[2 * k] = r[k].x.to_bits();
                    lanes[2 * k + 1] = r[k].y.to_bits();
                    k += 1;
                }
                let all = [a.all_eq(b), a.all_ne(b), a.all_lt(b), a.all_le(b), a.all_gt(b), a.all_ge(b)];
                let mut bits = 0u16;
                let mut j = 0;
                while j < 6 {
                    if all[j] {
                        bits |= 1 << j;
                    }
                    j += 1;
                }
                out[i] = MathOut { lanes, all: bits, bf16: $bf };
            }
        }
    };
}

math_kernel!(f16x2_math, f16x2, f16, 0);
math_kernel!(f16x2_math_sm80, f16x2, f16, 0, 80);
math_kernel!(f16x2_math_sm90, f16x2, f16, 0, 90);
math_kernel!(bf16x2_math, bf16x2, bf16, 1);
math_kernel!(bf16x2_math_sm80, bf16x2, bf16, 1, 80);
math_kernel!(bf16x2_math_sm90, bf16x2, bf16, 1, 90);

/// Lane x from the special and random triples in order, lane y from the same list shuffled;
/// some `b`s equal to `a` (so `==` and the signed zeros' `min`/`max` are reached).
fn sixes(bf: bool) -> Vec<Six> {
    let t = triples(bf);
    let n = t.len();
    (0..n).map(|i| {
        let o = t[(i * 7919 + 13) % n];
        let b1 = if i % 5 == 0 { o.a } else { o.b };
        Six { a: [t[i].a, o.a], b: [t[i].b, b1], c: [t[i].c, o.c] }
    }).collect()
}

#[test]
fn half_pair_math_matches_the_host_on_every_target() {
    let q = sixes(false);
    check_map("f16x2_math", f16x2_math::PTX, &q, |x, o| f16x2_math(x, o), |s, c, i, o| f16x2_math::launch(s, c, i, o));
    check_map("f16x2_math_sm80", f16x2_math_sm80::PTX, &q, |x, o| f16x2_math_sm80(x, o), |s, c, i, o| f16x2_math_sm80::launch(s, c, i, o));
    check_map("f16x2_math_sm90", f16x2_math_sm90::PTX, &q, |x, o| f16x2_math_sm90(x, o), |s, c, i, o| f16x2_math_sm90::launch(s, c, i, o));
    let q = sixes(true);
    check_map("bf16x2_math", bf16x2_math::PTX, &q, |x, o| bf16x2_math(x, o), |s, c, i, o| bf16x2_math::launch(s, c, i, o));
    check_map("bf16x2_math_sm80", bf16x2_math_sm80::PTX, &q, |x, o| bf16x2_math_sm80(x, o), |s, c, i, o| bf16x2_math_sm80::launch(s, c, i, o));
    check_map("bf16x2_math_sm90", bf16x2_math_sm90::PTX, &q, |x, o| bf16x2_math_sm90(x, o), |s, c, i, o| bf16x2_math_sm90::launch(s, c, i, o));
}

macro_rules! math_shapes {
    ($name:ident, $v:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[$v], o: &mut [$v], b: &mut [bool]) {
            let (a, c, d) = (x[0], x[1], x[2]);
            o[0] = a.mul_add(c, d);
            o[1] = -a;
            o[2] = a.abs();
            o[3] = a.min(c);
            o[4] = a.max(c);
            o[5] = a.eq2(c);
            o[6] = a.lt2(c);
            o[7] = a.ne2(c);
            b[0] = a.all_eq(c);
            b[1] = a.all_lt(c);
            b[2] = a.all_ne(c);
        }
    };
}

math_shapes!(f16x2_math_shapes, f16x2);
math_shapes!(f16x2_math_shapes_sm80, f16x2, 80);
math_shapes!(f16x2_math_shapes_sm90, f16x2, 90);
math_shapes!(bf16x2_math_shapes_sm75, bf16x2);
math_shapes!(bf16x2_math_shapes_sm80, bf16x2, 80);
math_shapes!(bf16x2_math_shapes_sm90, bf16x2, 90);

/// The distinct instructions of a module that name a packed pair type or compare in `f32`
/// for one (`fma.rn.f16x2`, `set.lt.bf16x2.bf16x2`, `set.eq.f32.f32`, `min.f32`).
fn pair_instructions(ptx: &str) -> BTreeSet<String> {
    ptx.split(|c: char| c.is_whitespace() || c == '{' || c == ';')
        .filter(|w| w.starts_with(|c: char| c.is_ascii_lowercase()))
        .filter(|w| w.contains("f16x2") || w.starts_with("set.") || w.starts_with("min.") || w.starts_with("max."))
        .map(str::to_string)
        .collect()
}

/// The CUDA C twin: the same calls on `__half2` / `__nv_bfloat162`.
fn twin(header: &str, t: &str) -> String {
    format!(
        "#include <{header}>\nextern \"C\" __global__ void k(const {t}* x, {t}* o, bool* b) {{ {t} a = x[0], c = x[1], d = x[2];\n\
         o[0] = __hfma2(a, c, d); o[1] = __hneg2(a); o[2] = __habs2(a); o[3] = __hmin2(a, c); o[4] = __hmax2(a, c);\n\
         o[5] = __heq2(a, c); o[6] = __hlt2(a, c); o[7] = __hneu2(a, c); b[0] = __hbeq2(a, c); b[1] = __hblt2(a, c); b[2] = __hbneu2(a, c); }}\n"
    )
}

#[test]
fn half_pair_math_instructions_are_nvccs() {
    let h = || twin("cuda_fp16.h", "__half2");
    let g = || twin("cuda_bf16.h", "__nv_bfloat162");
    let cases = [
        ("f16x2_math_shapes", f16x2_math_shapes::PTX, h(), 75, &["fma.rn.f16x2", "neg.f16x2", "abs.f16x2", "min.f32", "set.lt.f16x2.f16x2", "set.eq.u32.f16x2"][..]),
        ("f16x2_math_shapes_sm80", f16x2_math_shapes_sm80::PTX, h(), 80, &["min.f16x2", "max.f16x2", "set.neu.u32.f16x2"][..]),
        ("f16x2_math_shapes_sm90", f16x2_math_shapes_sm90::PTX, h(), 90, &["min.f16x2", "set.neu.f16x2.f16x2"][..]),
        ("bf16x2_math_shapes_sm80", bf16x2_math_shapes_sm80::PTX, g(), 80, &["fma.rn.bf16x2", "neg.bf16x2", "abs.bf16x2", "min.bf16x2", "set.lt.f32.f32"][..]),
        ("bf16x2_math_shapes_sm90", bf16x2_math_shapes_sm90::PTX, g(), 90, &["fma.rn.bf16x2", "max.bf16x2", "set.eq.bf16x2.bf16x2"][..]),
    ];
    for (name, ours, cuda, sm, expect) in cases {
        assemble(name, ours);
        let mine = pair_instructions(ours);
        for e in expect {
            assert!(mine.contains(*e), "{name}: no `{e}` in\n{ours}");
        }
        let Some(theirs) = nvcc_for(name, &cuda, sm) else { continue };
        assert_eq!(mine, pair_instructions(&theirs), "{name}: our packed instructions differ from nvcc's\n--- ours ---\n{ours}\n--- nvcc ---\n{theirs}");
    }
    // cuda_bf16.h has no `__hfma2` before sm_80 (the twin does not compile there): each lane
    // as the scalar forms, no bf16x2 instruction, the comparisons in f32 as on sm_80.
    let ours = bf16x2_math_shapes_sm75::PTX;
    assemble("bf16x2_math_shapes_sm75", ours);
    let mine = pair_instructions(ours);
    assert!(!mine.iter().any(|w| w.contains("bf16x2")), "{ours}");
    for e in ["fma.rm.f32", "min.f32", "set.lt.f32.f32"] {
        assert!(ours.contains(e), "bf16x2_math_shapes_sm75: no `{e}` in\n{ours}");
    }
}
