//! Invariant parts of indices split off in loops that ptxas unrolls completely: in a `for`
//! loop with a constant end, an index or address such as conv1d's `x + 4·(i + k)` or the
//! transpose's `tile + 4·((ty + j)·33 + tx)` is rewritten as `INV + k·C`, with `INV`
//! (`x + 4·i`, `tile + 4·(ty·33 + tx)`) and `C` computed once before the loop. ptxas, which
//! unrolls such a loop and knows `k` on each trip, then folds `k·C` into the access's
//! immediate offset (`[R+0x420]`) and keeps one base for every trip, as it does for NVVM's
//! PTX of the same CUDA C, instead of rebuilding each trip's base (conv1d kept two 64-bit
//! bases, the transpose computed `(ty + 8)·33`, `(ty + 16)·33` ... one by one).
//!
//! Exact whatever the values: an index is followed through `add`, `sub`, `mul.lo`, `shl` by
//! an immediate and moves of one width, and through `cvt.u32.u64` (the low half), as a sum of
//! products modulo 2^w; those operations are a commutative ring modulo 2^w, and the low half
//! of a sum or product is the sum or product of the low halves, so any regrouping computes
//! the same bits. A product of two sums that both change with the loop is not followed.
//!
//! When (besides the loop being a `for` loop whose end is a constant, `Func::entry_facts`,
//! `folded::resolve`: the loops [`super::strength`] leaves to ptxas):
//! - the loop is entered from one block, where the invariant part is computed (at its end:
//!   every register the loop reads but does not write holds there the value it has in every
//!   trip, as in [`super::licm`]);
//! - every instruction followed is unguarded, writes a register nothing else writes, and runs
//!   in the same trip before the rewritten one (earlier in its block, or in a block of the loop
//!   that dominates it);
//! - a register that changes in the loop appears as one factor of a term: one written once,
//!   or the loop's counter, read where its one write (which advances it) has not yet run in
//!   the trip, so that it holds there the value the followed instructions read;
//! - what stays in the loop (a multiply or shift of each changing term, the adds) is no more
//!   than what the rewrite lets dead-code removal take from it.

use super::dom::{Cfg, Loop};
use super::folded;
use super::hoist::{single_defs, DefSites};
use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Sym, Term, Type};
use super::fast_hash::{HashMap, HashSet};

/// How deep a chain of instructions is followed, and how many terms a sum may have.
const DEPTH: usize = 10;
const TERMS: usize = 8;

pub fn run(func: &mut Func) {
    let facts: Vec<(usize, Reg, Arg)> = func.entry_facts.iter().map(|f| (f.block.0 as usize, f.reg, f.bound.clone())).collect();
    for (header, counter, end) in facts {
        let (_, single) = single_defs(func);
        if folded::resolve(func, &end, &single).is_none() {
            continue;
        }
        // One rewrite at a time: each moves instructions, and a later index may read an
        // earlier one's result. An index is rewritten once.
        let mut done = HashSet::default();
        for _ in 0..16 {
            if !rewrite_one(func, header, counter, &mut done) {
                break;
            }
        }
    }
}

/// A value that does not change in the loop, as a factor: a register (its low half where
/// `low`), or a piece, keyed for sorting.
#[derive(Clone, Debug)]
struct Leaf {
    key: String,
    arg: Arg,
    low: bool,
}

fn leaf(arg: Arg, low: bool) -> Leaf {
    let key = match &arg {
        Arg::Reg(r) => format!("r{}{}", r.0, if low { "l" } else { "" }),
        Arg::Sym(Sym::Piece(p)) => format!("p{p}"),
        _ => String::new(),
    };
    Leaf { key, arg, low }
}

/// `coef · Π inv · var` (`var` absent: a term the loop does not change).
#[derive(Clone, Debug)]
struct Product {
    coef: u64,
    inv: Vec<Leaf>,
    var: Option<Leaf>,
}

impl Product {
    fn key(&self) -> (Vec<String>, Option<String>) {
        (self.inv.iter().map(|l| l.key.clone()).collect(), self.var.as_ref().map(|l| l.key.clone()))
    }
}

