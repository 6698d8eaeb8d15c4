//! Generic loads and stores whose address is always a global one become global accesses.
//!
//! A reference kept in a value (`x.get(i)`'s `Option<&f32>`, `let Some(y) = y.get_mut(i) else
//! { return }`) is a generic pointer: the lowering converts the slice's global address with
//! `cvta.global` where it makes the `Some`, and writes 0 for the `None`; the access through it
//! is then `ld.f32` / `st.f32` on a register written on two paths, and ptxas, which does not
//! follow it, emits generic `LD.E` / `ST.E`. nvcc's front end (LLVM's address-space inference)
//! keeps such pointers global, and so does this pass: a register each of whose writes is
//! `cvta.global` of an address, the integer 0, a copy of such a register or such a register
//! plus an offset, gets a twin written beside each of those writes with the global address
//! itself (the `cvta`'s operand, 0, the twin copied or offset), and a plain access through the
//! register reads the twin with `.global`. Where every address it can hold is made from a
//! read-only base (`Func::read_only`: a kernel's `&[T]` or `&T` parameter, whose own loads are
//! `ld.global.nc`), its loads are `.nc` too (`read_only_registers`).
//!
//! Exact: the twin holds the global address whose generic form the register holds, on every
//! path (each write of the register writes the twin next to it, under the same guard), and a
//! generic access to the generic form of a global address is the global access to the address.
//! Where the register holds 0 no access happens in the Rust program (a reference is never
//! null); were one made, both forms fault. Other readers of the register (a comparison, a
//! call's argument) keep reading it; where none is left it is dead code.

use super::fast_hash::{HashMap, HashSet};
use super::hoist::{single_defs, DefSites};
use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Order, Reg, RegClass, StateSpace, Type};

pub fn run(func: &mut Func) {
    let global = global_registers(func);
    if global.is_empty() {
        return;
    }
    let read_only = read_only_registers(func, &global);
    // Rewrite the accesses first: their positions move when the twins' writes go in.
    let mut twins: HashMap<Reg, Reg> = HashMap::default();
    let mut used = false;
    for b in 0..func.blocks.len() {
        for at in 0..func.blocks[b].insts.len() {
            let InstKind::Op { opcode: opcode @ (Opcode::Ld(m) | Opcode::St(m)), args, .. } = &func.blocks[b].insts[at].kind else { continue };
            let load = matches!(opcode, Opcode::Ld(_));
            if m.space != StateSpace::Generic || m.order != Order::Plain {
                continue;
            }
            let Some(slot) = args.iter().position(|a| matches!(a, Arg::Mem { base, .. } if matches!(**base, Arg::Reg(r) if global.contains_key(&r)))) else { continue };
            let Arg::Mem { base, .. } = &args[slot] else { continue };
            let Arg::Reg(r) = **base else { continue };
            let twin = twin_of(func, &mut twins, r);
            if let InstKind::Op { opcode: Opcode::Ld(m) | Opcode::St(m), args, .. } = &mut func.blocks[b].insts[at].kind {
                m.space = StateSpace::Global;
                m.nc = load && read_only.contains(&r);
                if let Arg::Mem { base, .. } = &mut args[slot] {
                    **base = Arg::Reg(twin);
                }
            }
            used = true;
        }
    }
    if !used {
        return;
    }
    // Each write of a register with a twin (and of those its twin is made from) writes the twin
    // after it.
    let mut todo: Vec<Reg> = twins.keys().copied().collect();
    while let Some(r) = todo.pop() {
        for s in global.get(&r).into_iter().flatten() {
            if let Source::From(q) = *s {
                if !twins.contains_key(&q) {
                    twin_of(func, &mut twins, q);
                    todo.push(q);
                }
            }
        }
    }
    for b in 0..func.blocks.len() {
        let mut at = 0;
        while at < func.blocks[b].insts.len() {
            let inst = &func.blocks[b].insts[at];
            let written: Vec<Reg> = inst.defs().into_iter().filter(|r| twins.contains_key(r)).collect();
            let mut extra = Vec::new();
            for r in written {
                let Some(write) = twin_write(inst, r, &twins) else { continue };
                extra.push(Inst { guard: inst.guard, ..write.at(inst.loc) });
            }
            let n = extra.len();
            func.blocks[b].insts.splice(at + 1..at + 1, extra);
            at += 1 + n;
        }
    }
}

/// How a register with a global address is written.
#[derive(Clone)]
enum Source {
    /// `cvta.global.u64 r, a`: the generic form of the global address `a`.
    Cvta(Arg),
    /// `mov r, 0`.
    Null,
    /// `mov r, q`, or `add.s64 r, q, x`: a copy of `q`, or an offset into what it points to.
    From(Reg),
}

