//! Pointer induction variables: in a `for k in start..end` loop over a 64-bit counter, an
//! address `P + ((C + k) << s)` (or `P + (C + k) * m`, or `P + (k << s)`) whose `P` and `C` the
//! loop does not write becomes a pointer of its own, computed once before the loop and
//! advanced with the counter. layernorm's third loop reads `x[base + j]`, `gamma[j]`,
//! `beta[j]` and writes `y[base + j]`: each trip computed four 64-bit indices, shifted them and
//! added them to four slice bases; now four pointers step by 4 bytes, as in nvcc's PTX (NVVM's
//! loop strength reduction), and ptxas unrolls the loop, which it did not do with the indices
//! and a hoisted check of `base + n - 1` before the loop.
//!
//! Exact for every value, with no range to prove: in 64-bit arithmetic modulo 2^64,
//! `A(k) = P + (C + k)·m` is affine in `k`, so `A(k + d) = A(k) + d·m`, wrapping or not. The
//! pointer `p` starts as `A(k)` computed at the end of the block that enters the loop (where
//! `k` holds its first value) and is advanced by `d·m` right after the loop's only write of
//! `k` (`add k, k, d` in the latch), so `p = A(k)` at every instruction of a trip; the address
//! instruction becomes `mov a, p`. Its chain (`C + k`, the shift) is left to dead-code
//! elimination, so a chain is taken only where nothing else reads it (a bounds check still in
//! the loop keeps its index, and the address stays as it was).
//!
//! When:
//! - the loop is a `for` loop (`Func::entry_facts` names its counter at the header) entered
//!   from one block, with one latch, whose only write of the counter is an unguarded
//!   `add k, k, d` (or `add t, k, d; mov k, t`) in that latch, `d` an immediate;
//! - the address is an unguarded 64-bit `add a, P, T` in the loop, before that write when in
//!   the latch; `T` and the index `C + k` are written once, by unguarded instructions earlier
//!   in the same block or in a block of the loop that dominates it, not after that write (so
//!   they run in the same trip, before the address, and read the counter's value of that trip);
//! - `P` and `C` are registers (or `C` an immediate) that the loop does not write;
//! - the address's only readers use it as a memory operand, and the loop stores through one of
//!   the addresses taken or one's scale is not a power of two: ptxas unrolls a loop that only
//!   loads as well with shifted indices as with pointers, but a multiply (nbody's 28-byte
//!   `Particle`s) costs every trip three or four instructions that the pointer saves.
//!
//! Addresses with the same `P`, `C` and scale share one pointer.

use super::dom::Cfg;
use super::folded;
use super::hoist::single_defs;
use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Type};
use super::fast_hash::{HashMap, HashSet};

/// At most this many pointers per loop: each holds a 64-bit register pair across the loop.
const MAX_POINTERS: usize = 6;

pub fn run(func: &mut Func) {
    let facts: Vec<(usize, Reg, Type, Arg)> = func.entry_facts.iter().filter(|f| f.up_by_one).map(|f| (f.block.0 as usize, f.reg, f.ty, f.bound.clone())).collect();
    for (header, counter, ty, end) in facts {
        // A constant trip count: ptxas unrolls the loop completely and folds each trip's
        // offset into its accesses (conv1d's nine taps), which it no longer does once the
        // accesses go through pointers.
        let (_, single) = single_defs(func);
        if !ty.is_float() && ty.bits() == 64 && folded::resolve(func, &end, &single).is_none() {
            reduce(func, header, counter);
        }
    }
}

/// A value the loop does not write: a register, or an integer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Value {
    Reg(Reg),
    Int(i64),
}

/// An address `P + (C + k)·m` (`C` absent: `P + k·m`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    base: Reg,
    offset: Option<Value>,
    scale: i64,
}

