//! The device math library (`ptx_runtime::device::math`): its accuracy, measured on the host
//! (the same Rust the device runs) against references, and its device code equal to the
//! host's bit for bit.

// The sweeps are tables of (name, ours, reference) function pointers.
#![allow(clippy::type_complexity)]

use crate::tools::assemble;
use ptx_runtime::device::math::*;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

/// `2^k` for any `k` an `f64` has (subnormal powers included, where `powi` underflows).
fn pow2(k: i32) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// The binary exponent of `x` (of its leading bit, for subnormals too).
fn exponent(x: f64) -> i32 {
    let b = x.abs().to_bits();
    let e = (b >> 52) as i32;
    if e == 0 {
        -1074 + 63 - b.leading_zeros() as i32
    } else {
        e - 1023
    }
}

/// Distance in units in the last place of `want` (an `f64` approximation of the exact value
/// of an `f32` function) of the `f32` result `got`.
fn ulps_f32(got: f32, want: f64) -> f64 {
    if got.is_nan() && want.is_nan() || got as f64 == want {
        return 0.0;
    }
    if got.is_nan() || want.is_nan() || got.is_infinite() || want.is_infinite() {
        // An infinity where the exact value is finite but beyond f32::MAX: fine if it rounds so.
        if got.is_infinite() && (want as f32).is_infinite() && got.signum() as f64 == want.signum() {
            return 0.0;
        }
        return f64::INFINITY;
    }
    (got as f64 - want).abs() / pow2((exponent(want).max(-126) - 23).max(-149))
}

/// Distance in ulps of `want` between two `f64`s.
fn ulps_f64(got: f64, want: f64) -> f64 {
    if got.is_nan() && want.is_nan() || got == want {
        return 0.0;
    }
    if got.is_nan() || want.is_nan() || got.is_infinite() || want.is_infinite() {
        return f64::INFINITY;
    }
    (got - want).abs() / pow2((exponent(want).max(-1022) - 52).max(-1074))
}

/// Deterministic inputs in `[lo, hi]`, uniform and log-uniform, plus the edges.
fn inputs(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut v = vec![lo, hi, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, -1e-300, 5e-324, 1e-40, 100.0, -100.0];
    v.retain(|x| *x >= lo && *x <= hi);
    let mut s = 0x853c_49e6_748f_ea9bu64;
    for i in 0..n {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let u = (s >> 11) as f64 / (1u64 << 53) as f64;
        let x = if i % 2 == 0 {
            lo + (hi - lo) * u
        } else {
            // Log-uniform magnitude within the range's magnitude, random sign where allowed.
            let top = hi.abs().max(lo.abs()).max(1e-300);
            let mag = (1e-30f64.ln() + (top.ln() - 1e-30f64.ln()) * u).exp();
            if s & 1 == 0 && lo < 0.0 { -mag } else { mag }
        };
        if x >= lo && x <= hi {
            v.push(x);
        }
    }
    v
}

/// An exponent for `powf(x, y)` that puts `y · ln x` anywhere in `[-740, 705]`, drawn from
/// `x`'s bits, so one list of `x` covers the whole result range including the subnormals.
fn spread_exponent(x: f64) -> f64 {
    let u = (x.to_bits().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11) as f64 / (1u64 << 53) as f64;
    let ln = x.ln();
    if ln == 0.0 { 2.5 } else { (-740.0 + 1445.0 * u) / ln }
}

struct Worst {
    name: &'static str,
    ulps: f64,
    at: f64,
}

fn worst_f32(name: &'static str, f: impl Fn(f32) -> f32, reference: impl Fn(f64) -> f64, xs: &[f64]) -> Worst {
    let mut w = Worst { name, ulps: 0.0, at: 0.0 };
    for &x in xs {
        let x = x as f32;
        let e = ulps_f32(f(x), reference(x as f64));
        if e > w.ulps {
            w = Worst { name, ulps: e, at: x as f64 };
        }
    }
    w
}

fn worst_f64(name: &'static str, f: impl Fn(f64) -> f64, reference: impl Fn(f64) -> f64, xs: &[f64]) -> Worst {
    let mut w = Worst { name, ulps: 0.0, at: 0.0 };
    for &x in xs {
        let e = ulps_f64(f(x), reference(x));
        if e > w.ulps {
            w = Worst { name, ulps: e, at: x };
        }
    }
    w
}

const N: usize = 40_000;

/// `n` floats either side of `x`, as `f64`s.
fn neighbours(x: f32, n: u32) -> Vec<f64> {
    let b = x.to_bits();
    (b.saturating_sub(n)..=b.saturating_add(n)).map(|b| f32::from_bits(b) as f64).filter(|v| v.is_finite()).collect()
}

/// The `f32`s nearest to multiples of π/2 — up to 2^17 (Cody–Waite), at every power of two
/// above, and the closest ones of all (found by an exhaustive search over the `f32`s ≥ 1 with
/// `f64`'s correctly reduced `sin`/`cos`) — where a reduction short of precision shows.
fn near_multiples_of_half_pi() -> Vec<f64> {
    let mut v = vec![];
    for k in 1..3000 {
        v.extend(neighbours((k as f64 * core::f64::consts::FRAC_PI_2) as f32, 2));
    }
    for k in 17..128 {
        let x = pow2(k) as f32;
        v.extend(neighbours(x, 3));
        v.extend(neighbours(x * 1.2345, 3));
    }
    for b in HARD_TRIG {
        v.extend(neighbours(f32::from_bits(b), 1));
    }
    v.extend([f32::MAX as f64, -(f32::MAX as f64), 1.0e38, -1.0e38]);
    v
}

/// The twelve `f32`s closest to a multiple of π/2 (|sin| or |cos| from 1.6e-9 to 1.0e-8, that
/// is down to 2^-29): 7.729179e28, 2.1999385e10, 252.89821...
const HARD_TRIG: [u32; 12] = [0x6f79_be45, 0x50a3_e87f, 0x6ff9_be45, 0x5123_e87f, 0x437c_e5f1, 0x7079_be45, 0x6a19_76f1, 0x53b1_46a6, 0x6589_8498, 0x51a3_e87f, 0x43fc_e5f1, 0x7758_4625];