/// Registers that hold the generic form of a global address (or 0) wherever they are read:
/// every write is one of [`Source`], and the registers copied or offset are such registers
/// too.
fn global_registers(func: &Func) -> HashMap<Reg, Vec<Source>> {
    let mut writes: HashMap<Reg, Vec<Option<Source>>> = HashMap::default();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        let defs = inst.defs();
        for &r in &defs {
            let source = match &inst.kind {
                InstKind::Op { opcode, defs: 1, args } if func.class(r) == RegClass::B64 => source(opcode, args),
                _ => None,
            };
            writes.entry(r).or_default().push(source);
        }
    }
    let mut global: HashMap<Reg, Vec<Source>> =
        writes.into_iter().filter_map(|(r, w)| w.into_iter().collect::<Option<Vec<Source>>>().map(|s| (r, s))).collect();
    let mut members: HashSet<Reg> = global.keys().copied().collect();
    close(&mut members, &global);
    global.retain(|r, _| members.contains(r));
    global
}

/// Drops from `members` each register copied or offset from one that is not a member, until
/// none is.
fn close(members: &mut HashSet<Reg>, sources: &HashMap<Reg, Vec<Source>>) {
    loop {
        let bad: Vec<Reg> = members.iter().filter(|r| sources.get(r).is_none_or(|s| s.iter().any(|s| matches!(s, Source::From(q) if !members.contains(q))))).copied().collect();
        if bad.is_empty() {
            return;
        }
        for r in bad {
            members.remove(&r);
        }
    }
}

fn source(opcode: &Opcode, args: &[Arg]) -> Option<Source> {
    match (opcode, args) {
        (Opcode::Cvta { to: false, space: StateSpace::Global }, [_, a]) => Some(Source::Cvta(a.clone())),
        (Opcode::Mov(t), [_, Arg::Imm(Imm::Int(0))]) if t.bits() == 64 => Some(Source::Null),
        (Opcode::Mov(t), [_, Arg::Reg(q)]) if t.bits() == 64 => Some(Source::From(*q)),
        (Opcode::Arith(Arith::Add, Mode::None, Type::S64 | Type::U64 | Type::B64), [_, Arg::Reg(q), Arg::Reg(_) | Arg::Imm(Imm::Int(_))]) => Some(Source::From(*q)),
        _ => None,
    }
}

/// The registers of `global` whose every global address lies in read-only memory
/// (`Func::read_only`): each `cvta` converts an address made from a read-only base by copies
/// and additions (the element's address in a `&[T]` parameter), and each register copied or
/// offset is such a register. Loads through them may be `ld.global.nc`, as the slice's own are.
fn read_only_registers(func: &Func, global: &HashMap<Reg, Vec<Source>>) -> HashSet<Reg> {
    let (_, sites) = single_defs(func);
    let mut out: HashSet<Reg> = global
        .iter()
        .filter(|(_, sources)| sources.iter().all(|s| !matches!(s, Source::Cvta(a) if !rests_on_read_only(func, &sites, a, 8))))
        .map(|(r, _)| *r)
        .collect();
    close(&mut out, global);
    out
}

/// Whether `a` is a read-only base, or a copy of one or a sum with one (each written once,
/// unguarded).
fn rests_on_read_only(func: &Func, sites: &DefSites, a: &Arg, depth: u32) -> bool {
    let Arg::Reg(r) = a else { return false };
    if func.read_only.contains(r) {
        return true;
    }
    let Some(&(b, i)) = sites.get(r) else { return false };
    let inst = &func.blocks[b].insts[i];
    let (InstKind::Op { opcode, defs: 1, args }, None) = (&inst.kind, inst.guard) else { return false };
    depth > 0
        && match (opcode, &args[..]) {
            (Opcode::Mov(_), [_, x]) => rests_on_read_only(func, sites, x, depth - 1),
            (Opcode::Arith(Arith::Add, Mode::None, Type::S64 | Type::U64 | Type::B64), [_, x, y]) => rests_on_read_only(func, sites, x, depth - 1) || rests_on_read_only(func, sites, y, depth - 1),
            _ => false,
        }
}

fn twin_of(func: &mut Func, twins: &mut HashMap<Reg, Reg>, r: Reg) -> Reg {
    *twins.entry(r).or_insert_with(|| func.fresh(RegClass::B64))
}

/// The write of `r`'s twin that goes beside `inst`, a write of `r`.
fn twin_write(inst: &Inst, r: Reg, twins: &HashMap<Reg, Reg>) -> Option<Inst> {
    let InstKind::Op { opcode, args, .. } = &inst.kind else { return None };
    let t = Arg::Reg(*twins.get(&r)?);
    let twin = |q: &Reg| twins.get(q).map(|t| Arg::Reg(*t));
    Some(match (opcode, &args[..]) {
        (Opcode::Cvta { .. }, [_, a]) => Inst::op(Opcode::Mov(Type::B64), 1, vec![t, a.clone()]),
        (Opcode::Mov(_), [_, Arg::Imm(Imm::Int(0))]) => Inst::op(Opcode::Mov(Type::B64), 1, vec![t, Arg::imm(0)]),
        (Opcode::Mov(_), [_, Arg::Reg(q)]) => Inst::op(Opcode::Mov(Type::B64), 1, vec![t, twin(q)?]),
        (Opcode::Arith(..), [_, Arg::Reg(q), x]) => Inst::op(opcode.clone(), 1, vec![t, twin(q)?, x.clone()]),
        _ => return None,
    })
}
