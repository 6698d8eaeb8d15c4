//! Conversions with a rounding mode (`ToF16Rounded`, `ToBf16Rounded`, `ToIntRounded`:
//! `x.to_f16_rz()`, `h.to_i32_rd()`, ... CUDA's `__float2half_rz`, `__half2int_rd`, ...):
//! the host's exact definitions and the CPU backend's `cvt` (and the bit sequences for bf16
//! before sm_90) agree bit for bit on values at and around every rounding boundary
//! (halfway points, one f32 ulp either side, overflow to infinity or the largest finite
//! value, subnormals, NaN), on sm_75, sm_80 and sm_90; the `cvt` forms are nvcc's.

use crate::body_half::{is_nan, nvcc_for};
use crate::body_subset::{check_map, Same};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::half::{bf16, f16};
use ptx_runtime::kernel;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct In {
    pub f: f32,
    pub d: f64,
    pub n: i32,
    pub l: i64,
    pub h: u16,
    pub b: u16,
}

/// `f16s`: f32 → f16 (rn, rz, rd, ru), f64 → f16 (4), i32 → f16 (4), i64 → f16 (rn, ru),
/// u32 → f16 (rz, rd); `bf16s`: f32 → bf16 (4); `ints`: f16 → i32 (4), bf16 → i32 (4),
/// f16 → i16 rd, f16 → u16 ru, bf16 → u32 rz, f32 → i32 rn; `longs`: f16 → u64 rz, bf16 →
/// i64 rd, f64 → i64 ru.
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Out {
    pub f16s: [u16; 16],
    pub bf16s: [u16; 4],
    pub ints: [i32; 12],
    pub longs: [i64; 3],
}

impl Same for Out {
    fn same(&self, o: &Self) -> bool {
        let eq16 = |x: &[u16], y: &[u16], bf: bool| x.iter().zip(y).all(|(&p, &q)| p == q || (is_nan(p, bf) && is_nan(q, bf)));
        eq16(&self.f16s, &o.f16s, false) && eq16(&self.bf16s, &o.bf16s, true) && self.ints == o.ints && self.longs == o.longs
    }
}

macro_rules! round_kernel {
    ($name:ident $(, $sm:literal)?) => {
        #[kernel($(sm = $sm)?)]
        pub fn $name(x: &[In], out: &mut [Out]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let v = x[i];
                let (f, d, n, l) = (v.f, v.d, v.n, v.l);
                let (h, b) = (f16::from_bits(v.h), bf16::from_bits(v.b));
                out[i] = Out {
                    f16s: [
                        f.to_f16_rn().to_bits(), f.to_f16_rz().to_bits(), f.to_f16_rd().to_bits(), f.to_f16_ru().to_bits(),
                        d.to_f16_rn().to_bits(), d.to_f16_rz().to_bits(), d.to_f16_rd().to_bits(), d.to_f16_ru().to_bits(),
                        n.to_f16_rn().to_bits(), n.to_f16_rz().to_bits(), n.to_f16_rd().to_bits(), n.to_f16_ru().to_bits(),
                        l.to_f16_rn().to_bits(), l.to_f16_ru().to_bits(), (n as u32).to_f16_rz().to_bits(), (n as u32).to_f16_rd().to_bits(),
                    ],
                    bf16s: [f.to_bf16_rn().to_bits(), f.to_bf16_rz().to_bits(), f.to_bf16_rd().to_bits(), f.to_bf16_ru().to_bits()],
                    ints: [
                        h.to_i32_rn(), h.to_i32_rz(), h.to_i32_rd(), h.to_i32_ru(),
                        b.to_i32_rn(), b.to_i32_rz(), b.to_i32_rd(), b.to_i32_ru(),
                        h.to_i16_rd() as i32, h.to_u16_ru() as i32, b.to_u32_rz() as i32, f.to_i32_rn(),
                    ],
                    longs: [h.to_u64_rz() as i64, b.to_i64_rd(), d.to_i64_ru()],
                };
            }
        }
    };
}