/// A list of `(x, y)` for `powf` that puts `y · ln x` anywhere in [-104, 89] (results from
/// the subnormals to overflow), `y` drawn from `x`'s bits.
fn pow_pairs(xs: &[f64]) -> Vec<(f32, f32)> {
    xs.iter()
        .map(|&x| {
            let x = (x as f32).abs();
            let u = ((x.to_bits() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11) as f64 / (1u64 << 53) as f64;
            let ln = (x as f64).ln();
            (x, if ln == 0.0 || !ln.is_finite() { 2.5 } else { ((-104.0 + 193.0 * u) / ln) as f32 })
        })
        .collect()
}

fn worst_f32_2(name: &'static str, f: impl Fn(f32, f32) -> f32, reference: impl Fn(f64, f64) -> f64, xys: &[(f32, f32)]) -> Worst {
    let mut w = Worst { name, ulps: 0.0, at: 0.0 };
    for &(x, y) in xys {
        let e = ulps_f32(f(x, y), reference(x as f64, y as f64));
        if e > w.ulps {
            w = Worst { name, ulps: e, at: x as f64 };
        }
    }
    w
}

/// Our bounds beside CUDA's for the same functions (CUDA C++ Programming Guide, appendix
/// "Mathematical Functions", single precision, full range), in ulps. Ours are against the
/// exact value; CUDA's against the correctly rounded result, which is up to half an ulp more
/// generous: ours are no wider in either reading.
const F32_BOUNDS: [(&str, f64, u32); 19] = [
    ("exp", 1.0, 2),
    ("exp2", 1.0, 2),
    ("exp_m1", 1.0, 1),
    ("ln", 1.0, 1),
    ("log2", 1.0, 1),
    ("log10", 1.0, 2),
    ("ln_1p", 1.0, 1),
    ("sin", 1.0, 2),
    ("cos", 1.0, 2),
    ("tan", 3.0, 4),
    ("atan", 1.0, 2),
    ("atan2", 1.0, 3),
    ("asin", 1.0, 2),
    ("acos", 1.0, 2),
    ("sinh", 2.0, 3),
    ("cosh", 2.0, 2),
    ("tanh", 2.0, 2),
    ("powf", 1.0, 4),
    ("hypot", 1.0, 3),
];

fn f32_bound(name: &str) -> f64 {
    let base = name.split([' ', '(']).next().unwrap();
    let &(_, ours, cuda) = F32_BOUNDS.iter().find(|(n, _, _)| *n == base).unwrap_or_else(|| panic!("no bound for {name}"));
    assert!(ours <= cuda as f64, "{base}: our bound {ours} is wider than CUDA's {cuda}");
    ours
}

#[test]
fn f32_functions_are_within_their_documented_ulps() {
    // The reference is std's f64 function of the same input: an f64 approximation of the exact
    // value, good to ~2^-29 f32 ulp (glibc's f64 sin/cos reduce huge arguments exactly).
    let wide = inputs(-1e30, 1e30, N);
    let pos = inputs(0.0, 3.4e38, N);
    let trig = inputs(-131_072.0, 131_072.0, N);
    let huge = inputs(-3.4e38, 3.4e38, N);
    let hard = near_multiples_of_half_pi();
    let unit = inputs(-1.0, 1.0, N);
    let mut near_one = inputs(0.99, 1.01, N / 4);
    near_one.extend(neighbours(1.0, 3000));
    // Subnormal inputs: the smallest ones, random ones, and the largest.
    let mut subnormal: Vec<f64> = (1..2000u32).chain((0..4000u32).map(|i| i.wrapping_mul(2_654_435_761) % 0x0080_0000)).chain(0x007f_f000..0x0080_0000).map(|b| f32::from_bits(b) as f64).collect();
    subnormal.retain(|x| *x > 0.0);
    let mut pow_xs = inputs(1e-38, 3e38, N);
    pow_xs.extend(neighbours(1.0, 2000));
    let pows = pow_pairs(&pow_xs);
    let mut atan2_pairs: Vec<(f32, f32)> = wide.iter().zip(wide.iter().rev()).map(|(&y, &x)| (y as f32, x as f32)).collect();
    atan2_pairs.extend(unit.iter().map(|&y| (y as f32, -0.7f32)));
    let results = [
        worst_f32("exp", exp_f32, f64::exp, &inputs(-104.0, 88.8, N)),
        worst_f32("exp (subnormal results)", exp_f32, f64::exp, &inputs(-104.0, -87.0, N)),
        worst_f32("exp (near overflow)", exp_f32, f64::exp, &inputs(87.0, 88.8, N)),
        worst_f32("exp2", exp2_f32, f64::exp2, &inputs(-160.0, 130.0, N)),
        worst_f32("exp2 (subnormal results)", exp2_f32, f64::exp2, &inputs(-150.0, -125.0, N)),
        worst_f32("exp2 (near overflow)", exp2_f32, f64::exp2, &inputs(126.0, 128.5, N)),
        worst_f32("exp_m1", exp_m1_f32, f64::exp_m1, &inputs(-20.0, 89.0, N)),
        worst_f32("exp_m1 (near 0)", exp_m1_f32, f64::exp_m1, &inputs(-1.0, 1.0, N)),
        worst_f32("ln", ln_f32, f64::ln, &pos),
        worst_f32("ln (near 1)", ln_f32, f64::ln, &near_one),
        worst_f32("ln (subnormal)", ln_f32, f64::ln, &subnormal),
        worst_f32("log2", log2_f32, f64::log2, &pos),
        worst_f32("log2 (near 1)", log2_f32, f64::log2, &near_one),
        worst_f32("log2 (subnormal)", log2_f32, f64::log2, &subnormal),
        worst_f32("log10", log10_f32, f64::log10, &pos),
        worst_f32("log10 (near 1)", log10_f32, f64::log10, &near_one),
        worst_f32("log10 (subnormal)", log10_f32, f64::log10, &subnormal),
        worst_f32("ln_1p", ln_1p_f32, f64::ln_1p, &inputs(-0.999_999, 3e38, N)),
        worst_f32("ln_1p (near 0)", ln_1p_f32, f64::ln_1p, &inputs(-0.5, 0.5, N)),
        worst_f32("ln_1p (subnormal)", ln_1p_f32, f64::ln_1p, &subnormal),
        worst_f32("sin", sin_f32, f64::sin, &trig),
        worst_f32("cos", cos_f32, f64::cos, &trig),
        worst_f32("tan", tan_f32, f64::tan, &trig),
        worst_f32("sin (huge)", sin_f32, f64::sin, &huge),
        worst_f32("cos (huge)", cos_f32, f64::cos, &huge),
        worst_f32("tan (huge)", tan_f32, f64::tan, &huge),
        worst_f32("sin (near kπ/2)", sin_f32, f64::sin, &hard),
        worst_f32("cos (near kπ/2)", cos_f32, f64::cos, &hard),
        worst_f32("tan (near kπ/2)", tan_f32, f64::tan, &hard),
        worst_f32("atan", atan_f32, f64::atan, &wide),
        worst_f32_2("atan2", atan2_f32, f64::atan2, &atan2_pairs),
        worst_f32("asin", asin_f32, f64::asin, &unit),
        worst_f32("acos", acos_f32, f64::acos, &unit),
        worst_f32("sinh", sinh_f32, f64::sinh, &inputs(-90.0, 90.0, N)),
        worst_f32("cosh", cosh_f32, f64::cosh, &inputs(-90.0, 90.0, N)),
        worst_f32("tanh", tanh_f32, f64::tanh, &inputs(-20.0, 20.0, N)),
        worst_f32("powf(x, 2.5)", |x| powf_f32(x, 2.5), |x| x.powf(2.5), &inputs(0.0, 1e15, N)),
        worst_f32("powf(1.0001, y)", |y| powf_f32(1.0001, y), |y| (1.0001f32 as f64).powf(y), &inputs(-8e5, 8e5, N)),
        worst_f32_2("powf(x, y(x))", powf_f32, f64::powf, &pows),
        worst_f32("powf(-3, y)", |y| powf_f32(-3.0, y), |y| (-3f64).powf(y), &inputs(-90.0, 80.0, N).iter().map(|y| y.round()).collect::<Vec<_>>()),
        worst_f32("hypot(x, 3)", |x| hypot_f32(x, 3.0), |x| x.hypot(3.0), &wide),
        worst_f32_2("hypot(x, y)", hypot_f32, f64::hypot, &atan2_pairs),
    ];
    let mut report = String::new();
    for r in &results {
        report.push_str(&format!("{:>26}: {:.3} ulp (at {:e}), bound {}\n", r.name, r.ulps, r.at, f32_bound(r.name)));
    }
    println!("{report}");
    for r in &results {
        assert!(r.ulps <= f32_bound(r.name), "{} is off by {} ulp at {:e}\n{report}", r.name, r.ulps, r.at);
    }
}

/// The "max seen" column of docs/body-compiler.md: every `F32_SWEEP_STRIDE`th (default 31st)
/// `f32` bit pattern through each function. Minutes in release mode:
/// `F32_SWEEP_STRIDE=7 cargo test --release --test suite f32_sweep -- --ignored --nocapture`.
#[test]
#[ignore = "minutes in release mode; f32_functions_are_within_their_documented_ulps asserts the bounds in every run"]
fn f32_sweep() {
    let stride: u64 = std::env::var("F32_SWEEP_STRIDE").ok().and_then(|s| s.parse().ok()).unwrap_or(31);
    let unary: [(&str, fn(f32) -> f32, fn(f64) -> f64); 16] = [
        ("exp", exp_f32, f64::exp), ("exp2", exp2_f32, f64::exp2), ("exp_m1", exp_m1_f32, f64::exp_m1), ("ln", ln_f32, f64::ln), ("log2", log2_f32, f64::log2),
        ("log10", log10_f32, f64::log10), ("ln_1p", ln_1p_f32, f64::ln_1p), ("sin", sin_f32, f64::sin), ("cos", cos_f32, f64::cos), ("tan", tan_f32, f64::tan),
        ("atan", atan_f32, f64::atan), ("asin", asin_f32, f64::asin), ("acos", acos_f32, f64::acos), ("sinh", sinh_f32, f64::sinh), ("cosh", cosh_f32, f64::cosh),
        ("tanh", tanh_f32, f64::tanh),
    ];
    let xs = || (0..1u64 << 32).step_by(stride as usize).map(|b| f32::from_bits(b as u32));
    for (name, f, r) in unary {
        let w = xs().fold((0.0f64, 0.0f32), |w, x| {
            let e = ulps_f32(f(x), r(x as f64));
            if e > w.0 { (e, x) } else { w }
        });
        println!("{name:>14}: {:.3} ulp at {:e}, bound {}", w.0, w.1, f32_bound(name));
    }
    let binary: [(&str, fn(f32, f32) -> f32, fn(f64, f64) -> f64, f32); 5] = [
        ("powf(x, 2.5)", powf_f32, f64::powf, 2.5), ("powf(x, -7.3)", powf_f32, f64::powf, -7.3), ("atan2(x, 0.7)", atan2_f32, f64::atan2, 0.7), ("atan2(x, -0.7)", atan2_f32, f64::atan2, -0.7), ("hypot(x, 3)", hypot_f32, f64::hypot, 3.0),
    ];
    for (name, f, r, y) in binary {
        let w = xs().fold((0.0f64, 0.0f32), |w, x| {
            let e = ulps_f32(f(x, y), r(x as f64, y as f64));
            if e > w.0 { (e, x) } else { w }
        });
        println!("{name:>14}: {:.3} ulp at {:e}, bound {}", w.0, w.1, f32_bound(name));
    }
    let w = xs().fold((0.0f64, 0.0f32), |w, y| {
        let e = ulps_f32(powf_f32(1.0001, y), (1.0001f32 as f64).powf(y as f64));
        if e > w.0 { (e, y) } else { w }
    });
    println!("{:>14}: {:.3} ulp at y = {:e}, bound {}", "powf(1.0001, y)", w.0, w.1, f32_bound("powf"));
}

#[test]
fn precise_f32_functions_are_within_half_an_ulp() {
    // The via-f64 functions: one rounding of an f64 result, so 0.5 ulp plus a hair.
    let pos = inputs(0.0, 3.4e38, N / 4);
    let huge = inputs(-3.4e38, 3.4e38, N / 4);
    let unit = inputs(-1.0, 1.0, N / 4);
    let results = [
        worst_f32("exp", precise::exp_f32, f64::exp, &inputs(-104.0, 88.8, N / 4)),
        worst_f32("exp2", precise::exp2_f32, f64::exp2, &inputs(-149.0, 128.0, N / 4)),
        worst_f32("exp_m1", precise::exp_m1_f32, f64::exp_m1, &inputs(-20.0, 88.0, N / 4)),
        worst_f32("ln", precise::ln_f32, f64::ln, &pos),
        worst_f32("log2", precise::log2_f32, f64::log2, &pos),
        worst_f32("log10", precise::log10_f32, f64::log10, &pos),
        worst_f32("ln_1p", precise::ln_1p_f32, f64::ln_1p, &inputs(-0.999, 3e38, N / 4)),
        worst_f32("sin", precise::sin_f32, f64::sin, &huge),
        worst_f32("cos", precise::cos_f32, f64::cos, &huge),
        worst_f32("tan", precise::tan_f32, f64::tan, &huge),
        worst_f32("atan", precise::atan_f32, f64::atan, &huge),
        worst_f32("atan2(x, -0.7)", |y| precise::atan2_f32(y, -0.7), |y| y.atan2(-0.7f32 as f64), &huge),
        worst_f32("asin", precise::asin_f32, f64::asin, &unit),
        worst_f32("acos", precise::acos_f32, f64::acos, &unit),
        worst_f32("sinh", precise::sinh_f32, f64::sinh, &inputs(-90.0, 90.0, N / 4)),
        worst_f32("cosh", precise::cosh_f32, f64::cosh, &inputs(-90.0, 90.0, N / 4)),
        worst_f32("tanh", precise::tanh_f32, f64::tanh, &inputs(-20.0, 20.0, N / 4)),
        worst_f32("powf(x, 2.5)", |x| precise::powf_f32(x, 2.5), |x| x.powf(2.5), &inputs(0.0, 1e15, N / 4)),
        worst_f32("hypot(x, 3)", |x| precise::hypot_f32(x, 3.0), |x| x.hypot(3.0), &huge),
    ];
    let mut report = String::new();
    for r in &results {
        report.push_str(&format!("{:>16}: {:.3} ulp (at {:e})\n", r.name, r.ulps, r.at));
    }
    println!("{report}");
    for r in &results {
        assert!(r.ulps <= 0.501, "precise {} is off by {} ulp at {:e}\n{report}", r.name, r.ulps, r.at);
    }
}

/// The platform's C functions, the reference where `std` has a formula of its own: its
/// `asinh`, `acosh` and `atanh` are `ln_1p`/`ln` of an expression that cancels (thousands of
/// ulps off `acosh` just above 1, hundreds off `atanh` near -1), where C's are within an ulp.
mod libm {
    mod c {
        extern "C" {
            pub fn asinh(x: f64) -> f64;
            pub fn acosh(x: f64) -> f64;
            pub fn atanh(x: f64) -> f64;
        }
    }
    pub fn asinh(x: f64) -> f64 {
        // SAFETY: a pure C function of a double.
        unsafe { c::asinh(x) }
    }
    pub fn acosh(x: f64) -> f64 {
        // SAFETY: as above.
        unsafe { c::acosh(x) }
    }
    pub fn atanh(x: f64) -> f64 {
        // SAFETY: as above.
        unsafe { c::atanh(x) }
    }
}

#[test]
fn f64_functions_agree_with_std() {
    // Against std (the platform's libm): the bound is the library's plus the reference's own
    // error (under 1 ulp for glibc).
    let exp_range = inputs(-745.0, 709.0, N);
    let pos = inputs(0.0, 1e308, N);
    let trig = inputs(-1e6, 1e6, N);
    let huge = inputs(-1e300, 1e300, N);
    let results = [
        (worst_f64("exp", exp_f64, f64::exp, &exp_range), 1.0),
        (worst_f64("exp2", exp2_f64, f64::exp2, &inputs(-1074.0, 1023.0, N)), 1.0),
        (worst_f64("exp_m1", exp_m1_f64, f64::exp_m1, &exp_range), 2.0),
        (worst_f64("ln", ln_f64, f64::ln, &pos), 1.0),
        (worst_f64("log2", log2_f64, f64::log2, &pos), 1.0),
        (worst_f64("log10", log10_f64, f64::log10, &pos), 1.0),
        (worst_f64("ln_1p", ln_1p_f64, f64::ln_1p, &inputs(-0.999, 1e300, N)), 2.0),
        (worst_f64("sin", sin_f64, f64::sin, &trig), 1.0),
        (worst_f64("cos", cos_f64, f64::cos, &trig), 1.0),
        (worst_f64("tan", tan_f64, f64::tan, &trig), 2.0),
        (worst_f64("sin (huge)", sin_f64, f64::sin, &huge), 1.0),
        (worst_f64("cos (huge)", cos_f64, f64::cos, &huge), 1.0),
        (worst_f64("atan", atan_f64, f64::atan, &inputs(-1e300, 1e300, N)), 2.0),
        (worst_f64("asin", asin_f64, f64::asin, &inputs(-1.0, 1.0, N)), 3.0),
        (worst_f64("acos", acos_f64, f64::acos, &inputs(-1.0, 1.0, N)), 3.0),
        (worst_f64("sinh", sinh_f64, f64::sinh, &inputs(-710.0, 710.0, N)), 2.0),
        (worst_f64("cosh", cosh_f64, f64::cosh, &inputs(-710.0, 710.0, N)), 2.0),
        (worst_f64("tanh", tanh_f64, f64::tanh, &inputs(-30.0, 30.0, N)), 2.0),
        (worst_f64("powf(x, 2.5)", |x| powf_f64(x, 2.5), |x| x.powf(2.5), &inputs(0.0, 1e100, N)), 1.0),
        (worst_f64("powf(1.0001, y)", |y| powf_f64(1.0001, y), |y| 1.0001f64.powf(y), &inputs(-7e6, 7e6, N)), 1.0),
        (worst_f64("powf(x, y(x))", |x| powf_f64(x, spread_exponent(x)), |x| x.powf(spread_exponent(x)), &inputs(1e-300, 1e300, N)), 1.0),
        (worst_f64("hypot(x, 3)", |x| hypot_f64(x, 3.0), |x| x.hypot(3.0), &inputs(-1e300, 1e300, N)), 1.0),
        (worst_f64("cbrt", cbrt_f64, f64::cbrt, &inputs(-1e300, 1e300, N)), 1.0),
        (worst_f64("cbrt (subnormal)", cbrt_f64, f64::cbrt, &inputs(-2e-308, 2e-308, N)), 1.0),
        (worst_f64("asinh", asinh_f64, libm::asinh, &inputs(-1e300, 1e300, N)), 2.0),
        (worst_f64("asinh (near 0)", asinh_f64, libm::asinh, &inputs(-3.0, 3.0, N)), 2.0),
        (worst_f64("acosh", acosh_f64, libm::acosh, &inputs(1.0, 1e300, N)), 2.0),
        (worst_f64("acosh (near 1)", acosh_f64, libm::acosh, &inputs(1.0, 3.0, N).iter().map(|x| 1.0 + (x - 1.0) * (x - 1.0) / 4.0).collect::<Vec<_>>()), 2.0),
        (worst_f64("atanh", atanh_f64, libm::atanh, &inputs(-1.0, 1.0, N)), 2.0),
        (worst_f64("log(x, 3)", |x| log_base_f64(x, 3.0), |x| x.log(3.0), &inputs(0.0, 1e300, N)), 2.0),
    ];
    let mut report = String::new();
    for (r, bound) in &results {
        report.push_str(&format!("{:>16}: {:.3} ulp (at {:e}), bound {bound}\n", r.name, r.ulps, r.at));
    }
    println!("{report}");
    for (r, bound) in &results {
        assert!(r.ulps <= *bound, "{} is off by {} ulp at {:e}\n{report}", r.name, r.ulps, r.at);
    }
}

#[test]
fn exact_functions_are_exact() {
    for x in inputs(-1e30, 1e30, 5000) {
        let (a, b) = (x as f32, (x * 0.37 + 1.5) as f32);
        if b != 0.0 {
            assert_eq!(fmod_f32(a, b).to_bits(), (a % b).to_bits(), "{a} % {b}");
        }
        let (c, d) = (x, x * 0.37 + 1.5);
        if d != 0.0 {
            assert_eq!(fmod_f64(c, d).to_bits(), (c % d).to_bits(), "{c} % {d}");
        }
        for n in [-5, -1, 0, 1, 2, 3, 7, 30] {
            assert_eq!(powi_f64(c, n).to_bits(), c.powi(n).to_bits(), "{c}^{n}");
        }
    }
    for k in -1074..1024 {
        assert_eq!(exp2_f64(k as f64), pow2(k), "2^{k}");
        assert_eq!(log2_f64(pow2(k)), k as f64, "log2 2^{k}");
    }
    for k in -149..128 {
        assert_eq!(exp2_f32(k as f32), pow2(k) as f32, "2^{k}");
        assert_eq!(log2_f32(pow2(k) as f32), k as f32, "log2 2^{k}");
    }
}

#[test]
fn special_values_follow_c() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for (x, y) in [(0.0, -1.0), (-0.0, -3.0), (-0.0, 3.0), (-1.0, inf), (0.5, -inf), (2.0, -inf), (-inf, -3.0), (-inf, 3.0), (-inf, 2.0), (inf, -0.5), (-8.0, 1.0 / 3.0), (nan, 0.0), (1.0, nan), (-2.0, 3.0), (-2.0, 4.0), (0.0, 0.0)] {
        let (got, want) = (powf_f64(x, y), x.powf(y));
        assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "pow({x}, {y}) = {got}, C says {want}");
    }
    // Results near 1e261 rounded twice in `exp(hi)·(1 + lo)` (found by the differential
    // tester: seed 20261126, kernel 8874).
    let (x, y) = (0.5 / 46.125, -132.8125);
    assert!(ulps_f64(powf_f64(x, y), x.powf(y)) <= 1.0, "pow({x}, {y}) = {:e}, std says {:e}", powf_f64(x, y), x.powf(y));
    for (y, x) in [(0.0, -0.0), (-0.0, -0.0), (0.0, 1.0), (-0.0, -1.0), (1.0, 0.0), (inf, inf), (-inf, -inf), (1.0, -inf), (-1.0, inf), (nan, 1.0)] {
        let (got, want) = (atan2_f64(y, x), f64::atan2(y, x));
        assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "atan2({y}, {x}) = {got}, C says {want}");
    }
    // The same tables for f32, against std's (C's powf, atan2f).
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let specials = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.0 / 3.0, 1e-45, -1e-45, f32::MAX, -f32::MAX, inf, -inf, nan];
    // C's tables fix the results with a zero, infinite or NaN argument (or an exact result);
    // the others are ordinary values, within the function's bound of the exact one.
    let table = |x: f32, y: f32, got: f32, want: f32, exact: f64, name: &str| {
        let fixed = [x, y].iter().any(|v| *v == 0.0 || !v.is_finite()) || want == 0.0 || !want.is_finite() || want.abs() == 1.0;
        if fixed {
            assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "{name}({x}, {y}) = {got}, C says {want}");
        } else {
            assert!(ulps_f32(got, exact) <= f32_bound(name), "{name}({x}, {y}) = {got}, exactly {exact}");
        }
    };
    for x in specials {
        for y in specials {
            table(x, y, powf_f32(x, y), x.powf(y), (x as f64).powf(y as f64), "powf");
            table(x, y, atan2_f32(x, y), x.atan2(y), (x as f64).atan2(y as f64), "atan2");
            table(x, y, hypot_f32(x, y), x.hypot(y), (x as f64).hypot(y as f64), "hypot");
        }
    }
    let unary: [(&str, fn(f32) -> f32, fn(f32) -> f32); 18] = [
        ("exp", exp_f32, f32::exp), ("exp2", exp2_f32, f32::exp2), ("exp_m1", exp_m1_f32, f32::exp_m1), ("ln", ln_f32, f32::ln), ("log2", log2_f32, f32::log2),
        ("log10", log10_f32, f32::log10), ("ln_1p", ln_1p_f32, f32::ln_1p), ("sin", sin_f32, f32::sin), ("cos", cos_f32, f32::cos), ("tan", tan_f32, f32::tan),
        ("atan", atan_f32, f32::atan), ("asin", asin_f32, f32::asin), ("acos", acos_f32, f32::acos), ("sinh", sinh_f32, f32::sinh), ("cosh", cosh_f32, f32::cosh),
        ("tanh", tanh_f32, f32::tanh), ("ln (precise)", precise::ln_f32, f32::ln), ("sin (precise)", precise::sin_f32, f32::sin),
    ];
    for (name, f, c) in unary {
        for x in [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 1e-45, -1e-45, 2.0, -2.0] {
            let (got, want) = (f(x), c(x));
            // Exact special results (0, ±∞, NaN, ±1, π/2...) must match C's bit for bit.
            let special = want.is_nan() || want.is_infinite() || want == 0.0 || want.abs() == 1.0 || x.is_infinite() || x == 0.0;
            if special {
                assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "{name}({x}) = {got}, C says {want}");
            }
        }
    }
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for f in [exp_f64, ln_f64, sin_f64, cos_f64, tan_f64, atan_f64, tanh_f64, sinh_f64, cosh_f64, log2_f64, exp_m1_f64, ln_1p_f64] {
        assert!(f(nan).is_nan());
    }
    // Odd functions keep the sign of zero.
    for f in [sin_f64, tan_f64, atan_f64, tanh_f64, sinh_f64, exp_m1_f64, ln_1p_f64, asin_f64] {
        assert!(f(-0.0).to_bits() == (-0.0f64).to_bits() && f(0.0).to_bits() == 0);
    }
    assert_eq!((ln_f64(0.0), ln_f64(-0.0), ln_f64(inf)), (-inf, -inf, inf));
    for f in [cbrt_f64, asinh_f64, acosh_f64, atanh_f64] {
        assert!(f(nan).is_nan());
    }
    for f in [cbrt_f64, asinh_f64, atanh_f64] {
        assert!(f(-0.0).to_bits() == (-0.0f64).to_bits() && f(0.0).to_bits() == 0);
    }
    assert_eq!((cbrt_f64(inf), cbrt_f64(-inf), cbrt_f64(-27.0), cbrt_f64(f64::from_bits(1))), (inf, -inf, -3.0, f64::from_bits(1).cbrt()));
    assert_eq!((asinh_f64(inf), asinh_f64(-inf), acosh_f64(1.0), acosh_f64(inf), atanh_f64(1.0), atanh_f64(-1.0)), (inf, -inf, 0.0, inf, inf, -inf));
    assert!(acosh_f64(0.5).is_nan() && acosh_f64(-inf).is_nan() && atanh_f64(1.5).is_nan() && atanh_f64(-inf).is_nan());
    assert!(ln_f64(-1.0).is_nan() && sin_f64(inf).is_nan() && cos_f64(-inf).is_nan());
    assert_eq!((exp_f64(-inf), exp_f64(inf), exp_f32(-1000.0), exp_f32(1000.0)), (0.0, inf, 0.0, f32::INFINITY));
    assert_eq!((hypot_f64(inf, nan), hypot_f32(f32::NAN, f32::NEG_INFINITY)), (inf, f32::INFINITY));
    // The largest binade: the scale 2^-1023 is not a normal number (found by the differential
    // tester, `f64::MAX.hypot(-7.1875)` gave 0).
    for (x, y) in [(f64::MAX, -7.1875), (f64::MAX, f64::MAX / 2.0), (1.5e308, 1.5e308), (f64::from_bits(0x7fe0_0000_0000_0000), 1.0)] {
        assert_eq!(hypot_f64(x, y).to_bits(), x.hypot(y).to_bits(), "hypot({x:e}, {y:e})");
    }
}

