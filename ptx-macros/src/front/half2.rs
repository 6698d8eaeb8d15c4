//! Methods of the packed pairs `f16x2` / `bf16x2` (`ptx_runtime::vector`, CUDA's `__half2` /
//! `__nv_bfloat162`): `mul_add` (`__hfma2`), `abs` (`__habs2`), `min`/`max`
//! (`__hmin2`/`__hmax2`), the lane-wise comparisons `eq2`, `ne2`, `lt2`, `le2`, `gt2`, `ge2`
//! (`__heq2`, `__hneu2`, `__hlt2`, …: 1.0 or 0.0 in each lane) and the both-lanes ones
//! `all_eq` … `all_ge` (`__hbeq2`, …: a `bool`). Lowered in `lower::half2_math`.

use super::hir::{BinOp, Expr};
use super::intrinsic::Intrinsic;
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use ptx_abi::Scalar;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Half2Op {
    MulAdd,
    Abs,
    Min,
    Max,
    /// Lane-wise comparison: each lane 1.0 where it holds, 0.0 where not.
    Lanes(BinOp),
    /// Whether the comparison holds in both lanes.
    All(BinOp),
}

/// The comparison a method name spells (`lt` in `lt2` / `all_lt`).
fn cmp_of(name: &str) -> Option<BinOp> {
    Some(match name {
        "eq" => BinOp::Eq,
        "ne" => BinOp::Ne,
        "lt" => BinOp::Lt,
        "le" => BinOp::Le,
        "gt" => BinOp::Gt,
        "ge" => BinOp::Ge,
        _ => return None,
    })
}

impl<'a> Checker<'a> {
    /// `recv.name(args)` on an `f16x2` / `bf16x2` (`recv`'s type is the pair of `s`).
    pub(super) fn half2_method(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let t = Ty::Vector { elem: s, lanes: 2 };
        let lanes = name.strip_suffix('2').and_then(cmp_of);
        let all = name.strip_prefix("all_").and_then(cmp_of);
        let (op, params, ret) = match (name, lanes, all) {
            ("mul_add", ..) => (Half2Op::MulAdd, vec![t.clone(), t.clone()], t),
            ("abs", ..) => (Half2Op::Abs, vec![], t),
            ("min", ..) => (Half2Op::Min, vec![t.clone()], t),
            ("max", ..) => (Half2Op::Max, vec![t.clone()], t),
            (_, Some(c), _) => (Half2Op::Lanes(c), vec![t.clone()], t),
            (_, _, Some(c)) => (Half2Op::All(c), vec![t.clone()], Ty::bool()),
            _ => {
                let pair = if s == Scalar::F16 { "f16x2" } else { "bf16x2" };
                return self.error(
                    name_span,
                    format!("no method `{name}` on `{pair}` in device code; supported: mul_add, abs, min, max, eq2, ne2, lt2, le2, gt2, ge2, all_eq, all_ne, all_lt, all_le, all_gt, all_ge, the operators `+ - *` and unary `-`; for anything else compute on the lanes (`{pair}::new(f(v.x), f(v.y))`)"),
                );
            }
        };
        let rest = self.args_of(args, &params, name_span);
        self.intrinsic(Intrinsic::Half2(op), recv, rest, ret, span)
    }
}
