//! Induction variables: in a `for` loop over a 64-bit counter `k`, a 64-bit value computed from
//! `k` and values the loop does not write by `+`, `-`, `*` and `<<`, that something other than
//! such arithmetic reads (a bounds check's compare, an address), becomes a register of its own,
//! computed once before the loop and advanced with the counter. tensor_gemm's `kt` loop reads
//! `a[(bm + r) * units + kt * 4 + u]` and `b[(kt * T + r) * units + bn / 8 + u]` and checks both
//! indices on every trip: each trip multiplied and added in 64 bits to rebuild them; now one
//! register steps by 4 and another by `T * units` (NVVM's loop strength reduction does the
//! same for nvcc's twin, which has no checks to keep the indices alive).
//!
//! Exact for every value, with no range to prove: arithmetic modulo 2^64 is a ring, so such a
//! value is `A(k) = B + k·S` with `B` and `S` fixed by values the loop does not write, wrapping
//! or not, and `A(k + d) = A(k) + d·S`. The register `v` starts as `A(k)` computed at the end of
//! the block that enters the loop (where `k` holds its first value, as for
//! [`super::strength`]), and is advanced by `d·S` right after the loop's only write of `k`
//! (`add k, k, d` in the latch), so `v = A(k)` at every instruction of a trip before that write;
//! the value's own instruction becomes `mov x, v`, and the arithmetic that only fed it is left to
//! dead-code elimination. A slope with factors (`S = c·R`, `c·T·units`: registers the loop
//! does not write, constants rustc evaluates) is multiplied out once before the loop.
//!
//! When:
//! - the loop is a `for` loop (`Func::entry_facts` names its counter at the header) over a
//!   range whose end is not a constant (a constant trip count is unrolled by ptxas, which then
//!   folds each trip's offset into its accesses, as it cannot through a register), entered from
//!   one block, with one latch that leaves only to the header or out of the loop, whose only
//!   write of the counter is an unguarded `add k, k, d` (or `add t, k, d; mov k, t`), and that
//!   [`super::version`] did not copy (see [`run`]);
//! - every instruction of the value's chain is unguarded and the loop's only write of its
//!   register, earlier in the trip than its reader (earlier in the same block, or in a block of
//!   the loop that dominates it, not after the counter's write);
//! - the chain costs more than the step: a multiply by a register or by a constant that is not a
//!   power of two, or three instructions or more besides moves (counted down to the counter,
//!   values the loop does not write, and values already taken). Cheaper ones (`k << 2`, `P + (k << 2)`) stay
//!   as they are, as do the addresses computed from a taken index, which a shift and an add
//!   reach as cheaply as a step would.
//!
//! At most [`MAX_VARS`] per loop. Runs after [`super::version`] (whose test bounds the values a
//! loop computes, not the ones it steps) and [`super::strength`] (which takes the chains that
//! die whole into pointers).

use super::dom::{Cfg, Loop};
use super::fast_hash::{HashMap, HashSet};
use super::folded;
use super::hoist::single_defs;
use super::strength::step_of;
use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Term, Type};

/// At most this many registers per loop: each holds a 64-bit register pair across the loop.
const MAX_VARS: usize = 4;

pub fn run(func: &mut Func) {
    let (_, single) = single_defs(func);
    let facts: Vec<(usize, Reg)> = func
        .entry_facts
        .iter()
        .filter(|f| f.up_by_one && !f.ty.is_float() && f.ty.bits() == 64 && folded::resolve(func, &f.bound, &single).is_none())
        .map(|f| (f.block.0 as usize, f.reg))
        .collect();
    if facts.is_empty() {
        return;
    }
    // The pass adds instructions to blocks and no block: one graph serves every loop.
    let cfg = Cfg::new(func);
    let loops = cfg.loops();
    for (header, counter) in facts {
        // A loop `version` copied is left as it is: its copy without checks computes the
        // same values in other blocks with the same registers, and stepping them there (the
        // matmul's tile loop) gave a loop two instructions shorter on sm_80 and one longer on
        // sm_90, in a kernel 6 / 12 instructions longer (2 / 4 more with the checked copy's
        // too, and 40 registers instead of 32).
        let writes = |b: &usize| func.blocks[*b].insts.iter().any(|i| i.defs().contains(&counter));
        let mut stepping = loops.iter().filter(|l| l.latches.iter().any(writes));
        if let (Some(l), None) = (stepping.next(), stepping.next()) {
            if l.header == header {
                reduce(func, &cfg, l, counter);
            }
        }
    }
}