// ---- the same functions on the device ----

// By name: the methods (`v.exp()`, `v.ln()`, ...) are CUDA's functions as nvcc compiles them
// (`body_cuda_math.rs`, `body_cuda_libm.rs`); these are the library's 1-ulp ones.
#[kernel]
pub fn math_f32(x: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let w = x[(i + 1) % x.len()];
    let r = [
        exp_f32(v), exp2_f32(v), exp_m1_f32(v), ln_f32(v), log2_f32(v), log10_f32(v), ln_1p_f32(v), sin_f32(v), cos_f32(v), tan_f32(v),
        atan_f32(v), atan2_f32(v, w), asin_f32(v), acos_f32(v), sinh_f32(v), cosh_f32(v), tanh_f32(v), powf_f32(v, w), v.powi(-3), hypot_f32(v, w), v % w,
    ];
    for k in 0..21 {
        out[i * 21 + k] = r[k];
    }
}

#[kernel]
pub fn math_f64(x: &[f64], out: &mut [f64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let w = x[(i + 1) % x.len()];
    let r = [
        v.exp(), v.exp2(), v.exp_m1(), v.ln(), v.log2(), v.log10(), v.ln_1p(), v.sin(), v.cos(), v.tan(),
        v.atan(), v.atan2(w), v.asin(), v.acos(), v.sinh(), v.cosh(), v.tanh(), v.powf(w), v.powi(-3), v.hypot(w), v % w,
    ];
    for k in 0..21 {
        out[i * 21 + k] = r[k];
    }
}

#[kernel]
pub fn math_f32_precise(x: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let w = x[(i + 1) % x.len()];
    let r = [
        precise::exp_f32(v), precise::exp2_f32(v), precise::exp_m1_f32(v), precise::ln_f32(v), precise::log2_f32(v), precise::log10_f32(v), precise::ln_1p_f32(v),
        precise::sin_f32(v), precise::cos_f32(v), precise::tan_f32(v), precise::atan_f32(v), precise::atan2_f32(v, w), precise::asin_f32(v), precise::acos_f32(v),
        precise::sinh_f32(v), precise::cosh_f32(v), precise::tanh_f32(v), precise::powf_f32(v, w), precise::hypot_f32(v, w),
    ];
    for k in 0..19 {
        out[i * 19 + k] = r[k];
    }
}

fn library_f32_precise(v: f32, w: f32) -> [f32; 19] {
    [
        precise::exp_f32(v), precise::exp2_f32(v), precise::exp_m1_f32(v), precise::ln_f32(v), precise::log2_f32(v), precise::log10_f32(v), precise::ln_1p_f32(v),
        precise::sin_f32(v), precise::cos_f32(v), precise::tan_f32(v), precise::atan_f32(v), precise::atan2_f32(v, w), precise::asin_f32(v), precise::acos_f32(v),
        precise::sinh_f32(v), precise::cosh_f32(v), precise::tanh_f32(v), precise::powf_f32(v, w), precise::hypot_f32(v, w),
    ]
}

/// The library's functions as the host runs them, in the kernels' order.
fn library_f64(v: f64, w: f64) -> [f64; 21] {
    [
        exp_f64(v), exp2_f64(v), exp_m1_f64(v), ln_f64(v), log2_f64(v), log10_f64(v), ln_1p_f64(v), sin_f64(v), cos_f64(v), tan_f64(v),
        atan_f64(v), atan2_f64(v, w), asin_f64(v), acos_f64(v), sinh_f64(v), cosh_f64(v), tanh_f64(v), powf_f64(v, w), powi_f64(v, -3), hypot_f64(v, w), fmod_f64(v, w),
    ]
}

fn library_f32(v: f32, w: f32) -> [f32; 21] {
    [
        exp_f32(v), exp2_f32(v), exp_m1_f32(v), ln_f32(v), log2_f32(v), log10_f32(v), ln_1p_f32(v), sin_f32(v), cos_f32(v), tan_f32(v),
        atan_f32(v), atan2_f32(v, w), asin_f32(v), acos_f32(v), sinh_f32(v), cosh_f32(v), tanh_f32(v), powf_f32(v, w), powi_f32(v, -3), hypot_f32(v, w), fmod_f32(v, w),
    ]
}

fn device_inputs() -> Vec<f64> {
    let mut v = inputs(-50.0, 50.0, 150);
    v.extend(inputs(-1e20, 1e20, 60));
    // Both trig reductions (Cody–Waite below 2^17, Payne–Hanek above), subnormals, overflow.
    v.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.75, -0.25, 3.0, 1e300, 1e-40, -3e-39, 89.0, -100.0, 1.3e5, 2.5e5, 3.4e38, -1.7e38, 0.9999, 1.0001]);
    v
}

