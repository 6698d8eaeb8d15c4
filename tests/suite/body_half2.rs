//! The packed pairs `f16x2` / `bf16x2` (CUDA's `__half2`, `__nv_bfloat162`): `+ - *` and
//! their compound assignments lane-wise, computed on the CPU backend from `add.rn.f16x2`,
//! `fma.rn.bf16x2` (sm_80), `add.rn.bf16x2` (sm_90) or per-lane `f32` (bf16x2 on sm_75), and
//! on the host with the `half` crate lane by lane: bit-identical over every pair of special
//! values and random pairs in each lane. The packed instructions are nvcc's for
//! `__hadd2_rn`, `__hsub2_rn`, `__hmul2_rn`.

use crate::body_half::{is_nan, nvcc_for, pairs};
use crate::body_subset::{check_map, Same};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::half::{bf16, f16};
use ptx_runtime::kernel;
use ptx_runtime::vector::{bf16x2, f16x2};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Quad {
    pub ax: u16,
    pub ay: u16,
    pub bx: u16,
    pub by: u16,
}

/// The lanes of `a + b`, `a - b`, `a * b` and `((a + b) * a) -= b` (compound forms), and the
/// format (1: bf16).
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct PairOut {
    pub lanes: [u16; 8],
    pub bf16: u16,
}

impl Same for PairOut {
    fn same(&self, o: &Self) -> bool {
        let bf = self.bf16 != 0;
        self.bf16 == o.bf16 && self.lanes.iter().zip(&o.lanes).all(|(&p, &q)| p == q || (is_nan(p, bf) && is_nan(q, bf)))
    }
}

macro_rules! pair_kernel {
    ($name:ident, $v:ident, $t:ident, $bf:literal $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[Quad], out: &mut [PairOut]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let q = x[i];
                let a = $v::new($t::from_bits(q.ax), $t::from_bits(q.ay));
                let b = $v::new($t::from_bits(q.bx), $t::from_bits(q.by));
                let (s, d, p) = (a + b, a - b, a * b);
                let mut c = s;
                c *= a;
                c -= b;
                c += p;
                out[i] = PairOut {
                    lanes: [s.x.to_bits(), s.y.to_bits(), d.x.to_bits(), d.y.to_bits(), p.x.to_bits(), p.y.to_bits(), c.x.to_bits(), c.y.to_bits()],
                    bf16: $bf,
                };
            }
        }
    };
}

pair_kernel!(f16x2_ops, f16x2, f16, 0);
pair_kernel!(f16x2_ops_sm90, f16x2, f16, 0, 90);
pair_kernel!(bf16x2_ops, bf16x2, bf16, 1);
pair_kernel!(bf16x2_ops_sm80, bf16x2, bf16, 1, 80);
pair_kernel!(bf16x2_ops_sm90, bf16x2, bf16, 1, 90);

/// Lane x from the special-value and random pairs in order, lane y from the same list
/// shuffled, so every special pair meets every kind of neighbour lane.
fn quads(bf: bool) -> Vec<Quad> {
    let p = pairs(bf);
    let n = p.len();
    (0..n).map(|i| {
        let o = p[(i * 7919 + 13) % n];
        Quad { ax: p[i].a, bx: p[i].b, ay: o.a, by: o.b }
    }).collect()
}

#[test]
fn half_pairs_match_the_host_on_every_target() {
    let q = quads(false);
    check_map("f16x2_ops", f16x2_ops::PTX, &q, |x, o| f16x2_ops(x, o), |s, c, i, o| f16x2_ops::launch(s, c, i, o));
    check_map("f16x2_ops_sm90", f16x2_ops_sm90::PTX, &q, |x, o| f16x2_ops_sm90(x, o), |s, c, i, o| f16x2_ops_sm90::launch(s, c, i, o));
    let q = quads(true);
    check_map("bf16x2_ops", bf16x2_ops::PTX, &q, |x, o| bf16x2_ops(x, o), |s, c, i, o| bf16x2_ops::launch(s, c, i, o));
    check_map("bf16x2_ops_sm80", bf16x2_ops_sm80::PTX, &q, |x, o| bf16x2_ops_sm80(x, o), |s, c, i, o| bf16x2_ops_sm80::launch(s, c, i, o));
    check_map("bf16x2_ops_sm90", bf16x2_ops_sm90::PTX, &q, |x, o| bf16x2_ops_sm90(x, o), |s, c, i, o| bf16x2_ops_sm90::launch(s, c, i, o));
}

macro_rules! pair_shapes {
    ($name:ident, $v:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[$v], out: &mut [$v]) {
            let (a, b) = (x[0], x[1]);
            out[0] = a + b;
            out[1] = a - b;
            out[2] = a * b;
        }
    };
}

pair_shapes!(f16x2_shapes, f16x2);
pair_shapes!(bf16x2_shapes_sm75, bf16x2);
pair_shapes!(bf16x2_shapes_sm80, bf16x2, 80);
pair_shapes!(bf16x2_shapes_sm90, bf16x2, 90);

/// The distinct packed-pair instructions of a module (`add.rn.f16x2`, `fma.rn.bf16x2`, ...).
fn pair_instructions(ptx: &str) -> BTreeSet<String> {
    ptx.split(|c: char| c.is_whitespace() || c == '{' || c == ';')
        .filter(|w| (w.ends_with(".f16x2") || w.ends_with(".bf16x2")) && w.starts_with(|c: char| c.is_ascii_lowercase()))
        .map(str::to_string)
        .collect()
}

#[test]
fn half_pair_instructions_are_nvccs() {
    let twin = |header: &str, t: &str| format!("#include <{header}>\nextern \"C\" __global__ void k(const {t}* x, {t}* o) {{ {t} a = x[0], b = x[1]; o[0] = __hadd2_rn(a, b); o[1] = __hsub2_rn(a, b); o[2] = __hmul2_rn(a, b); }}\n");
    let cases = [
        ("f16x2_shapes", f16x2_shapes::PTX, twin("cuda_fp16.h", "__half2"), 75, &["add.rn.f16x2", "sub.rn.f16x2", "mul.rn.f16x2"][..]),
        ("bf16x2_shapes_sm80", bf16x2_shapes_sm80::PTX, twin("cuda_bf16.h", "__nv_bfloat162"), 80, &["fma.rn.bf16x2"][..]),
        ("bf16x2_shapes_sm90", bf16x2_shapes_sm90::PTX, twin("cuda_bf16.h", "__nv_bfloat162"), 90, &["add.rn.bf16x2", "sub.rn.bf16x2", "mul.rn.bf16x2"][..]),
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
    // Before sm_80 there is no bf16x2 arithmetic: each lane in f32.
    assemble("bf16x2_shapes_sm75", bf16x2_shapes_sm75::PTX);
    assert!(pair_instructions(bf16x2_shapes_sm75::PTX).is_empty(), "{}", bf16x2_shapes_sm75::PTX);
}