/// How a value grows with the counter: by a constant times at most [`MAX_FACTORS`] values the
/// loop does not write (registers, or constants rustc evaluates such as `T`).
#[derive(Clone, Debug)]
struct Slope {
    c: i64,
    factors: Vec<Factor>,
}

/// At most this many factors in a slope: a product of more is not worth a register.
const MAX_FACTORS: usize = 2;

/// A value the loop does not write, and how to tell it from others.
#[derive(Clone, Debug)]
struct Factor {
    key: String,
    arg: Arg,
}

impl Slope {
    fn int(c: i64) -> Slope {
        Slope { c, factors: Vec::new() }
    }

    fn is_zero(&self) -> bool {
        self.c == 0
    }

    fn same_factors(&self, other: &Slope) -> bool {
        fn keys(s: &Slope) -> Vec<&str> {
            let mut k: Vec<&str> = s.factors.iter().map(|f| f.key.as_str()).collect();
            k.sort_unstable();
            k
        }
        keys(self) == keys(other)
    }

    fn plus(self, other: Slope) -> Option<Slope> {
        if other.is_zero() {
            return Some(self);
        }
        if self.is_zero() {
            return Some(other);
        }
        if !self.same_factors(&other) {
            return None;
        }
        let c = self.c.wrapping_add(other.c);
        Some(if c == 0 { Slope::int(0) } else { Slope { c, ..self } })
    }

    fn times(self, m: i64) -> Slope {
        let c = self.c.wrapping_mul(m);
        if c == 0 {
            Slope::int(0)
        } else {
            Slope { c, ..self }
        }
    }

    fn times_value(mut self, f: Factor) -> Option<Slope> {
        if self.is_zero() {
            return Some(self);
        }
        if self.factors.len() == MAX_FACTORS {
            return None;
        }
        self.factors.push(f);
        Some(self)
    }
}

/// One loop's view: where the counter is written and what the loop writes.
struct Scope<'a> {
    func: &'a Func,
    cfg: &'a Cfg,
    l: &'a Loop,
    latch: usize,
    /// The counter's write in the latch.
    wi: usize,
    k: Reg,
    written: HashSet<Reg>,
    /// Where each register the loop writes once is written (other writes may stand outside
    /// the loop: `version`'s copies share registers).
    single: HashMap<Reg, (usize, usize)>,
    /// Each register's slope where its instruction stands (`None`: not affine in the counter).
    memo: HashMap<Reg, Option<Slope>>,
}