#[test]
fn device_code_computes_what_the_host_computes() {
    assemble("math_f32", math_f32::PTX);
    assemble("math_f64", math_f64::PTX);
    assemble("math_f32_precise", math_f32_precise::PTX);
    let xs = device_inputs();
    let n = xs.len();
    let x32: Vec<f32> = xs.iter().map(|v| *v as f32).collect();
    let stream = crate::body_exec::cpu_stream();
    let blocks = n.div_ceil(64) as u32;
    let b64 = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut o64 = DeviceBuffer::<f64>::zeroed(&stream, n * 21).unwrap();
    math_f64::launch(&stream, LaunchConfig::new(blocks, 64), &b64, &mut o64).unwrap();
    let b32 = DeviceBuffer::from_slice(&stream, &x32).unwrap();
    let mut o32 = DeviceBuffer::<f32>::zeroed(&stream, n * 21).unwrap();
    math_f32::launch(&stream, LaunchConfig::new(blocks, 64), &b32, &mut o32).unwrap();
    let mut op = DeviceBuffer::<f32>::zeroed(&stream, n * 19).unwrap();
    math_f32_precise::launch(&stream, LaunchConfig::new(blocks, 64), &b32, &mut op).unwrap();
    let dp = op.to_vec().unwrap();
    let (d64, d32) = (o64.to_vec().unwrap(), o32.to_vec().unwrap());
    for i in 0..n {
        let (h64, h32) = (library_f64(xs[i], xs[(i + 1) % n]), library_f32(x32[i], x32[(i + 1) % n]));
        for k in 0..21 {
            let (d, h) = (d64[i * 21 + k], h64[k]);
            assert!(d.to_bits() == h.to_bits() || d.is_nan() && h.is_nan(), "f64 function {k} of {}: device {d:e}, host {h:e}", xs[i]);
            let (d, h) = (d32[i * 21 + k], h32[k]);
            assert!(d.to_bits() == h.to_bits() || d.is_nan() && h.is_nan(), "f32 function {k} of {}: device {d:e}, host {h:e}", x32[i]);
        }
        let hp = library_f32_precise(x32[i], x32[(i + 1) % n]);
        for k in 0..19 {
            let (d, h) = (dp[i * 19 + k], hp[k]);
            assert!(d.to_bits() == h.to_bits() || d.is_nan() && h.is_nan(), "precise f32 function {k} of {}: device {d:e}, host {h:e}", x32[i]);
        }
    }
}

