//! `x.try_into()` between integer types (`front::sum`): `Ok(x as T)` when `x` is in `T`'s
//! range, else `Err`. The value is `(tag, (x as T,), ((),))`, `tag` 0 for `Ok`.

use super::value::{int_imm, int_type, Val};
use super::Lowerer;
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, Cmp, Opcode, RegClass, Type};
use proc_macro2::Span;
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn try_int(&mut self, x: &Val, from: &Ty, repr: &Ty, span: Span) -> Val {
        let to = match repr {
            Ty::Tuple(ts) => match ts.get(1) {
                Some(Ty::Tuple(ok)) => ok.first().and_then(Ty::scalar),
                _ => None,
            },
            _ => None,
        };
        let (Some(s), Some(t)) = (from.scalar(), to) else {
            return self.error(span, "`try_into` in device code converts between integer types; annotate the target (`let v: u8 = x.try_into().unwrap_or(0);`)");
        };
        let (fmin, fmax) = range(s);
        let (tmin, tmax) = range(t);
        let cmp = int_type(s);
        let mut ok: Option<Arg> = None;
        for (c, bound, needed) in [(Cmp::Ge, tmin, fmin < tmin), (Cmp::Le, tmax, fmax > tmax)] {
            if !needed {
                continue;
            }
            let p = self.b.op1(Opcode::Setp(c, cmp), RegClass::Pred, vec![x.arg(), int_imm(bound as u128, s)]);
            ok = Some(match ok {
                None => Arg::Reg(p),
                Some(q) => Arg::Reg(self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![q, Arg::Reg(p)])),
            });
        }
        let tag = match ok {
            None => Val::S(Arg::imm(0)),
            Some(p) => Val::S(Arg::Reg(self.b.op1(Opcode::Selp(Type::U32), RegClass::B32, vec![Arg::imm(0), Arg::imm(1), p]))),
        };
        let value = self.convert(x, s, t);
        Val::Agg(vec![tag, Val::Agg(vec![value]), Val::Agg(vec![Val::Unit])])
    }
}

fn range(s: Scalar) -> (i128, i128) {
    let bits = s.bits() as u32;
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}