type Sum = Vec<Product>;

fn add(mut a: Sum, b: Sum, factor: u64) -> Option<Sum> {
    for t in b {
        let t = Product { coef: t.coef.wrapping_mul(factor), ..t };
        match a.iter_mut().find(|x| x.key() == t.key()) {
            Some(x) => x.coef = x.coef.wrapping_add(t.coef),
            None => a.push(t),
        }
    }
    a.retain(|t| t.coef != 0);
    (a.len() <= TERMS).then_some(a)
}

fn mul(a: &Sum, b: &Sum) -> Option<Sum> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            if x.var.is_some() && y.var.is_some() {
                return None;
            }
            let mut inv: Vec<Leaf> = x.inv.iter().chain(&y.inv).cloned().collect();
            inv.sort_by(|p, q| p.key.cmp(&q.key));
            if inv.len() > 3 {
                return None;
            }
            out = add(out, vec![Product { coef: x.coef.wrapping_mul(y.coef), inv, var: x.var.clone().or_else(|| y.var.clone()) }], 1)?;
        }
    }
    Some(out)
}

/// The loop being looked at and what is known of it.
struct Ctx<'a> {
    func: &'a Func,
    cfg: &'a Cfg,
    l: &'a Loop,
    single: &'a DefSites,
    written: &'a HashSet<Reg>,
    counter: Reg,
    /// Registers written in the loop that something other than an index's next step reads.
    roots: HashSet<Reg>,
}

impl Ctx<'_> {
    /// Whether `a` is the counter, or its low half or a copy of it.
    fn is_counter(&self, a: &Arg) -> bool {
        let Arg::Reg(r) = a else { return false };
        if *r == self.counter {
            return true;
        }
        let Some(&(b, i)) = self.single.get(r) else { return false };
        let inst = &self.func.blocks[b].insts[i];
        match &inst.kind {
            InstKind::Op { opcode: Opcode::Cvt(Mode::None, ..) | Opcode::Mov(_), defs: 1, args } if inst.guard.is_none() => matches!(args[..], [_, Arg::Reg(x)] if x == self.counter),
            _ => false,
        }
    }
}

/// Walks an index from one instruction, collecting the instructions it follows.
struct Walk<'a> {
    ctx: &'a Ctx<'a>,
    chain: Vec<(usize, usize)>,
    reads_counter: bool,
    /// A followed `mul.lo` multiplies a changing value other than the counter by an invariant
    /// register: a multiply the rewrite makes one of the counter, which ptxas folds or
    /// narrows once it knows the counter's value on each unrolled trip.
    multiplies_value: bool,
}