impl Scope<'_> {
    /// The definition of `r` that runs in every trip before instruction `before` of block `b`,
    /// with the counter's value there (as in [`super::strength`]).
    fn earlier(&self, r: Reg, b: usize, before: usize) -> Option<(usize, usize)> {
        let &(db, di) = self.single.get(&r)?;
        let inst = &self.func.blocks[db].insts[di];
        let runs_before = if db == b { di < before } else { self.l.contains(db) && self.cfg.dominates(db, b) && (db != self.latch || di < self.wi) };
        (runs_before && inst.guard.is_none()).then_some((db, di))
    }

    /// The slope of argument `a` as the instruction at `(b, before)` reads it.
    fn slope_of(&mut self, a: &Arg, b: usize, before: usize) -> Option<Slope> {
        match a {
            Arg::Imm(Imm::Int(_)) | Arg::Sym(_) => Some(Slope::int(0)),
            Arg::Reg(r) if *r == self.k => Some(Slope::int(1)),
            Arg::Reg(r) if !self.written.contains(r) => Some(Slope::int(0)),
            Arg::Reg(r) => {
                let (db, di) = self.earlier(*r, b, before)?;
                self.slope_of_def(*r, db, di)
            }
            _ => None,
        }
    }

    /// The slope of the value instruction `(db, di)` writes into `r`.
    fn slope_of_def(&mut self, r: Reg, db: usize, di: usize) -> Option<Slope> {
        if let Some(s) = self.memo.get(&r) {
            return s.clone();
        }
        let s = self.compute(db, di);
        self.memo.insert(r, s.clone());
        s
    }

    fn compute(&mut self, db: usize, di: usize) -> Option<Slope> {
        let inst = &self.func.blocks[db].insts[di];
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
        if inst.guard.is_some() || !matches!(args[0], Arg::Reg(d) if self.func.class(d) == RegClass::B64) {
            return None;
        }
        let int64 = |t: &Type| !t.is_float() && t.bits() == 64;
        let (opcode, args) = (*opcode, args.clone());
        match (&opcode, &args[1..]) {
            (Opcode::Arith(Arith::Add, Mode::None, t), [x, y]) if int64(t) => self.slope_of(x, db, di)?.plus(self.slope_of(y, db, di)?),
            (Opcode::Arith(Arith::Sub, Mode::None, t), [x, y]) if int64(t) => self.slope_of(x, db, di)?.plus(self.slope_of(y, db, di)?.times(-1)),
            (Opcode::Arith(Arith::Mul, Mode::Lo, t), [x, y]) if int64(t) => {
                let (sx, sy) = (self.slope_of(x, db, di)?, self.slope_of(y, db, di)?);
                let (s, m) = match (sx.is_zero(), sy.is_zero()) {
                    (true, true) => return Some(Slope::int(0)),
                    (false, true) => (sx, y),
                    (true, false) => (sy, x),
                    (false, false) => return None,
                };
                match m {
                    Arg::Imm(Imm::Int(m)) => Some(s.times(*m)),
                    Arg::Reg(r) if !self.written.contains(r) => s.times_value(Factor { key: format!("{r:?}"), arg: m.clone() }),
                    Arg::Sym(_) => s.times_value(Factor { key: format!("{m:?}"), arg: m.clone() }),
                    _ => None,
                }
            }
            (Opcode::Arith(Arith::Shl, Mode::None, t), [x, Arg::Imm(Imm::Int(s))]) if int64(t) && (0..63).contains(s) => Some(self.slope_of(x, db, di)?.times(1i64 << s)),
            (Opcode::Mov(t), [x]) if int64(t) => self.slope_of(x, db, di),
            _ => None,
        }
    }
}

/// A value to step: its register, its instruction, its slope.
struct Taken {
    reg: Reg,
    block: usize,
    inst: usize,
    slope: Slope,
    /// Its chain's instructions, operands first, for its first value.
    chain: Vec<(usize, usize)>,
    /// The chain written out ([`signature`]).
    sig: String,
}