/// One address instruction to replace, and what its chain is.
struct Site {
    block: usize,
    inst: usize,
    key: Key,
    /// The registers of the chain (`T`, and the index when it is not the counter).
    chain: Vec<Reg>,
    /// The chain's instructions, first to last, and the address instruction, for the
    /// pointer's first value.
    insts: Vec<Inst>,
}

fn reduce(func: &mut Func, header: usize, k: Reg) {
    let cfg = Cfg::new(func);
    let loops = cfg.loops();
    let Some(l) = loops.iter().find(|l| l.header == header) else { return };
    let [pre] = l.entries(&cfg)[..] else { return };
    let [latch] = l.latches[..] else { return };
    let blocks: Vec<usize> = (0..func.blocks.len()).filter(|&b| l.contains(b)).collect();
    // The counter's one write, and its step.
    let [(wb, wi)] = l.writes(func, k)[..] else { return };
    if wb != latch {
        return;
    }
    let insts = &func.blocks[latch].insts;
    let Some(step) = step_of(insts, wi, k) else { return };

    let written: HashSet<Reg> = blocks.iter().flat_map(|&b| func.blocks[b].insts.iter().flat_map(|i| i.defs())).collect();
    let invariant = |a: &Arg| match a {
        Arg::Reg(r) if !written.contains(r) => Some(Value::Reg(*r)),
        Arg::Imm(Imm::Int(v)) => Some(Value::Int(*v)),
        _ => None,
    };
    let (_, single) = single_defs(func);
    // How many instructions read each register (a branch counts as one).
    let mut readers: HashMap<Reg, usize> = HashMap::default();
    for b in &func.blocks {
        for inst in &b.insts {
            let mut regs = inst.uses();
            regs.sort();
            regs.dedup();
            for r in regs {
                *readers.entry(r).or_insert(0) += 1;
            }
        }
        if let super::Term::Branch { pred, .. } = b.term {
            *readers.entry(pred).or_insert(0) += 1;
        }
    }

    // The definition of `r`, unguarded and written once, that runs in every trip before
    // instruction `before` of block `b`, with the counter's value there: earlier in `b`, or in
    // a block of the loop that dominates `b` (a path from the header to `b` that missed it
    // would, after the way into the loop, reach `b` without it), not after the counter's write.
    let earlier = |r: Reg, b: usize, before: usize| -> Option<(usize, usize, &Inst)> {
        let &(db, di) = single.get(&r)?;
        let inst = &func.blocks[db].insts[di];
        let runs_before = if db == b { di < before } else { l.contains(db) && cfg.dominates(db, b) && (db != latch || di < wi) };
        (runs_before && inst.guard.is_none()).then_some((db, di, inst))
    };
    // Registers read other than as the base of a memory operand: not addresses.
    let mut values: HashSet<Reg> = HashSet::default();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let InstKind::Op { defs, args, .. } = &inst.kind {
            for a in &args[*defs..] {
                if !matches!(a, Arg::Mem { .. }) {
                    let mut regs = Vec::new();
                    a.regs(&mut regs);
                    values.extend(regs);
                }
            }
        } else {
            values.extend(inst.uses());
        }
    }
    let mut sites: Vec<Site> = Vec::new();
    for &b in &blocks {
        let end = if b == latch { wi } else { func.blocks[b].insts.len() };
        for (i, inst) in func.blocks[b].insts.iter().enumerate().take(end) {
            let InstKind::Op { opcode: Opcode::Arith(Arith::Add, Mode::None, t), defs: 1, args } = &inst.kind else { continue };
            if inst.guard.is_some() || t.is_float() || t.bits() != 64 || args.len() != 3 || !matches!(args[0], Arg::Reg(a) if !values.contains(&a)) {
                continue;
            }
            for (p, x) in [(&args[1], &args[2]), (&args[2], &args[1])] {
                let (Some(Value::Reg(base)), Arg::Reg(x)) = (invariant(p), x) else { continue };
                if let Some(site) = chain(*x, b, i, k, &earlier, &invariant).map(|(offset, scale, chain, mut insts)| {
                    insts.push(inst.clone());
                    Site { block: b, inst: i, key: Key { base, offset, scale }, chain, insts }
                }) {
                    sites.push(site);
                    break;
                }
            }
        }
    }
    // Only chains that die: every instruction that reads a register of a chain is the next
    // link of a chain taken, or its address.
    loop {
        let mut read: HashMap<Reg, HashSet<(usize, usize)>> = HashMap::default();
        for s in &sites {
            for (j, &r) in s.chain.iter().enumerate() {
                // The next link is written once (chains are built from such registers).
                let reader = s.chain.get(j + 1).and_then(|next| single.get(next).copied()).unwrap_or((s.block, s.inst));
                read.entry(r).or_default().insert(reader);
            }
        }
        let before = sites.len();
        sites.retain(|s| s.chain.iter().all(|r| readers.get(r).copied().unwrap_or(0) <= read[r].len()));
        if sites.len() == before {
            break;
        }
    }
    // Only a loop that stores through one of its pointers, or multiplies: ptxas unrolls a loop
    // that only loads as well with shifted indices as with pointers, and the pointers' set-up
    // grew such kernels (a sum over two slices: 146 -> 156 SASS instructions on sm_80).
    let stored: HashSet<Reg> = blocks
        .iter()
        .flat_map(|&b| &func.blocks[b].insts)
        .filter_map(|i| match &i.kind {
            InstKind::Op { opcode: Opcode::St(_), args, .. } => match args.first() {
                Some(Arg::Mem { base, .. }) => match **base {
                    Arg::Reg(r) => Some(r),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect();
    let address = |s: &Site| match &func.blocks[s.block].insts[s.inst].kind {
        InstKind::Op { args, .. } => matches!(args[0], Arg::Reg(a) if stored.contains(&a)),
        _ => false,
    };
    // A scale that is not a power of two (an array of 28-byte structs) is a 64-bit multiply on
    // every trip, which the pointer saves whether or not the loop stores (nbody's inner loop).
    let multiplied = |s: &Site| s.key.scale.count_ones() != 1;
    if !sites.iter().any(|s| address(s) || multiplied(s)) {
        return;
    }
    // One pointer per key, built from the key's first site.
    let mut firsts: Vec<&Site> = Vec::new();
    for s in &sites {
        if !firsts.iter().any(|f| f.key == s.key) {
            firsts.push(s);
        }
    }
    if firsts.is_empty() || firsts.len() > MAX_POINTERS {
        return;
    }

    // The pointers: first values at the end of `pre`, steps after the counter's.
    let mut pointer: HashMap<Key, Reg> = HashMap::default();
    let mut init: Vec<Inst> = Vec::new();
    let mut steps: Vec<Inst> = Vec::new();
    for s in &firsts {
        let p = func.fresh(RegClass::B64);
        pointer.insert(s.key, p);
        // The chain cloned with fresh registers, its last instruction writing `p`.
        let mut map: HashMap<Reg, Reg> = HashMap::default();
        let n = s.insts.len();
        for (j, inst) in s.insts.iter().enumerate() {
            let mut new = inst.clone();
            if let InstKind::Op { args, .. } = &mut new.kind {
                for a in args.iter_mut().skip(1) {
                    if let Arg::Reg(r) = a {
                        if let Some(m) = map.get(r) {
                            *r = *m;
                        }
                    }
                }
                let Arg::Reg(d) = args[0] else { unreachable!("chain instructions write a register") };
                let to = if j + 1 == n { p } else { func.fresh(func.class(d)) };
                map.insert(d, to);
                args[0] = Arg::Reg(to);
            }
            init.push(new);
        }
        let loc = s.insts[n - 1].loc;
        steps.push(Inst::op(Opcode::arith(Arith::Add, Type::S64), 1, vec![Arg::Reg(p), Arg::Reg(p), Arg::imm(step.wrapping_mul(s.key.scale))]).at(loc));
    }
    for s in &sites {
        let inst = &mut func.blocks[s.block].insts[s.inst];
        let InstKind::Op { args, .. } = &inst.kind else { continue };
        let a = args[0].clone();
        inst.kind = InstKind::Op { opcode: Opcode::Mov(Type::B64), defs: 1, args: vec![a, Arg::Reg(pointer[&s.key])] };
    }
    let at = wi + 1;
    func.blocks[latch].insts.splice(at..at, steps);
    func.blocks[pre].insts.extend(init);
}

/// The counter's step `d` when instruction `wi` of the latch writes it as `add k, k, d`, or as
/// `mov k, t` after `add t, k, d`.
pub(super) fn step_of(insts: &[Inst], wi: usize, k: Reg) -> Option<i64> {
    let add_imm = |i: &Inst, d: Reg| match (&i.kind, i.guard) {
        (InstKind::Op { opcode: Opcode::Arith(Arith::Add, Mode::None, t), defs: 1, args }, None) if !t.is_float() && t.bits() == 64 => match args[..] {
            [Arg::Reg(x), Arg::Reg(y), Arg::Imm(Imm::Int(s))] if x == d && y == k => Some(s),
            _ => None,
        },
        _ => None,
    };
    let w = &insts[wi];
    if let Some(s) = add_imm(w, k) {
        return Some(s);
    }
    match (&w.kind, w.guard) {
        (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) if wi > 0 => match args[..] {
            [Arg::Reg(x), Arg::Reg(t)] if x == k => add_imm(&insts[wi - 1], t),
            _ => None,
        },
        _ => None,
    }
}

type Chain = (Option<Value>, i64, Vec<Reg>, Vec<Inst>);

/// `x` as `(C + k)·m`, `k·m` or `C + k`: the offset `C`, the scale `m`, the chain's registers
/// and instructions (first to last). Something must die: `x` is not the counter itself.
fn chain<'a>(x: Reg, b: usize, before: usize, k: Reg, earlier: &dyn Fn(Reg, usize, usize) -> Option<(usize, usize, &'a Inst)>, invariant: &dyn Fn(&Arg) -> Option<Value>) -> Option<Chain> {
    let (db, di, def) = earlier(x, b, before)?;
    let InstKind::Op { opcode, args, .. } = &def.kind else { return None };
    // The scale.
    let scaled = match (opcode, &args[..]) {
        (Opcode::Arith(Arith::Shl, Mode::None, t), [_, Arg::Reg(i), Arg::Imm(Imm::Int(s))]) if t.bits() == 64 && (0..63).contains(s) => Some((*i, 1i64 << s)),
        (Opcode::Arith(Arith::Mul, Mode::Lo, t), [_, Arg::Reg(i), Arg::Imm(Imm::Int(m))]) if t.bits() == 64 && !t.is_float() => Some((*i, *m)),
        _ => None,
    };
    let (index, scale, (b, before), mut regs, mut insts) = match scaled {
        Some((i, m)) => (i, m, (db, di), vec![x], vec![def.clone()]),
        None => (x, 1, (b, before), vec![], vec![]),
    };
    if index == k {
        return (!regs.is_empty()).then_some((None, scale, regs, insts));
    }
    // The index `C + k`, before the scale.
    let (_, _, idef) = earlier(index, b, before)?;
    let InstKind::Op { opcode: Opcode::Arith(Arith::Add, Mode::None, t), args, .. } = &idef.kind else { return None };
    if t.is_float() || t.bits() != 64 {
        return None;
    }
    let offset = match &args[..] {
        [_, Arg::Reg(a), c] if *a == k => invariant(c)?,
        [_, c, Arg::Reg(a)] if *a == k => invariant(c)?,
        _ => return None,
    };
    regs.insert(0, index);
    insts.insert(0, idef.clone());
    Some((Some(offset), scale, regs, insts))
}

