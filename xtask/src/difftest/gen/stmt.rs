//! Statements: each maker in [`STMTS`] writes one construct, or declines (`None`) when the
//! state does not allow it (no mutable variable to assign, no loop to break out of...).
//!
//! Every loop terminates whatever the minimiser removes: a `while` or `loop` counts its
//! iterations in a counter that is incremented first thing in the body, and those lines are
//! marked `keep`. Each statement is one source line, so a trap's line names one statement.

use super::expr::{self, expr, index};
use super::ty::{self, Ty};
use super::{Gen, Kind, Label, Slot, Stmt, Var};

pub type Maker = fn(&mut Gen) -> Option<Stmt>;

/// Every statement construct: name, weight, maker.
pub const STMTS: &[(&str, u32, Maker)] = &[
    ("let", 22, let_scalar),
    ("assign", 7, assign),
    ("compound-assign", 8, compound),
    ("output", 14, output),
    ("math-output", 4, approx_out),
    ("if", 6, if_stmt),
    ("for", 5, for_loop),
    ("while", 3, while_loop),
    ("loop-break-value", 3, loop_value),
    ("labelled-block", 2, labelled_block),
    ("break-continue", 4, break_continue),
    ("match", 3, match_stmt),
    ("array", 4, array_let),
    ("array-store", 4, array_store),
    ("struct", 3, struct_let),
    ("field-store", 3, field_store),
    ("late-typed-index", 2, late_typed),
    ("slice-u32-loop", 1, slice_u32_loop),
    ("slice-get", 1, slice_get),
    ("guarded-loop", 1, guarded_loop),
    ("trap", 1, trap),
    ("early-return", 1, early_return),
];

/// Math-library functions (docs/body-compiler.md, "f32 methods as CUDA's functions" and
/// "Float functions and their accuracy") with their argument count and the ulps allowed against
/// the host's `std`: for `f32`, whose methods are CUDA's functions (`x.tanh()` is `tanhf`),
/// CUDA's bound against the exact value plus one for `std`'s own error; for `f64` the
/// documented bound (measured against `std`). (The `f32` column held the bounds of the
/// library's own functions, now called by name, until seed 20261314 kernel 2805 found
/// `tanh` 1.33 ulp from the exact value on our side and 1.67 on the host's: 3 apart.)
pub const MATH: &[(&str, usize, u32, u32)] = &[
    ("exp", 1, 3, 1),
    ("exp2", 1, 3, 1),
    ("exp_m1", 1, 2, 2),
    ("ln", 1, 2, 1),
    ("log2", 1, 2, 1),
    ("log10", 1, 3, 1),
    ("ln_1p", 1, 2, 2),
    ("sin", 1, 3, 1),
    ("cos", 1, 3, 1),
    ("tan", 1, 5, 2),
    ("asin", 1, 3, 3),
    ("acos", 1, 3, 3),
    ("atan", 1, 3, 1),
    ("atan2", 2, 4, 2),
    ("sinh", 1, 4, 2),
    ("cosh", 1, 3, 2),
    ("tanh", 1, 3, 2),
    ("powf", 2, 5, 1),
    ("hypot", 2, 4, 1),
];

const DEPTH: u32 = 3;

pub fn stmt(g: &mut Gen) -> Stmt {
    g.budget -= 1;
    let weights = g.weights(STMTS);
    loop {
        let i = g.rng.weighted(&weights);
        if let Some(s) = (STMTS[i].2)(g) {
            return s;
        }
    }
}

fn line(text: String) -> Stmt {
    Stmt::Line { text, keep: false }
}

fn kept(text: String) -> Stmt {
    Stmt::Line { text, keep: true }
}

/// A block's statements, in a scope of their own.
fn block(g: &mut Gen, max: usize) -> Vec<Stmt> {
    g.push_scope();
    g.nesting += 1;
    let n = 1 + g.rng.below(max);
    let mut out = Vec::new();
    for _ in 0..n {
        if g.budget <= 0 && !out.is_empty() {
            break;
        }
        out.push(stmt(g));
    }
    g.nesting -= 1;
    g.pop_scope();
    out
}

fn let_scalar(g: &mut Gen) -> Option<Stmt> {
    let t = *g.rng.pick(&ty::ALL);
    let e = expr(g, t, DEPTH);
    // Shadowing: a new binding under the name of a visible variable.
    let shadow: Vec<Var> = g.visible().into_iter().filter(|v| v.name.starts_with('v')).collect();
    let name = if !shadow.is_empty() && g.rng.chance(15) { g.rng.pick(&shadow).name.clone() } else { g.fresh("v") };
    let mutable = g.rng.chance(50);
    let annotated = g.rng.chance(60);
    g.declare(name.clone(), Kind::Scalar(t), mutable);
    let m = if mutable { "mut " } else { "" };
    Some(line(if annotated { format!("let {m}{name}: {} = {e};", t.name()) } else { format!("let {m}{name} = {e};") }))
}

