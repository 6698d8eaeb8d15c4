//! Expressions: each maker in [`EXPRS`] writes one construct of a wanted type, or declines
//! (`None`) when it has no form of that type. Every compound expression is parenthesised, so
//! text composes without precedence questions.
//!
//! What stays out, and why (the subset's documented semantics, docs/body-compiler.md):
//! - float `min`/`max` are written `(a.min(b) + 0.0)`: Rust leaves the sign of a zero result
//!   unspecified, and `+ 0.0` maps `-0.0` to `+0.0` and changes nothing else;
//! - float bits are observed (`to_bits`, `is_sign_negative`, `copysign`'s sign) only of
//!   variables, through a NaN test: NaN payloads and signs are unspecified in Rust and
//!   canonical in PTX;
//! - `clamp` gets literal bounds with `lo <= hi` (Rust panics otherwise);
//! - math functions with an ulp bound are not here: they are whole output statements
//!   (`stmt::approx_out`), compared within their bound;
//! - division and remainder by a run-time value, and indices that may be out of bounds,
//!   are rare on purpose: they trap, and must trap on both sides at the same line.

use super::ty::{self, Ty};
use super::{Gen, Helper, Kind, Var};

/// A maker: the wanted type and the depth left.
pub type Maker = fn(&mut Gen, Ty, u32) -> Option<String>;

/// Every expression construct: name, weight, maker.
pub const EXPRS: &[(&str, u32, Maker)] = &[
    ("literal", 8, literal),
    ("variable", 22, variable),
    ("cast", 10, cast),
    ("outside-const", 4, outside_const),
    ("arith", 14, arith),
    ("div-rem", 4, div_rem),
    ("div-rem-trapping", 1, div_rem_trapping),
    ("shift", 6, shift),
    ("unary", 3, unary),
    ("int-method", 12, int_method),
    ("float-method", 8, float_method),
    ("compare", 6, compare),
    ("logic", 4, logic),
    ("if-else", 3, if_else),
    ("match", 2, match_expr),
    ("field", 4, field),
    ("array-elem", 4, array_elem),
    ("slice-elem", 4, slice_elem),
    ("call", 3, call),
    ("float-bits", 3, float_bits),
    ("float-class", 2, float_class),
    ("warp", 2, warp),
];

/// An expression of type `t`, at most `depth` levels deep.
pub fn expr(g: &mut Gen, t: Ty, depth: u32) -> String {
    if depth == 0 {
        return if g.rng.chance(70) { variable(g, t, 0).unwrap_or_else(|| literal(g, t, 0).expect("literals of every type")) } else { literal(g, t, 0).expect("literal") };
    }
    let weights = g.weights(EXPRS);
    for _ in 0..20 {
        let i = g.rng.weighted(&weights);
        if let Some(s) = (EXPRS[i].2)(g, t, depth - 1) {
            return s;
        }
    }
    literal(g, t, 0).expect("literal")
}

/// A warp collective of the launch's one thread (`mask` 1, lane 0 reading itself): the value,
/// the predicate, or its ballot's bit 0. In a loop with a known trip count it makes the loop
/// one that `ir::unroll_full` unrolls (ptxas would not).
fn warp(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    match t {
        Ty::Isize | Ty::Usize => None,
        Ty::U32 if g.rng.chance(30) => Some(format!("ballot_sync(1, {})", expr(g, Ty::Bool, d))),
        Ty::Bool if g.rng.chance(50) => Some(format!("{}_sync(1, {})", if g.rng.chance(50) { "all" } else { "any" }, expr(g, Ty::Bool, d))),
        _ => Some(format!("shfl_sync(1, {}, 0)", expr(g, t, d))),
    }
}

/// An operand in a context that fixes its type: sometimes an unsuffixed literal (typed by
/// inference), sometimes an outside constant used bare.
fn operand(g: &mut Gen, t: Ty, depth: u32) -> String {
    if g.rng.chance(10) && t != Ty::Bool {
        let v = t.value(&mut g.rng);
        if t.is_int() && (0..=1000).contains(&t.signed_value(v)) {
            return t.signed_value(v).to_string();
        }
        if t.is_float() {
            return format!("{}.5", g.rng.below(9));
        }
    }
    if g.rng.chance(5) && !g.in_helper && !g.skips("outside-const") {
        return const_of(g, t);
    }
    expr(g, t, depth)
}

