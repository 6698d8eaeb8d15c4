//! Tests on constants that the macro does not know and rustc does: a module-level `const`
//! (`TILE`) reaches the PTX as a piece, a number written when rustc evaluates the `PTX`
//! constant. A test of such a value computed in PTX (`and.b64 t, 16, 3; setp.eq.u64 p, t, 0`)
//! is folded by ptxas only after it has decided how to unroll the loops it guards (measured:
//! the matmul with its `k` loop in two versions grew from 217 to 339 SASS instructions on
//! sm_80), while a `setp` of two immediates is folded at once. So the test is made a piece
//! itself: rustc computes `1` or `0`, and the PTX compares that immediate.

use super::{Arg, Func, Imm, InstKind, Mode, Opcode, Sym};
use proc_macro2::TokenStream;
use quote::quote;

/// A constant operand: an immediate or a piece (followed through the moves and integer
/// conversions of registers written once).
pub fn resolve(func: &Func, a: &Arg, single: &super::hoist::DefSites) -> Option<Arg> {
    let mut a = a.clone();
    for _ in 0..8 {
        match &a {
            Arg::Imm(Imm::Int(_)) | Arg::Sym(Sym::Piece(_)) => return Some(a),
            Arg::Reg(r) => {
                let &(b, i) = single.get(r)?;
                let inst = &func.blocks[b].insts[i];
                let next = match &inst.kind {
                    InstKind::Op { opcode: Opcode::Mov(t), args, .. } if !t.is_float() => args.get(1)?.clone(),
                    // A widening keeps the value; the pieces are unsigned (`Piece::Dec`).
                    InstKind::Op { opcode: Opcode::Cvt(Mode::None, to, from), args, .. } if !to.is_float() && !from.is_float() && to.bits() >= from.bits() && !from.is_signed() => args.get(1)?.clone(),
                    _ => return None,
                };
                if inst.guard.is_some() {
                    return None;
                }
                a = next;
            }
            _ => return None,
        }
    }
    None
}

/// The number a constant operand stands for, as a `const` expression of type `Option<u64>`
/// (`None`: a piece that is not a number).
fn value(a: &Arg) -> TokenStream {
    match a {
        Arg::Imm(Imm::Int(v)) => {
            let v = *v as u64;
            quote!(::core::option::Option::Some(#v))
        }
        Arg::Sym(Sym::Piece(p)) => quote!(::ptx_runtime::__private::const_test::value(#p)),
        _ => quote!(::core::option::Option::None),
    }
}

/// Whether `a - b` (modulo 2^64) is a multiple of `m` (a power of two), for constants: known
/// here where both are immediates, else a piece that rustc evaluates to 1 or 0 (0 also where
/// a piece is not a number).
pub fn multiple_of_difference(a: &Arg, b: &Arg, m: u64) -> Result<bool, Arg> {
    if let (Arg::Imm(Imm::Int(x)), Arg::Imm(Imm::Int(y))) = (a, b) {
        return Ok(ptx_abi::const_test::multiple_of_difference(Some(*x as u64), Some(*y as u64), m));
    }
    let (x, y) = (value(a), value(b));
    Err(Arg::Sym(Sym::Piece(quote!(::ptx_runtime::__private::const_test::outcome(
        ::ptx_runtime::__private::const_test::multiple_of_difference(#x, #y, #m)
    )))))
}