fn mutable_scalars(g: &Gen) -> Vec<(String, Ty)> {
    g.visible().into_iter().filter_map(|v| match v.kind {
        Kind::Scalar(t) if v.mutable => Some((v.name, t)),
        _ => None,
    }).collect()
}

fn assign(g: &mut Gen) -> Option<Stmt> {
    let vs = mutable_scalars(g);
    if vs.is_empty() {
        return None;
    }
    let (v, t) = g.rng.pick(&vs).clone();
    let e = expr(g, t, DEPTH);
    Some(line(format!("{v} = {e};")))
}

fn compound(g: &mut Gen) -> Option<Stmt> {
    let vs: Vec<(String, Ty)> = mutable_scalars(g).into_iter().filter(|(_, t)| *t != Ty::Bool).collect();
    if vs.is_empty() {
        return None;
    }
    let (v, t) = g.rng.pick(&vs).clone();
    let text = if t.is_float() {
        let op = *g.rng.pick(&["+=", "-=", "*=", "/=", "%="]);
        format!("{v} {op} {};", expr(g, t, DEPTH - 1))
    } else {
        match g.rng.below(4) {
            0 => {
                let at = *g.rng.pick(&ty::INTS);
                let op = *g.rng.pick(&["<<=", ">>="]);
                format!("{v} {op} {};", expr(g, at, 1))
            }
            1 => {
                let op = *g.rng.pick(&["/=", "%="]);
                format!("{v} {op} {};", g.rng.range(2, 9))
            }
            _ => {
                let op = *g.rng.pick(&["+=", "-=", "*=", "&=", "|=", "^="]);
                format!("{v} {op} {};", expr(g, t, DEPTH - 1))
            }
        }
    };
    Some(line(text))
}

fn output(g: &mut Gen) -> Option<Stmt> {
    if g.slots.len() >= super::MAX_SLOTS {
        return None;
    }
    let t = *g.rng.pick(&ty::ALL);
    let e = expr(g, t, DEPTH);
    Some(line(g.output(t, &e)))
}

/// A math-library result, stored as it is: compared within its documented bound.
fn approx_out(g: &mut Gen) -> Option<Stmt> {
    if g.slots.len() >= super::MAX_SLOTS {
        return None;
    }
    let t = *g.rng.pick(&ty::FLOATS);
    let &(f, n, u32_ulps, u64_ulps) = g.rng.pick(MATH);
    let a = expr(g, t, DEPTH - 1);
    let call = if n == 2 { format!("{a}.{f}({})", expr(g, t, DEPTH - 1)) } else { format!("{a}.{f}()") };
    let k = g.slots.len();
    g.slots.push(if t == Ty::F32 { Slot::F32Ulp(u32_ulps) } else { Slot::F64Ulp(u64_ulps) });
    Some(line(format!("out[{k}] = {call}.to_bits() as u64;")))
}

fn if_stmt(g: &mut Gen) -> Option<Stmt> {
    let c = expr(g, Ty::Bool, DEPTH);
    let then = block(g, 4);
    let mut parts = vec![];
    if g.rng.chance(50) {
        parts.push((then, "} else {".to_owned()));
        parts.push((block(g, 3), "}".to_owned()));
    } else {
        parts.push((then, "}".to_owned()));
    }
    Some(Stmt::Block { head: format!("if {c} {{"), parts, keep: false })
}

fn for_loop(g: &mut Gen) -> Option<Stmt> {
    if g.nesting >= 3 {
        return None;
    }
    let it = *g.rng.pick(&ty::INTS);
    let lo: i64 = if it.signed() { g.rng.range(-3, 3) } else { g.rng.range(0, 3) };
    let hi = lo + g.rng.range(0, 6);
    let (l, h) = (it.literal(lo as u64), it.literal(hi as u64));
    let range = match g.rng.below(6) {
        0 => format!("{l}..{h}"),
        1 => format!("{l}..={h}"),
        2 => format!("({l}..{h}).rev()"),
        3 => format!("({l}..{h}).step_by({})", g.rng.range(1, 3)),
        4 => format!("({l}..={h}).rev().step_by({})", g.rng.range(1, 3)),
        // An end computed at run time, evaluated once.
        _ => {
            let e = expr(g, it, 1);
            format!("{l}..({e}).clamp({l}, {h})")
        }
    };
    let label = g.fresh("'l");
    let var = g.fresh("i");
    g.labels.push(Label { name: label.clone(), breakable: true, continuable: true });
    g.push_scope();
    g.declare(var.clone(), Kind::Scalar(it), false);
    let body = block(g, 4);
    g.pop_scope();
    g.labels.pop();
    Some(Stmt::Block { head: format!("{label}: for {var} in {range} {{"), parts: vec![(body, "}".into())], keep: false })
}

