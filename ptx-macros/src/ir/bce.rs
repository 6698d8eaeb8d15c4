//! Redundant comparisons removed: a branch on `a < b` where `a < b` is already known to hold
//! (or known not to), or where the operands' value ranges decide it (`ir::range`: `%laneid`
//! against an array of 32), becomes a jump.
//!
//! The case this is for is Rust's bounds check under a loop condition on the same values:
//! `while i < y.len() { y[i] = ... }` tests `i < len` at the top and again before the access;
//! ptxas keeps both (a 64-bit compare and a branch per iteration in saxpy and softmax).
//!
//! What is known at the start of a block comes from its immediate dominator (`ir::dom`), one
//! walk in dominator order, sound without a fixpoint. A block entered only from its dominator
//! knows all the facts that hold at that block's end, plus the outcome of its branch on this
//! edge. A block with several predecessors (a loop header, a join) knows the dominator's facts
//! about registers written once: such a register's single definition dominates every read, so
//! the value a fact was established on is the value seen here (a path from the definition back
//! to here that avoids the dominator would also be a path from the entry that avoids it). That
//! is how `if i < y.len() { for k in 0..9 { ... } y[i] = acc; }` needs no check of `y[i]` after
//! the loop. A fact names registers, so writing one of them (a mutable local's update) forgets
//! it. Only integer comparisons are used: with floats, `!(a < b)` is not `a >= b`.
//!
//! A check's branch also tells the outcome of its whole test, as a key (`ir::test_key`): the
//! `and`/`or`/`not` of comparisons of registers written once. A later check whose test has the
//! same key is decided by it: layernorm's first two loops each get the check `base + n - 1 <
//! x.len()` (with the zero-trip test `0 < n`) hoisted before them, and the second is the first
//! (`again`, after `ir::cse` has made the repeated index one register; 557 → 547 SASS
//! instructions on sm_80).

use super::dom::Cfg;
use super::range::Ranges;
use super::trips::Trips;
use super::test_key::{self, Key};
use super::{Arg, Cmp, Func, Imm, InstKind, Mode, Opcode, Reg, Term, Type};
use super::fast_hash::HashMap;

/// An integer operand of a comparison.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Operand {
    Reg(Reg),
    Int(i64),
}

/// `a <cmp> b` holds, for a comparison `setp.<cmp>.<ty>`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Fact {
    cmp: Cmp,
    ty: Type,
    a: Operand,
    b: Operand,
}

impl Operand {
    fn arg(self) -> Arg {
        match self {
            Operand::Reg(r) => Arg::Reg(r),
            Operand::Int(v) => Arg::imm(v),
        }
    }
}

impl Fact {
    fn negated(&self) -> Fact {
        Fact { cmp: self.cmp.negated(), ..*self }
    }

    /// The same fact with its operands swapped (`a < b` as `b > a`).
    fn swapped(&self) -> Fact {
        Fact { cmp: self.cmp.swapped(), ty: self.ty, a: self.b, b: self.a }
    }

    fn mentions(&self, r: Reg) -> bool {
        self.a == Operand::Reg(r) || self.b == Operand::Reg(r)
    }
}

/// What a block's instructions establish and which predicates hold which comparison; and the
/// outcomes of the tests that branches on every path here took (`ir::test_key`).
#[derive(Clone, Default)]
struct Known {
    facts: Vec<Fact>,
    preds: HashMap<Reg, Fact>,
    tests: Vec<(Key, bool)>,
}

impl Known {
    /// What a branch on `k` tells: `k` is `v`, and so is what follows (`!k` is `!v`; every
    /// part of an `and` that holds, every part of an `or` that does not).
    fn learn(&mut self, k: Key, v: bool) {
        match (&k, v) {
            (Key::All(parts), true) | (Key::Any(parts), false) => {
                for p in parts.clone() {
                    self.tests.push((p.negated(), !v));
                    self.tests.push((p, v));
                }
            }
            _ => {}
        }
        self.tests.push((k.negated(), !v));
        self.tests.push((k, v));
    }

    fn test(&self, k: &Key) -> Option<bool> {
        self.tests.iter().find(|(t, _)| t == k).map(|(_, v)| *v)
    }

