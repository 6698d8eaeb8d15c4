//! Unsigned division and remainder by a constant from outside the body (`n / TILE`).
//!
//! The macro sees only the constant's name; its value is rustc's, written into the text during
//! constant evaluation. ptxas does not strength-reduce `div.u64` by an immediate: it calls its
//! 64-bit division routine (about 60 instructions on sm_90), where nvcc's front end would
//! have shifted. So the instruction is written as two pieces rustc evaluates: a power of two
//! becomes `shr` by its logarithm (division) or `and` with one less (remainder), any other
//! value stays a `div`/`rem` by the number. Literal divisors are reduced by the lowering
//! (`lower::arith`), where the macro knows the value.

use crate::ir::{Arg, Arith, Mode, Opcode, Sym, Type};
use proc_macro2::TokenStream;
use quote::quote;

/// For `div.uN`/`rem.uN` whose divisor is a constant piece: the opcode and divisor pieces.
pub fn by_constant(opcode: &Opcode, args: &[Arg]) -> Option<(TokenStream, TokenStream)> {
    let Opcode::Arith(op @ (Arith::Div | Arith::Rem), Mode::None, ty @ (Type::U16 | Type::U32 | Type::U64)) = *opcode else { return None };
    let [_, _, Arg::Sym(Sym::Piece(d))] = args else { return None };
    let (fast, operand) = if op == Arith::Div {
        (Opcode::arith(Arith::Shr, ty), quote!(v.trailing_zeros() as u64))
    } else {
        (Opcode::arith(Arith::And, Type::b(ty.bits())), quote!(v - 1))
    };
    let (fast, opcode) = (super::spell::opcode(&fast), super::spell::opcode(opcode));
    let p = quote!(::ptx_runtime::__private::Piece);
    let opcode_piece = quote!(#p::Str(match #d { #p::Dec(v) if v.is_power_of_two() => #fast, _ => #opcode }));
    let divisor_piece = quote!(match #d { #p::Dec(v) if v.is_power_of_two() => #p::Dec(#operand), other => other });
    Some((opcode_piece, divisor_piece))
}

