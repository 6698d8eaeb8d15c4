//! A call of a small method of a `DeviceRepr` type (`a + b`, `v.dot(w)`, `c += d`,
//! `Vec3::new(x, y, z)`), inlined as nvcc inlines a small `__device__` member function: the
//! methods of a `#[device_fn] impl` are otherwise calls, each with the ABI's copies of the
//! receiver, the arguments and the result (a ray caster's `Vec3` arithmetic was thirty calls).
//!
//! Which methods qualify is decided where the method is compiled (`expand::inline_form`): a
//! plain method or operator of a plain type, small, and self-contained (its body names only
//! its own bindings, `Self`, the device API and the prelude's). Its last round leaves the
//! decision beside its replay, in the module `Vec3__dot__…` (`__ptx_inline`, `__PATH`), which
//! a kernel's fetch of the method chains to (`link::replay::emit_inlinable_method`). Kernels
//! inline them, not under `debug` (`Checker::inline_methods`); device functions and methods do
//! not, as for free functions: two methods inlining each other would wait for each other's
//! decision forever.
//!
//! The body is compiled here as `inline_call` compiles a function's: the receiver and the
//! arguments (already checked against the signature) bound once, in order, to the method's
//! parameters, `self` among them (a copy; `&self` and `&mut self` read it as the method's own
//! compile does, and a `&mut self` method's block ends with the updated copy, which the caller
//! stores back), `Self` naming the type by the path this item reached it by, `return` leaving
//! the inlined block. Calls in the body inline in turn; one of a method already being inlined
//! stays a call.

use super::closure::Returns;
use super::hir::{Block, Expr, ExprKind, LetPat, Stmt};
use super::ty::{StructDef, Ty};
use super::Checker;
use crate::link::info::{Info, InlineInfo, MethodInfo, Recv};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::HashMap;
use syn::visit_mut::VisitMut;

/// What a declined inlining hands back: the receiver and the arguments, for the call.
pub type Declined = (Option<Expr>, Vec<Expr>);

impl Checker<'_> {
    /// The call of `info` on `recv` (none for an associated function) with `args`, inlined;
    /// `Err` with the operands where it is compiled as a call.
    pub(super) fn inline_method(&mut self, def: &StructDef, info: &MethodInfo, recv: Option<Expr>, args: Vec<Expr>, ret: &Ty, span: Span) -> Result<Expr, Declined> {
        let Some(fetched) = info.fetched.as_ref().filter(|_| self.inline_methods) else { return Err((recv, args)) };
        let key = crate::link::key(fetched);
        if self.inlining.contains(&key) {
            return Err((recv, args));
        }
        let form_path = quote!(#fetched :: __ptx_inline);
        let form = match self.env.get(&form_path).cloned() {
            Some(Info::Inline(form)) => form,
            Some(_) => return Err((recv, args)),
            None => {
                self.needs.need(&form_path);
                return Ok(self.error_expr(span));
            }
        };
        let Ok(def_ty) = syn::parse2::<syn::Type>(def.path.clone()) else { return Err((recv, args)) };
        self.inlining.push(key);
        let out = self.inline_method_form(&form, fetched, &def_ty, info, recv, args, ret, span);
        self.inlining.pop();
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn inline_method_form(&mut self, form: &InlineInfo, fetched: &TokenStream, def_ty: &syn::Type, info: &MethodInfo, recv: Option<Expr>, args: Vec<Expr>, ret: &Ty, span: Span) -> Result<Expr, Declined> {
        let Some(item) = form.item.parsed() else { return Err((recv, args)) };
        let mut item = syn::ItemFn::clone(&item);
        let typed: Vec<String> = item
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(pt) => match &*pt.pat {
                    syn::Pat::Ident(pi) => Some(pi.ident.to_string()),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let has_receiver = matches!(item.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
        if typed.len() != args.len() || has_receiver != recv.is_some() || typed.len() + usize::from(has_receiver) != item.sig.inputs.len() {
            return Err((recv, args));
        }
        // A failed check in the body names the method (`m::Vec3::dot`), as Rust's path of it.
        crate::ir::loc::note_replayed(item.block.brace_token.span.join(), Some(quote!(#fetched :: __PATH)));
        crate::expand::method::SelfToType(def_ty).visit_block_mut(&mut item.block);
        let apis: HashMap<String, String> = form.apis.iter().map(|(p, n)| (crate::link::key(p), n.clone())).collect();
        super::inline_call::ApiCalls { apis: &apis }.visit_block_mut(&mut item.block);
        self.natural.next += 1;
        let n = self.natural.next;
        let mut stmts = Vec::new();
        let mut frame = HashMap::new();
        self.push_scope();
        let mut self_id = None;
        if let Some(r) = recv {
            // Mutable, as `mut self` and `&mut self` need and the rest does not mind.
            let id = self.declare(&format!("__ptx_i{n}_self"), r.ty.clone(), true, r.span);
            stmts.push(Stmt::Let { pat: LetPat::Bind(id), init: Some(r), span });
            frame.insert("self".to_owned(), id);
            self_id = Some(id);
        }
        for (i, (name, x)) in typed.iter().zip(args).enumerate() {
            let id = self.declare(&format!("__ptx_i{n}_{i}"), x.ty.clone(), true, x.span);
            let at = x.span;
            stmts.push(Stmt::Let { pat: LetPat::Bind(id), init: Some(x), span: at });
            frame.insert(name.clone(), id);
        }
        self.pop_scope();
        let label = syn::Lifetime::new(&format!("'__ptx_inl{n}"), span);
        Returns { label: label.clone(), found: false }.visit_block_mut(&mut item.block);
        let body = super::closure::labelled(label, *item.block, span);
        // `&self` reads the receiver's copy and `&mut self` updates it, as in the method's own
        // compile.
        let ref_self = std::mem::replace(&mut self.ref_self, self_id.filter(|_| info.recv != Recv::Value));
        let value = self.in_scopes(vec![frame], |c| c.expr(&body));
        self.ref_self = ref_self;
        let tail = match (info.recv, self_id) {
            // The updated receiver, which the caller stores back into its place.
            (Recv::Mut, Some(id)) => {
                stmts.push(Stmt::Expr(value));
                Expr { kind: ExprKind::Local(id), ty: ret.clone(), span }
            }
            _ => {
                self.expect(value.span, ret, &value.ty);
                value
            }
        };
        Ok(Expr { kind: ExprKind::Block(Block { stmts, tail: Some(Box::new(tail)) }), ty: ret.clone(), span })
    }
}
