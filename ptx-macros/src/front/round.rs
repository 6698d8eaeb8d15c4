//! Conversions with a rounding mode, named as CUDA names them: `x.to_f16_rz()`
//! (`__float2half_rz`), `h.to_i32_rd()` (`__half2int_rd`), `n.to_f16_ru()` (`__int2half_ru`)
//! — the methods of `ptx_runtime::device::{ToF16Rounded, ToBf16Rounded, ToIntRounded}`.
//! Suffixes `_rn` (to nearest even), `_rz` (toward zero), `_rd` (down), `_ru` (up).

use super::hir::{Expr, ExprKind};
use super::intrinsic::{Intrinsic, RoundMode};
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use ptx_abi::Scalar;

/// `to_<dest>_<mode>`: the destination and the mode, if `name` has that shape.
pub fn parse(name: &str) -> Option<(Scalar, RoundMode)> {
    let rest = name.strip_prefix("to_")?;
    let (dest, mode) = rest.rsplit_once('_')?;
    let mode = match mode {
        "rn" => RoundMode::Nearest,
        "rz" => RoundMode::Zero,
        "rd" => RoundMode::Down,
        "ru" => RoundMode::Up,
        _ => return None,
    };
    let dest = match dest {
        "f16" => Scalar::F16,
        "bf16" => Scalar::BF16,
        "i16" => Scalar::I16,
        "u16" => Scalar::U16,
        "i32" => Scalar::I32,
        "u32" => Scalar::U32,
        "i64" => Scalar::I64,
        "u64" => Scalar::U64,
        _ => return None,
    };
    Some((dest, mode))
}

/// Which sources convert to `to` with a rounding mode (the host traits implement exactly these).
fn admits(from: Scalar, to: Scalar) -> bool {
    let int = |s: Scalar| matches!(s, Scalar::I16 | Scalar::U16 | Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64);
    match to {
        Scalar::F16 | Scalar::BF16 => matches!(from, Scalar::F32 | Scalar::F64) || int(from),
        _ => matches!(from, Scalar::F16 | Scalar::BF16 | Scalar::F32 | Scalar::F64),
    }
}

impl<'a> Checker<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn round_call(&mut self, recv: Expr, from: Scalar, (to, mode): (Scalar, RoundMode), name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        if !admits(from, to) {
            let from_name = super::ty::scalar_name(from);
            return self.error(
                name_span,
                format!("no method `{name}` on `{from_name}` in device code; the rounded conversions are `to_f16_<mode>` and `to_bf16_<mode>` from f32, f64 and 16-, 32- and 64-bit integers, and `to_<int>_<mode>` from f16, bf16, f32 and f64 (mode: rn, rz, rd, ru); convert to one of those sources first"),
            );
        }
        if !args.is_empty() {
            return self.error(name_span, format!("`{name}` takes no arguments"));
        }
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Round { to, mode }, args: vec![recv] }, ty: Ty::Scalar(to), span }
    }
}