fn reduce(func: &mut Func, cfg: &Cfg, l: &Loop, k: Reg) {
    let header = l.header;
    let [pre] = l.entries(cfg)[..] else { return };
    let [latch] = l.latches[..] else { return };
    if func.blocks[latch].term.successors().iter().any(|s| s.0 as usize != header && l.contains(s.0 as usize)) {
        return;
    }
    let blocks: Vec<usize> = cfg.order.iter().copied().filter(|&b| l.contains(b)).collect();
    let [(wb, wi)] = l.writes(func, k)[..] else { return };
    if wb != latch {
        return;
    }
    let Some(step) = step_of(&func.blocks[latch].insts, wi, k) else { return };
    let mut count: HashMap<Reg, usize> = HashMap::default();
    let mut single: HashMap<Reg, (usize, usize)> = HashMap::default();
    for &b in &blocks {
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            for r in inst.defs() {
                *count.entry(r).or_insert(0) += 1;
                single.insert(r, (b, i));
            }
        }
    }
    single.retain(|r, _| count[r] == 1);
    let written: HashSet<Reg> = count.into_keys().collect();
    let mut scope = Scope { func, cfg, l, latch, wi, k, written, single, memo: HashMap::default() };

    // The affine values the loop computes, in the order the trip computes them.
    let mut affine: Vec<(Reg, usize, usize, Slope)> = Vec::new();
    for &b in &blocks {
        let end = if b == latch { wi } else { func.blocks[b].insts.len() };
        for i in 0..end {
            let inst = &func.blocks[b].insts[i];
            let [r] = inst.defs()[..] else { continue };
            if r == k || scope.single.get(&r) != Some(&(b, i)) {
                continue;
            }
            if let Some(s) = scope.slope_of_def(r, b, i) {
                affine.push((r, b, i, s));
            }
        }
    }
    let sites: HashSet<(usize, usize)> = affine.iter().map(|&(_, b, i, _)| (b, i)).collect();
    // Values that something in the loop other than their chains' arithmetic reads.
    let mut read_otherwise: HashSet<Reg> = HashSet::default();
    for &b in &blocks {
        let block = &func.blocks[b];
        for (i, inst) in block.insts.iter().enumerate() {
            if !sites.contains(&(b, i)) {
                read_otherwise.extend(inst.uses());
            }
        }
        if let Term::Branch { pred, .. } = block.term {
            read_otherwise.insert(pred);
        }
    }

    let mut taken: Vec<Taken> = Vec::new();
    // Values computed again the same way as one taken (the same index for a check and for an
    // address): (register, block, instruction, the register taken).
    let mut again: Vec<(Reg, usize, usize, Reg)> = Vec::new();
    for (r, b, i, slope) in affine {
        if slope.is_zero() || !read_otherwise.contains(&r) {
            continue;
        }
        let stops: HashSet<Reg> = taken.iter().map(|t| t.reg).collect();
        let mut chain = Vec::new();
        collect_chain(&scope, b, i, &stops, &mut chain);
        let sig = signature(func, &chain);
        if let Some(t) = taken.iter().find(|t| t.sig == sig) {
            again.push((r, b, i, t.reg));
            continue;
        }
        let insts = || chain.iter().map(|&(cb, ci)| &func.blocks[cb].insts[ci]);
        let arithmetic = insts().filter(|i| !matches!(i.kind, InstKind::Op { opcode: Opcode::Mov(_), .. })).count();
        if taken.len() < MAX_VARS && (insts().any(costly_multiply) || arithmetic >= 3) {
            taken.push(Taken { reg: r, block: b, inst: i, slope, chain, sig });
        }
    }
    drop(scope);
    if taken.is_empty() {
        return;
    }

    // First values at the end of `pre` (each chain cloned with fresh registers, the values
    // taken before it read as their registers), steps after the counter's.
    let mut init: Vec<Inst> = Vec::new();
    let mut steps: Vec<Inst> = Vec::new();
    let mut vars: HashMap<Reg, Reg> = HashMap::default();
    for t in &taken {
        let v = func.fresh(RegClass::B64);
        let mut map: HashMap<Reg, Reg> = vars.clone();
        let n = t.chain.len();
        for (j, &(cb, ci)) in t.chain.iter().enumerate() {
            let mut new = func.blocks[cb].insts[ci].clone();
            let InstKind::Op { args, .. } = &mut new.kind else { continue };
            for a in args.iter_mut().skip(1) {
                if let Arg::Reg(r) = a {
                    if let Some(m) = map.get(r) {
                        *r = *m;
                    }
                }
            }
            let Arg::Reg(d) = args[0] else { continue };
            let to = if j + 1 == n { v } else { func.fresh(RegClass::B64) };
            map.insert(d, to);
            args[0] = Arg::Reg(to);
            init.push(new);
        }
        let loc = func.blocks[t.block].insts[t.inst].loc;
        // The step: `d·c` times the factors, multiplied out before the loop.
        let mut by = Arg::imm(t.slope.c.wrapping_mul(step));
        for f in &t.slope.factors {
            let f = match &f.arg {
                Arg::Reg(_) => f.arg.clone(),
                constant => {
                    let r = func.fresh(RegClass::B64);
                    init.push(Inst::op(Opcode::Mov(Type::B64), 1, vec![Arg::Reg(r), constant.clone()]).at(loc));
                    Arg::Reg(r)
                }
            };
            if matches!(by, Arg::Imm(Imm::Int(1))) {
                by = f;
                continue;
            }
            let s = func.fresh(RegClass::B64);
            init.push(Inst::op(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), 1, vec![Arg::Reg(s), f, by]).at(loc));
            by = Arg::Reg(s);
        }
        steps.push(Inst::op(Opcode::arith(Arith::Add, Type::S64), 1, vec![Arg::Reg(v), Arg::Reg(v), by]).at(loc));
        vars.insert(t.reg, v);
    }
    let sites = taken.iter().map(|t| (t.reg, t.block, t.inst, t.reg)).chain(again);
    for (r, b, i, of) in sites {
        if let Some(&v) = vars.get(&of) {
            func.blocks[b].insts[i].kind = InstKind::Op { opcode: Opcode::Mov(Type::B64), defs: 1, args: vec![Arg::Reg(r), Arg::Reg(v)] };
        }
    }
    let at = wi + 1;
    func.blocks[latch].insts.splice(at..at, steps);
    func.blocks[pre].insts.extend(init);
}