/// The `f64` methods with no CUDA twin in the library's style (`cbrt`, `asinh`, `acosh`,
/// `atanh`), and the methods `std` defines from others (`log(base)`, `rem_euclid`,
/// `div_euclid`, `midpoint`, `next_up`, `next_down`, `is_normal`, `is_subnormal`) on both
/// types, as methods.
#[kernel]
pub fn more_methods(x: &[f64], out: &mut [f64], x32: &[f32], out32: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() || i >= x32.len() {
        return;
    }
    let (v, w) = (x[i], x[(i + 1) % x.len()]);
    let flags = (v.is_normal() as u32 + 2 * v.is_subnormal() as u32) as f64;
    let r = [v.cbrt(), v.asinh(), v.acosh(), v.atanh(), v.log(w), v.rem_euclid(w), v.div_euclid(w), v.midpoint(w), v.next_up(), v.next_down(), flags];
    for k in 0..11 {
        out[i * 11 + k] = r[k];
    }
    let (a, b) = (x32[i], x32[(i + 1) % x32.len()]);
    let flags = (a.is_normal() as u32 + 2 * a.is_subnormal() as u32) as f32;
    let s = [a.log(b), a.rem_euclid(b), a.div_euclid(b), a.midpoint(b), a.next_up(), a.next_down(), flags];
    for k in 0..7 {
        out32[i * 7 + k] = s[k];
    }
}

