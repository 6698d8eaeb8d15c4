//! Four 32-bit shared loads of adjacent words combined into one `ld.shared.v4` (nvcc's
//! `LDS.128`): in a block, loads at `a`, `a + 4`, `a + 8`, `a + 12` where `a` is a multiple of
//! 16. For the tiled matmul's `k` loop, unrolled by [`super::unroll`]: `ta[ty * TILE + k]`
//! for four consecutive `k` is one row segment of the `A` tile.
//!
//! When (see docs/performance.md, "Vector shared loads"):
//! - the loads are plain, unpredicated, scalar, of the same 32-bit type, in one block, and each
//!   writes a register written nowhere else;
//! - their addresses, as polynomials ([`super::poly`]), differ by 4, 8 and 12 bytes from the
//!   first in program order, whose address is the lowest;
//! - nothing between the first and the last may write memory or wait (a store, an atomic, a
//!   barrier, a fence, a call, inline assembly): the later loads then read the same values at
//!   the first one's place;
//! - the lowest address is a multiple of 16: every monomial of its polynomial is, from its
//!   coefficient, from the alignment of the leaves it knows (a shared array, declared
//!   `.align 16` for this; the loop counter, a multiple of 4 in the unrolled loop) and, for
//!   pieces (constants to ptxas that the macro does not see), from a test that the caller puts
//!   in the guard of the unrolled loop: [`Demand`].

use super::poly::{distance, Leaf, Poly, Polys};
use super::{Arg, Func, Inst, InstKind, Mem, Opcode, Order, Reg, StateSpace, Type};
use super::fast_hash::HashMap;

/// `value % modulus == 0`, which the caller makes the guard of the code it vectorized.
#[derive(Clone, Debug)]
pub struct Demand {
    pub value: Arg,
    pub modulus: u32,
}

/// What the caller knows: leaves aligned to `2^k` bytes (the loop counter).
pub struct Known {
    pub aligned: HashMap<Reg, u32>,
}

/// Combines the loads of block `b`; the demands their alignment makes, and the shared arrays
/// to declare `.align 16`, or `None` when nothing was combined.
pub fn run(func: &mut Func, b: usize, known: &Known) -> Option<Vec<Demand>> {
    let (_, single) = super::hoist::single_defs(func);
    let mut polys = Polys::new(func, b, &single);
    let insts = &func.blocks[b].insts;
    // Candidate loads: (index, destination, polynomial of the address, type).
    let mut loads: Vec<(usize, Reg, Poly, Type)> = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        let InstKind::Op { opcode: Opcode::Ld(m), defs: 1, args } = &inst.kind else { continue };
        if inst.guard.is_some() || m.space != StateSpace::Shared || m.order != Order::Plain || m.nc || m.lanes != 1 || m.ty.bits() != 32 {
            continue;
        }
        let (Some(Arg::Reg(d)), Some(Arg::Mem { base, offset })) = (args.first(), args.get(1)) else { continue };
        if !single.contains_key(d) {
            continue;
        }
        let Some(p) = polys.of(base, i) else { continue };
        let p = super::poly::add(&p, &super::poly::constant(*offset as u32), 1);
        loads.push((i, *d, p, m.ty));
    }
    let mut groups: Vec<[usize; 4]> = Vec::new();
    let mut demands: Vec<Demand> = Vec::new();
    let mut arrays: Vec<String> = Vec::new();
    let mut used = vec![false; loads.len()];
    for first in 0..loads.len() {
        if used[first] {
            continue;
        }
        let mut lanes = [first; 4];
        let found = (1..4).all(|lane| {
            let at = (first + 1..loads.len()).find(|&o| !used[o] && loads[o].3 == loads[first].3 && distance(&loads[o].2, &loads[first].2) == Some(4 * lane as u32));
            at.map(|o| lanes[lane] = o).is_some()
        });
        if !found {
            continue;
        }
        let (lo, hi) = (loads[first].0, lanes.iter().map(|&l| loads[l].0).max().unwrap_or(0));
        if insts[lo..=hi].iter().any(writes_or_waits) {
            continue;
        }
        let Some((d, a)) = alignment(func, &loads[first].2, known, &polys.pieces) else { continue };
        lanes.iter().for_each(|&l| used[l] = true);
        groups.push(lanes.map(|l| loads[l].0));
        demands.extend(d);
        arrays.extend(a);
    }
    if groups.is_empty() {
        return None;
    }
    for name in arrays {
        for from in [".align 4 ", ".align 8 "] {
            let decl = func.decls.iter_mut().find(|t| t.contains(&format!(" {name}[")));
            if let Some(t) = decl {
                t.replace(&format!("{from}.b8 {name}["), &format!(".align 16 .b8 {name}["));
            }
        }
    }
    let block = &mut func.blocks[b];
    let mut remove = Vec::new();
    for g in &groups {
        let regs: Vec<Arg> = g.iter().map(|&i| block.insts[i].defs()[0]).map(Arg::Reg).collect();
        let inst = &mut block.insts[g[0]];
        if let InstKind::Op { opcode: Opcode::Ld(m), args, .. } = &mut inst.kind {
            *m = Mem { lanes: 4, ..*m };
            args[0] = Arg::Vec(regs);
        }
        remove.extend_from_slice(&g[1..]);
    }
    remove.sort_unstable();
    for i in remove.into_iter().rev() {
        block.insts.remove(i);
    }
    Some(demands)
}

/// An instruction that may write memory or wait for other threads.
fn writes_or_waits(inst: &Inst) -> bool {
    match &inst.kind {
        InstKind::Op { opcode, .. } => !opcode.is_pure() && !matches!(opcode, Opcode::Ld(m) if m.order == Order::Plain),
        _ => true,
    }
}

/// The demands under which `p` is a multiple of 16, and the shared arrays it assumes aligned
/// to 16; `None` where it cannot be.
fn alignment(func: &Func, p: &Poly, known: &Known, pieces: &HashMap<String, (Arg, Type)>) -> Option<(Vec<Demand>, Vec<String>)> {
    let mut demands = Vec::new();
    let mut arrays = Vec::new();
    for (monomial, &c) in p {
        let mut bits = c.trailing_zeros();
        let mut piece = None;
        for l in monomial {
            match l {
                Leaf::Reg(r) => bits += known.aligned.get(r).copied().unwrap_or(0),
                Leaf::Sym(name) if func.decls.iter().any(|t| t.contains(".shared .align") && t.contains(&format!(" {name}["))) => {
                    bits += 4;
                    arrays.push(name.clone());
                }
                Leaf::Sym(name) if name == crate::lower::DYN_SMEM => bits += 4,
                Leaf::Sym(_) => {}
                Leaf::Piece(text) => piece = piece.or(Some(text)),
            }
        }
        if bits >= 4 {
            continue;
        }
        let (value, _) = pieces.get(piece?)?.clone();
        demands.push(Demand { value, modulus: 1 << (4 - bits) });
    }
    Some((demands, arrays))
}
