//! Repeated integer arithmetic computed once: an instruction that computes what a dominating
//! one computed (the same opcode on the same operands) is removed, its readers reading the
//! earlier register. The lowering writes an index once per use (the transpose's `y * h + x`
//! for its check and again for its address); ptxas merges such copies itself, but the passes
//! that follow an index back through its instructions ([`super::reassoc`]) see two indices,
//! and rewrote one of them only.
//!
//! Which instructions: unguarded integer arithmetic and conversions between integers
//! (no loads, no moves, nothing of floats, whose results may differ in NaN payloads), writing
//! a register nothing else writes, whose operands are immediates, registers written once, and
//! `for` loops' counters read in the loop. Such an instruction's value depends only on its
//! operands: a register written once has the same value wherever it is read after its one
//! write; the earlier instruction dominates the later, so its register is written before
//! every read of the later one's. A counter is written once in its loop, by the advance in
//! the latch; two reads in the loop, neither after the advance, the earlier dominating the
//! later, are in the same trip (every way from the loop's header to the later passes the
//! earlier) with no write of the counter between them, so they read the same value (the
//! transpose's tile index `(ty + j) · 33 + tx`, computed for its check and for its address).

use super::dom::Cfg;
use super::hoist::single_defs;
use super::{Arg, Func, Imm, InstKind, Opcode, Reg, RegClass, Term};
use super::fast_hash::HashMap;

/// What an instruction computes: its opcode and operands, and the class of the register it
/// writes (a `.b32` instruction may write an `f32` register).
type Key = (Opcode, Vec<Operand>, RegClass);

/// An operand of a merged instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Operand {
    Reg(Reg),
    Int(i64),
}

pub fn run(func: &mut Func) {
    let cfg = Cfg::new(func);
    let (_, single) = single_defs(func);
    // The dominator tree's children, walked from the entry with the values seen on the way.
    let mut children = vec![Vec::new(); func.blocks.len()];
    for (b, d) in cfg.idom.iter().enumerate() {
        if let Some(d) = *d {
            if d != b {
                children[d].push(b);
            }
        }
    }
    let counters = counters(func, &cfg);
    let mut rename: HashMap<Reg, Reg> = HashMap::default();
    let mut gone: Vec<(usize, usize)> = Vec::new();
    let mut seen: HashMap<Key, (Reg, (usize, usize))> = HashMap::default();
    // (block, values it added): `Some` when the walk leaves the block and forgets them.
    let mut stack: Vec<(usize, Option<Vec<Key>>)> = vec![(0, None)];
    while let Some((b, added)) = stack.pop() {
        if let Some(keys) = added {
            for k in keys {
                seen.remove(&k);
            }
            continue;
        }
        let mut keys = Vec::new();
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            let Some((key, dest)) = key(inst, &func.regs, &single, &rename, &counters) else { continue };
            // Each counter read at both sites in one trip of its loop.
            let in_trip = |at: (usize, usize)| {
                key.1.iter().all(|o| match o {
                    Operand::Reg(r) => counters.get(r).is_none_or(|c| c.body[at.0] && !(at.0 == c.advance.0 && at.1 > c.advance.1)),
                    Operand::Int(_) => true,
                })
            };
            if !in_trip((b, i)) {
                continue;
            }
            match seen.get(&key) {
                Some(&(earlier, _)) => {
                    rename.insert(dest, earlier);
                    gone.push((b, i));
                }
                None => {
                    seen.insert(key.clone(), (dest, (b, i)));
                    keys.push(key);
                }
            }
        }
        stack.push((b, Some(keys)));
        for &c in children[b].iter().rev() {
            stack.push((c, None));
        }
    }
    if rename.is_empty() {
        return;
    }
    for &(b, i) in gone.iter().rev() {
        func.blocks[b].insts.remove(i);
    }
    for block in &mut func.blocks {
        for inst in &mut block.insts {
            inst.rename_uses(&rename);
        }
        if let Term::Branch { pred, .. } = &mut block.term {
            if let Some(r) = rename.get(pred) {
                *pred = *r;
            }
        }
    }
    // The facts the lowering recorded name registers too (a loop's end).
    for f in &mut func.entry_facts {
        if let Arg::Reg(r) = &mut f.bound {
            if let Some(n) = rename.get(r) {
                *r = *n;
            }
        }
    }
}

/// What an instruction computes, if it is one merged here, and the register it writes.
/// A `for` loop's counter: the blocks of its loop, and its one write there.
struct Counter {
    body: Vec<bool>,
    advance: (usize, usize),
}

/// The counters of the `for` loops written once in their loop.
fn counters(func: &Func, cfg: &Cfg) -> HashMap<Reg, Counter> {
    let loops = cfg.loops();
    let mut out = HashMap::default();
    for f in &func.entry_facts {
        let Some(l) = loops.iter().find(|l| l.header == f.block.0 as usize) else { continue };
        if let [advance] = l.writes(func, f.reg)[..] {
            out.insert(f.reg, Counter { body: l.body.clone(), advance });
        }
    }
    out
}

/// Operands already merged are read as what they were merged into.
fn key(inst: &super::Inst, classes: &[RegClass], single: &super::hoist::DefSites, rename: &HashMap<Reg, Reg>, counters: &HashMap<Reg, Counter>) -> Option<(Key, Reg)> {
    let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
    let int = |t: &super::Type| !t.is_float() && *t != super::Type::Pred;
    let merged = match opcode {
        // Not a shift: each copy of `shl` feeding an address's `add` is one `LEA` to ptxas,
        // and a shared shift costs the shifted value's two halves besides (stencil: 76 -> 80
        // SASS instructions on sm_80).
        Opcode::Arith(op, _, t) => int(t) && *op != super::Arith::Shl,
        Opcode::Cvt(_, to, from) => int(to) && int(from),
        _ => false,
    };
    let Some(Arg::Reg(dest)) = args.first() else { return None };
    if !merged || inst.guard.is_some() || single.get(dest).is_none() {
        return None;
    }
    let operands = args[1..]
        .iter()
        .map(|a| match a {
            Arg::Reg(r) if single.get(r).is_some() => Some(Operand::Reg(*rename.get(r).unwrap_or(r))),
            Arg::Reg(r) if counters.contains_key(r) => Some(Operand::Reg(*r)),
            Arg::Imm(Imm::Int(v)) => Some(Operand::Int(*v)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(((*opcode, operands, classes[dest.0 as usize]), *dest))
}