/// `while c < K { c += 1; ... }`, in a block with its counter.
fn while_loop(g: &mut Gen) -> Option<Stmt> {
    if g.nesting >= 3 {
        return None;
    }
    let c = g.fresh("c");
    let label = g.fresh("'l");
    let k = g.rng.range(0, 5);
    g.push_scope();
    g.declare(c.clone(), Kind::Scalar(Ty::U32), false);
    g.labels.push(Label { name: label.clone(), breakable: true, continuable: true });
    let mut body = vec![kept(format!("{c} += 1;"))];
    body.extend(block(g, 4));
    g.labels.pop();
    g.pop_scope();
    let inner = Stmt::Block { head: format!("{label}: while {c} < {k} {{"), parts: vec![(body, "}".into())], keep: true };
    Some(Stmt::Block { head: "{".into(), parts: vec![(vec![kept(format!("let mut {c} = 0u32;")), inner], "}".into())], keep: false })
}

/// `let v: T = 'l: loop { c += 1; if c > K { break 'l value; } ... };`
fn loop_value(g: &mut Gen) -> Option<Stmt> {
    if g.nesting >= 3 {
        return None;
    }
    let t = *g.rng.pick(&ty::ALL);
    let c = g.fresh("c");
    let label = g.fresh("'l");
    let k = g.rng.range(0, 4);
    g.push_scope();
    g.declare(c.clone(), Kind::Scalar(Ty::U32), false);
    g.labels.push(Label { name: label.clone(), breakable: false, continuable: true });
    let value = expr(g, t, DEPTH - 1);
    let mut body = vec![kept(format!("{c} += 1;")), kept(format!("if {c} > {k} {{ break {label} {value}; }}"))];
    body.extend(block(g, 4));
    g.labels.pop();
    g.pop_scope();
    let v = g.fresh("v");
    g.declare(v.clone(), Kind::Scalar(t), false);
    // The counter lives outside the loop; both sit in the enclosing scope.
    g.declare(c.clone(), Kind::Scalar(Ty::U32), false);
    Some(Stmt::Block {
        head: format!("let mut {c} = 0u32; let {v}: {} = {label}: loop {{", t.name()),
        parts: vec![(body, "};".into())],
        keep: false,
    })
}

fn labelled_block(g: &mut Gen) -> Option<Stmt> {
    let label = g.fresh("'b");
    g.labels.push(Label { name: label.clone(), breakable: true, continuable: false });
    let body = block(g, 4);
    g.labels.pop();
    Some(Stmt::Block { head: format!("{label}: {{"), parts: vec![(body, "}".into())], keep: false })
}

fn break_continue(g: &mut Gen) -> Option<Stmt> {
    if g.labels.is_empty() {
        return None;
    }
    let l = g.rng.pick(&g.labels.clone()).clone();
    let what = match (l.breakable, l.continuable) {
        (true, true) => *g.rng.pick(&["break", "continue"]),
        (true, false) => "break",
        (false, true) => "continue",
        _ => return None,
    };
    let c = expr(g, Ty::Bool, 2);
    Some(line(format!("if {c} {{ {what} {}; }}", l.name)))
}

fn match_stmt(g: &mut Gen) -> Option<Stmt> {
    let st = *g.rng.pick(&ty::INTS);
    let scrut = expr(g, st, DEPTH - 1);
    let pats = expr::match_arms(g, st);
    let mut arms = Vec::new();
    for p in pats {
        let binds = p.starts_with('n');
        g.push_scope();
        if binds {
            g.declare("n".into(), Kind::Scalar(st), false);
        }
        let body = block(g, 3);
        g.pop_scope();
        let keep = p == "_";
        arms.push(Stmt::Block { head: format!("{p} => {{"), parts: vec![(body, "}".into())], keep });
    }
    Some(Stmt::Block { head: format!("match {scrut} {{"), parts: vec![(arms, "}".into())], keep: false })
}