#[test]
fn more_methods_compute_what_the_host_computes() {
    assemble("more_methods", more_methods::PTX);
    let mut xs = device_inputs();
    xs.extend([1.0, -1.0, 1.5, -0.5, 27.0, -8.0, 1e-310, 7.0, -7.0, 2.5, -2.5, -0.0, 0.0, f64::MAX, -f64::MAX, 5e-324, -5e-324, 1e-40, f64::MIN_POSITIVE]);
    let n = xs.len();
    let x32: Vec<f32> = xs.iter().map(|v| *v as f32).collect();
    let stream = crate::body_exec::cpu_stream();
    let (b64, b32) = (DeviceBuffer::from_slice(&stream, &xs).unwrap(), DeviceBuffer::from_slice(&stream, &x32).unwrap());
    let mut o64 = DeviceBuffer::<f64>::zeroed(&stream, n * 11).unwrap();
    let mut o32 = DeviceBuffer::<f32>::zeroed(&stream, n * 7).unwrap();
    more_methods::launch(&stream, LaunchConfig::new(n.div_ceil(64) as u32, 64), &b64, &mut o64, &b32, &mut o32).unwrap();
    let (d64, d32) = (o64.to_vec().unwrap(), o32.to_vec().unwrap());
    let same64 = |a: f64, b: f64| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
    let same32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
    for i in 0..n {
        let (v, w) = (xs[i], xs[(i + 1) % n]);
        let flags = (is_normal_f64(v) as u32 + 2 * is_subnormal_f64(v) as u32) as f64;
        let host = [cbrt_f64(v), asinh_f64(v), acosh_f64(v), atanh_f64(v), log_base_f64(v, w), rem_euclid_f64(v, w), div_euclid_f64(v, w), midpoint_f64(v, w), next_up_f64(v), next_down_f64(v), flags];
        for k in 0..11 {
            assert!(same64(d64[i * 11 + k], host[k]), "f64 method {k} of ({v:e}, {w:e}): device {:e}, host {:e}", d64[i * 11 + k], host[k]);
        }
        // The methods defined from others are std's, bit for bit.
        let std = [v.rem_euclid(w), v.div_euclid(w), v.midpoint(w), v.next_up(), v.next_down(), (v.is_normal() as u32 + 2 * v.is_subnormal() as u32) as f64];
        for k in 0..6 {
            assert!(same64(host[5 + k], std[k]), "f64 method {} of ({v:e}, {w:e}): {:e}, std {:e}", 5 + k, host[5 + k], std[k]);
        }
        let (a, b) = (x32[i], x32[(i + 1) % n]);
        let flags = (is_normal_f32(a) as u32 + 2 * is_subnormal_f32(a) as u32) as f32;
        let host = [log_base_f32(a, b), rem_euclid_f32(a, b), div_euclid_f32(a, b), midpoint_f32(a, b), next_up_f32(a), next_down_f32(a), flags];
        for k in 0..7 {
            assert!(same32(d32[i * 7 + k], host[k]), "f32 method {k} of ({a:e}, {b:e}): device {:e}, host {:e}", d32[i * 7 + k], host[k]);
        }
        let std = [a.rem_euclid(b), a.div_euclid(b), a.midpoint(b), a.next_up(), a.next_down(), (a.is_normal() as u32 + 2 * a.is_subnormal() as u32) as f32];
        for k in 0..6 {
            assert!(same32(host[1 + k], std[k]), "f32 method {} of ({a:e}, {b:e}): {:e}, std {:e}", 1 + k, host[1 + k], std[k]);
        }
    }
}