impl Walk<'_> {
    /// `a` as a sum at width `bits` (`low`: the low halves of a 64-bit chain under a
    /// `cvt.u32.u64`).
    fn arg(&mut self, a: &Arg, reader: (usize, usize), bits: u32, low: bool, depth: usize) -> Option<Sum> {
        let ctx = self.ctx;
        // A register of the width's integer class only: a `.b32` move also copies an `f32`
        // register's bits, and the rewrite's `add.s32` does not take one.
        let class = if bits == 64 { RegClass::B64 } else { RegClass::B32 };
        if matches!(a, Arg::Reg(r) if ctx.func.class(*r) != class) {
            return None;
        }
        match a {
            Arg::Imm(Imm::Int(v)) => Some(vec![Product { coef: *v as u64, inv: vec![], var: None }]),
            Arg::Sym(Sym::Piece(_)) if !low => Some(vec![Product { coef: 1, inv: vec![leaf(a.clone(), false)], var: None }]),
            Arg::Reg(r) if !ctx.written.contains(r) => Some(vec![Product { coef: 1, inv: vec![leaf(a.clone(), low)], var: None }]),
            Arg::Reg(r) => {
                let var = Some(vec![Product { coef: 1, inv: vec![], var: Some(leaf(a.clone(), low)) }]);
                if *r == ctx.counter {
                    self.reads_counter = true;
                    return var;
                }
                let &(db, di) = ctx.single.get(r)?;
                // Written before the instruction that reads it, in the same trip.
                let (b, i) = reader;
                let before = if db == b { di < i } else { ctx.l.contains(db) && ctx.cfg.dominates(db, b) };
                if !before {
                    return None;
                }
                let inst = &ctx.func.blocks[db].insts[di];
                match (depth < DEPTH && inst.guard.is_none()).then(|| self.def(inst, (db, di), bits, low, depth)).flatten() {
                    Some(sum) => Some(sum),
                    // A value written once: the same wherever the trip reads it.
                    None => var,
                }
            }
            _ => None,
        }
    }

    /// The sum an instruction computes, if it is one the walk follows.
    fn def(&mut self, inst: &Inst, site: (usize, usize), bits: u32, low: bool, depth: usize) -> Option<Sum> {
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
        let int = |t: &Type| !t.is_float() && t.bits() == bits && *t != Type::Pred;
        let sum = match (opcode, &args[..]) {
            (Opcode::Arith(Arith::Add, Mode::None, t), [_, x, y]) if int(t) => {
                let x = self.arg(x, site, bits, low, depth + 1)?;
                add(x, self.arg(y, site, bits, low, depth + 1)?, 1)?
            }
            (Opcode::Arith(Arith::Sub, Mode::None, t), [_, x, y]) if int(t) => {
                let x = self.arg(x, site, bits, low, depth + 1)?;
                add(x, self.arg(y, site, bits, low, depth + 1)?, u64::MAX)?
            }
            (Opcode::Arith(Arith::Mul, Mode::Lo, t), [_, x, y]) if int(t) => {
                let x = self.arg(x, site, bits, low, depth + 1)?;
                let y = self.arg(y, site, bits, low, depth + 1)?;
                // `a · b` with `b` an invariant register, and `a` something other than a
                // multiple of the counter (`(y0 + j) · w`).
                let by_value = |a: &Sum, b: &Sum| {
                    let changes = a.iter().any(|t| t.var.is_some());
                    let counter_only = a.iter().all(|t| t.var.as_ref().is_some_and(|v| self.ctx.is_counter(&v.arg)));
                    changes && !counter_only && b.iter().all(|t| t.var.is_none()) && b.iter().any(|t| !t.inv.is_empty())
                };
                self.multiplies_value |= by_value(&x, &y) || by_value(&y, &x);
                mul(&x, &y)?
            }
            (Opcode::Arith(Arith::Shl, Mode::None, t), [_, x, Arg::Imm(Imm::Int(s))]) if int(t) && (0..bits as i64).contains(s) => {
                let x = self.arg(x, site, bits, low, depth + 1)?;
                add(vec![], x, 1u64 << s)?
            }
            (Opcode::Mov(t), [_, x @ Arg::Reg(_)]) if int(t) => self.arg(x, site, bits, low, depth + 1)?,
            // The low half of a 64-bit chain, followed where it holds more than one value.
            (Opcode::Cvt(Mode::None, to, from), [_, x @ Arg::Reg(_)]) if bits == 32 && !low && to.bits() == 32 && from.bits() == 64 && !to.is_float() && !from.is_float() => {
                let sum = self.arg(x, site, 64, true, depth + 1)?;
                if sum.len() < 2 {
                    return None;
                }
                sum
            }
            _ => return None,
        };
        self.chain.push(site);
        Some(sum)
    }
}

/// An index to rewrite: the block entering the loop, the index's instruction, its sum, width
/// and register.
struct Found {
    pre: usize,
    at: (usize, usize),
    sum: Sum,
    bits: u32,
    dest: Reg,
}

/// Rewrites the first index in the loop at `header` that gains; whether one did.
fn rewrite_one(func: &mut Func, header: usize, counter: Reg, done: &mut HashSet<Reg>) -> bool {
    let Some(Found { pre, at: (b, i), sum, bits, dest }) = find(func, header, counter, done) else { return false };
    done.insert(dest);
    let loc = func.blocks[b].insts[i].loc;
    let Some((before_loop, in_loop)) = emit(func, &sum, bits, dest, loc) else { return false };
    func.blocks[pre].insts.extend(before_loop);
    func.blocks[b].insts.splice(i..=i, in_loop);
    true
}

