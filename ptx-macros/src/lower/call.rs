//! The calling sequence (PTX Interoperability §2.3, chapter 6), parameters and return values.
//!
//! A call is a `{ }` scope declaring each argument `.param` (`.b32`/`.b64` for scalars,
//! `.align A .b8 paramN[S]` for aggregates), `st.param`s, the return `.param`, `call.uni`, and
//! `ld.param`s of the result. Integers narrower than 32 bits travel sign- or zero-extended to
//! 32 bits (note A); pointers travel as generic addresses (note B).

use super::value::{class_of, leaves, mem_type, Leaf, Space, Val};
use super::Lowerer;
use crate::front::hir::{Callee, Expr};
use crate::front::ty::Ty;
use crate::ir::{Arg, InstKind, Mem, Mode, Opcode, RegClass, StateSpace, Sym, Type};
use crate::syntax::signature::FnKind;
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::quote;

impl<'a, 'e> Lowerer<'a, 'e> {
    /// Loads every parameter into its local at the start of the body.
    pub fn load_params(&mut self) {
        let params = self.cx.body.params.clone();
        for (i, p) in params.iter().enumerate() {
            let Some(id) = p else { continue };
            let local = &self.cx.body.locals[*id];
            let span = local.span;
            let raw_ty = local.ty.clone();
            let ty = self.ty(&raw_ty);
            let v = match &ty {
                Ty::Named(_) => Val::Opaque(i),
                _ => self.load_param(i, &ty, span),
            };
            self.bind_local(*id, Some(v), span);
        }
    }

    fn load_param(&mut self, i: usize, ty: &Ty, span: Span) -> Val {
        let sym = Arg::Sym(Sym::Param(i));
        let kernel = self.cx.kind == FnKind::Kernel;
        match ty {
            Ty::Ptr { mutable, reference, .. } => {
                let raw = self.b.op1(Opcode::Ld(Mem::plain(StateSpace::Param, Type::U64)), RegClass::B64, vec![Arg::mem(sym, 0)]);
                if kernel {
                    let g = self.b.op1(Opcode::Cvta { to: true, space: StateSpace::Global }, RegClass::B64, vec![Arg::Reg(raw)]);
                    let nc = !*mutable && (*reference || self.const_ptrs_nc);
                    if nc {
                        self.b.func.read_only.push(g);
                    }
                    Val::Ptr(Arg::Reg(g), Space::Global { nc })
                } else {
                    Val::Ptr(Arg::Reg(raw), Space::Generic)
                }
            }
            Ty::Slice { mutable, .. } => {
                let raw = self.b.op1(Opcode::Ld(Mem::plain(StateSpace::Param, Type::U64)), RegClass::B64, vec![Arg::mem(sym.clone(), 0)]);
                let len = self.b.op1(Opcode::Ld(Mem::plain(StateSpace::Param, Type::U64)), RegClass::B64, vec![Arg::mem(sym, 8)]);
                let ptr = if kernel {
                    let g = self.b.op1(Opcode::Cvta { to: true, space: StateSpace::Global }, RegClass::B64, vec![Arg::Reg(raw)]);
                    if !*mutable {
                        self.b.func.read_only.push(g);
                    }
                    Val::Ptr(Arg::Reg(g), Space::Global { nc: !*mutable })
                } else {
                    Val::Ptr(Arg::Reg(raw), Space::Generic)
                };
                Val::Agg(vec![ptr, Val::S(Arg::Reg(len))])
            }
            Ty::Scalar(s) if kernel || s.size() >= 4 || *s == Scalar::Bool || s.is_float() => self.load(&sym, Space::Param, 0, ty, span),
            // A narrow integer of a device function arrives widened to 32 bits (note A): its low
            // bytes are the value.
            Ty::Scalar(s) => Val::S(Arg::Reg(self.b.op1(Opcode::Ld(Mem::plain(StateSpace::Param, mem_type(*s))), class_of(*s), vec![Arg::mem(sym, 0)]))),
            _ => self.load(&sym, Space::Param, 0, ty, span),
        }
    }

