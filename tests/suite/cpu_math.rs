//! Exact semantics: nvcc's PTX for directed-rounding arithmetic, conversions, library math and
//! integer intrinsics, against independent host computations — the host FPU in the same
//! rounding mode (x86 MXCSR), Rust's saturating casts, the `half` crate, and libm within
//! CUDA's documented error bounds.

use crate::cpu_harness::{arg, nvcc_archs, Harness};

const SRC: &str = include_str!("../cuda/math.cu");

/// bf16 conversions need sm_80; nvcc's -O3 output for sm_80 and sm_90 both run.
fn modules() -> Vec<Harness> {
    nvcc_archs("cpu_math", SRC, &["sm_80", "sm_90"]).iter().map(|p| Harness::new(p)).collect()
}

/// Deterministic test values: random bits plus subnormals, huge and tiny magnitudes, exact
/// halves (rounding ties) and special values.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn f32(&mut self) -> f32 {
        let r = self.next();
        let b = r as u32;
        f32::from_bits(match (r >> 40) % 10 {
            0 => b & 0x807f_ffff,
            1 => (b & 0x80ff_ffff) | 0x0080_0000,
            2 => (b & 0x807f_ffff) | 0x7e80_0000,
            3 => [0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x3f00_0000, 0x4f00_0000][(b % 7) as usize],
            4 => ((b % 2000) as f32 - 1000.0 + 0.5).to_bits(),
            _ => (b & 0x8fff_ffff) | 0x3000_0000,
        })
    }
    fn f64(&mut self) -> f64 {
        let r = self.next();
        f64::from_bits(match self.next() % 8 {
            0 => r & 0x800f_ffff_ffff_ffff,
            1 => (r & 0x800f_ffff_ffff_ffff) | 0x7fe0_0000_0000_0000,
            2 => (r & 0x8fff_ffff_ffff_ffff) | 0x3000_0000_0000_0000,
            3 => ((r % 4000) as f64 - 2000.0 + 0.5).to_bits(),
            _ => r & 0xbfff_ffff_ffff_ffff,
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod host {
    //! The host FPU in a chosen rounding mode.
    use std::arch::asm;

    pub fn with_mode<T>(mode: u32, f: impl FnOnce() -> T) -> T {
        let mut old: u32 = 0;
        unsafe { asm!("stmxcsr [{}]", in(reg) &mut old) };
        let new = (old & !(3 << 13)) | mode << 13;
        unsafe { asm!("ldmxcsr [{}]", in(reg) &new) };
        let r = f();
        unsafe { asm!("ldmxcsr [{}]", in(reg) &old) };
        r
    }
    /// Rounding-control values in CUDA's order rn, rz, rd (down), ru (up).
    pub const MODES: [u32; 4] = [0, 3, 1, 2];

    macro_rules! binop {
        ($name:ident, $t:ty, $ins:literal) => {
            pub fn $name(a: $t, b: $t) -> $t {
                let mut x = a;
                unsafe { asm!(concat!($ins, " {x}, {y}"), x = inout(xmm_reg) x, y = in(xmm_reg) b) };
                x
            }
        };
    }
    binop!(add32, f32, "addss");
    binop!(mul32, f32, "mulss");
    binop!(div32, f32, "divss");
    binop!(add64, f64, "addsd");
    binop!(mul64, f64, "mulsd");
    binop!(div64, f64, "divsd");
    pub fn sqrt32(a: f32) -> f32 {
        let mut x = a;
        unsafe { asm!("sqrtss {x}, {x}", x = inout(xmm_reg) x) };
        x
    }
    pub fn sqrt64(a: f64) -> f64 {
        let mut x = a;
        unsafe { asm!("sqrtsd {x}, {x}", x = inout(xmm_reg) x) };
        x
    }
    pub fn fma32(a: f32, b: f32, c: f32) -> f32 {
        let mut x = a;
        unsafe { asm!("vfmadd213ss {x}, {y}, {z}", x = inout(xmm_reg) x, y = in(xmm_reg) b, z = in(xmm_reg) c) };
        x
    }
    pub fn fma64(a: f64, b: f64, c: f64) -> f64 {
        let mut x = a;
        unsafe { asm!("vfmadd213sd {x}, {y}, {z}", x = inout(xmm_reg) x, y = in(xmm_reg) b, z = in(xmm_reg) c) };
        x
    }
    pub fn f64_to_f32(a: f64) -> f32 {
        let x: f32;
        unsafe { asm!("cvtsd2ss {x}, {y}", x = out(xmm_reg) x, y = in(xmm_reg) a) };
        x
    }
    pub fn i64_to_f32(a: i64) -> f32 {
        let x: f32;
        unsafe { asm!("cvtsi2ss {x}, {y}", x = out(xmm_reg) x, y = in(reg) a) };
        x
    }
    pub fn i64_to_f64(a: i64) -> f64 {
        let x: f64;
        unsafe { asm!("cvtsi2sd {x}, {y}", x = out(xmm_reg) x, y = in(reg) a) };
        x
    }
}

/// NVIDIA GPUs return this NaN from arithmetic.
fn canon32(x: f32) -> u32 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        x.to_bits()
    }
}
fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        0x7fff_ffff_ffff_ffff
    } else {
        x.to_bits()
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn directed_rounding_f32_is_bit_exact() {
    if !std::arch::is_x86_feature_detected!("fma") {
        return;
    }
    for mut k in modules() {
        let n = 4096;
        let mut g = Gen(7);
        let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = ((0..n).map(|_| g.f32()).collect(), (0..n).map(|_| g.f32()).collect(), (0..n).map(|_| g.f32()).collect());
        let (da, db, dc, o) = (k.upload(&a), k.upload(&b), k.upload(&c), k.zeroed::<f32>(n * 24));
        k.launch("rounding32", [n as u32 / 128, 1, 1], [128, 1, 1], 0, &[da.ptr(), db.ptr(), dc.ptr(), o.ptr(), arg(n as i32)]).unwrap();
        let got: Vec<f32> = k.download(o);
        let names = ["add", "mul", "div", "sqrt", "fma", "rcp"];
        for i in 0..n {
            let (x, y, z) = (a[i], b[i], c[i]);
            for (m, &mode) in host::MODES.iter().enumerate() {
                let want = host::with_mode(mode, || {
                    [host::add32(x, y), host::mul32(x, y), host::div32(x, y), host::sqrt32(x.abs()), host::fma32(x, y, z), host::div32(1.0, x)]
                });
                for (op, w) in want.iter().enumerate() {
                    let r = got[i * 24 + op * 4 + m];
                    assert_eq!(canon32(r), canon32(*w), "{} mode {m} of ({x:e}, {y:e}, {z:e})", names[op]);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn directed_rounding_f64_is_bit_exact() {
    if !std::arch::is_x86_feature_detected!("fma") {
        return;
    }
    for mut k in modules() {
        let n = 4096;
        let mut g = Gen(11);
        let (a, b, c): (Vec<f64>, Vec<f64>, Vec<f64>) = ((0..n).map(|_| g.f64()).collect(), (0..n).map(|_| g.f64()).collect(), (0..n).map(|_| g.f64()).collect());
        let (da, db, dc, o) = (k.upload(&a), k.upload(&b), k.upload(&c), k.zeroed::<f64>(n * 20));
        k.launch("rounding64", [n as u32 / 128, 1, 1], [128, 1, 1], 0, &[da.ptr(), db.ptr(), dc.ptr(), o.ptr(), arg(n as i32)]).unwrap();
        let got: Vec<f64> = k.download(o);
        let names = ["add", "mul", "div", "sqrt", "fma"];
        for i in 0..n {
            let (x, y, z) = (a[i], b[i], c[i]);
            for (m, &mode) in host::MODES.iter().enumerate() {
                let want = host::with_mode(mode, || [host::add64(x, y), host::mul64(x, y), host::div64(x, y), host::sqrt64(x.abs()), host::fma64(x, y, z)]);
                for (op, w) in want.iter().enumerate() {
                    let r = got[i * 20 + op * 4 + m];
                    assert_eq!(canon64(r), canon64(*w), "{} mode {m} of ({x:e}, {y:e}, {z:e})", names[op]);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn conversions_saturate_and_round() {
    for mut k in modules() {
        let n = 2048;
        let mut g = Gen(13);
        let a: Vec<f32> = (0..n).map(|_| g.f32()).collect();
        let d: Vec<f64> = (0..n).map(|_| g.f64()).collect();
        let l: Vec<i64> = (0..n).map(|i| if i % 3 == 0 { g.next() as i64 } else { (g.next() as i64) >> (g.next() % 60) }).collect();
        let (da, dd, dl, o) = (k.upload(&a), k.upload(&d), k.upload(&l), k.zeroed::<i64>(n * 20));
        k.launch("conversions", [n as u32 / 128, 1, 1], [128, 1, 1], 0, &[da.ptr(), dd.ptr(), dl.ptr(), o.ptr(), arg(n as i32)]).unwrap();
        let got: Vec<i64> = k.download(o);
        for i in 0..n {
            let (x, y, v) = (a[i], d[i], l[i]);
            let r = &got[i * 20..i * 20 + 20];
            // Rust's float-to-int casts saturate and map NaN to 0, as PTX's cvt does.
            let want = [
                x.round_ties_even() as i32 as i64,
                x as i32 as i64,
                x.floor() as i32 as i64,
                x.ceil() as i32 as i64,
                x.round_ties_even() as u32 as i64,
                x as i64,
                x.floor() as u64 as i64,
                y.round_ties_even() as i32 as i64,
                y.ceil() as i64,
            ];
            for (j, w) in want.iter().enumerate() {
                assert_eq!(r[j], *w, "conversion {j} of {x:e} / {y:e}");
            }
            for (m, &mode) in host::MODES.iter().enumerate() {
                let (f, fl) = host::with_mode(mode, || (host::f64_to_f32(y), host::i64_to_f32(v)));
                assert_eq!(r[9 + m] as u32, canon32(f), "f64->f32 mode {m} of {y:e}");
                assert_eq!(r[13 + m] as u32, fl.to_bits(), "i64->f32 mode {m} of {v}");
            }
            assert_eq!(r[17] as u64, host::with_mode(1, || host::i64_to_f64(v)).to_bits(), "i64->f64 rd of {v}");
            let u = v as u64;
            // u64 -> f64 rounding up: exact in u128 arithmetic.
            let up = {
                let f = u as f64; // round to nearest
                if (f as u128) < u as u128 { f.next_up() } else if u as u128 == f as u128 || f as u128 > u as u128 && (f.next_down() as u128) < u as u128 { f } else { f.next_down() }
            };
            assert_eq!(r[18] as u64, up.to_bits(), "u64->f64 ru of {u}");
            let (h, bf, exact) = (r[19] & 0xffff, (r[19] >> 16) & 0xffff, (r[19] >> 32) & 1);
            let hh = ptx_runtime::half::f16::from_f32(x);
            let want_h = if hh.is_nan() { 0x7fff } else { hh.to_bits() as i64 };
            assert_eq!(h, want_h, "f32->f16 of {x:e}");
            let bb = ptx_runtime::half::bf16::from_f32(x);
            let want_b = if bb.is_nan() { 0x7fff } else { bb.to_bits() as i64 };
            assert_eq!(bf, want_b, "f32->bf16 of {x:e}");
            assert_eq!(exact == 1, !x.is_nan() && hh.to_f32().to_bits() == x.to_bits());
        }
    }
}

/// Distance in units in the last place.
fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        (if i < 0 { i32::MIN.wrapping_sub(i) } else { i }) as i64
    };
    (key(a) - key(b)).unsigned_abs()
}
fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        (if i < 0 { i64::MIN.wrapping_sub(i) } else { i }) as i128
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

#[test]
fn library_math_within_cuda_error_bounds() {
    for mut k in modules() {
        let n = 4096;
        let mut g = Gen(17);
        let a: Vec<f32> = (0..n).map(|_| ((g.next() % 200_000) as f32 - 100_000.0) / 997.0).collect();
        let d: Vec<f64> = (0..n).map(|_| ((g.next() % 2_000_000) as f64 - 1_000_000.0) / 9973.0).collect();
        let (da, dd, o, od) = (k.upload(&a), k.upload(&d), k.zeroed::<f32>(n * 8), k.zeroed::<f64>(n * 4));
        k.launch("library", [n as u32 / 128, 1, 1], [128, 1, 1], 0, &[da.ptr(), dd.ptr(), o.ptr(), od.ptr(), arg(n as i32)]).unwrap();
        let got: Vec<f32> = k.download(o);
        let gd: Vec<f64> = k.download(od);
        // CUDA Programming Guide, "Mathematical Functions": maximum ulp errors (+1 for the
        // host reference's own rounding).
        for i in 0..n {
            let x = a[i];
            let xd = x as f64;
            let bounds = [2 + 1, 2 + 1, 2 + 1, 1 + 1, 4 + 1, 2 + 1, 3 + 1, 1 + 1];
            let refs: [f64; 8] = [xd.sin(), xd.cos(), ((x * 0.01) as f64).exp(), ((x.abs() + 1.0) as f64).ln(), ((x.abs() * 0.01 + 0.5) as f64).powf(1.7f32 as f64), ((x * 0.1) as f64).tanh(), xd.atan2(3.0), xd.cbrt()];
            for j in 0..8 {
                let e = ulps32(got[i * 8 + j], refs[j] as f32);
                assert!(e <= bounds[j], "function {j} of {x}: got {:e}, want {:e} ({e} ulp)", got[i * 8 + j], refs[j]);
            }
            let y = d[i];
            let drefs = [y.sin(), (y * 0.01).exp(), (y.abs() + 1.0).ln(), y.abs().sqrt()];
            let dbounds = [2 + 1, 1 + 1, 1 + 1, 0];
            for j in 0..4 {
                let e = ulps64(gd[i * 4 + j], drefs[j]);
                assert!(e <= dbounds[j], "double function {j} of {y}: got {:e}, want {:e} ({e} ulp)", gd[i * 4 + j], drefs[j]);
            }
        }
    }
}

#[test]
fn approximate_instructions_within_ptx_bounds() {
    for mut k in modules() {
        let n = 2048;
        let mut g = Gen(19);
        let a: Vec<f32> = (0..n).map(|_| ((g.next() % 2_000_000) as f32 - 1_000_000.0) / 318_310.0).collect(); // about [-π, π]
        let (da, o) = (k.upload(&a), k.zeroed::<f32>(n * 6));
        k.launch("fast", [n as u32 / 128, 1, 1], [128, 1, 1], 0, &[da.ptr(), o.ptr(), arg(n as i32)]).unwrap();
        let got: Vec<f32> = k.download(o);
        for i in 0..n {
            let x = a[i] as f64;
            let r = &got[i * 6..];
            // PTX ISA: sin/cos.approx max absolute error 2^-20.9 on [-π, π]; ex2.approx max
            // relative error 2^-22; lg2.approx max absolute error 2^-22.6 near 1; rsqrt.approx
            // relative error 2^-22.9; div.approx 2 ulp.
            assert!((r[0] as f64 - x.sin()).abs() <= 2f64.powf(-20.9), "sin {x}");
            assert!((r[1] as f64 - x.cos()).abs() <= 2f64.powf(-20.9), "cos {x}");
            assert!(((r[2] as f64 - x.exp2()) / x.exp2()).abs() <= 2f64.powi(-22), "ex2 {x}");
            let l = (x.abs() as f32 + 0.5) as f64;
            assert!((r[3] as f64 - l.log2()).abs() <= 2f64.powi(-21), "lg2 {l}");
            let s = (x.abs() as f32 + 0.25) as f64;
            assert!(((r[4] as f64 - 1.0 / s.sqrt()) * s.sqrt()).abs() <= 2f64.powf(-22.9), "rsqrt {s}");
            assert!(ulps32(r[5], (x / 3.0) as f32) <= 2, "div.approx {x}");
        }
    }
}

#[test]
fn integer_intrinsics() {
    for mut k in modules() {
        let n = 2048;
        let mut g = Gen(23);
        let a: Vec<u32> = (0..n).map(|i| if i % 5 == 0 { 0 } else { g.next() as u32 >> (g.next() % 32) }).collect();
        let b: Vec<u32> = (0..n).map(|_| g.next() as u32).collect();
        let (da, db, o) = (k.upload(&a), k.upload(&b), k.zeroed::<u64>(n * 16));
        k.launch("integers", [n as u32 / 128, 1, 1], [128, 1, 1], 0, &[da.ptr(), db.ptr(), o.ptr(), arg(n as i32)]).unwrap();
        let got: Vec<u64> = k.download(o);
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let xx = (x as u64) << 32 | y as u64;
            let sel = y & 0x7777;
            let bytes = ((y as u64) << 32 | x as u64).to_le_bytes();
            let perm = (0..4).fold(0u32, |acc, j| acc | (bytes[((sel >> (4 * j)) & 7) as usize] as u32) << (8 * j));
            let (xi, yi) = (x as i32, (y | 1) as i32);
            let ffs = |v: u64| if v == 0 { 0 } else { v.trailing_zeros() as u64 + 1 };
            let want: [u64; 16] = [
                x.count_ones() as u64,
                x.leading_zeros() as u64,
                x.reverse_bits() as u64,
                ffs(x as u64),
                perm as u64,
                (((x as i32 as i64) * (y as i32 as i64)) >> 32) as i32 as u32 as u64,
                (x as u64 * y as u64) >> 32,
                ((xx as u128 * xx.wrapping_add(12345) as u128) >> 64) as u64,
                (7u32).wrapping_add((x as i32).abs_diff(y as i32)) as u64,
                (((y as u64) << 32 | x as u64) << (y & 31) >> 32) as u32 as u64,
                (((y as u64) << 32 | x as u64) >> (y.min(32))) as u32 as u64,
                (xi.wrapping_div(yi) as u32 ^ xi.wrapping_rem(yi) as u32) as u64,
                (xx / (y | 1) as u64).wrapping_add(xx % (x | 1) as u64),
                xx.count_ones() as u64 + xx.leading_zeros() as u64 * 100 + ffs(xx) * 10000,
                xx.reverse_bits(),
                ((((x << 8) as i32 >> 8) as i64 * ((y << 8) as i32 >> 8) as i64) as u32 ^ ((x & 0xff_ffff) as u64 * (y & 0xff_ffff) as u64) as u32) as u64,
            ];
            for j in 0..16 {
                assert_eq!(got[i * 16 + j], want[j], "intrinsic {j} of ({x:#x}, {y:#x})");
            }
        }
    }
}