/// The first index in the loop at `header` whose rewrite gains.
fn find(func: &Func, header: usize, counter: Reg, done: &HashSet<Reg>) -> Option<Found> {
    let cfg = Cfg::new(func);
    let loops = cfg.loops();
    let l = loops.iter().find(|l| l.header == header)?;
    // A loop holding another is not unrolled completely; and what the rewrite leaves at an
    // index would run on every trip of the inner loop.
    if loops.iter().any(|o| o.header != header && l.contains(o.header)) {
        return None;
    }
    let [mut pre] = l.entries(&cfg)[..] else { return None };
    // Above an empty block that only leads to the loop (where `hoist` left its test of the
    // last trip): ptxas did not unroll conv1d's loop with its base computed in such a block.
    while let [p] = cfg.preds[pre][..] {
        if !func.blocks[pre].insts.is_empty() {
            break;
        }
        pre = p;
    }
    let (_, single) = single_defs(func);
    let blocks: Vec<usize> = cfg.order.iter().copied().filter(|&b| l.contains(b)).collect();
    let written: HashSet<Reg> = blocks.iter().flat_map(|&b| func.blocks[b].insts.iter().flat_map(|i| i.defs())).collect();
    let [advance] = l.writes(func, counter)[..] else { return None };
    let readers = readers(func);
    let roots = written.iter().copied().filter(|d| readers.get(d).is_some_and(|r| r.iter().any(|&(rb, ri)| !is_step(func, rb, ri, bits_of(func, *d))))).collect();
    let ctx = Ctx { func, cfg: &cfg, l, single: &single, written: &written, counter, roots };
    for &b in &blocks {
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            let InstKind::Op { args, .. } = &inst.kind else { continue };
            let Some(Arg::Reg(d)) = args.first() else { continue };
            let bits = bits_of(func, *d);
            // A root: an index read by something other than an index's next step.
            if bits == 0 || done.contains(d) || inst.guard.is_some() || single.get(d) != Some(&(b, i)) || !ctx.roots.contains(d) {
                continue;
            }
            let mut walk = Walk { ctx: &ctx, chain: Vec::new(), reads_counter: false, multiplies_value: false };
            let Some(sum) = walk.def(inst, (b, i), bits, false, 0) else { continue };
            // The counter is read at the root: where its advance has not run in the trip.
            if walk.reads_counter && b == advance.0 && i > advance.1 {
                continue;
            }
            if gains(&ctx, &readers, &walk, (b, i), &sum) {
                return Some(Found { pre, at: (b, i), sum, bits, dest: *d });
            }
        }
    }
    None
}

/// The width of an integer register's class (0: not one an index is in).
fn bits_of(func: &Func, r: Reg) -> u32 {
    match func.class(r) {
        RegClass::B32 => 32,
        RegClass::B64 => 64,
        _ => 0,
    }
}

/// Whether instruction `i` of block `b` is a step an index is followed through.
fn is_step(func: &Func, b: usize, i: usize, bits: u32) -> bool {
    let Some(InstKind::Op { opcode, .. }) = func.blocks[b].insts.get(i).map(|inst| &inst.kind) else { return false };
    match opcode {
        Opcode::Arith(Arith::Add | Arith::Sub | Arith::Shl, Mode::None, t) | Opcode::Arith(Arith::Mul, Mode::Lo, t) | Opcode::Mov(t) => !t.is_float() && t.bits() == bits,
        _ => false,
    }
}

/// Where each register is read in the function: (block, instruction), a branch as
/// `(block, usize::MAX)`.
fn readers(func: &Func) -> HashMap<Reg, Vec<(usize, usize)>> {
    let mut out: HashMap<Reg, Vec<(usize, usize)>> = HashMap::default();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for r in inst.uses() {
                out.entry(r).or_default().push((b, i));
            }
        }
        if let Term::Branch { pred, .. } = block.term {
            out.entry(pred).or_default().push((b, usize::MAX));
        }
    }
    out
}

