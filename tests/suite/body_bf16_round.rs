//! `bf16` from `f64` and from integers with a rounding mode (`x.to_bf16_rz()`; CUDA
//! `__double2bfloat16`, `__int2bfloat16_rn/rz/rd/ru`, `__uint2bfloat16_*`, `__ll2bfloat16_*`,
//! `__ull2bfloat16_*`, `__short2bfloat16_*`, `__ushort2bfloat16_*`): the host's exact
//! definitions and the CPU backend agree bit for bit on sm_75 (through f32 by bits), sm_80
//! (through f32, `cvt.rn/rz.bf16.f32`) and sm_90 (`cvt.<mode>.bf16.<src>`), on the boundary
//! values of `body_half_round` and integers at, just around and between bf16's halfway
//! points; the `cvt` forms are nvcc's for the same calls.

use crate::body_half::{is_nan, nvcc_for};
use crate::body_half_round::{inputs, In};
use crate::body_subset::{check_map, Same};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::half::bf16;
use ptx_runtime::kernel;
use std::collections::BTreeSet;

/// f64 (rn, rz, rd, ru), i32 (4), i64 (4), u32 (4), u64 (4), i16 (rn, ru), u16 (rz, rd).
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Out {
    pub bf16s: [u16; 24],
}

impl Same for Out {
    fn same(&self, o: &Self) -> bool {
        self.bf16s.iter().zip(&o.bf16s).all(|(&p, &q)| p == q || (is_nan(p, true) && is_nan(q, true)))
    }
}

macro_rules! bf16_round_kernel {
    ($name:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[In], out: &mut [Out]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let v = x[i];
                let (d, n, l) = (v.d, v.n, v.l);
                let (u, ul, s, us) = (n as u32, l as u64, n as i16, n as u16);
                out[i] = Out {
                    bf16s: [
                        d.to_bf16_rn().to_bits(), d.to_bf16_rz().to_bits(), d.to_bf16_rd().to_bits(), d.to_bf16_ru().to_bits(),
                        n.to_bf16_rn().to_bits(), n.to_bf16_rz().to_bits(), n.to_bf16_rd().to_bits(), n.to_bf16_ru().to_bits(),
                        l.to_bf16_rn().to_bits(), l.to_bf16_rz().to_bits(), l.to_bf16_rd().to_bits(), l.to_bf16_ru().to_bits(),
                        u.to_bf16_rn().to_bits(), u.to_bf16_rz().to_bits(), u.to_bf16_rd().to_bits(), u.to_bf16_ru().to_bits(),
                        ul.to_bf16_rn().to_bits(), ul.to_bf16_rz().to_bits(), ul.to_bf16_rd().to_bits(), ul.to_bf16_ru().to_bits(),
                        s.to_bf16_rn().to_bits(), s.to_bf16_ru().to_bits(), us.to_bf16_rz().to_bits(), us.to_bf16_rd().to_bits(),
                    ],
                };
            }
        }
    };
}

bf16_round_kernel!(bf16_wide_sm75);
bf16_round_kernel!(bf16_wide_sm80, 80);
bf16_round_kernel!(bf16_wide_sm90, 90);

/// `body_half_round`'s values, every other one with integers at bf16's rounding points:
/// `m·2^k + 2^(k-1) + δ` (δ ∈ −1, 0, 1; `m` with 8 significant bits), both signs, 32 and 64 bits.
fn wide_inputs() -> Vec<In> {
    let mut x = inputs();
    for (i, v) in x.iter_mut().enumerate().filter(|(i, _)| i % 2 == 1) {
        let r = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let m = 0x80 | (r >> 20) as i64 & 0x7f;
        let delta = (r >> 40) as i64 % 3 - 1;
        let (k32, k64) = (1 + (r >> 8) % 23, 1 + (r >> 14) % 55);
        let sign = if r >> 63 == 1 { -1 } else { 1 };
        v.n = sign as i32 * ((m << k32) + (1 << (k32 - 1)) + delta) as i32;
        v.l = sign * ((m << k64) + (1 << (k64 - 1)) + delta);
    }
    x
}

