//! 64-bit registers whose every value is below 2^32, kept in 32 bits.
//!
//! A shared-memory reduction written with `usize`, as Rust has it,
//!
//! ```text
//! let tid = thread_idx_x() as usize;
//! let mut s = block_dim_x() as usize / 2;
//! while s > 0 { if tid < s { red[tid] += red[tid + s]; } sync_threads(); s /= 2; }
//! ```
//!
//! is 64-bit shifts, adds and compares (two SASS instructions each) on values that never
//! reach 2^32: `tid < 1024`, `s <= 512`, `tid + s < 1536`. Here such a register gets a 32-bit
//! twin, and its writes and reads are rewritten to it, where every one of them can be:
//!
//! - **Below 2^32.** The register's range ([`super::range`]) says so. A register written more
//!   than once (the halving `s`) gets the union of what its writes can produce, found by
//!   iterating from nothing until it is stable ([`multi_def_ranges`]); one that keeps growing
//!   (a grid-stride counter) gets none. A `for` loop's counter, where it holds a trip's value
//!   (`ir::trips`: in the loop, up to its advance), is below the end there ([`trip_ranges`]):
//!   its advance `k + 1` is at most the end, and what the loop computes from it is bounded by
//!   the trip's values, not by the last value (`t * 16` with `t < tiles <= 2^28` is below
//!   2^32, though `tiles * 16` is not).
//! - **Writes.** `cvt.u64.u32 r, x` (the twin is `x` itself, and `r` stays for any other
//!   reader); moves and `selp`; `add`, `sub`, `mul.lo`, `shl`, `and`, `or`, `xor`, `not`,
//!   `mul.wide.u32`, whose low 32 bits depend only on the operands' low halves, so with the
//!   result below 2^32 the 32-bit instruction computes the value itself; `shr`, `div`, `rem`,
//!   `min`, `max` when their operands are such registers too (then their values, not only
//!   their low halves, are what the 32-bit instruction reads). Any other unguarded write
//!   (`(n + 15) >> 4` of a sum that may reach 2^32) stays, and the twin is its truncation,
//!   written after it, where something other than a truncation reads the twin.
//! - **Reads.** By those writes; by an integer `setp` whose other operand is such a register
//!   or an immediate below 2^32 (two values below 2^32 compare as their low halves do, signed
//!   or not); by a truncation to 32 bits, which becomes a move; by a conversion to a float.
//!   Any other reader (an address, a compare with a 64-bit length) reads a 64-bit form: a
//!   widened `u32` keeps its own; a register whose writes are unguarded gets a widening of its
//!   twin after each of them (dead code where no such reader is); one with a guarded write
//!   and such a reader stays 64-bit.
//!
//! Runs after `version` (the passes before it match 64-bit compares and counters) and before
//! `rotate`. Functions with full debug information are left alone (their variables' locations
//! name registers).

use super::range::{def_counts, Range, Ranges};
use super::fast_hash::{HashMap, HashSet};
use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Type};

/// Rounds of the optimistic iteration for registers written more than once, and restarts
/// after a register is found to grow.
const ROUNDS: usize = 8;
const RESTARTS: usize = 4;