/// Whether the rewrite gains: the instructions it leaves in the loop against the ones that
/// die, and work that leaves the loop.
fn gains(ctx: &Ctx, readers: &HashMap<Reg, Vec<(usize, usize)>>, walk: &Walk, root: (usize, usize), sum: &Sum) -> bool {
    let chain = &walk.chain[..];
    let (var, inv): (Vec<&Product>, Vec<&Product>) = sum.iter().partition(|t| t.var.is_some());
    if var.is_empty() || inv.is_empty() {
        return false;
    }
    // In the loop afterwards: each changing term's low half and scaling, the adds.
    let scaled = |t: &Product| !(t.inv.is_empty() && t.coef == 1);
    let after = var.iter().map(|t| t.var.as_ref().is_some_and(|v| v.low) as usize + scaled(t) as usize).sum::<usize>() + var.len();
    // What dies: the followed instructions all of whose readers are followed too.
    let set: HashSet<(usize, usize)> = chain.iter().copied().collect();
    let mut alive: HashSet<(usize, usize)> = HashSet::default();
    let def = |s: &(usize, usize)| match &ctx.func.blocks[s.0].insts[s.1].kind {
        InstKind::Op { args, .. } => match args.first() {
            Some(Arg::Reg(d)) => Some(*d),
            _ => None,
        },
        _ => None,
    };
    let mut changed = true;
    while changed {
        changed = false;
        for s in chain.iter().filter(|&&s| s != root) {
            if alive.contains(s) {
                continue;
            }
            let Some(d) = def(s) else { return false };
            let kept = readers.get(&d).is_some_and(|r| r.iter().any(|x| *x != root && (!set.contains(x) || alive.contains(x))));
            if kept {
                alive.insert(*s);
                changed = true;
            }
        }
    }
    let before = chain.len() - alive.len();
    after < before || (after == before && walk.multiplies_value)
}