fn literal(g: &mut Gen, t: Ty, _: u32) -> Option<String> {
    let v = t.value(&mut g.rng);
    Some(t.literal(v))
}

fn variable(g: &mut Gen, t: Ty, _: u32) -> Option<String> {
    g.var_of(t)
}

/// A new outside constant `C<k>_<j>` of type `t` (bug 1 of issue 12 lived here).
fn const_of(g: &mut Gen, t: Ty) -> String {
    let v = t.value(&mut g.rng);
    g.consts.push((t, v));
    format!("C{}_{}", super::TAG, g.consts.len() - 1)
}

/// `Q as T` or `Q` where a typed context fixes it.
fn outside_const(g: &mut Gen, t: Ty, _: u32) -> Option<String> {
    if g.in_helper {
        return None;
    }
    let src = *g.rng.pick(&ty::ALL);
    if !castable(src, t) {
        return None;
    }
    let c = const_of(g, src);
    Some(format!("({c} as {})", t.name()))
}

pub fn castable(from: Ty, to: Ty) -> bool {
    match (from, to) {
        (_, Ty::Bool) => false,
        (Ty::Bool, t) => t.is_int(),
        _ => true,
    }
}

fn cast(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    let src = *g.rng.pick(&ty::ALL);
    if !castable(src, t) {
        return None;
    }
    let e = expr(g, src, d);
    if g.rng.chance(20) {
        let mid = *g.rng.pick(&ty::ALL);
        if castable(src, mid) && castable(mid, t) {
            return Some(format!("({e} as {} as {})", mid.name(), t.name()));
        }
    }
    Some(format!("({e} as {})", t.name()))
}

fn arith(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    let ops: &[&str] = if t.is_int() {
        &["+", "-", "*", "&", "|", "^", "wrapping_add", "wrapping_sub", "wrapping_mul", "saturating_add", "saturating_sub"]
    } else if t.is_float() {
        &["+", "-", "*", "/", "%"]
    } else {
        return None;
    };
    let op = *g.rng.pick(ops);
    let a = expr(g, t, d);
    let b = operand(g, t, d);
    Some(if op.contains('_') { format!("{a}.{op}({b})") } else { format!("({a} {op} {b})") })
}

/// Division that cannot trap: a divisor with its low bit set, or a non-zero literal.
fn div_rem(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if !t.is_int() {
        return None;
    }
    let a = expr(g, t, d);
    let op = *g.rng.pick(&["/", "%"]);
    Some(if g.rng.chance(40) {
        let mut lit = g.rng.range(1, 40);
        if t.signed() && g.rng.chance(30) {
            lit = -lit;
        }
        if lit == -1 {
            lit = -3;
        }
        format!("({a} {op} {})", if lit < 0 { format!("({lit})") } else { lit.to_string() })
    } else if t.signed() {
        let b = expr(g, t, d);
        let m = *g.rng.pick(&["wrapping_div", "wrapping_rem", "div_euclid", "rem_euclid"]);
        if m.starts_with("wrapping") {
            format!("{a}.{m}({b} | 1)")
        } else {
            // `x.div_euclid(-1)` overflows at MIN, so the divisor is kept positive.
            format!("{a}.{m}(({b} & {}::MAX) | 1)", t.name())
        }
    } else {
        let b = expr(g, t, d);
        let m = *g.rng.pick(&["/", "%", "div_ceil", "div_euclid", "rem_euclid", "wrapping_div"]);
        if m.len() == 1 {
            format!("({a} {m} ({b} | 1))")
        } else {
            format!("{a}.{m}({b} | 1)")
        }
    })
}

/// Division by a run-time value that may be zero (or `MIN / -1`): both sides must trap.
fn div_rem_trapping(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    // A weight below 1: most kernels should run to the end.
    if !t.is_int() || !g.rng.chance(30) {
        return None;
    }
    let a = expr(g, t, d);
    let b = expr(g, t, d);
    let m = *g.rng.pick(&["/", "%", "div_euclid", "rem_euclid", "wrapping_div"]);
    Some(if m.len() == 1 { format!("({a} {m} {b})") } else { format!("{a}.{m}({b})") })
}