pub fn run(func: &mut Func) {
    if func.debug {
        return;
    }
    // Cheap filter first: the function must compare or shift a widened 32-bit value.
    let widened = func.blocks.iter().flat_map(|b| &b.insts).any(|i| matches!(&i.kind, InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U64 | Type::S64 | Type::B64, Type::U32 | Type::B32), .. }));
    if !widened {
        return;
    }
    let ranges = loop_ranges(func);
    let below = |r: Reg| ranges.of(&Arg::Reg(r), 64).is_some_and(|g| g.hi <= u32::MAX as u64);
    // Each 64-bit register's writes and reads.
    let mut writes: HashMap<Reg, Vec<(usize, usize)>> = HashMap::default();
    let mut reads: HashMap<Reg, Vec<(usize, usize)>> = HashMap::default();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for r in inst.defs() {
                writes.entry(r).or_default().push((b, i));
            }
            for r in inst.uses() {
                reads.entry(r).or_default().push((b, i));
            }
        }
    }
    // Start from every 64-bit register below 2^32, and drop those with a write or read that
    // cannot be rewritten until none is left (a dropped register's writes and reads are
    // then 64-bit, which its neighbours must accept).
    let mut set: HashSet<Reg> = (0..func.regs.len() as u32)
        .map(Reg)
        .filter(|r| func.regs[r.0 as usize] == RegClass::B64 && below(*r))
        .collect();
    let aliases: HashMap<Reg, Reg> = set
        .iter()
        .filter_map(|r| {
            let [(b, i)] = writes.get(r)?.as_slice() else { return None };
            match &func.blocks[*b].insts[*i] {
                Inst { guard: None, kind: InstKind::Op { opcode: Opcode::Cvt(Mode::None, _, Type::U32 | Type::B32), defs: 1, args }, .. } => match args.get(1) {
                    // Written once: the twin holds, wherever `r` is read, what `r` was made from.
                    Some(Arg::Reg(x)) if writes.get(x).is_some_and(|w| w.len() == 1) => Some((*r, *x)),
                    _ => None,
                },
                _ => None,
            }
        })
        .collect();
    // Written unguarded: other readers can read a widening of the twin, written after each write.
    let shadowed = |r: &Reg| writes.get(r).is_some_and(|w| w.iter().all(|&(b, i)| func.blocks[b].insts[i].guard.is_none()));
    loop {
        let drop: Vec<Reg> = set
            .iter()
            .copied()
            .filter(|r| {
                // A write with no 32-bit form (`shr.u64` of a value that may reach 2^32) is
                // kept, and the twin is its truncation, exact below 2^32: where something
                // other than a truncation reads the twin (`t < tiles` compared in 32 bits).
                let truncated = |&(b, i): &(usize, usize)| func.blocks[b].insts[i].guard.is_none() && reads.get(r).is_some_and(|u| u.iter().any(|&(b, i)| !truncation(&func.blocks[b].insts[i])));
                let wrote = aliases.contains_key(r) || writes.get(r).is_some_and(|w| w.iter().all(|at| write_rule(&func.blocks[at.0].insts[at.1], &set, &func.regs).is_some() || truncated(at)));
                let read = aliases.contains_key(r) || shadowed(r) || reads.get(r).is_none_or(|u| u.iter().all(|&(b, i)| read_ok(&func.blocks[b].insts[i], *r, &set, &func.regs)));
                !(wrote && read)
            })
            .collect();
        if drop.is_empty() {
            break;
        }
        for r in drop {
            set.remove(&r);
        }
    }
    if set.is_empty() {
        return;
    }
    // The 32-bit twins.
    let mut twin: HashMap<Reg, Reg> = HashMap::default();
    for &r in &set {
        let t = match aliases.get(&r) {
            Some(x) => *x,
            None => {
                func.regs.push(RegClass::B32);
                Reg(func.regs.len() as u32 - 1)
            }
        };
        twin.insert(r, t);
    }
    for b in 0..func.blocks.len() {
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            rewrite(func, inst, &set, &twin, &aliases, &mut out);
        }
        func.blocks[b].insts = out;
    }
}

/// How an instruction that writes a register of `set` is rewritten: its 32-bit opcode, and
/// whether its register operands must be in `set` (values) or may be any 64-bit register
/// (low halves).
fn write_rule(inst: &Inst, set: &HashSet<Reg>, regs: &[RegClass]) -> Option<Opcode> {
    let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
    let (op32, values) = narrow_op(*opcode)?;
    let wide_u32 = matches!(opcode, Opcode::Arith(Arith::Mul, Mode::Wide, _));
    let ok = args.get(1..).unwrap_or_default().iter().enumerate().all(|(k, a)| match a {
        _ if kept(*opcode, k) => true,
        // Outside the set: an integer register whose low half is read (not the bits of a
        // float `f64::from_bits` moved in), or `mul.wide.u32`'s 32-bit operands.
        Arg::Reg(r) => set.contains(r) || (!values && regs.get(r.0 as usize) == Some(if wide_u32 { &RegClass::B32 } else { &RegClass::B64 })),
        Arg::Imm(Imm::Int(v)) => !values || (*v as u64) <= u32::MAX as u64,
        _ => false,
    });
    ok.then_some(op32)
}

fn is_shift(op: Opcode) -> bool {
    matches!(op, Opcode::Arith(Arith::Shl | Arith::Shr, ..))
}

/// Whether source operand `k` of a narrowed write stays as it is: a shift's amount (32 bits
/// already), `selp`'s predicate.
fn kept(op: Opcode, k: usize) -> bool {
    (is_shift(op) && k == 1) || (matches!(op, Opcode::Selp(_)) && k == 2)
}

