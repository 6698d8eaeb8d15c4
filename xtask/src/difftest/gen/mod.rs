//! The generator: random, well-typed kernels of the documented subset
//! (docs/body-compiler.md), in the spirit of Csmith and YARPGen.
//!
//! A kernel is a small program model: scalar parameters with their input values, one input
//! slice, a `#[derive(DeviceRepr)]` struct passed by value, outside constants, `#[device_fn]`
//! helpers (some of them methods of the struct), and a body of statements ([`Stmt`]). Expressions are generated as text, each one
//! well-typed by construction ([`expr`]); statements keep their structure so that the
//! minimiser can remove them ([`stmt`]). Every kernel writes its observations to
//! `out: &mut [u64]`, one slot each, and [`Slot`] says how a slot is compared.
//!
//! What can be generated is listed in two tables, `expr::EXPRS` and `stmt::STMTS`: a
//! construct is one entry (name, weight, maker).

pub mod expr;
pub mod render;
pub mod stmt;
pub mod ty;

use super::rng::Rng;
pub use ty::Ty;

/// Stands for the kernel's index in the names of its items (`S#K`, `C#K_0`, `h#K_0`) until
/// it is rendered, so that the minimiser can put variants of one kernel side by side.
pub const TAG: &str = "#K";

/// The most output slots a kernel writes.
pub const MAX_SLOTS: usize = 24;

/// How the host's and the device's value of one output slot are compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slot {
    /// Integers and `bool`s: equal bits.
    Int,
    /// `f32`/`f64` bits: equal, or both NaN (payloads are unspecified in Rust; PTX makes
    /// canonical NaNs).
    F32,
    F64,
    /// A math-library result: within this many ulps of the host's `std` (the documented bound
    /// plus `std`'s own error), NaN equal to NaN.
    F32Ulp(u32),
    F64Ulp(u32),
}

/// A statement, kept as structure so the minimiser can drop it. `keep` marks the lines
/// that make a loop terminate (its counter), which must never be dropped.
#[derive(Clone, Debug)]
pub enum Stmt {
    Line { text: String, keep: bool },
    /// `head` opens the first body; each part is a body and the line that closes it
    /// (`} else {`, `}`, `};`).
    Block { head: String, parts: Vec<(Vec<Stmt>, String)>, keep: bool },
}

/// A `#[device_fn]` helper: complete source lines.
#[derive(Clone, Debug)]
pub struct Helper {
    pub name: String,
    pub params: Vec<Ty>,
    pub takes_struct: bool,
    /// A method of the struct (`#[device_fn] impl S { fn h(self, ..) }`, called `s.h(..)`),
    /// which the kernel inlines where it can (its body then reports its own lines).
    pub method: bool,
    pub ret: Ty,
    pub lines: Vec<String>,
}

/// A generated kernel: everything needed to render it and its runner.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub index: u64,
    /// Scalar parameters `p0..`: type and input bits.
    pub params: Vec<(Ty, u64)>,
    /// `xs: &[T]` and its elements' bits.
    pub slice: (Ty, Vec<u64>),
    /// The struct's fields (`f0..`) and the bits of the value passed as `s`.
    pub fields: Vec<(Ty, u64)>,
    /// Outside constants `C<index>_<j>`: type and bits.
    pub consts: Vec<(Ty, u64)>,
    pub helpers: Vec<Helper>,
    pub body: Vec<Stmt>,
    pub slots: Vec<Slot>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Scalar(Ty),
    Array(Ty, usize),
    Struct,
}

#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub kind: Kind,
    /// Generated statements may assign it (loop counters and `for` variables are not).
    pub mutable: bool,
}

/// An enclosing loop or labelled block that `break`/`continue` may name.
#[derive(Clone, Debug)]
pub struct Label {
    pub name: String,
    /// A `loop` that breaks with a value can only be left by its own `break 'l value`.
    pub breakable: bool,
    pub continuable: bool,
}

/// The generator's state while it writes one kernel.
pub struct Gen {
    pub rng: Rng,
    scopes: Vec<Vec<Var>>,
    fresh: u32,
    pub consts: Vec<(Ty, u64)>,
    pub fields: Vec<(Ty, u64)>,
    pub slice_ty: Ty,
    pub helpers: Vec<Helper>,
    pub labels: Vec<Label>,
    pub slots: Vec<Slot>,
    pub in_helper: bool,
    /// Statements still to write (bounds the kernel's size).
    pub budget: i32,
    /// Nesting of blocks (bounds loops inside loops).
    pub nesting: u32,
    /// Constructs left out (`--skip`), by their names in the tables.
    pub skip: Vec<String>,
}

impl Gen {
    /// The weights of a table, with skipped constructs at zero.
    pub fn weights<T>(&self, table: &[(&str, u32, T)]) -> Vec<u32> {
        table.iter().map(|e| if self.skips(e.0) { 0 } else { e.1 }).collect()
    }

    pub fn skips(&self, name: &str) -> bool {
        self.skip.iter().any(|s| s == name)
    }
}

/// The names of every construct (`--skip` takes them).
pub fn construct_names() -> Vec<&'static str> {
    expr::EXPRS.iter().map(|e| e.0).chain(stmt::STMTS.iter().map(|s| s.0)).collect()
}