fn array_let(g: &mut Gen) -> Option<Stmt> {
    let t = *g.rng.pick(&ty::ALL);
    let n = 2 + g.rng.below(5);
    let init = if g.rng.chance(30) {
        format!("[{}; {n}]", expr(g, t, 1))
    } else {
        let es: Vec<String> = (0..n).map(|_| expr(g, t, 1)).collect();
        format!("[{}]", es.join(", "))
    };
    let a = g.fresh("a");
    g.declare(a.clone(), Kind::Array(t, n), true);
    Some(line(format!("let mut {a}: [{}; {n}] = {init};", t.name())))
}

fn array_store(g: &mut Gen) -> Option<Stmt> {
    let arrays: Vec<(String, Ty, usize)> = g.visible().into_iter().filter_map(|v| if let Kind::Array(t, n) = v.kind { Some((v.name, t, n)) } else { None }).collect();
    if arrays.is_empty() {
        return None;
    }
    let (a, t, n) = g.rng.pick(&arrays).clone();
    let i = if g.rng.chance(40) { g.rng.below(n).to_string() } else { index(g, &n.to_string(), 2) };
    let e = expr(g, t, DEPTH - 1);
    Some(line(format!("{a}[{i}] = {e};")))
}

fn struct_let(g: &mut Gen) -> Option<Stmt> {
    let fields = g.fields.clone();
    let base = g.rng.chance(25);
    let mut inits = Vec::new();
    for (i, (t, _)) in fields.iter().enumerate() {
        if base && i % 2 == 1 {
            continue;
        }
        inits.push(format!("f{i}: {}", expr(g, *t, 2)));
    }
    let t = g.fresh("t");
    let lit = if base { format!("S{} {{ {}, ..s }}", super::TAG, inits.join(", ")) } else { format!("S{} {{ {} }}", super::TAG, inits.join(", ")) };
    g.declare(t.clone(), Kind::Struct, true);
    Some(line(format!("let mut {t} = {lit};")))
}

fn field_store(g: &mut Gen) -> Option<Stmt> {
    let ss: Vec<Var> = g.visible().into_iter().filter(|v| v.kind == Kind::Struct && v.mutable).collect();
    if ss.is_empty() {
        return None;
    }
    let s = g.rng.pick(&ss).name.clone();
    let f = g.rng.below(g.fields.len());
    let t = g.fields[f].0;
    let e = expr(g, t, DEPTH - 1);
    Some(line(format!("{s}.f{f} = {e};")))
}

/// A variable whose integer type is fixed by indexing on the left of `=`, with a method
/// called on it on the right (issue 12, bug 2: rustc types the place first).
fn late_typed(g: &mut Gen) -> Option<Stmt> {
    let arrays: Vec<(String, Ty, usize)> = g.visible().into_iter().filter_map(|v| if let Kind::Array(t, n) = v.kind { Some((v.name, t, n)) } else { None }).collect();
    if arrays.is_empty() {
        return None;
    }
    let (a, t, n) = g.rng.pick(&arrays).clone();
    let q = g.fresh("q");
    let m = *g.rng.pick(&["pow(2)", "count_ones()", "leading_zeros()", "trailing_zeros()", "wrapping_add(3)", "rotate_left(1)", "min(2)", "max(1)", "is_power_of_two()", "is_multiple_of(2)", "swap_bytes()", "wrapping_mul(7)", "saturating_sub(1)"]);
    let value = if t == Ty::Bool {
        if m.starts_with("is_") { format!("{q}.{m}") } else { format!("({q}.{m} > 1)") }
    } else if m.starts_with("is_") {
        format!("({q}.{m} as u8 as {})", t.name())
    } else {
        format!("({q}.{m} as {})", t.name())
    };
    Some(if g.rng.chance(50) {
        Stmt::Block { head: "{".into(), parts: vec![(vec![line(format!("let {q} = {};", g.rng.below(n))), line(format!("{a}[{q}] = {value};"))], "}".into())], keep: false }
    } else {
        Stmt::Block { head: format!("for {q} in 0..{n} {{"), parts: vec![(vec![line(format!("{a}[{q}] = {value};"))], "}".into())], keep: false }
    })
}