/// The 32-bit form of a 64-bit integer write, and whether it needs its operands' values
/// (`true`) or only their low halves.
fn narrow_op(op: Opcode) -> Option<(Opcode, bool)> {
    let wide = |t: Type| matches!(t, Type::U64 | Type::S64 | Type::B64);
    Some(match op {
        Opcode::Mov(t) if wide(t) => (Opcode::Mov(Type::B32), false),
        Opcode::Selp(t) if wide(t) => (Opcode::Selp(Type::B32), false),
        Opcode::Arith(Arith::Mul, Mode::Wide, Type::U32) => (Opcode::Arith(Arith::Mul, Mode::Lo, Type::U32), false),
        Opcode::Arith(a, m, t) if wide(t) => match (a, m) {
            (Arith::Add | Arith::Sub, Mode::None) => (Opcode::Arith(a, m, Type::U32), false),
            (Arith::Shl | Arith::And | Arith::Or | Arith::Xor | Arith::Not, Mode::None) => (Opcode::Arith(a, m, Type::B32), false),
            (Arith::Mul, Mode::Lo) => (Opcode::Arith(a, m, Type::U32), false),
            // Values below 2^32 are non-negative: unsigned 32-bit arithmetic gives them.
            (Arith::Shr | Arith::Div | Arith::Rem | Arith::Min | Arith::Max, Mode::None) => (Opcode::Arith(a, m, Type::U32), true),
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether `inst` is `cvt.u32.u64`: it reads a low half whatever the register holds.
fn truncation(inst: &Inst) -> bool {
    matches!(&inst.kind, InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U32 | Type::S32 | Type::B32, Type::U64 | Type::S64 | Type::B64), .. })
}

/// Whether `inst`'s reads of `r` can read its twin.
fn read_ok(inst: &Inst, r: Reg, set: &HashSet<Reg>, regs: &[RegClass]) -> bool {
    let InstKind::Op { opcode, defs, args } = &inst.kind else { return false };
    if args.iter().take(*defs).any(|a| matches!(a, Arg::Mem { .. })) {
        return false;
    }
    match opcode {
        Opcode::Setp(..) => narrow_compare(inst, set),
        Opcode::Cvt(Mode::None, Type::U32 | Type::S32 | Type::B32, Type::U64 | Type::S64 | Type::B64) => true,
        Opcode::Cvt(m, to, Type::U64 | Type::S64) if to.is_float() && *m != Mode::None => true,
        _ => {
            // Written into the set: the write's rule decides.
            let Some(Arg::Reg(d)) = args.first() else { return false };
            *defs == 1 && set.contains(d) && write_rule(inst, set, regs).is_some() && !(is_shift(*opcode) && matches!(args.get(2), Some(Arg::Reg(x)) if *x == r))
        }
    }
}

/// Whether `inst` is an integer `setp` of two values below 2^32: registers of `set` or
/// immediates (`-1` is not one: `n > -1` stays a 64-bit signed compare).
fn narrow_compare(inst: &Inst, set: &HashSet<Reg>) -> bool {
    let InstKind::Op { opcode: Opcode::Setp(_, Type::U64 | Type::S64 | Type::B64), args, .. } = &inst.kind else { return false };
    let small = |a: &Arg| match a {
        Arg::Reg(x) => set.contains(x),
        Arg::Imm(Imm::Int(v)) => (*v as u64) <= u32::MAX as u64,
        _ => false,
    };
    args.len() == 3 && small(&args[1]) && small(&args[2])
}

fn rewrite(func: &mut Func, inst: Inst, set: &HashSet<Reg>, twin: &HashMap<Reg, Reg>, aliases: &HashMap<Reg, Reg>, out: &mut Vec<Inst>) {
    let InstKind::Op { opcode, defs, args } = &inst.kind else {
        out.push(inst);
        return;
    };
    let low = |a: &Arg| match a {
        Arg::Reg(r) => twin.get(r).map(|t| Arg::Reg(*t)),
        Arg::Imm(Imm::Int(v)) => Some(Arg::imm(*v as u32 as i64)),
        _ => None,
    };
    let (loc, guard) = (inst.loc, inst.guard);
    let emit = |out: &mut Vec<Inst>, opcode: Opcode, args: Vec<Arg>| out.push(Inst { guard, kind: InstKind::Op { opcode, defs: 1, args }, loc });
    // A write of a register in the set (not a widening that its twin aliases).
    if let (1, Some(Arg::Reg(d))) = (*defs, args.first()) {
        if set.contains(d) && !aliases.contains_key(d) {
            // A write without a 32-bit form stays whole, and its twin is its truncation (the
            // analysis accepted it unguarded, its value below 2^32).
            let (Some(op32), Some(&t)) = (write_rule(&inst, set, &func.regs), twin.get(d)) else {
                let d = *d;
                out.push(inst);
                if let (Some(&t), None) = (twin.get(&d), guard) {
                    out.push(Inst { guard, kind: InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U32, Type::U64), defs: 1, args: vec![Arg::Reg(t), Arg::Reg(d)] }, loc });
                }
                return;
            };
            let mut pre = Vec::new();
            let mut new_args = vec![Arg::Reg(t)];
            for (k, a) in args.get(1..).unwrap_or_default().iter().enumerate() {
                let narrowed = match (kept(*opcode, k), low(a), a) {
                    (true, ..) => a.clone(),
                    (false, Some(l), _) => l,
                    // `mul.wide.u32`'s operands.
                    (false, None, Arg::Reg(x)) if func.regs[x.0 as usize] == RegClass::B32 => a.clone(),
                    // A 64-bit register outside the set: its low half (a write that needs
                    // only low halves).
                    (false, None, Arg::Reg(x)) => {
                        func.regs.push(RegClass::B32);
                        let t = Reg(func.regs.len() as u32 - 1);
                        pre.push(Inst { guard, kind: InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U32, Type::U64), defs: 1, args: vec![Arg::Reg(t), Arg::Reg(*x)] }, loc });
                        Arg::Reg(t)
                    }
                    (false, None, _) => {
                        out.push(inst);
                        return;
                    }
                };
                new_args.push(narrowed);
            }
            out.extend(pre);
            emit(out, op32, new_args);
            // The 64-bit form for readers that need it (dead code where there are none).
            if guard.is_none() {
                emit(out, Opcode::Cvt(Mode::None, Type::U64, Type::U32), vec![Arg::Reg(*d), Arg::Reg(t)]);
            }
            return;
        }
    }
    let touches = args.iter().skip(*defs).any(|a| matches!(a, Arg::Reg(r) if set.contains(r)));
    if !touches {
        out.push(inst);
        return;
    }
    match opcode {
        Opcode::Setp(cmp, _) if narrow_compare(&inst, set) => match (low(&args[1]), low(&args[2])) {
            (Some(a), Some(b)) => emit(out, Opcode::Setp(*cmp, Type::U32), vec![args[0].clone(), a, b]),
            _ => out.push(inst),
        },
        Opcode::Cvt(Mode::None, Type::U32 | Type::S32 | Type::B32, Type::U64 | Type::S64 | Type::B64) => match args.get(1).and_then(low) {
            Some(a) => emit(out, Opcode::Mov(Type::B32), vec![args[0].clone(), a]),
            None => out.push(inst),
        },
        Opcode::Cvt(m, to, Type::U64 | Type::S64) if to.is_float() => match args.get(1).and_then(low) {
            Some(a) => emit(out, Opcode::Cvt(*m, *to, Type::U32), vec![args[0].clone(), a]),
            None => out.push(inst),
        },
        // A widened `u32` read by anything else keeps its 64-bit form.
        _ => out.push(inst),
    }
}

