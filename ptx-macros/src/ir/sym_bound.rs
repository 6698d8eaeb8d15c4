//! A register's bounds as expressions of the outside constants, for rustc to evaluate: under
//! `#[kernel(block = (16, 16))]`, `ty * TILE + tx` is at most `15 * TILE + 15`, below
//! `TILE * TILE` exactly when `TILE >= 16`. [`super::const_range`]'s intervals cannot see that
//! (the bound grows with `TILE`); the expression can, and rustc decides it for the `TILE` the
//! program has.
//!
//! [`bounds`] follows registers written once through moves, unsigned widenings, `add`, `sub`,
//! `mul` and `shl` by an immediate, and ends at immediates, pieces, registers that
//! `ir::range` bounds (special registers under the declared launch bounds) and `for` loop
//! counters read on a trip ([`super::trips`]: `j` of `(0..T).step_by(8)` is at most
//! `(T - 1) / 8 * 8`, the transpose's tile index `(ty + j) * (T + 1) + tx` then at most
//! `31 * 33 + 31` under a declared 32 × 8 block). It builds a
//! [`Bound`]: numbers where no piece is involved (folded here), else the expression of
//! `ptx_abi::const_test` calls that rustc evaluates. [`below`] writes the test; a test of
//! numbers alone is decided here and costs rustc nothing.

use super::hoist::DefSites;
use super::range::Ranges;
use super::trips::Trips;
use super::{Arg, Arith, Func, Imm, InstKind, Mode, Opcode, Sym};
use ptx_abi::const_test::{self, Bounds, Step};
use proc_macro2::TokenStream;
use quote::quote;

/// How deep the chain of instructions is followed.
const DEPTH: usize = 8;

/// The least and the greatest value of an operand.
pub enum Bound<'a> {
    /// Known here (`None`: the arithmetic may wrap, so nothing is known).
    Known(Bounds),
    /// A piece's value, for rustc to read.
    Piece(&'a TokenStream),
    /// [`const_test::step`] on two bounds, `max` the operation width's largest value.
    Op { op: Step, max: u128, x: Box<Bound<'a>>, y: Box<Bound<'a>> },
    /// [`const_test::trip`]: a counter's values on the trips of a loop that ends at `end`.
    Trip { start: u128, step: u128, end: Box<Bound<'a>> },
}

/// What [`bounds`] reads: the function, its exact ranges, where its registers written once
/// are written, and its `for` loops' counters.
pub struct Facts<'a> {
    pub func: &'a Func,
    pub exact: &'a Ranges,
    pub single: &'a DefSites,
    pub trips: &'a Trips,
}