#[kernel]
pub fn sin_only(x: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] = sin_f32(x[i]);
    }
}

#[kernel]
pub fn sin_only_precise(x: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] = precise::sin_f32(x[i]);
    }
}

/// PTX instructions (statements ending in `;`, less declarations) and those on `f64`s.
fn instruction_counts(ptx: &str) -> (usize, usize) {
    let insts: Vec<&str> = ptx.lines().map(str::trim).filter(|l| l.ends_with(';') && !l.starts_with('.') && !l.starts_with("//")).collect();
    (insts.len(), insts.iter().filter(|l| l.contains(".f64")).count())
}

#[test]
fn f32_functions_use_no_f64_arithmetic() {
    assemble("sin_only", sin_only::PTX);
    assemble("sin_only_precise", sin_only_precise::PTX);
    let (all, f64s) = instruction_counts(math_f32::PTX);
    assert_eq!(f64s, 0, "the f32 library computes in f32 ({all} PTX instructions)");
    let (precise_all, precise_f64s) = instruction_counts(math_f32_precise::PTX);
    assert!(precise_f64s > 0, "the precise ones compute in f64");
    let (sin, sin_f64s) = instruction_counts(sin_only::PTX);
    let (psin, psin_f64s) = instruction_counts(sin_only_precise::PTX);
    assert_eq!(sin_f64s, 0);
    println!("x.sin(): {sin} PTX instructions, {sin_f64s} on f64; precise::sin_f32: {psin}, {psin_f64s} on f64");
    println!("all f32 functions: {all}, {f64s} on f64; precise: {precise_all}, {precise_f64s} on f64");
}