round_kernel!(round_sm75);
round_kernel!(round_sm80, 80);
round_kernel!(round_sm90, 90);

/// Values at and around the rounding boundaries of both formats.
pub(crate) fn inputs() -> Vec<In> {
    let mut s = 0x243f_6a88_85a3_08d3u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut fs: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 65504.0, 65519.0, 65520.0, 65536.0, 1e10, 3.4e38, f32::MAX as f64, 1e300, 5e-324, 2f64.powi(-25), 2f64.powi(-24) * 1.5, 2.5, 3.5, -2.5, 0.5, -0.5, 1e-40];
    for _ in 0..1500 {
        let r = next();
        // A 16-bit value of either format, its neighbour, and the points around their midpoint.
        let (x, y) = if r & 1 == 0 {
            let p = (r >> 8) as u16 & 0x7bfe;
            (f16::from_bits(p).to_f64(), f16::from_bits(p + 1).to_f64())
        } else {
            let p = (r >> 8) as u16 & 0x7f7e;
            (bf16::from_bits(p).to_f64(), bf16::from_bits(p + 1).to_f64())
        };
        let mid = (x + y) / 2.0;
        let sign = if r >> 63 == 1 { -1.0 } else { 1.0 };
        for v in [x, mid, mid + (y - x) * 2f64.powi(-20), mid - (y - x) * 2f64.powi(-20), x + (y - x) * 2f64.powi(-30)] {
            fs.push(sign * v);
        }
    }
    fs.iter()
        .map(|&v| {
            let r = next();
            // Integers near f16's rounding steps (2048.. has steps of 2, 32768.. of 32) and wide ones.
            let n = match r % 4 {
                0 => (r >> 8) as i32,
                1 => (r >> 8) as i32 % 70000,
                2 => 2048 + ((r >> 8) as i32 & 0xfff),
                _ => -(65504 + ((r >> 8) as i32 & 0x3f)),
            };
            let l = if r & 16 == 0 { (r >> 4) as i64 } else { n as i64 * 3 };
            let f = v as f32;
            In { f, d: v, n, l, h: f16::from_f64(v.clamp(-7e4, 7e4)).to_bits() ^ (r as u16 & 1), b: bf16::from_f32(f).to_bits() ^ (r as u16 & 1) }
        })
        .collect()
}

#[test]
fn rounded_conversions_match_the_host_on_every_target() {
    let x = inputs();
    check_map("round_sm75", round_sm75::PTX, &x, |i, o| round_sm75(i, o), |s, c, i, o| round_sm75::launch(s, c, i, o));
    check_map("round_sm80", round_sm80::PTX, &x, |i, o| round_sm80(i, o), |s, c, i, o| round_sm80::launch(s, c, i, o));
    check_map("round_sm90", round_sm90::PTX, &x, |i, o| round_sm90(i, o), |s, c, i, o| round_sm90::launch(s, c, i, o));
}

#[kernel]
pub fn f16_round_shapes(f: &[f32], h: &[f16], n: &[i32], o: &mut [f16], oi: &mut [i32]) {
    let (x, y, k) = (f[0], h[0], n[0]);
    o[0] = x.to_f16_rn();
    o[1] = x.to_f16_rz();
    o[2] = x.to_f16_rd();
    o[3] = x.to_f16_ru();
    oi[0] = y.to_i32_rn();
    oi[1] = y.to_i32_rz();
    oi[2] = y.to_i32_rd();
    oi[3] = y.to_i32_ru();
    o[4] = k.to_f16_rn();
    o[5] = k.to_f16_rz();
    o[6] = k.to_f16_rd();
    o[7] = k.to_f16_ru();
}

