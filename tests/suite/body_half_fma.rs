//! `a.mul_add(b, c)` and `x.abs()` on `f16` / `bf16` (`ptx_runtime::device::HalfMath`,
//! CUDA's `__hfma` / `__habs`): the host's correctly rounded fma and the CPU backend's
//! `fma.rn.f16` / `fma.rn.bf16` (sm_80, sm_90) or the round-to-odd `f32` sequence (bf16 on
//! sm_75) agree bit for bit over every triple of special values and random triples (many of
//! them where `a·b` and `c` nearly cancel); the instructions are nvcc's for the same calls.

use crate::body_half::{half_instructions, is_nan, nvcc_for, specials};
use crate::body_subset::{check_map, Same};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::half::{bf16, f16};
use ptx_runtime::kernel;

#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Triple {
    pub a: u16,
    pub b: u16,
    pub c: u16,
}

/// `fma`: `a.mul_add(b, c)`; `abs`: `a.abs()`; `chain`: `(a.mul_add(b, c)).abs().mul_add(a, -c)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct FmaOut {
    pub fma: u16,
    pub abs: u16,
    pub chain: u16,
    pub bf16: u16,
}

impl Same for FmaOut {
    fn same(&self, o: &Self) -> bool {
        let b = self.bf16 != 0;
        self.bf16 == o.bf16 && [(self.fma, o.fma), (self.abs, o.abs), (self.chain, o.chain)].iter().all(|&(p, q)| p == q || (is_nan(p, b) && is_nan(q, b)))
    }
}

macro_rules! fma_kernel {
    ($name:ident, $t:ident, $bf:literal $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[Triple], out: &mut [FmaOut]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let (a, b, c) = ($t::from_bits(x[i].a), $t::from_bits(x[i].b), $t::from_bits(x[i].c));
                out[i] = FmaOut {
                    fma: a.mul_add(b, c).to_bits(),
                    abs: a.abs().to_bits(),
                    chain: a.mul_add(b, c).abs().mul_add(a, -c).to_bits(),
                    bf16: $bf,
                };
            }
        }
    };
}

fma_kernel!(f16_fma, f16, 0);
fma_kernel!(f16_fma_sm90, f16, 0, 90);
fma_kernel!(bf16_fma, bf16, 1);
fma_kernel!(bf16_fma_sm80, bf16, 1, 80);
fma_kernel!(bf16_fma_sm90, bf16, 1, 90);

/// Every triple of special values, then random triples: half of them with `c` close to
/// `-a·b` (the sum cancels and the product's low bits decide the rounding).
pub(crate) fn triples(bf: bool) -> Vec<Triple> {
    let sp = specials(bf);
    let mut out = Vec::new();
    for &a in &sp {
        for &b in &sp {
            for &c in sp.iter().step_by(3) {
                out.push(Triple { a, b, c });
            }
        }
    }
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let neg_product = |a: u16, b: u16| -> u16 {
        let p = if bf { bf16::from_bits(a).to_f32() * bf16::from_bits(b).to_f32() } else { f16::from_bits(a).to_f32() * f16::from_bits(b).to_f32() };
        if bf { bf16::from_f32(-p).to_bits() } else { f16::from_f32(-p).to_bits() }
    };
    let one = if bf { 0x3f80u16 } else { 0x3c00 };
    for _ in 0..6000 {
        let r = next();
        out.push(Triple { a: r as u16, b: (r >> 16) as u16, c: (r >> 32) as u16 });
        let near = |v: u64| one.wrapping_add((v as u16) & 0x03ff).wrapping_sub(0x200) | (v as u16 & 0x8000);
        let (a, b) = (near(r >> 8), near(r >> 24));
        out.push(Triple { a, b, c: neg_product(a, b).wrapping_add((r >> 60) as u16 & 3) });
    }
    out
}

#[test]
fn half_fma_and_abs_match_the_host_on_every_target() {
    let t = triples(false);
    check_map("f16_fma", f16_fma::PTX, &t, |x, o| f16_fma(x, o), |s, c, i, o| f16_fma::launch(s, c, i, o));
    check_map("f16_fma_sm90", f16_fma_sm90::PTX, &t, |x, o| f16_fma_sm90(x, o), |s, c, i, o| f16_fma_sm90::launch(s, c, i, o));
    let t = triples(true);
    check_map("bf16_fma", bf16_fma::PTX, &t, |x, o| bf16_fma(x, o), |s, c, i, o| bf16_fma::launch(s, c, i, o));
    check_map("bf16_fma_sm80", bf16_fma_sm80::PTX, &t, |x, o| bf16_fma_sm80(x, o), |s, c, i, o| bf16_fma_sm80::launch(s, c, i, o));
    check_map("bf16_fma_sm90", bf16_fma_sm90::PTX, &t, |x, o| bf16_fma_sm90(x, o), |s, c, i, o| bf16_fma_sm90::launch(s, c, i, o));
}

macro_rules! fma_shapes {
    ($name:ident, $t:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[$t], out: &mut [$t]) {
            out[0] = x[0].mul_add(x[1], x[2]);
            out[1] = x[0].abs();
        }
    };
}

fma_shapes!(f16_fma_shapes, f16);
fma_shapes!(bf16_fma_shapes_sm75, bf16);
fma_shapes!(bf16_fma_shapes_sm80, bf16, 80);
fma_shapes!(bf16_fma_shapes_sm90, bf16, 90);

#[test]
fn half_fma_and_abs_are_nvccs() {
    let twin = |header: &str, t: &str| format!("#include <{header}>\nextern \"C\" __global__ void k(const {t}* x, {t}* o) {{ o[0] = __hfma(x[0], x[1], x[2]); o[1] = __habs(x[0]); }}\n");
    let cases = [
        ("f16_fma_shapes", f16_fma_shapes::PTX, twin("cuda_fp16.h", "__half"), 75, &["fma.rn.f16", "abs.f16"][..]),
        ("bf16_fma_shapes_sm80", bf16_fma_shapes_sm80::PTX, twin("cuda_bf16.h", "__nv_bfloat16"), 80, &["fma.rn.bf16", "abs.bf16"][..]),
        ("bf16_fma_shapes_sm90", bf16_fma_shapes_sm90::PTX, twin("cuda_bf16.h", "__nv_bfloat16"), 90, &["fma.rn.bf16", "abs.bf16"][..]),
    ];
    for (name, ours, cuda, sm, expect) in cases {
        assemble(name, ours);
        let mine = half_instructions(ours);
        for e in expect {
            assert!(mine.contains(*e), "{name}: no `{e}` in\n{ours}");
        }
        let Some(theirs) = nvcc_for(name, &cuda, sm) else { continue };
        assert_eq!(mine, half_instructions(&theirs), "{name}: our 16-bit float instructions differ from nvcc's\n--- ours ---\n{ours}\n--- nvcc ---\n{theirs}");
    }
    // cuda_bf16.h has no `__hfma` before sm_80: the round-to-odd f32 pair and a bit mask.
    let ours = bf16_fma_shapes_sm75::PTX;
    assemble("bf16_fma_shapes_sm75", ours);
    for e in ["fma.rm.f32", "fma.rp.f32", "and.b16"] {
        assert!(ours.contains(e), "bf16_fma_shapes_sm75: no `{e}` in\n{ours}");
    }
    assert!(half_instructions(ours).is_empty(), "sm_75 has no bf16 arithmetic instructions:\n{ours}");
}