    fn holds(&self, f: &Fact, ranges: &Ranges) -> Option<bool> {
        let swapped = f.swapped();
        if self.facts.iter().any(|k| *k == *f || *k == swapped) {
            return Some(true);
        }
        let (n, ns) = (f.negated(), swapped.negated());
        if self.facts.iter().any(|k| *k == n || *k == ns) {
            return Some(false);
        }
        self.implied(f, ranges).or_else(|| ranges.decide(f.cmp, f.ty, &f.a.arg(), &f.b.arg()))
    }

    /// `x < z` (or its negation `x >= z`) from a known `x < y` with every value of `y` at
    /// most every value of `z`: a loop counter below its end of 32 indexes an array of 32.
    fn implied(&self, f: &Fact, ranges: &Ranges) -> Option<bool> {
        let (x, z, lt) = match f.cmp {
            Cmp::Lt => (f.a, f.b, true),
            Cmp::Ge => (f.a, f.b, false),
            Cmp::Gt => (f.b, f.a, true),
            Cmp::Le => (f.b, f.a, false),
            _ => return None,
        };
        let bits = f.ty.bits();
        let z = ranges.of(&z.arg(), bits)?;
        let below = |y: Operand| {
            let y = ranges.of(&y.arg(), bits);
            // Signed order is unsigned order on non-negative values.
            y.is_some_and(|y| y.hi <= z.lo && !(f.ty.is_signed() && (y.hi | z.hi) >> (bits - 1) != 0))
        };
        let known = self.facts.iter().any(|k| {
            k.ty == f.ty && ((k.cmp == Cmp::Lt && k.a == x && below(k.b)) || (k.cmp == Cmp::Gt && k.b == x && below(k.a)))
        });
        known.then_some(lt)
    }

    fn forget(&mut self, r: Reg) {
        self.facts.retain(|f| !f.mentions(r));
        self.preds.retain(|p, f| *p != r && !f.mentions(r));
    }
}

pub fn run(func: &mut Func) {
    // A loop counter read on its trips has their values' range (`ir::trips`): the transpose's
    // `(ty + j) * 33 + tx` with `j` of `(0..32).step_by(8)` is below 1056 under its declared
    // block.
    let cfg = Cfg::new(func);
    let trips = Trips::find(func, &cfg, &cfg.loops());
    let ranges = Ranges::compute_at(func, Default::default(), &super::trips::ranges_on_trips(func, &trips));
    let halves = Halves::find(func);
    walk(func, &ranges, &halves, &cfg, &trips);
}

/// Again, later, with the facts and the tests alone (the ranges would cost another pass over
/// the function): the checks hoisted before two loops may be one test (layernorm's first
/// two), once a repeated index is one register (`ir::cse`).
pub fn again(func: &mut Func) {
    let cfg = Cfg::new(func);
    let trips = Trips::find(func, &cfg, &cfg.loops());
    walk(func, &Ranges::default(), &Halves { ranges: None }, &cfg, &trips);
}