/// The bounds of `a` where instruction `at` (block, index) reads it, or `None` where a step is
/// not one of those followed.
pub fn bounds<'a>(facts: &Facts<'a>, a: &'a Arg, at: (usize, usize), depth: usize) -> Option<Bound<'a>> {
    if depth > DEPTH {
        return None;
    }
    let func = facts.func;
    match a {
        Arg::Imm(Imm::Int(v)) => Some(Bound::Known(Some((*v as u64 as u128, *v as u64 as u128)))),
        Arg::Sym(Sym::Piece(p)) => Some(Bound::Piece(p)),
        Arg::Reg(r) => {
            if let Some(range) = facts.exact.of(a, 64) {
                return Some(Bound::Known(Some((range.lo as u128, range.hi as u128))));
            }
            let Some(&(b, i)) = facts.single.get(r) else {
                let t = facts.trips.at(*r, at.0, at.1)?;
                let (start, step) = (t.start as u128, t.step as u128);
                return Some(match bounds(facts, &t.end, at, depth + 1)? {
                    Bound::Known(end) => Bound::Known(const_test::trip(start, step, end)),
                    end => Bound::Trip { start, step, end: Box::new(end) },
                });
            };
            let inst = &func.blocks[b].insts[i];
            let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
            if inst.guard.is_some() {
                return None;
            }
            let src = |k: usize| bounds(facts, args.get(k)?, (b, i), depth + 1);
            let max = |bits: u32| if bits >= 64 { u64::MAX as u128 } else { (1u128 << bits) - 1 };
            match *opcode {
                Opcode::Mov(t) if !t.is_float() && args.len() == 2 => src(1),
                Opcode::Cvt(Mode::None, to, from) if !to.is_float() && !from.is_float() && !from.is_signed() && to.bits() >= from.bits() => src(1),
                Opcode::Arith(op @ (Arith::Add | Arith::Sub | Arith::Mul | Arith::Shl), mode, t)
                    if !t.is_float() && (if op == Arith::Mul { matches!(mode, Mode::Lo | Mode::Wide) } else { mode == Mode::None }) =>
                {
                    if mode == Mode::Wide && t.is_signed() {
                        return None;
                    }
                    let max = max(if mode == Mode::Wide { t.bits() * 2 } else { t.bits() });
                    let op = match op {
                        Arith::Add => Step::Add,
                        Arith::Sub => Step::Sub,
                        Arith::Mul => Step::Mul,
                        _ => Step::Shl,
                    };
                    Some(match (src(1)?, src(2)?) {
                        (Bound::Known(x), Bound::Known(y)) => Bound::Known(const_test::step(op, max, x, y)),
                        (Bound::Known(None), _) | (_, Bound::Known(None)) => Bound::Known(None),
                        (x, y) => Bound::Op { op, max, x: Box::new(x), y: Box::new(y) },
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A bound as a `const` expression of type `Option<(u128, u128)>`.
fn tokens(bound: &Bound) -> TokenStream {
    match bound {
        Bound::Known(Some((lo, hi))) => quote!(::core::option::Option::Some((#lo, #hi))),
        Bound::Known(None) => quote!(::core::option::Option::None),
        Bound::Piece(p) => quote!(::ptx_runtime::__private::const_test::bounds(#p)),
        Bound::Op { op, max, x, y } => {
            let op = proc_macro2::Ident::new(&format!("{op:?}"), proc_macro2::Span::call_site());
            let (x, y) = (tokens(x), tokens(y));
            quote!(::ptx_runtime::__private::const_test::step(::ptx_runtime::__private::const_test::Step::#op, #max, #x, #y))
        }
        Bound::Trip { start, step, end } => {
            let end = tokens(end);
            quote!(::ptx_runtime::__private::const_test::trip(#start, #step, #end))
        }
    }
}

/// The test that every value of `x` is below every value of `y` (`or_equal`: at most): as a
/// piece rustc evaluates to 1 or 0, or, where both bounds are numbers, decided here (`None`
/// when it fails: the test would be 0).
pub fn below(x: &Bound, y: &Bound, or_equal: bool) -> Option<Arg> {
    match (x, y) {
        (Bound::Known(None), _) | (_, Bound::Known(None)) => return None,
        (Bound::Known(x), Bound::Known(y)) => return const_test::below(*x, *y, or_equal).then(|| Arg::imm(1)),
        _ => {}
    }
    let (x, y) = (tokens(x), tokens(y));
    Some(Arg::Sym(Sym::Piece(quote!(::ptx_runtime::__private::const_test::outcome(
        ::ptx_runtime::__private::const_test::below(#x, #y, #or_equal)
    )))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_decided_here_and_pieces_left_to_rustc() {
        let known = |lo, hi| Bound::Known(Some((lo, hi)));
        assert!(matches!(below(&known(0, 15), &known(16, 16), false), Some(Arg::Imm(Imm::Int(1)))));
        assert!(below(&known(0, 16), &known(16, 16), false).is_none(), "a test that fails is no test");
        assert!(matches!(below(&known(0, 16), &known(16, 16), true), Some(Arg::Imm(Imm::Int(1)))));
        assert!(below(&Bound::Known(None), &known(16, 16), false).is_none());
        let tile = quote!(TILE);
        let x = Bound::Op { op: Step::Mul, max: u32::MAX as u128, x: Box::new(known(0, 15)), y: Box::new(Bound::Piece(&tile)) };
        let Some(Arg::Sym(Sym::Piece(t))) = below(&x, &Bound::Piece(&tile), false) else { panic!("a piece's test is rustc's") };
        let t = t.to_string();
        assert!(t.contains("const_test :: below") && t.contains("Step :: Mul") && t.contains("bounds (TILE)"), "{t}");
    }
}