fn shift(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if !t.is_int() {
        return None;
    }
    let a = expr(g, t, d);
    let op = *g.rng.pick(&["<<", ">>"]);
    let amount = match g.rng.below(4) {
        // Any integer type, any value: the amount is masked to the width, as release Rust does.
        0 | 1 => {
            let at = *g.rng.pick(&ty::INTS);
            expr(g, at, d)
        }
        2 => format!("{}", g.rng.below(t.bits() as usize)),
        _ => {
            let at = *g.rng.pick(&ty::INTS);
            format!("{}{}", g.rng.below(t.bits() as usize), at.name())
        }
    };
    if g.rng.chance(20) {
        let m = if op == "<<" { "wrapping_shl" } else { "wrapping_shr" };
        let u = expr(g, Ty::U32, d);
        return Some(format!("{a}.{m}({u})"));
    }
    Some(format!("({a} {op} {amount})"))
}

fn unary(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    let a = expr(g, t, d);
    if t == Ty::Bool || (t.is_int() && (!t.signed() || g.rng.chance(50))) {
        Some(format!("(!{a})"))
    } else {
        Some(format!("(-{a})"))
    }
}

/// Integer methods, as (name, receiver rule, arguments, result rule).
fn int_method(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if t == Ty::U32 && g.rng.chance(30) {
        let r = *g.rng.pick(&ty::INTS);
        let a = expr(g, r, d);
        let m = *g.rng.pick(&["count_ones", "count_zeros", "leading_zeros", "trailing_zeros"]);
        return Some(format!("{a}.{m}()"));
    }
    if t == Ty::Bool {
        let r = *g.rng.pick(&[Ty::U8, Ty::U16, Ty::U32, Ty::U64, Ty::Usize]);
        let a = expr(g, r, d);
        return Some(if g.rng.chance(50) { format!("{a}.is_power_of_two()") } else { format!("{a}.is_multiple_of({})", operand(g, r, d)) });
    }
    if !t.is_int() {
        return None;
    }
    if !t.signed() && g.rng.chance(20) {
        // Methods whose result is the unsigned type of a signed receiver.
        let s = match t {
            Ty::U8 => Ty::I8,
            Ty::U16 => Ty::I16,
            Ty::U32 => Ty::I32,
            Ty::U64 => Ty::I64,
            _ => Ty::Isize,
        };
        let a = expr(g, s, d);
        return Some(if g.rng.chance(50) { format!("{a}.unsigned_abs()") } else { format!("{a}.abs_diff({})", operand(g, s, d)) });
    }
    let a = expr(g, t, d);
    let name = t.name();
    let mut forms: Vec<&str> = vec!["wrapping_neg", "min", "max", "clamp", "pow", "wrapping_pow", "rotate_left", "rotate_right", "swap_bytes", "reverse_bits"];
    if t.signed() {
        forms.extend(["abs", "wrapping_abs", "signum"]);
    } else {
        forms.extend(["abs_diff"]);
    }
    let m = *g.rng.pick(&forms);
    Some(match m {
        "min" | "max" | "abs_diff" => format!("{a}.{m}({})", operand(g, t, d)),
        "clamp" => {
            let (x, y) = (t.value(&mut g.rng), t.value(&mut g.rng));
            let (lo, hi) = if t.signed_value(x) <= t.signed_value(y) { (x, y) } else { (y, x) };
            format!("{a}.clamp({}, {})", t.literal(lo), t.literal(hi))
        }
        "pow" | "wrapping_pow" => {
            let e = if g.rng.chance(70) { g.rng.below(12).to_string() } else { expr(g, Ty::U32, d) };
            format!("{a}.{m}({e})")
        }
        "rotate_left" | "rotate_right" => format!("{a}.{m}({})", operand(g, Ty::U32, d)),
        _ => {
            let _ = name;
            format!("{a}.{m}()")
        }
    })
}

/// Float methods that are exact or correctly rounded on both sides.
fn float_method(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if !t.is_float() {
        return None;
    }
    let a = expr(g, t, d);
    let m = *g.rng.pick(&["sqrt", "abs", "floor", "ceil", "round", "round_ties_even", "trunc", "fract", "recip", "signum", "to_degrees", "to_radians", "mul_add", "min", "max", "clamp", "powi", "copysign"]);
    Some(match m {
        "mul_add" => format!("{a}.mul_add({}, {})", operand(g, t, d), operand(g, t, d)),
        "min" | "max" => format!("({a}.{m}({}) + 0.0)", operand(g, t, d)),
        "clamp" => {
            let x = g.rng.range(-64, 64) as f64 / 4.0;
            let y = x + g.rng.range(0, 64) as f64 / 4.0;
            format!("{a}.clamp({x:?}, {y:?})")
        }
        "powi" => format!("{a}.powi({})", if g.rng.chance(60) { g.rng.range(-6, 6).to_string() } else { expr(g, Ty::I32, d) }),
        "copysign" => match g.var_of(t) {
            Some(v) => format!("{a}.copysign(if {v}.is_nan() {{ 1.0 }} else {{ {v} }})"),
            None => format!("{a}.copysign({})", t.literal(t.value(&mut g.rng)).replace("NAN", "INFINITY")),
        },
        _ => format!("{a}.{m}()"),
    })
}