/// The loop instructions that compute the value of instruction `(b, i)`, operands first, down to
/// the counter, values the loop does not write and the registers in `stops`.
fn collect_chain(scope: &Scope, b: usize, i: usize, stops: &HashSet<Reg>, out: &mut Vec<(usize, usize)>) {
    if out.contains(&(b, i)) {
        return;
    }
    if let InstKind::Op { args, .. } = &scope.func.blocks[b].insts[i].kind {
        for a in &args[1..] {
            let Arg::Reg(r) = a else { continue };
            if *r == scope.k || !scope.written.contains(r) || stops.contains(r) {
                continue;
            }
            // Every operand of an affine instruction is the counter, a value the loop does not
            // write, or an affine value written once earlier in the trip.
            if let Some((db, di)) = scope.earlier(*r, b, i) {
                collect_chain(scope, db, di, stops, out);
            }
        }
    }
    out.push((b, i));
}

/// A chain's instructions written out with its own registers numbered by position: two chains
/// with the same signature compute the same value in a trip (their other operands are the
/// counter, values the loop does not write and values taken, named by register).
fn signature(func: &Func, chain: &[(usize, usize)]) -> String {
    let mut own: HashMap<Reg, usize> = HashMap::default();
    let mut out = String::new();
    for (j, &(b, i)) in chain.iter().enumerate() {
        let InstKind::Op { opcode, args, .. } = &func.blocks[b].insts[i].kind else { continue };
        out.push_str(&format!("{opcode:?}"));
        for a in &args[1..] {
            match a {
                Arg::Reg(r) if own.contains_key(r) => out.push_str(&format!(" #{}", own[r])),
                a => out.push_str(&format!(" {a:?}")),
            }
        }
        out.push(';');
        if let Arg::Reg(d) = args[0] {
            own.insert(d, j);
        }
    }
    out
}

/// A 64-bit multiply that a shift cannot do: by a register, or by a constant that is not a
/// power of two. A constant rustc evaluates (`TILE`) counts as a shift: ptxas sees its value.
fn costly_multiply(inst: &Inst) -> bool {
    let InstKind::Op { opcode: Opcode::Arith(Arith::Mul, Mode::Lo, _), args, .. } = &inst.kind else { return false };
    !args[1..].iter().any(|a| matches!(a, Arg::Imm(Imm::Int(m)) if m.count_ones() == 1) || matches!(a, Arg::Sym(_)))
}