/// The ranges of the function's integer registers, those written more than once included
/// ([`multi_def_ranges`]), with a `for` loop's counter read on the loop's trips taken as
/// below the loop's end there ([`trip_ranges`]).
pub(super) fn loop_ranges(func: &Func) -> Ranges {
    let cfg = super::dom::Cfg::new(func);
    let trips = super::trips::Trips::find(func, &cfg, &cfg.loops());
    let at = super::trips::ranges_on_trips(func, &trips);
    Ranges::compute_at(func, multi_def_ranges(func, &at), &at)
}

/// Ranges of 64-bit integer registers written more than once: the union of what their
/// writes produce, from an empty range upwards until no register's range grows (a write
/// that reads a register with nothing yet is skipped in that round). A register still growing
/// after [`ROUNDS`] rounds, or written by something without an exact range, has none, and the
/// iteration starts again without it, since others may have used its partial range. A write
/// reads its operands as `at` has them where it is (a counter's advance reads a trip's value).
fn multi_def_ranges(func: &Func, at: &dyn Fn(Reg, usize, usize) -> Option<Range>) -> HashMap<Reg, Range> {
    let defs = def_counts(func);
    let base = Ranges::compute_at(func, HashMap::default(), at);
    let multi = |r: &Reg| defs.get(r.0 as usize).is_some_and(|n| *n > 1) && func.regs[r.0 as usize] == RegClass::B64;
    // A write `mov r, t` of a value `t` written once, unguarded (`s /= 2` before moves are
    // coalesced: `shr t, s, 1; mov s, t`), counts as the instruction that computes `t`: `t`
    // holds what that instruction made of its operands, each within its range or estimate.
    let positioned = || func.blocks.iter().enumerate().flat_map(|(b, block)| block.insts.iter().enumerate().map(move |(i, inst)| (inst, (b, i))));
    let once: HashMap<Reg, (&Inst, (usize, usize))> = positioned()
        .filter(|(i, _)| i.guard.is_none() && matches!(i.kind, InstKind::Op { defs: 1, .. }))
        .flat_map(|(i, at)| i.defs().into_iter().filter(|t| defs.get(t.0 as usize) == Some(&1)).map(move |t| (t, (i, at))))
        .collect();
    let source = |i: &'_ Inst| -> Option<Reg> {
        match (&i.kind, i.guard) {
            (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) => match args.get(1) {
                Some(Arg::Reg(t)) => Some(*t),
                _ => None,
            },
            _ => None,
        }
    };
    let sites: Vec<(Reg, &Inst, (usize, usize))> = positioned()
        .flat_map(|(i, at)| i.defs().into_iter().filter(multi).map(move |r| (r, i, at)))
        .map(|(r, i, at)| match source(i).and_then(|t| once.get(&t).copied()) {
            Some((def, def_at)) => (r, def, def_at),
            None => (r, i, at),
        })
        .collect();
    if sites.is_empty() {
        return HashMap::default();
    }
    let mut none: HashSet<Reg> = HashSet::default();
    for _ in 0..RESTARTS {
        let mut est: HashMap<Reg, Range> = HashMap::default();
        let mut work = base.clone();
        let mut stable = false;
        let mut grew: HashSet<Reg> = HashSet::default();
        for _ in 0..ROUNDS {
            grew.clear();
            for &(r, inst, (b, i)) in &sites {
                if none.contains(&r) {
                    continue;
                }
                let InstKind::Op { opcode, defs: 1, args } = &inst.kind else {
                    none.insert(r);
                    continue;
                };
                let src = args.get(1..).unwrap_or_default();
                let mut pending = false;
                // A counter read as a trip's value is known whatever its estimate.
                let estimated = src.iter().filter_map(|a| if let Arg::Reg(x) = a { Some(x) } else { None }).filter(|x| multi(x) && at(**x, b, i).is_none());
                for x in estimated {
                    if none.contains(x) {
                        none.insert(r);
                    } else if !est.contains_key(x) {
                        pending = true;
                    }
                }
                if none.contains(&r) || pending {
                    continue;
                }
                let Some(g) = work.of_op_at(*opcode, src, &func.launch, |x| at(x, b, i)) else {
                    none.insert(r);
                    continue;
                };
                let new = match est.get(&r) {
                    Some(old) => Range { lo: old.lo.min(g.lo), hi: old.hi.max(g.hi) },
                    None => g,
                };
                if est.get(&r) != Some(&new) {
                    est.insert(r, new);
                    work.set(r, new);
                    grew.insert(r);
                }
            }
            if grew.is_empty() {
                stable = true;
                break;
            }
        }
        let lost = est.keys().any(|r| none.contains(r));
        if stable && !lost {
            // A register some write of which never contributed (it read one with nothing)
            // gets no range, nor does one that read its partial range, and so on.
            loop {
                let incomplete: Vec<Reg> = est.keys().copied().filter(|r| !sites.iter().filter(|(s, ..)| s == r).all(|(_, i, (b, k))| contributes(i, &est, &multi, &|x| at(x, *b, *k).is_some()))).collect();
                if incomplete.is_empty() {
                    return est;
                }
                for r in incomplete {
                    est.remove(&r);
                }
            }
        }
        none.extend(grew.iter().copied());
    }
    HashMap::default()
}

fn contributes(inst: &Inst, est: &HashMap<Reg, Range>, multi: &impl Fn(&Reg) -> bool, trip: &dyn Fn(Reg) -> bool) -> bool {
    let InstKind::Op { args, .. } = &inst.kind else { return false };
    args.get(1..).unwrap_or_default().iter().all(|a| !matches!(a, Arg::Reg(x) if multi(x) && !est.contains_key(x) && !trip(*x)))
}