// ---- fast approximations, by explicit choice ----

#[kernel]
pub fn fast_math(x: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let r = [
        fast::sin(v), fast::cos(v), fast::tan(v * 0.4), fast::exp2(v), fast::exp(v), fast::log2(v.abs() + 0.5), fast::ln(v.abs() + 0.5),
        fast::rsqrt(v.abs() + 0.5), fast::sqrt(v.abs()), fast::recip(v + 10.0), fast::div(v, 3.0), fast::tanh(v), fast::powf(v.abs() + 0.5, 1.7),
    ];
    for k in 0..13 {
        out[i * 13 + k] = r[k];
    }
}

#[test]
fn fast_functions_are_single_approximate_instructions_within_ptxs_bounds() {
    let ptx = fast_math::PTX;
    assemble("fast_math", ptx);
    for inst in ["sin.approx.f32", "cos.approx.f32", "ex2.approx.f32", "lg2.approx.f32", "rsqrt.approx.f32", "sqrt.approx.f32", "rcp.approx.f32", "div.full.f32", "tanh.approx.f32"] {
        assert!(ptx.contains(inst), "{inst} missing:\n{ptx}");
    }
    // `tanh.approx` needs PTX ISA 7.0: the module says so.
    assert!(ptx.starts_with(".version 7.0\n"), "{}", &ptx[..40]);
    // And they are not what `x.sin()` is.
    assert!(!math_f32::PTX.contains(".approx"), "the accurate functions use no approximate instruction");
    let xs: Vec<f32> = (0..256).map(|i| (i as f32 - 128.0) * 0.0245).collect();
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 256 * 13).unwrap();
    fast_math::launch(&stream, LaunchConfig::new(4, 64), &xb, &mut ob).unwrap();
    let out = ob.to_vec().unwrap();
    for (i, &v) in xs.iter().enumerate() {
        let v64 = v as f64;
        let want = [
            v64.sin(), v64.cos(), ((v * 0.4) as f64).tan(), v64.exp2(), v64.exp(), ((v.abs() + 0.5) as f64).log2(), ((v.abs() + 0.5) as f64).ln(),
            1.0 / ((v.abs() + 0.5) as f64).sqrt(), (v.abs() as f64).sqrt(), 1.0 / (v + 10.0) as f64, v64 / 3.0, v64.tanh(), ((v.abs() + 0.5) as f64).powf(1.7),
        ];
        // The PTX ISA's error bounds: sin/cos 2^-20.9 absolute in [-π, π]; ex2 and lg2 2 ulp
        // (plus the rounding of the argument's scaling); tanh 2^-10.987 relative.
        let tol = [2e-6, 2e-6, 1e-5, 1e-6, 5e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 6e-4, 1e-5];
        for k in 0..13 {
            let got = out[i * 13 + k] as f64;
            let err = (got - want[k]).abs() / want[k].abs().max(1.0);
            assert!(err <= tol[k], "fast function {k} of {v}: {got} vs {}", want[k]);
        }
    }
}
