//! A register's bounds as expressions of the outside constants, for rustc to evaluate: under
//! `#[kernel(block = (16, 16))]`, `ty * TILE + tx` is at most `15 * TILE + 15`, below
//! `TILE * TILE` exactly when `TILE >= 16`. [`super::const_range`]'s intervals cannot see that
//! (the bound grows with `TILE`); the expression can, and rustc decides it for the `TILE` the
//! program has.
//!
//! [`bounds`] builds a `const` expression of type `Option<(u128, u128)>`: the least and the
//! greatest value of an operand, `None` where they are not known (a piece that is not a
//! number, arithmetic that may wrap). It follows registers written once through moves,
//! unsigned widenings, `add`, `sub`, `mul` and `shl` by an immediate, each checked not to wrap
//! in the operand's width, and ends at immediates, pieces and registers that `ir::range` bounds
//! (special registers under the declared launch bounds).

use super::range::Ranges;
use super::{Arg, Arith, Func, Imm, InstKind, Mode, Opcode, Sym};
use proc_macro2::TokenStream;
use quote::quote;

/// How deep the chain of instructions is followed.
const DEPTH: usize = 8;

/// `Some((least, greatest))` of `a`, as a `const` expression (`None` at macro time where a step
/// is not one of those followed).
pub fn bounds(func: &Func, exact: &Ranges, single: &super::hoist::DefSites, a: &Arg, depth: usize) -> Option<TokenStream> {
    if depth > DEPTH {
        return None;
    }
    match a {
        Arg::Imm(Imm::Int(v)) => {
            let v = *v as u64 as u128;
            Some(quote!(::core::option::Option::Some((#v, #v))))
        }
        Arg::Sym(Sym::Piece(p)) => Some(quote!(match #p {
            ::ptx_runtime::__private::Piece::Dec(v) => ::core::option::Option::Some((v as u128, v as u128)),
            _ => ::core::option::Option::None,
        })),
        Arg::Reg(r) => {
            if let Some(range) = exact.of(a, 64) {
                let (lo, hi) = (range.lo as u128, range.hi as u128);
                return Some(quote!(::core::option::Option::Some((#lo, #hi))));
            }
            let &(b, i) = single.get(r)?;
            let inst = &func.blocks[b].insts[i];
            let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
            if inst.guard.is_some() {
                return None;
            }
            let src = |k: usize| bounds(func, exact, single, args.get(k)?, depth + 1);
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
                    let m = max(if mode == Mode::Wide { t.bits() * 2 } else { t.bits() });
                    let (x, y) = (src(1)?, src(2)?);
                    let combine = match op {
                        Arith::Add => quote!(match (a.0.checked_add(b.0), a.1.checked_add(b.1)) {
                            (::core::option::Option::Some(lo), ::core::option::Option::Some(hi)) => ::core::option::Option::Some((lo, hi)),
                            _ => ::core::option::Option::None,
                        }),
                        Arith::Sub => quote!(if a.0 >= b.1 { ::core::option::Option::Some((a.0 - b.1, a.1 - b.0)) } else { ::core::option::Option::None }),
                        Arith::Mul => quote!(match (a.0.checked_mul(b.0), a.1.checked_mul(b.1)) {
                            (::core::option::Option::Some(lo), ::core::option::Option::Some(hi)) => ::core::option::Option::Some((lo, hi)),
                            _ => ::core::option::Option::None,
                        }),
                        _ => quote!(if b.0 == b.1 && b.0 < 64 && a.1 <= (#m >> b.0) { ::core::option::Option::Some((a.0 << b.0, a.1 << b.0)) } else { ::core::option::Option::None }),
                    };
                    Some(quote!(match (#x, #y) {
                        (::core::option::Option::Some(a), ::core::option::Option::Some(b)) => match #combine {
                            ::core::option::Option::Some((lo, hi)) if hi <= #m => ::core::option::Option::Some((lo, hi)),
                            _ => ::core::option::Option::None,
                        },
                        _ => ::core::option::Option::None,
                    }))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The test, as a piece rustc evaluates to 1 or 0, that every value of `x` is below every
/// value of `y` (`or_equal`: at most).
pub fn below(x: TokenStream, y: TokenStream, or_equal: bool) -> Arg {
    let cmp = if or_equal { quote!(x.1 <= y.0) } else { quote!(x.1 < y.0) };
    Arg::Sym(Sym::Piece(quote!({
        const __OK: u64 = match (#x, #y) {
            (::core::option::Option::Some(x), ::core::option::Option::Some(y)) => (#cmp) as u64,
            _ => 0,
        };
        ::ptx_runtime::__private::Piece::Dec(__OK)
    })))
}