macro_rules! bf16_round_shapes {
    ($name:ident, $sm:literal) => {
        #[kernel(sm = $sm)]
        pub fn $name(f: &[f32], h: &[bf16], o: &mut [bf16], oi: &mut [i32]) {
            let (x, y) = (f[0], h[0]);
            o[0] = x.to_bf16_rn();
            o[1] = x.to_bf16_rz();
            o[2] = x.to_bf16_rd();
            o[3] = x.to_bf16_ru();
            oi[0] = y.to_i32_rn();
            oi[1] = y.to_i32_rz();
            oi[2] = y.to_i32_rd();
            oi[3] = y.to_i32_ru();
        }
    };
}

bf16_round_shapes!(bf16_round_shapes_sm80, 80);
bf16_round_shapes!(bf16_round_shapes_sm90, 90);

/// The distinct `cvt` forms that touch a 16-bit float (`cvt.rz.f16.f32`, `cvt.rmi.s32.bf16`, ...).
fn half_cvts(ptx: &str) -> BTreeSet<String> {
    ptx.split(|c: char| c.is_whitespace() || c == '{' || c == ';')
        .filter(|w| w.starts_with("cvt.") && (w.contains(".f16") || w.contains(".bf16")))
        .map(str::to_string)
        .collect()
}

#[test]
fn rounded_conversions_are_nvccs() {
    let f16_twin = "#include <cuda_fp16.h>\n\
        extern \"C\" __global__ void k(const float* f, const __half* h, const int* n, __half* o, int* oi) {\n\
          o[0] = __float2half_rn(f[0]); o[1] = __float2half_rz(f[0]); o[2] = __float2half_rd(f[0]); o[3] = __float2half_ru(f[0]);\n\
          oi[0] = __half2int_rn(h[0]); oi[1] = __half2int_rz(h[0]); oi[2] = __half2int_rd(h[0]); oi[3] = __half2int_ru(h[0]);\n\
          o[4] = __int2half_rn(n[0]); o[5] = __int2half_rz(n[0]); o[6] = __int2half_rd(n[0]); o[7] = __int2half_ru(n[0]);\n\
        }\n";
    let bf16_twin = "#include <cuda_bf16.h>\n\
        extern \"C\" __global__ void k(const float* f, const __nv_bfloat16* h, __nv_bfloat16* o, int* oi) {\n\
          o[0] = __float2bfloat16_rn(f[0]); o[1] = __float2bfloat16_rz(f[0]); o[2] = __float2bfloat16_rd(f[0]); o[3] = __float2bfloat16_ru(f[0]);\n\
          oi[0] = __bfloat162int_rn(h[0]); oi[1] = __bfloat162int_rz(h[0]); oi[2] = __bfloat162int_rd(h[0]); oi[3] = __bfloat162int_ru(h[0]);\n\
        }\n";
    let cases = [
        ("f16_round_shapes", f16_round_shapes::PTX, f16_twin, 75, &["cvt.rz.f16.f32", "cvt.rmi.s32.f16", "cvt.rp.f16.s32"][..]),
        ("bf16_round_shapes_sm80", bf16_round_shapes_sm80::PTX, bf16_twin, 80, &["cvt.rz.bf16.f32"][..]),
        ("bf16_round_shapes_sm90", bf16_round_shapes_sm90::PTX, bf16_twin, 90, &["cvt.rm.bf16.f32", "cvt.rpi.s32.bf16"][..]),
    ];
    for (name, ours, cuda, sm, expect) in cases {
        assemble(name, ours);
        let mine = half_cvts(ours);
        for e in expect {
            assert!(mine.contains(*e), "{name}: no `{e}` in\n{ours}");
        }
        let Some(theirs) = nvcc_for(name, cuda, sm) else { continue };
        assert_eq!(mine, half_cvts(&theirs), "{name}: our 16-bit float conversions differ from nvcc's\n--- ours ---\n{ours}\n--- nvcc ---\n{theirs}");
    }
}
