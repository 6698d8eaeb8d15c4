//! Expressions to values.

use super::value::{int_imm, Val};
use super::Lowerer;
use crate::front::hir::{Expr, ExprKind};
use crate::front::ty::{Len, Ty};
use crate::ir::{Arg, Cmp, Imm, Opcode, Sym, Type};
use ptx_abi::Scalar;
use quote::quote;

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn expr(&mut self, e: &Expr) -> Val {
        if !self.b.is_open() {
            // Code after `return`/`break`: nothing to emit.
            return Val::Never;
        }
        // A check failing inside reports this expression's location (the innermost one).
        let outer = std::mem::replace(&mut self.span, e.span);
        // Its instructions carry its source location (line info).
        let outer_loc = self.b.set_loc(e.span);
        let v = self.expr_kind(e);
        self.span = outer;
        self.b.loc = outer_loc;
        v
    }

    fn expr_kind(&mut self, e: &Expr) -> Val {
        match &e.kind {
            ExprKind::Unit => Val::Unit,
            ExprKind::Zero => {
                let ty = self.ty(&e.ty);
                self.zero(&ty)
            }
            ExprKind::Int(v) => match self.ty(&e.ty) {
                Ty::Scalar(s) if s.is_float() => {
                    let f = *v as f64;
                    self.float_imm(s, f as f32, f)
                }
                Ty::Scalar(s) => Val::S(int_imm(*v, s)),
                Ty::Error => Val::Unit,
                t => self.error(e.span, format!("internal: integer literal of type `{t}`")),
            },
            ExprKind::Float(a, b) => match self.ty(&e.ty) {
                Ty::Scalar(s) => self.float_imm(s, *a, *b),
                t => self.error(e.span, format!("internal: float literal of type `{t}`")),
            },
            ExprKind::Bool(b) => Val::S(Arg::imm(*b as i64)),
            ExprKind::Const(tokens) => self.constant(tokens, &e.ty, e.span),
            ExprKind::Local(id) => self.read_local(*id, e.span),
            ExprKind::Unary(op, x) => self.unary(*op, x, &e.ty),
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, &e.ty, e.span),
            ExprKind::Logic { and, lhs, rhs } => self.logic(*and, lhs, rhs),
            ExprKind::Assign(place, value) => {
                let v = self.expr(value);
                // The value is stored right away unless evaluating the place could change it.
                let v = if super::arith::is_simple(place) { v } else { self.stabilize(v) };
                match &place.kind {
                    ExprKind::Tuple(places) => {
                        for (i, p) in places.iter().enumerate() {
                            self.assign(p, v.field(i));
                        }
                    }
                    _ => self.assign(place, v),
                }
                Val::Unit
            }
            ExprKind::OpAssign(op, place, value) => self.op_assign(*op, place, value, e.span),
            ExprKind::Cast(x) => self.cast(x, &e.ty, e.span),
            ExprKind::Field(..) | ExprKind::Index { .. } | ExprKind::Deref(_) => {
                let p = self.place(e);
                self.read(&p, &e.ty, e.span)
            }
            ExprKind::SubSlice { base, start, end, inclusive } => self.sub_slice(base, start.as_deref(), end.as_deref(), *inclusive, e.span),
            ExprKind::AddrOf(place) => self.addr_of(place, e.span),
            ExprKind::Call { callee, args } => self.call(callee, args, e.span),
            ExprKind::Intrinsic { op, args } => self.intrinsic(op, args, &e.ty, e.span),
            ExprKind::Block(b) => self.block(b),
            ExprKind::If { cond, then, els } => self.if_expr(cond, then, els.as_deref(), &e.ty),
            ExprKind::Loop { body, id } => self.loop_expr(body, *id, &e.ty),
            ExprKind::While { cond, body, id } => self.while_expr(cond, body, *id),
            ExprKind::For { var, body, id, unroll: Some(values), range } => self.unrolled_for(*var, &range.start.ty, values, body, *id, e.span),
            ExprKind::For { var, range, body, id, unroll: None } => self.for_expr(*var, range, body, *id, e.span),
            ExprKind::Labeled { body, id } => self.labeled(body, *id, &e.ty),
            ExprKind::Break { id, value } => self.break_expr(*id, value.as_deref()),
            ExprKind::Continue { id } => self.continue_expr(*id),
            ExprKind::Return(v) => {
                let val = match v {
                    Some(x) => self.expr(x),
                    None => Val::Unit,
                };
                self.ret(val, e.span);
                Val::Never
            }
            ExprKind::Match { scrut, arms } => self.match_expr(scrut, arms, &e.ty),
            ExprKind::Struct { def, fields, base } => {
                let base = base.as_ref().map(|b| {
                    let v = self.expr(b);
                    self.stabilize(v)
                });
                let mut vals: Vec<Option<Val>> = vec![None; def.fields.len()];
                for (i, x) in fields {
                    let v = self.expr(x);
                    vals[*i] = Some(self.stabilize(v));
                }
                let vals = vals.into_iter().enumerate().map(|(i, v)| v.unwrap_or_else(|| base.as_ref().map(|b| b.field(i)).unwrap_or(Val::Unit))).collect();
                Val::Agg(vals)
            }
            ExprKind::Vector(xs) | ExprKind::Array(xs) | ExprKind::Tuple(xs) => {
                let mut vals = Vec::new();
                for x in xs {
                    let v = self.expr(x);
                    vals.push(self.stabilize(v));
                }
                Val::Agg(vals)
            }
            ExprKind::Repeat(x, len) => {
                let v = self.expr(x);
                let v = self.stabilize(v);
                match len {
                    Len::Known(n) if *n <= 4096 => Val::Agg(vec![v; *n as usize]),
                    Len::Known(_) => self.error(e.span, "arrays in device code hold at most 4096 elements; use shared memory or a buffer"),
                    Len::Const(_) => self.error(e.span, "an array whose length is a constant from outside the body lives in local memory: create it with `let` (`let mut a = [0u32; N];`) and index it there"),
                }
            }
            ExprKind::Asm(a) => {
                self.asm(a, e.span);
                Val::Unit
            }
            ExprKind::Printf { format, args } => self.printf(format, args),
            ExprKind::Panic(p) => self.panic(p),
        }
    }

    pub fn float_imm(&mut self, s: Scalar, a: f32, b: f64) -> Val {
        match s {
            Scalar::F32 => Val::S(Arg::Imm(Imm::F32(a.to_bits()))),
            Scalar::F64 => Val::S(Arg::Imm(Imm::F64(b.to_bits()))),
            _ => Val::S(Arg::imm(0)),
        }
    }

    /// A constant rustc evaluates: its bits become a `mov` immediate.
    /// An outside constant of scalar type `s` (a `match` pattern).
    pub fn constant_of(&mut self, tokens: &proc_macro2::TokenStream, s: Scalar) -> Val {
        self.constant(tokens, &Ty::Scalar(s), proc_macro2::Span::call_site())
    }

    fn constant(&mut self, tokens: &proc_macro2::TokenStream, ty: &Ty, span: proc_macro2::Span) -> Val {
        let s = match self.ty(ty) {
            Ty::Scalar(s) => s,
            // An enum with fields has no field paths rustc could evaluate one by one.
            Ty::Struct(def) if def.kind == crate::front::ty::StructKind::Enum => {
                return self.error(span, format!("a constant of the enum `{}`, which has fields, is not supported on the device: build the value in the body (`{}::Variant {{ .. }}`)", def.name, def.name));
            }
            // A struct or array constant (`Vec3::ZERO`): rustc evaluates each scalar in it.
            Ty::Struct(def) if def.kind != crate::front::ty::StructKind::Union => {
                let fields = def.fields.iter().map(|f| {
                    let m: proc_macro2::TokenTree = match f.name.parse::<usize>() {
                        Ok(i) => proc_macro2::Literal::usize_unsuffixed(i).into(),
                        Err(_) => proc_macro2::Ident::new(&f.name, span).into(),
                    };
                    self.constant(&quote!((#tokens).#m), &f.ty, span)
                });
                return Val::Agg(fields.collect());
            }
            Ty::Array { elem, len: crate::front::ty::Len::Known(n) } => {
                return Val::Agg((0..n as usize).map(|i| self.constant(&quote!((#tokens)[#i]), &elem, span)).collect());
            }
            Ty::Error => return self.error(span, "the type of this constant is not known to the device compiler: write `NAME as T` with the type you need"),
            t => return self.error(span, format!("constants of type `{t}` from outside the body are not supported; use scalar constants")),
        };
        let t = proc_macro2::Ident::new(crate::front::ty::scalar_name(s), span);
        let bits = match s {
            Scalar::F32 => quote!(f32::to_bits(__V) as u64),
            Scalar::F64 => quote!(f64::to_bits(__V)),
            Scalar::Bool => quote!(__V as u64),
            Scalar::F16 | Scalar::BF16 => quote!(__V.to_bits() as u64),
            // Integers live in their register as every value of their type does: an `i8`
            // sign-extended to its 16-bit register (-127 is `0xff81`, not `0x81`), unsigned ones
            // zero-extended. The piece is the register's bits as an unsigned number.
            s => {
                let w = super::value::reg_width(s);
                let u = proc_macro2::Ident::new(&format!("u{w}"), span);
                if s.is_signed() {
                    let i = proc_macro2::Ident::new(&format!("i{w}"), span);
                    quote!(__V as #i as #u as u64)
                } else {
                    quote!(__V as #u as u64)
                }
            }
        };
        // A type that only Rust's fallback gave (`{integer}` → `i32`, `{float}` → `f64`: nothing
        // in the body fixed it) may not be the constant's: rustc knows `K: usize` in
        // `for k in 0..K`, the macro does not. There the constant must have that type
        // (`__private::GuessedType`), so rustc reports a wrong guess instead of the kernel
        // computing silently in another type.
        let defaulted = matches!(self.cx.infer.shallow(ty), Ty::Var(_));
        let guess = defaulted.then(|| {
            let tokens = respan_deep(span, tokens.clone());
            quote::quote_spanned!(span=>
                #[allow(dead_code)]
                fn __guess() {
                    ::ptx_runtime::__private::guessed_type::<#t, _>(&#tokens);
                }
            )
        });
        let piece = quote_spanned_const(span, quote!({
            #guess
            const __V: #t = (#tokens) as #t;
            ::ptx_runtime::__private::Piece::Dec(#bits)
        }));
        // A constant is the same everywhere: materialised once, at the entry.
        let key = format!("const {s:?} {defaulted} {tokens}");
        if let Some(r) = self.consts.get(&key) {
            return Val::S(Arg::Reg(*r));
        }
        let c = super::value::class_of(s);
        let r = self.reg(c);
        let inst = if c == crate::ir::RegClass::Pred {
            crate::ir::Inst::op(Opcode::Setp(Cmp::Ne, Type::U64), 1, vec![Arg::Reg(r), Arg::Sym(Sym::Piece(piece)), Arg::imm(0)])
        } else {
            crate::ir::Inst::op(Opcode::Mov(super::value::reg_bits(s)), 1, vec![Arg::Reg(r), Arg::Sym(Sym::Piece(piece))])
        };
        self.b.push_to_entry(inst);
        self.consts.insert(key, r);
        Val::S(Arg::Reg(r))
    }

    fn read_local(&mut self, id: usize, span: proc_macro2::Span) -> Val {
        self.use_local(id);
        let local = &self.cx.body.locals[id];
        if local.in_memory {
            let ty = self.ty(&local.ty.clone());
            if let Ty::Array { len: Len::Const(n), .. } = &ty {
                let name = local.name.clone();
                return self.error(span, format!("`{name}` has the length of a constant from outside the body (`{n}`): it lives in local memory and is not copied as a whole; index it (`{name}[i]`), or copy its elements in a `for` loop"));
            }
            let p = super::place::Place::Mem { addr: self.slots[id].as_ref().map(|v| v.arg()).unwrap_or(Arg::imm(0)), space: super::value::Space::Local, offset: 0 };
            return self.read(&p, &ty, span);
        }
        match &self.slots[id] {
            Some(v) => v.clone(),
            None => self.error(span, format!("internal: `{}` has no value", local.name)),
        }
    }
}

/// Tokens for a `Piece` whose type errors point at the constant's use.
fn quote_spanned_const(span: proc_macro2::Span, t: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    t.into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect()
}

/// `t` with every token, inside groups too, at `span`: the constant's path as the expansion
/// writes it (from the inner module) is reported where the body names it.
fn respan_deep(span: proc_macro2::Span, t: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    t.into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Group(g) => {
                let mut n = proc_macro2::Group::new(g.delimiter(), respan_deep(span, g.stream()));
                n.set_span(span);
                proc_macro2::TokenTree::Group(n)
            }
            mut tt => {
                tt.set_span(span);
                tt
            }
        })
        .collect()
}