/// The instructions before the loop (the invariant part, the changing terms' factors) and in
/// it (the changing terms, and the root's `add` writing `dest`).
fn emit(func: &mut Func, sum: &Sum, bits: u32, dest: Reg, loc: Option<super::loc::Loc>) -> Option<(Vec<Inst>, Vec<Inst>)> {
    let (class, add_ty, shl_ty) = if bits == 64 { (RegClass::B64, Type::S64, Type::B64) } else { (RegClass::B32, Type::S32, Type::B32) };
    let mut pre = Vec::new();
    let mut body = Vec::new();
    let imm = |v: u64| Arg::imm(if bits == 64 { v as i64 } else { v as u32 as i32 as i64 });
    // A leaf as a register operand: its low half through a `cvt` where asked, a piece moved
    // into one (an instruction keeps a register source, as in `constprop`).
    let operand = |func: &mut Func, out: &mut Vec<Inst>, l: &Leaf| -> Arg {
        let (opcode, class) = match (&l.arg, l.low) {
            (Arg::Reg(_), false) => return l.arg.clone(),
            (_, true) => (Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32),
            (_, false) => (Opcode::Mov(shl_ty), class),
        };
        let r = func.fresh(class);
        out.push(Inst::op(opcode, 1, vec![Arg::Reg(r), l.arg.clone()]).at(loc));
        Arg::Reg(r)
    };
    // `x op y`, an immediate second.
    let op = |func: &mut Func, out: &mut Vec<Inst>, opcode: Opcode, x: Arg, y: Arg| -> Arg {
        let r = func.fresh(class);
        let (x, y) = if matches!(x, Arg::Reg(_)) { (x, y) } else { (y, x) };
        out.push(Inst::op(opcode, 1, vec![Arg::Reg(r), x, y]).at(loc));
        Arg::Reg(r)
    };
    let mul_op = Opcode::Arith(Arith::Mul, Mode::Lo, add_ty);
    // `coef · Π inv`, before the loop (`None`: 1).
    let factor = |func: &mut Func, out: &mut Vec<Inst>, t: &Product| -> Option<Arg> {
        let mut acc: Option<Arg> = None;
        for l in &t.inv {
            let x = operand(func, out, l);
            acc = Some(match acc {
                None => x,
                Some(a) => op(func, out, mul_op, a, x),
            });
        }
        match (acc, t.coef) {
            (a, 1) => a,
            (None, c) => Some(imm(c)),
            (Some(a), c) if c.is_power_of_two() => Some(op(func, out, Opcode::arith(Arith::Shl, shl_ty), a, Arg::imm(c.trailing_zeros() as i64))),
            (Some(a), c) => Some(op(func, out, mul_op, a, imm(c))),
        }
    };
    let mut inv: Option<Arg> = None;
    for t in sum.iter().filter(|t| t.var.is_none()) {
        let x = factor(func, &mut pre, t).unwrap_or_else(|| imm(1));
        inv = Some(match inv {
            None => x,
            Some(a) => op(func, &mut pre, Opcode::arith(Arith::Add, add_ty), a, x),
        });
    }
    // The changing products, summed in the loop, and the invariant part added last (a
    // register first: an immediate or piece stays the second operand).
    let mut acc: Option<Arg> = None;
    for t in sum.iter().filter(|t| t.var.is_some()) {
        let Some(var) = &t.var else { continue };
        let v = operand(func, &mut body, var);
        let x = match factor(func, &mut pre, &Product { var: None, ..t.clone() }) {
            None => v,
            Some(Arg::Imm(Imm::Int(c))) if (c as u64).is_power_of_two() => op(func, &mut body, Opcode::arith(Arith::Shl, shl_ty), v, Arg::imm((c as u64).trailing_zeros() as i64)),
            Some(c) => op(func, &mut body, mul_op, v, c),
        };
        acc = Some(match acc {
            None => x,
            Some(a) => op(func, &mut body, Opcode::arith(Arith::Add, add_ty), a, x),
        });
    }
    let (x, y) = match (acc?, inv?) {
        (a, i @ Arg::Reg(_)) => (i, a),
        (a, i) => (a, i),
    };
    body.push(Inst::op(Opcode::arith(Arith::Add, add_ty), 1, vec![Arg::Reg(dest), x, y]).at(loc));
    Some((pre, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(coef: u64, inv: &[u32], var: Option<u32>) -> Product {
        Product { coef, inv: inv.iter().map(|&r| leaf(Arg::Reg(Reg(r)), false)).collect(), var: var.map(|r| leaf(Arg::Reg(Reg(r)), false)) }
    }

    fn shape(sum: &Sum) -> Vec<(u64, Vec<String>, Option<String>)> {
        let mut out: Vec<_> = sum.iter().map(|t| (t.coef, t.key().0, t.key().1)).collect();
        out.sort();
        out
    }

    #[test]
    fn like_products_are_added_and_cancelled_ones_dropped() {
        // (a + 2k) + (3a - 2k) = 4a
        let x = vec![term(1, &[1], None), term(2, &[], Some(9))];
        let y = vec![term(3, &[1], None), term(2u64.wrapping_neg(), &[], Some(9))];
        assert_eq!(shape(&add(x, y, 1).unwrap()), vec![(4, vec!["r1".to_owned()], None)]);
    }

    #[test]
    fn a_product_distributes_and_two_changing_sums_do_not_multiply() {
        // (ty + j) · c + 4 → ty·c + j·c + 4
        let s = add(mul(&vec![term(1, &[2], None), term(1, &[], Some(9))], &vec![term(1, &[3], None)]).unwrap(), vec![term(4, &[], None)], 1).unwrap();
        assert_eq!(shape(&s), vec![(1, vec!["r2".to_owned(), "r3".to_owned()], None), (1, vec!["r3".to_owned()], Some("r9".to_owned())), (4, vec![], None)]);
        // (a + j) · (b + j) is not affine in j.
        assert!(mul(&vec![term(1, &[1], None), term(1, &[], Some(9))], &vec![term(1, &[2], None), term(1, &[], Some(9))]).is_none());
        // Modulo 2^64: 2^63 · 2 is 0, and the product is dropped.
        assert!(mul(&vec![term(1 << 63, &[], Some(9))], &vec![term(2, &[], None)]).unwrap().is_empty());
    }
}