fn compare(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if t != Ty::Bool {
        return None;
    }
    let ot = *g.rng.pick(&ty::ALL);
    let a = expr(g, ot, d);
    let b = operand(g, ot, d);
    let op = *g.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
    Some(format!("({a} {op} {b})"))
}

fn logic(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if t != Ty::Bool {
        return None;
    }
    let op = *g.rng.pick(&["&&", "||", "^", "&", "|", "=="]);
    Some(format!("({} {op} {})", expr(g, t, d), expr(g, t, d)))
}

fn if_else(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    let c = expr(g, Ty::Bool, d);
    Some(format!("(if {c} {{ {} }} else {{ {} }})", expr(g, t, d), expr(g, t, d)))
}

/// `match` on an integer: literals, `|`, ranges, a binding with a guard, `_`.
fn match_expr(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    let st = *g.rng.pick(&ty::INTS);
    let scrut = expr(g, st, d);
    let arms = match_arms(g, st);
    let mut s = format!("(match {scrut} {{ ");
    for pat in arms {
        let binds = pat.starts_with('n');
        if binds {
            g.push_scope();
            g.declare("n".into(), Kind::Scalar(st), false);
        }
        let e = expr(g, t, d);
        if binds {
            g.pop_scope();
        }
        s += &format!("{pat} => {e}, ");
    }
    Some(s + "})")
}

/// Patterns for a `match` on `st`, the last one `_`.
pub fn match_arms(g: &mut Gen, st: Ty) -> Vec<String> {
    let lo: i64 = if st.signed() { -20 } else { 0 };
    let mut out = Vec::new();
    for _ in 0..1 + g.rng.below(3) {
        let a = g.rng.range(lo, 40);
        out.push(match g.rng.below(5) {
            0 => a.to_string(),
            1 => format!("{a} | {}", g.rng.range(lo, 40)),
            2 => format!("{a}..={}", a + g.rng.range(0, 30)),
            3 => format!("n @ {a}..={} if n % 2 == 0", a + g.rng.range(0, 30)),
            _ => format!("n if n > {a}"),
        });
    }
    out.push("_".into());
    out
}

fn field(g: &mut Gen, t: Ty, _: u32) -> Option<String> {
    let structs: Vec<Var> = g.visible().into_iter().filter(|v| v.kind == Kind::Struct).collect();
    let fields: Vec<usize> = g.fields.iter().enumerate().filter(|(_, f)| f.0 == t).map(|(i, _)| i).collect();
    if structs.is_empty() || fields.is_empty() {
        return None;
    }
    let s = g.rng.pick(&structs).name.clone();
    Some(format!("{s}.f{}", g.rng.pick(&fields)))
}

/// An index expression into something of length `len`: in bounds, or (rarely, on purpose)
/// one past the end.
pub fn index(g: &mut Gen, len: &str, d: u32) -> String {
    let it = *g.rng.pick(&ty::INTS);
    let e = expr(g, it, d);
    if g.rng.chance(8) {
        format!("({e} as usize % ({len} + 1))")
    } else {
        format!("({e} as usize % {len})")
    }
}

fn array_elem(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    let arrays: Vec<(String, usize)> = g.visible().into_iter().filter_map(|v| if let Kind::Array(et, n) = v.kind { (et == t).then_some((v.name, n)) } else { None }).collect();
    if arrays.is_empty() {
        return None;
    }
    let (a, n) = g.rng.pick(&arrays).clone();
    Some(if g.rng.chance(40) { format!("{a}[{}]", g.rng.below(n)) } else { format!("{a}[{}]", index(g, &n.to_string(), d)) })
}

fn slice_elem(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if g.in_helper || g.slice_ty != t {
        return None;
    }
    Some(format!("xs[{}]", index(g, "xs.len()", d)))
}

