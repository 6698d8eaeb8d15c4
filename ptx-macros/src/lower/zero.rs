//! Zeros of a type (`ExprKind::Zero`): immediates, leaf by leaf.

use super::value::{Space, Val};
use super::Lowerer;
use crate::front::ty::{Len, StructKind, Ty};
use crate::ir::Arg;
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn zero(&mut self, ty: &Ty) -> Val {
        // A C-like enum nested in another type is its integer (`Ty::lowered`).
        let ty = &ty.clone().lowered();
        match ty {
            Ty::Scalar(s @ (Scalar::F32 | Scalar::F64)) => self.float_imm(*s, 0.0, 0.0),
            Ty::Scalar(_) | Ty::Handle(_) => Val::S(Arg::imm(0)),
            Ty::Ptr { .. } => Val::Ptr(Arg::imm(0), Space::Generic),
            Ty::Slice { .. } => Val::Agg(vec![Val::Ptr(Arg::imm(0), Space::Generic), Val::S(Arg::imm(0))]),
            Ty::Vector { elem, lanes } => Val::Agg((0..*lanes).map(|_| self.zero(&Ty::Scalar(*elem))).collect()),
            Ty::Array { elem, len: Len::Known(n) } => {
                let elem = self.ty(elem);
                Val::Agg((0..*n).map(|_| self.zero(&elem)).collect())
            }
            Ty::Struct(def) if def.kind != StructKind::Union => {
                let fields: Vec<Ty> = def.fields.iter().map(|f| self.ty(&f.ty)).collect();
                Val::Agg(fields.iter().map(|t| self.zero(t)).collect())
            }
            Ty::Tuple(ts) => {
                let ts: Vec<Ty> = ts.iter().map(|t| self.ty(t)).collect();
                Val::Agg(ts.iter().map(|t| self.zero(t)).collect())
            }
            Ty::Sum { kind, args } => {
                let r = self.ty(&crate::front::ty::sum_repr(*kind, args));
                self.zero(&r)
            }
            _ => Val::Unit,
        }
    }
}
