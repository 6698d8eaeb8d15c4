//! A branch's test as a value: the `and`/`or`/`not` of integer comparisons that computed its
//! predicate, in a canonical form, so that two tests computed apart are recognised as one. The
//! hoisted checks of layernorm's first two loops are both `base + n - 1 >= x.len() && 0 < n`,
//! each computed before its loop by its own instructions; `ir::bce` knows the first failed to
//! branch on every path to the second, and decides it by its key.
//!
//! Only registers written once take part (the predicates, and the comparisons' operands): the
//! value a key names is then the same wherever its registers are read, so what a branch tells
//! about it holds in every block the branch dominates. A comparison is written with `<`, `<=`,
//! `==` or `!=` (`a > b` as `b < a`), a negation is pushed to the comparisons (integers:
//! `!(a < b)` is `b <= a`), and the operands of `and`/`or` are flattened and sorted.

use super::{Arg, Arith, Cmp, Func, Imm, InstKind, Opcode, Reg, Type};
use std::cmp::Ordering;

/// How deep a predicate's definition is followed.
const DEPTH: usize = 6;

/// An integer operand of a comparison.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Operand {
    Reg(Reg),
    Int(i64),
}

/// A test, canonical: equal tests have equal keys.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Key {
    /// `a <cmp> b`, `cmp` one of `Lt`, `Le`, `Eq`, `Ne`.
    Cmp(Cmp, Type, Operand, Operand),
    /// A predicate not followed further, or its negation.
    Leaf(Reg, bool),
    All(Vec<Key>),
    Any(Vec<Key>),
}

impl Key {
    /// The test that holds exactly when this one does not.
    pub fn negated(&self) -> Key {
        match self {
            Key::Cmp(c, t, a, b) => cmp(c.negated(), *t, *a, *b),
            Key::Leaf(r, n) => Key::Leaf(*r, !n),
            Key::All(ks) => any(ks.iter().map(Key::negated).collect()),
            Key::Any(ks) => all(ks.iter().map(Key::negated).collect()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Key::Cmp(..) => 0,
            Key::Leaf(..) => 1,
            Key::All(_) => 2,
            Key::Any(_) => 3,
        }
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Cmp(c, t, a, b), Key::Cmp(d, u, x, y)) => (*c as u8, *t as u8, a, b).cmp(&(*d as u8, *u as u8, x, y)),
            (Key::Leaf(r, n), Key::Leaf(s, m)) => (r, n).cmp(&(s, m)),
            (Key::All(a), Key::All(b)) | (Key::Any(a), Key::Any(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `a <c> b` written with `<`, `<=`, `==` or `!=`.
fn cmp(c: Cmp, t: Type, a: Operand, b: Operand) -> Key {
    match c {
        Cmp::Gt | Cmp::Ge => Key::Cmp(c.swapped(), t, b, a),
        _ => Key::Cmp(c, t, a, b),
    }
}

fn all(ks: Vec<Key>) -> Key {
    join(ks, true)
}

fn any(ks: Vec<Key>) -> Key {
    join(ks, false)
}

/// `and` (or `or`) of `ks`, flattened and sorted; one operand stands for itself.
fn join(ks: Vec<Key>, and: bool) -> Key {
    let mut out = Vec::new();
    for k in ks {
        match (k, and) {
            (Key::All(inner), true) | (Key::Any(inner), false) => out.extend(inner),
            (k, _) => out.push(k),
        }
    }
    out.sort();
    out.dedup();
    match out.len() {
        1 => out.pop().unwrap_or(Key::Leaf(Reg(0), false)),
        _ if and => Key::All(out),
        _ => Key::Any(out),
    }
}

/// The key of predicate `p`, where it and the registers it is computed from are written once
/// (`defs`: each register's number of writes); `None` otherwise.
pub fn of(func: &Func, defs: &[u32], sites: &super::hoist::DefSites, p: Reg) -> Option<Key> {
    follow(func, defs, sites, p, 0)
}

fn follow(func: &Func, defs: &[u32], sites: &super::hoist::DefSites, p: Reg, depth: usize) -> Option<Key> {
    if defs.get(p.0 as usize) != Some(&1) {
        return None;
    }
    let leaf = Some(Key::Leaf(p, false));
    let Some(&(b, i)) = sites.get(&p) else { return leaf };
    let inst = &func.blocks[b].insts[i];
    let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return leaf };
    if inst.guard.is_some() || depth >= DEPTH {
        return leaf;
    }
    let operand = |a: &Arg| match a {
        Arg::Reg(r) if defs.get(r.0 as usize) == Some(&1) => Some(Operand::Reg(*r)),
        Arg::Imm(Imm::Int(v)) => Some(Operand::Int(*v)),
        _ => None,
    };
    let sub = |a: &Arg| match a {
        Arg::Reg(r) => follow(func, defs, sites, *r, depth + 1),
        _ => None,
    };
    let key = match (opcode, &args[1..]) {
        (Opcode::Setp(c @ (Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge), t), [a, b]) if !t.is_float() => operand(a).zip(operand(b)).map(|(a, b)| cmp(*c, *t, a, b)),
        (Opcode::Arith(Arith::And, _, Type::Pred), [a, b]) => sub(a).zip(sub(b)).map(|(a, b)| all(vec![a, b])),
        (Opcode::Arith(Arith::Or, _, Type::Pred), [a, b]) => sub(a).zip(sub(b)).map(|(a, b)| any(vec![a, b])),
        (Opcode::Arith(Arith::Not, _, Type::Pred), [a]) => sub(a).map(|a| a.negated()),
        _ => None,
    };
    key.or(leaf)
}