    /// Stores the return value into `func_retval0`.
    pub fn store_return(&mut self, ty: &Ty, v: &Val, span: Span) {
        let ty = self.ty(ty);
        if let Val::Opaque(index) = v {
            let t = self.cx.param_types[*index].clone();
            let copy = quote!(::ptx_runtime::__private::Piece::Copy {
                layout: <#t as ::ptx_runtime::__private::ParamType>::ABI.layout(::ptx_runtime::__private::Site::Func),
                from: &[::ptx_runtime::__private::Piece::ParamName { symbol: __SYMBOL, index: #index }],
                to: &[::ptx_runtime::__private::Piece::Str("func_retval0")],
            });
            let mut t = crate::text::Text::new();
            t.piece(copy);
            self.b.kind(InstKind::Raw(t));
            return;
        }
        self.store_param(&Arg::Sym(Sym::Retval), &ty, v, span);
    }

    /// Stores a value into a `.param` (an argument or the return value), by §2.3.
    fn store_param(&mut self, base: &Arg, ty: &Ty, v: &Val, span: Span) {
        // A C-like enum nested in another type is its integer (`Ty::lowered`).
        let ty = &ty.clone().lowered();
        match ty {
            Ty::Unit => {}
            Ty::Scalar(s) => {
                let (t, a) = self.widen_for_param(*s, v);
                self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, t)), vec![Arg::mem(base.clone(), 0), a]);
            }
            Ty::Ptr { .. } => {
                let a = self.generic_address(v);
                self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, Type::B64)), vec![Arg::mem(base.clone(), 0), a]);
            }
            Ty::Handle(_) => self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, Type::B64)), vec![Arg::mem(base.clone(), 0), v.arg()]),
            // The variants' fields overlap: stored under a test of the tag.
            Ty::Struct(def) if def.kind == crate::front::ty::StructKind::Enum => {
                let _ = def;
                self.store_enum_param(base, ty, v, span)
            }
            _ => {
                // An aggregate: its fields at their offsets, at their own sizes.
                let mut ls = Vec::new();
                if leaves(ty, 0, &mut ls).is_none() {
                    self.error(span, format!("values of type `{ty}` cannot be passed to or returned from device functions here"));
                    return;
                }
                let mut flat = Vec::new();
                flatten(v, &mut flat);
                for ((off, leaf), val) in ls.iter().zip(flat) {
                    match leaf {
                        Leaf::Scalar(Scalar::Bool) => {
                            let p = self.pred(&val);
                            let b = self.b.op1(Opcode::Selp(Type::U16), RegClass::B16, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(p)]);
                            self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, Type::U8)), vec![Arg::mem(base.clone(), *off as i64), Arg::Reg(b)]);
                        }
                        Leaf::Scalar(s) => self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, mem_type(*s))), vec![Arg::mem(base.clone(), *off as i64), val.arg()]),
                        Leaf::Ptr => {
                            let a = self.generic_address(&val);
                            self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, Type::U64)), vec![Arg::mem(base.clone(), *off as i64), a]);
                        }
                    }
                }
            }
        }
    }

    /// Note A: integers narrower than 32 bits (and `bool`) travel as 32-bit values, extended by
    /// their signedness. Returns the `st.param` type and the operand.
    fn widen_for_param(&mut self, s: Scalar, v: &Val) -> (Type, Arg) {
        match s {
            Scalar::Bool => {
                let p = self.pred(v);
                (Type::B32, Arg::Reg(self.b.op1(Opcode::Selp(Type::U32), RegClass::B32, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(p)])))
            }
            Scalar::I8 | Scalar::I16 => match v.arg() {
                a @ Arg::Imm(_) => (Type::B32, a),
                a => (Type::B32, Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::S32, Type::S16), RegClass::B32, vec![a]))),
            },
            Scalar::U8 | Scalar::U16 => match v.arg() {
                a @ Arg::Imm(_) => (Type::B32, a),
                a => (Type::B32, Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![a]))),
            },
            Scalar::I32 | Scalar::U32 => (Type::B32, v.arg()),
            Scalar::I64 | Scalar::U64 => (Type::B64, v.arg()),
            Scalar::F32 => (Type::F32, v.arg()),
            Scalar::F64 => (Type::F64, v.arg()),
            Scalar::F16 | Scalar::BF16 => (Type::B16, v.arg()),
        }
    }

    /// `.param` declaration of an argument or return value of type `ty` named `name`.
    fn param_decl(&self, ty: &Ty, name: &str) -> Option<String> {
        // A C-like enum nested in another type is its integer (`Ty::lowered`).
        let ty = &ty.clone().lowered();
        Some(match ty {
            Ty::Scalar(s) if s.size() <= 4 => format!(".param .b32 {name}"),
            Ty::Scalar(_) | Ty::Ptr { .. } | Ty::Handle(_) => format!(".param .b64 {name}"),
            t => {
                let l = t.layout()?;
                format!(".param .align {} .b8 {name}[{}]", l.align, l.size)
            }
        })
    }

    pub fn call(&mut self, callee: &Callee, args: &[Expr], span: Span) -> Val {
        let mut vals = Vec::new();
        for a in args {
            let v = self.expr(a);
            if matches!(v, Val::Never) {
                return Val::Never;
            }
            vals.push(self.stabilize(v));
        }
        let tys: Vec<Ty> = args.iter().map(|a| self.ty(&a.ty)).collect();
        let ret = self.ty(&callee.ret);
        self.call_target(&callee.path, callee.assoc.as_deref(), &tys, &vals, &ret, span)
    }

    /// A call of the device function at `path` with evaluated arguments.
    pub fn call_vals(&mut self, path: &TokenStream, tys: &[Ty], vals: &[Val], ret: &Ty, span: Span) -> Val {
        self.call_target(path, None, tys, vals, ret, span)
    }

    /// A call of the function at `path`, or of the method `assoc` of the type at `path`.
    fn call_target(&mut self, path: &TokenStream, assoc: Option<&str>, tys: &[Ty], vals: &[Val], ret: &Ty, span: Span) -> Val {
        let inner = inner_path(path);
        let (key, symbol, node) = match assoc {
            None => (crate::link::key(path), quote!(#inner::SYMBOL), quote!(&#inner::NODE)),
            Some(m) => {
                let (s, n) = (quote::format_ident!("__PTX_SYMBOL__{}", m), quote::format_ident!("__PTX_NODE__{}", m));
                (format!("{} {m}", crate::link::key(path)), quote!(<#inner>::#s), quote!(<#inner>::#n))
            }
        };
        if !self.callees.iter().any(|(k, _)| *k == key) {
            self.callees.push((key, node));
        }
        self.b.kind(InstKind::ScopeOpen);
        let mut names = Vec::new();
        for (i, (t, v)) in tys.iter().zip(vals).enumerate() {
            let name = format!("param{i}");
            let Some(decl) = self.param_decl(t, &name) else {
                self.error(span, format!("values of type `{t}` cannot be passed to device functions"));
                continue;
            };
            self.b.kind(InstKind::Decl(decl));
            self.store_param(&Arg::named(name.clone()), t, v, span);
            names.push(name);
        }
        let has_ret = !matches!(ret, Ty::Unit | Ty::Never);
        if has_ret {
            if let Some(decl) = self.param_decl(ret, "retval0") {
                self.b.kind(InstKind::Decl(decl));
            }
        }
        let target = Sym::Piece(quote!(::ptx_runtime::__private::Piece::Str(#symbol)));
        self.b.kind(InstKind::Call { ret: has_ret.then(|| "retval0".to_owned()), target, params: names });
        let result = if has_ret { self.load(&Arg::named("retval0"), Space::Param, 0, ret, span) } else { Val::Unit };
        // Narrow integers come back widened; the load above read their low bytes.
        self.b.kind(InstKind::ScopeClose);
        if matches!(ret, Ty::Never) {
            self.b.terminate(crate::ir::Term::Trap);
            return Val::Never;
        }
        result
    }

    /// A call of `ptx_runtime::device::math::<name>_<f32|f64>`.
    pub fn math_fn(&mut self, name: &str, s: Scalar, args: Vec<Val>, span: Span) -> Val {
        let f = quote::format_ident!("{}_{}", name, if s == Scalar::F32 { "f32" } else { "f64" });
        let path = quote!(::ptx_runtime::device::math::#f);
        let tys = vec![Ty::Scalar(s); args.len()];
        self.call_vals(&path, &tys, &args, &Ty::Scalar(s), span)
    }
}

/// The leaves of a value in memory order.
fn flatten(v: &Val, out: &mut Vec<Val>) {
    match v {
        Val::Agg(xs) => xs.iter().for_each(|x| flatten(x, out)),
        Val::Unit => {}
        v => out.push(v.clone()),
    }
}

/// A callee path as the generated module (a child of the caller's module) names it.
pub fn inner_path(path: &TokenStream) -> TokenStream {
    match syn::parse2::<syn::Path>(path.clone()) {
        Ok(p) => {
            let t = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path: p }));
            quote!(#t)
        }
        Err(_) => path.clone(),
    }
}