#[test]
fn bf16_from_f64_and_integers_matches_the_host_on_every_target() {
    let x = wide_inputs();
    check_map("bf16_wide_sm75", bf16_wide_sm75::PTX, &x, |i, o| bf16_wide_sm75(i, o), |s, c, i, o| bf16_wide_sm75::launch(s, c, i, o));
    check_map("bf16_wide_sm80", bf16_wide_sm80::PTX, &x, |i, o| bf16_wide_sm80(i, o), |s, c, i, o| bf16_wide_sm80::launch(s, c, i, o));
    check_map("bf16_wide_sm90", bf16_wide_sm90::PTX, &x, |i, o| bf16_wide_sm90(i, o), |s, c, i, o| bf16_wide_sm90::launch(s, c, i, o));
}

macro_rules! wide_shapes {
    ($name:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(i: &[i32], u: &[u32], l: &[i64], ul: &[u64], s: &[i16], us: &[u16], d: &[f64], o: &mut [bf16]) {
            o[0] = i[0].to_bf16_rn();
            o[1] = i[1].to_bf16_rz();
            o[2] = i[2].to_bf16_rd();
            o[3] = i[3].to_bf16_ru();
            o[4] = u[0].to_bf16_rz();
            o[5] = l[0].to_bf16_rd();
            o[6] = ul[0].to_bf16_ru();
            o[7] = s[0].to_bf16_rn();
            o[8] = us[0].to_bf16_rz();
            o[9] = d[0].to_bf16_rn();
        }
    };
}

wide_shapes!(bf16_wide_shapes_sm75);
wide_shapes!(bf16_wide_shapes_sm80, 80);
wide_shapes!(bf16_wide_shapes_sm90, 90);

/// The distinct `cvt` forms that write a bf16, and the `f32` ones that feed them.
fn bf16_cvts(ptx: &str) -> BTreeSet<String> {
    ptx.split(|c: char| c.is_whitespace() || c == '{' || c == ';')
        .filter(|w| w.starts_with("cvt.") && w.contains(".bf16."))
        .map(str::to_string)
        .collect()
}

#[test]
fn bf16_from_f64_and_integers_are_nvccs() {
    let twin = "#include <cuda_bf16.h>\n\
        extern \"C\" __global__ void k(const int* i, const unsigned* u, const long long* l, const unsigned long long* ul, const short* s, const unsigned short* us, const double* d, __nv_bfloat16* o) {\n\
          o[0] = __int2bfloat16_rn(i[0]); o[1] = __int2bfloat16_rz(i[1]); o[2] = __int2bfloat16_rd(i[2]); o[3] = __int2bfloat16_ru(i[3]);\n\
          o[4] = __uint2bfloat16_rz(u[0]); o[5] = __ll2bfloat16_rd(l[0]); o[6] = __ull2bfloat16_ru(ul[0]); o[7] = __short2bfloat16_rn(s[0]);\n\
          o[8] = __ushort2bfloat16_rz(us[0]); o[9] = __double2bfloat16(d[0]);\n\
        }\n";
    let cases = [
        ("bf16_wide_shapes_sm75", bf16_wide_shapes_sm75::PTX, 75, &[][..]),
        ("bf16_wide_shapes_sm80", bf16_wide_shapes_sm80::PTX, 80, &["cvt.rn.bf16.f32", "cvt.rz.bf16.f32"][..]),
        ("bf16_wide_shapes_sm90", bf16_wide_shapes_sm90::PTX, 90, &["cvt.rn.bf16.s32", "cvt.rm.bf16.s64", "cvt.rp.bf16.u64", "cvt.rz.bf16.u16", "cvt.rn.bf16.f64"][..]),
    ];
    for (name, ours, sm, expect) in cases {
        assemble(name, ours);
        let mine = bf16_cvts(ours);
        for e in expect {
            assert!(mine.contains(*e), "{name}: no `{e}` in\n{ours}");
        }
        let Some(theirs) = nvcc_for(name, twin, sm) else { continue };
        assert_eq!(mine, bf16_cvts(&theirs), "{name}: our bf16 conversions differ from nvcc's\n--- ours ---\n{ours}\n--- nvcc ---\n{theirs}");
    }
    // Before sm_90 the integer is converted to f32 first, rounded to odd for `_rn`.
    for e in ["cvt.rp.f32.s32", "cvt.rm.f32.s32", "cvt.rz.f32.s32", "cvt.rm.f32.s64", "cvt.rp.f32.u64"] {
        assert!(bf16_wide_shapes_sm80::PTX.contains(e), "no `{e}` in\n{}", bf16_wide_shapes_sm80::PTX);
    }
}