/// `cfg` and `trips` are the function's as it is on entry.
fn walk(func: &mut Func, ranges: &Ranges, halves: &Halves, cfg: &Cfg, trips: &Trips) {
    let mut defs = vec![0usize; func.regs.len()];
    for r in func.blocks.iter().flat_map(|b| &b.insts).flat_map(|i| i.defs()) {
        defs[r.0 as usize] += 1;
    }
    let single_def = |o: Operand| match o {
        Operand::Reg(r) => defs[r.0 as usize] == 1,
        Operand::Int(_) => true,
    };
    let counts: Vec<u32> = defs.iter().map(|&n| n as u32).collect();
    let (_, sites) = super::hoist::single_defs(func);
    // What holds at the end of each block processed, and the fact its branch adds on each edge.
    let mut out: Vec<Option<Known>> = vec![None; func.blocks.len()];
    let mut edge_fact: HashMap<(usize, usize), Fact> = HashMap::default();
    let mut edge_test: HashMap<(usize, usize), (Key, bool)> = HashMap::default();
    // Each block after its immediate dominator.
    for &b in &cfg.order {
        let mut known = match cfg.idom[b] {
            Some(d) if d != b => {
                let from = out[d].clone().unwrap_or_default();
                if cfg.preds[b] == [d] {
                    // Entered only from its dominator: all it knew, and its branch's outcome.
                    let mut k = from;
                    k.facts.extend(edge_fact.get(&(d, b)).copied());
                    if let Some((t, v)) = edge_test.get(&(d, b)) {
                        k.learn(t.clone(), *v);
                    }
                    k
                } else {
                    // A join or a loop header: what its dominator knew of registers written
                    // once (their values cannot change on the way here); see the module doc.
                    // Tests name only such registers.
                    Known {
                        facts: from.facts.into_iter().filter(|f| single_def(f.a) && single_def(f.b)).collect(),
                        preds: from.preds.into_iter().filter(|(p, f)| defs[p.0 as usize] == 1 && single_def(f.a) && single_def(f.b)).collect(),
                        tests: from.tests,
                    }
                }
            }
            _ => Known::default(),
        };
        for f in func.entry_facts.iter().filter(|f| f.block.0 as usize == b) {
            if let Some(bound) = operand(&f.bound) {
                known.facts.push(Fact { cmp: Cmp::Lt, ty: f.ty, a: Operand::Reg(f.reg), b: bound });
            }
            // A counter stepped by a constant to a constant end takes fewer values: `j` of
            // `(0..32).step_by(8)` is at most 24 on its trips (`ir::trips`), until its advance
            // writes it (which forgets the fact).
            if let Some(last) = trips.at(f.reg, b, 0).and_then(super::trips::Trip::last).and_then(|v| i64::try_from(v).ok()?.checked_add(1)) {
                known.facts.push(Fact { cmp: Cmp::Lt, ty: f.ty, a: Operand::Reg(f.reg), b: Operand::Int(last) });
            }
        }
        for inst in &func.blocks[b].insts {
            for r in inst.defs() {
                known.forget(r);
            }
            // A copy (`mov d, x`, as the lowering copies a loop counter it reads) knows what
            // its source does; a zero extension (`cvt.u64.u32 d, x`, a `u32` counter used as
            // an index) is below whatever bounds its source from above.
            match (&inst.kind, inst.guard) {
                (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) => {
                    if let [Arg::Reg(d), Arg::Reg(x)] = args.as_slice() {
                        let (d, x) = (Operand::Reg(*d), Operand::Reg(*x));
                        let copies: Vec<Fact> = known.facts.iter().filter(|k| k.a == x || k.b == x).map(|k| Fact { a: if k.a == x { d } else { k.a }, b: if k.b == x { d } else { k.b }, ..*k }).collect();
                        known.facts.extend(copies);
                    }
                }
                (InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U64, Type::U32), defs: 1, args }, None) => {
                    if let [Arg::Reg(d), Arg::Reg(x)] = args.as_slice() {
                        let x = Operand::Reg(*x);
                        let widened: Vec<Fact> = known
                            .facts
                            .iter()
                            .filter(|k| k.cmp == Cmp::Lt && k.ty == Type::U32 && k.a == x)
                            .filter_map(|k| ranges.of(&k.b.arg(), 32))
                            .map(|y| Fact { cmp: Cmp::Lt, ty: Type::U64, a: Operand::Reg(*d), b: Operand::Int(y.hi as i64) })
                            .collect();
                        known.facts.extend(widened);
                    }
                }
                _ => {}
            }
            if let Some(f) = halves.sum_below(inst, &known) {
                known.facts.push(f);
            }
            if let (Some(f), None, [Arg::Reg(p), ..]) = (comparison(inst), inst.guard, op_args(inst)) {
                known.preds.insert(*p, f);
            }
        }
        if let Term::Branch { pred, negate, if_true, if_false } = func.blocks[b].term {
            let fact = known.preds.get(&pred).cloned();
            // A check's test as a whole, where it is more than one comparison (a hoisted check
            // and its loop's zero-trip test) or that comparison is not a fact's.
            let check = super::hoist::failure(func, if_true.0 as usize) || super::hoist::failure(func, if_false.0 as usize);
            let key = check.then(|| test_key::of(func, &counts, &sites, pred)).flatten();
            let decided = fact.as_ref().and_then(|f| known.holds(f, ranges)).or_else(|| key.as_ref().and_then(|k| known.test(k)));
            if let Some(v) = decided {
                // The other successor may lose its only predecessor; what it is told
                // stays true of the paths that remain.
                func.blocks[b].term = Term::Jump(if v != negate { if_true } else { if_false });
            } else {
                if let Some(f) = fact {
                    let (t, e) = if negate { (f.negated(), f) } else { (f, f.negated()) };
                    edge_fact.insert((b, if_true.0 as usize), t);
                    edge_fact.insert((b, if_false.0 as usize), e);
                }
                if let Some(k) = key {
                    edge_test.insert((b, if_true.0 as usize), (k.clone(), !negate));
                    edge_test.insert((b, if_false.0 as usize), (k, negate));
                }
            }
        }
        out[b] = Some(known);
    }
}