/// A call of a `#[device_fn]` helper returning `t`, made on first use.
fn call(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if g.in_helper {
        return None;
    }
    let existing: Vec<usize> = g.helpers.iter().enumerate().filter(|(_, h)| h.ret == t).map(|(i, _)| i).collect();
    let h = if existing.is_empty() || (g.helpers.len() < 3 && g.rng.chance(30)) {
        if g.helpers.len() >= 3 {
            return None;
        }
        new_helper(g, t)
    } else {
        *g.rng.pick(&existing)
    };
    let helper = g.helpers[h].clone();
    let mut args: Vec<String> = helper.params.iter().map(|&p| operand(g, p, d)).collect();
    if helper.takes_struct {
        let structs: Vec<Var> = g.visible().into_iter().filter(|v| v.kind == Kind::Struct).collect();
        let s = g.rng.pick(&structs).name.clone();
        if helper.method {
            return Some(format!("{s}.{}({})", helper.name, args.join(", ")));
        }
        args.push(s);
    }
    Some(format!("{}({})", helper.name, args.join(", ")))
}

fn new_helper(g: &mut Gen, ret: Ty) -> usize {
    let name = format!("h{}_{}", super::TAG, g.helpers.len());
    let params: Vec<Ty> = (0..1 + g.rng.below(3)).map(|_| *g.rng.pick(&ty::ALL)).collect();
    let takes_struct = g.rng.chance(30);
    let method = takes_struct && g.rng.chance(50);
    let outer = g.swap_scopes(vec![Vec::new()]);
    let labels = std::mem::take(&mut g.labels);
    g.in_helper = true;
    let mut sig: Vec<String> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        g.declare(format!("a{i}"), Kind::Scalar(*p), false);
        sig.push(format!("a{i}: {}", p.name()));
    }
    if takes_struct {
        g.declare("s".into(), Kind::Struct, false);
        if !method {
            sig.push(format!("s: S{}", super::TAG));
        }
    }
    let mut lines = vec!["#[device_fn]".to_owned()];
    if method {
        let receiver = std::iter::once("self".to_owned()).chain(sig).collect::<Vec<_>>();
        lines.push(format!("impl S{} {{", super::TAG));
        lines.push(format!("pub fn {name}({}) -> {} {{", receiver.join(", "), ret.name()));
        lines.push("    let s = self;".into());
    } else {
        lines.push(format!("pub fn {name}({}) -> {} {{", sig.join(", "), ret.name()));
    }
    for i in 0..g.rng.below(3) {
        let t = *g.rng.pick(&ty::ALL);
        let e = expr(g, t, 2);
        lines.push(format!("    let b{i}: {} = {e};", t.name()));
        g.declare(format!("b{i}"), Kind::Scalar(t), false);
    }
    lines.push(format!("    {}", expr(g, ret, 3)));
    lines.push("}".into());
    if method {
        lines.push("}".into());
    }
    g.in_helper = false;
    g.labels = labels;
    g.swap_scopes(outer);
    g.helpers.push(Helper { name, params, takes_struct, method, ret, lines });
    g.helpers.len() - 1
}

/// Float bits as integers, and integers as float bits.
fn float_bits(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    match t {
        Ty::U32 | Ty::U64 => {
            let ft = if t == Ty::U32 { Ty::F32 } else { Ty::F64 };
            let v = g.var_of(ft)?;
            Some(format!("(if {v}.is_nan() {{ 0 }} else {{ {v}.to_bits() }})"))
        }
        Ty::F32 => Some(format!("f32::from_bits({})", expr(g, Ty::U32, d))),
        Ty::F64 => Some(format!("f64::from_bits({})", expr(g, Ty::U64, d))),
        _ => None,
    }
}

fn float_class(g: &mut Gen, t: Ty, d: u32) -> Option<String> {
    if t != Ty::Bool {
        return None;
    }
    let ft = *g.rng.pick(&ty::FLOATS);
    if g.rng.chance(30) {
        let v = g.var_of(ft)?;
        let m = *g.rng.pick(&["is_sign_negative", "is_sign_positive"]);
        return Some(format!("(!{v}.is_nan() && {v}.{m}())"));
    }
    let a = expr(g, ft, d);
    let m = *g.rng.pick(&["is_nan", "is_infinite", "is_finite"]);
    Some(format!("{a}.{m}()"))
}