/// Generates kernel `index` of the run seeded with `seed`, without the constructs in `skip`.
pub fn kernel(seed: u64, index: u64, skip: &[String]) -> Kernel {
    let kseed = Rng::kernel_seed(seed, index);
    let mut g = Gen {
        rng: Rng::new(kseed),
        scopes: vec![Vec::new()],
        fresh: 0,
        consts: Vec::new(),
        fields: Vec::new(),
        slice_ty: Ty::I32,
        helpers: Vec::new(),
        labels: Vec::new(),
        slots: Vec::new(),
        in_helper: false,
        budget: 0,
        nesting: 0,
        skip: skip.to_vec(),
    };
    let nparams = 2 + g.rng.below(4);
    let params: Vec<(Ty, u64)> = (0..nparams)
        .map(|_| {
            let t = *g.rng.pick(&ty::ALL);
            (t, t.value(&mut g.rng))
        })
        .collect();
    for (i, (t, _)) in params.iter().enumerate() {
        g.declare(format!("p{i}"), Kind::Scalar(*t), false);
    }
    let st = *g.rng.pick(&ty::INTS);
    g.slice_ty = st;
    let slice = (st, (0..2 + g.rng.below(6)).map(|_| st.value(&mut g.rng)).collect::<Vec<_>>());
    let nfields = 1 + g.rng.below(4);
    g.fields = (0..nfields)
        .map(|_| {
            let t = *g.rng.pick(&ty::ALL);
            (t, t.value(&mut g.rng))
        })
        .collect();
    g.declare("s".into(), Kind::Struct, false);
    g.budget = 8 + g.rng.below(28) as i32;
    let mut body = Vec::new();
    while g.budget > 0 && g.slots.len() < MAX_SLOTS - 4 {
        body.push(stmt::stmt(&mut g));
    }
    // Observe what is left in the outermost scope's variables.
    let finals: Vec<Var> = g.visible().into_iter().filter(|v| matches!(v.kind, Kind::Scalar(_)) && v.name.starts_with('v')).collect();
    for v in finals {
        if g.slots.len() >= MAX_SLOTS {
            break;
        }
        if let Kind::Scalar(t) = v.kind {
            body.push(Stmt::Line { text: g.output(t, &v.name), keep: false });
        }
    }
    Kernel { index, params, slice, fields: g.fields, consts: g.consts, helpers: g.helpers, body, slots: g.slots }
}

impl Gen {
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    pub fn declare(&mut self, name: String, kind: Kind, mutable: bool) {
        self.scopes.last_mut().expect("a scope").push(Var { name, kind, mutable });
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// Swaps in a fresh scope stack (a helper's body sees only its parameters).
    pub fn swap_scopes(&mut self, scopes: Vec<Vec<Var>>) -> Vec<Vec<Var>> {
        std::mem::replace(&mut self.scopes, scopes)
    }

    /// The variables a use can name here: the innermost of each name.
    pub fn visible(&self) -> Vec<Var> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for scope in self.scopes.iter().rev() {
            for v in scope.iter().rev() {
                if seen.insert(v.name.clone()) {
                    out.push(v.clone());
                }
            }
        }
        out
    }

    pub fn scalars(&self, t: Ty) -> Vec<Var> {
        self.visible().into_iter().filter(|v| v.kind == Kind::Scalar(t)).collect()
    }

    /// The name of an existing scalar variable of type `t`, if any.
    pub fn var_of(&mut self, t: Ty) -> Option<String> {
        let vs = self.scalars(t);
        (!vs.is_empty()).then(|| self.rng.pick(&vs).name.clone())
    }

    /// A store of `value` (an expression of type `t`) to the next output slot.
    pub fn output(&mut self, t: Ty, value: &str) -> String {
        let k = self.slots.len();
        self.slots.push(match t {
            Ty::F32 => Slot::F32,
            Ty::F64 => Slot::F64,
            _ => Slot::Int,
        });
        if t.is_float() {
            format!("out[{k}] = {value}.to_bits() as u64;")
        } else {
            format!("out[{k}] = {value} as u64;")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(k: &Kernel) -> String {
        render::kernel_module(k).join("\n")
    }

    /// A replay regenerates the kernel exactly, alone, whatever else the run held.
    #[test]
    fn a_kernel_depends_on_its_seed_and_index_only() {
        let a = kernel(7, 42, &[]);
        assert_eq!(text(&a), text(&kernel(7, 42, &[])));
        assert_ne!(text(&a), text(&kernel(7, 43, &[])));
        assert_ne!(text(&a), text(&kernel(8, 42, &[])));
    }

    /// Every statement is one line, outputs stay within the slots, and `--skip` works.
    #[test]
    fn kernels_are_within_their_limits() {
        for i in 0..200 {
            let k = kernel(1, i, &["outside-const".to_owned()]);
            assert!(k.slots.len() <= MAX_SLOTS);
            assert!(k.consts.is_empty(), "kernel {i} uses an outside constant despite --skip");
            let t = text(&k);
            assert!(!t.contains(TAG));
            for l in t.lines() {
                assert!(!l.trim_start().starts_with("out[") || l.trim_end().ends_with(';'), "{l}");
            }
        }
    }
}