/// `x = a + b` where `a < b` is known is below `2·b`: a tree reduction's `red[tid + s]` under
/// `if tid < s`, with `s` at most half the block (`block_dim_x() / 2`, halved on each step:
/// a register written more than once, whose range is the union of what its writes produce,
/// `narrow_reg::loop_ranges`). Under `launch_bounds(max_threads = 256)`, `s <= 128`, so
/// `tid + s < 256` indexes a 256-element tile. The fact is recorded where the sum is computed,
/// about the operands' values there; the sum is written once, so it holds wherever it is read.
struct Halves {
    /// The ranges with those of registers written more than once; only computed where a
    /// function both adds and compares the same two registers.
    ranges: Option<Ranges>,
}

impl Halves {
    fn find(func: &Func) -> Halves {
        let mut compared: Vec<(Reg, Reg)> = Vec::new();
        let mut added: Vec<(Reg, Reg)> = Vec::new();
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            match (&inst.kind, op_args(inst)) {
                (InstKind::Op { opcode: Opcode::Setp(Cmp::Lt | Cmp::Gt, t), .. }, [_, Arg::Reg(a), Arg::Reg(b)]) if !t.is_signed() && !t.is_float() => compared.push((*a, *b)),
                (InstKind::Op { opcode: Opcode::Arith(super::Arith::Add, Mode::None, t), defs: 1, .. }, [_, Arg::Reg(a), Arg::Reg(b)]) if !t.is_float() => added.push((*a, *b)),
                _ => {}
            }
        }
        let pair = |(a, b): &(Reg, Reg)| compared.iter().any(|&(x, y)| (x, y) == (*a, *b) || (x, y) == (*b, *a));
        let ranges = added.iter().any(pair).then(|| super::narrow_reg::loop_ranges(func));
        Halves { ranges }
    }

    /// For an unguarded `add x, a, b` with `a < b` (or `b < a`) known: `x < 2·max(b)`.
    fn sum_below(&self, inst: &super::Inst, known: &Known) -> Option<Fact> {
        let ranges = self.ranges.as_ref()?;
        let (InstKind::Op { opcode: Opcode::Arith(super::Arith::Add, Mode::None, t), defs: 1, .. }, None, [Arg::Reg(x), Arg::Reg(a), Arg::Reg(b)]) = (&inst.kind, inst.guard, op_args(inst)) else { return None };
        if t.is_float() {
            return None;
        }
        let ty = Type::u(t.bits());
        let (a, b) = (Operand::Reg(*a), Operand::Reg(*b));
        let less = |x: Operand, y: Operand| known.facts.iter().any(|k| k.ty == ty && ((k.cmp == Cmp::Lt && k.a == x && k.b == y) || (k.cmp == Cmp::Gt && k.a == y && k.b == x)));
        let larger = if less(a, b) { b } else if less(b, a) { a } else { return None };
        let hi = ranges.of(&larger.arg(), t.bits())?.hi;
        // `x <= 2·hi - 1`, which must not wrap at the add's width.
        let bound = hi.checked_mul(2).filter(|&v| t.bits() == 64 || v <= 1u64 << t.bits())?;
        Some(Fact { cmp: Cmp::Lt, ty, a: Operand::Reg(*x), b: Operand::Int(i64::try_from(bound).ok()?) })
    }
}

fn op_args(inst: &super::Inst) -> &[Arg] {
    match &inst.kind {
        InstKind::Op { args, .. } => args,
        _ => &[],
    }
}

/// The comparison an unguarded integer `setp.<cmp>.<ty> p, a, b` makes.
fn comparison(inst: &super::Inst) -> Option<Fact> {
    let InstKind::Op { opcode: Opcode::Setp(cmp, ty), defs: 1, args } = &inst.kind else { return None };
    if args.len() != 3 || ty.is_float() || !matches!(cmp, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge) {
        return None;
    }
    Some(Fact { cmp: *cmp, ty: *ty, a: operand(&args[1])?, b: operand(&args[2])? })
}

fn operand(a: &Arg) -> Option<Operand> {
    match a {
        Arg::Reg(r) => Some(Operand::Reg(*r)),
        Arg::Imm(Imm::Int(v)) => Some(Operand::Int(*v)),
        _ => None,
    }
}