/// A `u32` counter over the input slice, as CUDA's loops are written: `while c < b { ..
/// xs[c as usize] ..; c += k }` or `for c in a..b`, the bound past the end now and then (a
/// failed check, reported where Rust reports it).
fn slice_u32_loop(g: &mut Gen) -> Option<Stmt> {
    if g.nesting >= 3 {
        return None;
    }
    let st = g.slice_ty;
    let (acc, c, b) = (g.fresh("v"), g.fresh("c"), g.fresh("b"));
    let start = format!("(({}) as u32 % 4)", expr(g, Ty::U32, 1));
    let over = if g.rng.chance(12) { 3 } else { 1 };
    let bound = format!("(({}) as u32 % (xs.len() as u32 + {over}))", expr(g, Ty::U32, 1));
    let add = format!("{acc} = {acc}.wrapping_add(xs[{c} as usize]);");
    let (head, body) = if g.rng.chance(50) {
        let step = 1 + g.rng.below(3);
        (format!("let {b} = {bound}; let mut {c}: u32 = {start}; while {c} < {b} {{"), vec![kept(add), kept(format!("{c} += {step};"))])
    } else {
        (format!("let {b} = {bound}; for {c} in {start}..{b} {{"), vec![kept(add)])
    };
    g.declare(acc.clone(), Kind::Scalar(st), true);
    let inner = Stmt::Block { head, parts: vec![(body, "}".into())], keep: true };
    Some(Stmt::Block { head: format!("let mut {acc}: {} = 0; {{", st.name()), parts: vec![(vec![inner], "}".into())], keep: true })
}

/// A short loop over a constant range whose one checked read sits under an edge test, as the
/// transpose's tile loads: `let b = ..; for j in (0usize..n).step_by(s) { if c && b + j < xs.len()
/// { v = v.wrapping_add(xs[b + j]); } }`, the edge test one past the end now and then (a failed
/// check, reported at the read's line). `ir::defer` reports such a loop's failures after it and
/// `ir::unroll_full` unrolls it (docs/performance.md, "Short loops unrolled here").
fn guarded_loop(g: &mut Gen) -> Option<Stmt> {
    if g.nesting >= 3 {
        return None;
    }
    let st = g.slice_ty;
    let (acc, b, j) = (g.fresh("v"), g.fresh("b"), g.fresh("j"));
    let base = format!("(({}) as usize % 8)", expr(g, Ty::Usize, 1));
    let (n, step) = (g.rng.range(1, 13), 1 + g.rng.below(4));
    let over = if g.rng.chance(12) { 1 } else { 0 };
    g.push_scope();
    g.declare(j.clone(), Kind::Scalar(Ty::Usize), false);
    let c = expr(g, Ty::Bool, 1);
    g.pop_scope();
    let read = format!("if {c} && {b} + {j} < xs.len() + {over} {{ {acc} = {acc}.wrapping_add(xs[{b} + {j}]); }}");
    let inner = Stmt::Block { head: format!("let {b} = {base}; for {j} in (0usize..{n}).step_by({step}) {{"), parts: vec![(vec![kept(read)], "}".into())], keep: true };
    g.declare(acc.clone(), Kind::Scalar(st), true);
    Some(Stmt::Block { head: format!("let mut {acc}: {} = 0; {{", st.name()), parts: vec![(vec![inner], "}".into())], keep: true })
}

/// An element of the input slice through `get` (a reference in an `Option`), past the end now
/// and then (`None`).
fn slice_get(g: &mut Gen) -> Option<Stmt> {
    let st = g.slice_ty;
    let v = g.fresh("v");
    let it = *g.rng.pick(&ty::INTS);
    let idx = format!("(({}) as usize % (xs.len() + 2))", expr(g, it, 1));
    let none = st.literal(g.rng.below(5) as u64);
    let value = match g.rng.below(3) {
        0 => format!("match xs.get({idx}) {{ Some(r) => *r, None => {none} }}"),
        1 => format!("xs.get({idx}).copied().unwrap_or({none})"),
        _ => format!("if let Some(r) = xs.get({idx}) {{ r.wrapping_add(1) }} else {{ {none} }}"),
    };
    g.declare(v.clone(), Kind::Scalar(st), false);
    Some(line(format!("let {v}: {} = {value};", st.name())))
}

/// A kernel that may stop on purpose: `assert!` or `panic!` under a run-time condition.
fn trap(g: &mut Gen) -> Option<Stmt> {
    let c = expr(g, Ty::Bool, 2);
    Some(line(match g.rng.below(3) {
        0 => format!("assert!({c});"),
        1 => format!("if {c} {{ panic!(\"boom\"); }}"),
        _ => {
            let t = *g.rng.pick(&ty::INTS);
            format!("assert_eq!({}, {});", expr(g, t, 1), expr(g, t, 1))
        }
    }))
}

fn early_return(g: &mut Gen) -> Option<Stmt> {
    let c = expr(g, Ty::Bool, 2);
    Some(line(format!("if {c} {{ return; }}")))
}
