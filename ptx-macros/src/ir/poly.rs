//! 32-bit addresses as polynomials over the values a block starts with, for
//! [`super::vectorize`]: `__shared_0 + 4·(ty·TILE + k) + 8` is `{[__shared_0]: 1, [ty, TILE]: 4,
//! [k]: 4, []: 8}`. Two addresses whose difference is a constant are that many bytes apart.
//!
//! Arithmetic modulo 2^32: the low 32 bits of `a + b`, `a - b`, `a · b` and `a << n` depend only
//! on the low 32 bits of `a` and `b`, and a conversion between 32- and 64-bit integers keeps
//! the low half, so a chain of such instructions in either width is followed exactly (the
//! argument of [`super::narrow`]). Anything else is a leaf: a register the block reads but
//! does not write before the address is computed (its value where the block starts), a
//! symbol, a piece of text rustc evaluates (a constant to ptxas, e.g. a module-level `const`).

use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, Sym, Type};
use super::fast_hash::HashMap;
use std::collections::BTreeMap;

/// A value the polynomial is over.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Leaf {
    Reg(Reg),
    /// A named symbol (a shared array's address).
    Sym(String),
    /// A piece's text: a constant to ptxas, unknown here.
    Piece(String),
}

/// Monomials (sorted leaves; the empty one is the constant term) and their coefficients.
pub type Poly = BTreeMap<Vec<Leaf>, u32>;

/// How deep a chain of instructions is followed.
const DEPTH: usize = 12;

/// Where the block's registers are written, and which registers the whole function writes
/// once (their one write, wherever it is, is followed too).
pub struct Polys<'a> {
    func: &'a Func,
    block: usize,
    /// Registers written in the block: the positions of their writes.
    written: HashMap<Reg, Vec<usize>>,
    /// Registers written once in the whole function: (block, index).
    single: &'a super::hoist::DefSites,
    /// The pieces met, with an operand that reads them and the type they were moved as.
    pub pieces: HashMap<String, (Arg, Type)>,
}

impl<'a> Polys<'a> {
    pub fn new(func: &'a Func, block: usize, single: &'a super::hoist::DefSites) -> Polys<'a> {
        let mut written: HashMap<Reg, Vec<usize>> = HashMap::default();
        for (i, inst) in func.blocks[block].insts.iter().enumerate() {
            for r in inst.defs() {
                written.entry(r).or_default().push(i);
            }
        }
        Polys { func, block, written, single, pieces: HashMap::default() }
    }

    /// The value of `a` as the instruction at `at` in the block reads it.
    pub fn of(&mut self, a: &Arg, at: usize) -> Option<Poly> {
        self.arg(a, at, 0, true)
    }

    fn arg(&mut self, a: &Arg, at: usize, depth: usize, in_block: bool) -> Option<Poly> {
        match a {
            Arg::Imm(Imm::Int(v)) => Some(constant(*v as u32)),
            Arg::Sym(Sym::Named(n)) if !n.starts_with('%') => Some(leaf(Leaf::Sym(n.clone()))),
            Arg::Sym(Sym::Piece(t)) => {
                let key = t.to_string();
                self.pieces.entry(key.clone()).or_insert((a.clone(), Type::U64));
                Some(leaf(Leaf::Piece(key)))
            }
            Arg::Reg(r) => self.reg(*r, at, depth, in_block),
            _ => None,
        }
    }

    fn reg(&mut self, r: Reg, at: usize, depth: usize, in_block: bool) -> Option<Poly> {
        if depth > DEPTH {
            return Some(leaf(Leaf::Reg(r)));
        }
        match self.single.get(&r) {
            // Written once, in the block (before the read) or outside it: followed, outside
            // only through registers written once too (whose operands are read there).
            Some(&(b, i)) => {
                let inst = self.func.blocks[b].insts[i].clone();
                let here = b == self.block;
                if here && (!in_block || i >= at) {
                    return None;
                }
                if !here && !inst.uses().iter().all(|u| self.single.contains_key(u)) {
                    return Some(leaf(Leaf::Reg(r)));
                }
                self.inst(&inst, i, depth, here).or(Some(leaf(Leaf::Reg(r))))
            }
            // Written more than once: its value where the block starts, if the block has not
            // written it yet.
            None => {
                let early = self.written.get(&r).is_some_and(|w| w.iter().any(|&w| !in_block || w < at));
                (!early).then(|| leaf(Leaf::Reg(r)))
            }
        }
    }

    /// The value an instruction writes, or `None` where it is not a polynomial.
    fn inst(&mut self, inst: &Inst, at: usize, depth: usize, in_block: bool) -> Option<Poly> {
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
        if inst.guard.is_some() {
            return None;
        }
        let int = |t: Type| !t.is_float() && t != Type::Pred && t.bits() >= 32;
        let operand = |s: &mut Self, k: usize| s.arg(args.get(k)?, at, depth + 1, in_block);
        match *opcode {
            Opcode::Mov(t) if int(t) => {
                if let (Some(Arg::Sym(Sym::Piece(p))), true) = (args.get(1), true) {
                    self.pieces.insert(p.to_string(), (args[1].clone(), t));
                }
                operand(self, 1)
            }
            Opcode::Cvt(Mode::None, to, from) if int(to) && int(from) => operand(self, 1),
            Opcode::Arith(Arith::Add, Mode::None, t) if int(t) => Some(add(&operand(self, 1)?, &operand(self, 2)?, 1)),
            Opcode::Arith(Arith::Sub, Mode::None, t) if int(t) => Some(add(&operand(self, 1)?, &operand(self, 2)?, u32::MAX)),
            Opcode::Arith(Arith::Mul, Mode::Lo | Mode::None, t) if int(t) => Some(mul(&operand(self, 1)?, &operand(self, 2)?)),
            Opcode::Arith(Arith::Shl, Mode::None, t) if int(t) => match args.get(2) {
                Some(Arg::Imm(Imm::Int(n))) if (0..32).contains(n) => Some(mul(&operand(self, 1)?, &constant(1u32 << n))),
                _ => None,
            },
            _ => None,
        }
    }
}

pub fn constant(v: u32) -> Poly {
    let mut p = Poly::new();
    if v != 0 {
        p.insert(Vec::new(), v);
    }
    p
}

fn leaf(l: Leaf) -> Poly {
    let mut p = Poly::new();
    p.insert(vec![l], 1);
    p
}

/// `a + factor · b`.
pub fn add(a: &Poly, b: &Poly, factor: u32) -> Poly {
    let mut out = a.clone();
    for (m, c) in b {
        let e = out.entry(m.clone()).or_insert(0);
        *e = e.wrapping_add(c.wrapping_mul(factor));
    }
    out.retain(|_, c| *c != 0);
    out
}

fn mul(a: &Poly, b: &Poly) -> Poly {
    let mut out = Poly::new();
    for (ma, ca) in a {
        for (mb, cb) in b {
            let mut m: Vec<Leaf> = ma.iter().chain(mb).cloned().collect();
            m.sort();
            let e = out.entry(m).or_insert(0);
            *e = e.wrapping_add(ca.wrapping_mul(*cb));
        }
    }
    out.retain(|_, c| *c != 0);
    out
}

/// `a - b` when it is a constant.
pub fn distance(a: &Poly, b: &Poly) -> Option<u32> {
    let d = add(a, b, u32::MAX);
    match d.len() {
        0 => Some(0),
        1 => d.get(&Vec::new()).copied(),
        _ => None,
    }
}
