//! Unsigned division and remainder by a constant from outside the body (`n / TILE`).
//!
//! The macro sees only the constant's name; its value is rustc's, written into the text during
//! constant evaluation. ptxas does not strength-reduce `div.u64` by an immediate: it calls its
//! 64-bit division routine (about 60 instructions on sm_90), where nvcc's front end would
//! have shifted. So the instruction is written as two pieces rustc evaluates: a power of two
//! becomes `shr` by its logarithm (division) or `and` with one less (remainder), any other
//! value stays a `div`/`rem` by the number. Literal divisors are reduced by the lowering
//! (`lower::arith`), where the macro knows the value.

use crate::ir::{Arg, Sym};
use proc_macro2::TokenStream;
use quote::quote;

/// For `div.uN`/`rem.uN` whose divisor is a constant piece: the opcode and divisor pieces.
pub fn by_constant(opcode: &str, args: &[Arg]) -> Option<(TokenStream, TokenStream)> {
    let (op, ty) = opcode.split_once('.')?;
    let bits = ty.strip_prefix('u')?;
    if !matches!(op, "div" | "rem") || !matches!(bits, "16" | "32" | "64") {
        return None;
    }
    let [_, _, Arg::Sym(Sym::Piece(d))] = args else { return None };
    let (fast, operand) = if op == "div" {
        (format!("shr.u{bits}"), quote!(v.trailing_zeros() as u64))
    } else {
        (format!("and.b{bits}"), quote!(v - 1))
    };
    let p = quote!(::ptx_runtime::__private::Piece);
    let opcode_piece = quote!(#p::Str(match #d { #p::Dec(v) if v.is_power_of_two() => #fast, _ => #opcode }));
    let divisor_piece = quote!(match #d { #p::Dec(v) if v.is_power_of_two() => #p::Dec(#operand), other => other });
    Some((opcode_piece, divisor_piece))
}

