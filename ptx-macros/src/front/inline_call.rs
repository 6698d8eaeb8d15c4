//! A kernel's call of a small `#[device_fn]`, inlined as nvcc inlines a small `__device__`
//! function (which functions qualify: `expand::inline_form`).
//!
//! Fetching `f` for a kernel fetches `f::__ptx_inline` too, in the same round (`f`'s replay
//! chains to it, `link::replay::emit_device_fn`; it is fetched here where the chain did not),
//! which `f`'s generated module holds once `f` is compiled; the next round inlines the body it
//! carries (or compiles the call, for `Info::NoInline`). The body
//! is compiled among its own names only: its parameters bound to the arguments (each argument
//! evaluated once, in order, as for a call), `return` leaving the inlined block, and its calls
//! of device-API functions renamed to the names `link::Env` knows them by
//! (`link::inline_api_path`), so nothing in it is resolved in the kernel's scope. Its checks
//! keep the lines of the function's own source, as Rust reports them.

use crate::syntax::first_token::FirstToken;
use super::closure::Returns;
use super::hir::{Block, Expr, ExprKind, LetPat, Stmt};
use super::Checker;
use crate::link::info::{FnInfo, Info, InlineInfo};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

type Args = syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>;

impl<'a> Checker<'a> {
    /// The call `fetch_path(args)` of the device function `info`, inlined; `None` where it is
    /// compiled as a call.
    pub fn default_inline(&mut self, info: &FnInfo, fetch_path: &TokenStream, args: &Args, span: Span) -> Option<Expr> {
        if !self.inline_device_fns || !info.inlinable {
            return None;
        }
        let form_path = quote!(#fetch_path :: __ptx_inline);
        match self.env.get(&form_path).cloned() {
            None => {
                // The arguments' own fetches go in the same round.
                for a in args {
                    self.expr(a);
                }
                self.needs.need(&form_path);
                Some(self.error_expr(span))
            }
            Some(Info::Inline(form)) => {
                // A failed check in the body names the function, as its own `.func` would.
                let Ok(path) = syn::parse2::<syn::Path>(quote!(#fetch_path :: __PATH)) else { return None };
                let path = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path }));
                self.inline_form(&form, quote::ToTokens::to_token_stream(&path), args, span)
            }
            Some(_) => None,
        }
    }

    fn inline_form(&mut self, form: &InlineInfo, function: TokenStream, args: &Args, span: Span) -> Option<Expr> {
        let parsed = form.item.parsed()?;
        let mut item = syn::ItemFn::clone(&parsed);
        if item.sig.inputs.len() != args.len() {
            return None;
        }
        crate::ir::loc::note_replayed(item.block.brace_token.span.join(), Some(function));
        let apis: HashMap<String, String> = form.apis.iter().map(|(p, n)| (crate::link::key(p), n.clone())).collect();
        ApiCalls { apis: &apis }.visit_block_mut(&mut item.block);
        self.natural.next += 1;
        let n = self.natural.next;
        let mut stmts = Vec::new();
        let mut frame = HashMap::new();
        self.push_scope();
        for (i, (input, a)) in item.sig.inputs.iter().zip(args).enumerate() {
            let syn::FnArg::Typed(pt) = input else { continue };
            let syn::Pat::Ident(pi) = &*pt.pat else { continue };
            let ty = self.resolve_type(&pt.ty, super::Position::Signature);
            let x = self.expr(a);
            self.expect(x.span, &ty, &x.ty);
            let id = self.declare(&format!("__ptx_i{n}_{i}"), ty, true, a.span());
            stmts.push(Stmt::Let { pat: LetPat::Bind(id), init: Some(x), span: a.span() });
            frame.insert(pi.ident.to_string(), id);
        }
        self.pop_scope();
        let label = syn::Lifetime::new(&format!("'__ptx_inl{n}"), span);
        let mut r = Returns { label: label.clone(), found: false };
        r.visit_block_mut(&mut item.block);
        let body = super::closure::labelled(label, *item.block, span);
        let value = self.in_scopes(vec![frame], |c| c.expr(&body));
        let ret = match &item.sig.output {
            syn::ReturnType::Default => super::ty::Ty::Unit,
            syn::ReturnType::Type(_, t) => self.resolve_type(t, super::Position::Signature),
        };
        self.expect(value.span, &ret, &value.ty);
        Some(Expr { kind: ExprKind::Block(Block { stmts, tail: Some(Box::new(value)) }), ty: ret, span })
    }
}

/// Renames the body's calls of device-API functions (`thread_idx_x()`,
/// `warp::shfl_down::<f32>(..)`) to `__ptx_inline_api::NAME`, the names `link::Env` gives them.
pub(super) struct ApiCalls<'a> {
    pub(super) apis: &'a HashMap<String, String>,
}

impl VisitMut for ApiCalls<'_> {
    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        if let syn::Expr::Path(p) = &mut *c.func {
            if let Some(name) = self.apis.get(&crate::link::key(&super::call::strip_generics(&p.path))) {
                let args = p.path.segments.last().map(|s| s.arguments.clone()).unwrap_or(syn::PathArguments::None);
                let span = p.path.first_span();
                if let Ok(mut path) = syn::parse2::<syn::Path>(crate::link::inline_api_path(name)) {
                    for seg in &mut path.segments {
                        seg.ident.set_span(span);
                    }
                    if let Some(last) = path.segments.last_mut() {
                        last.arguments = args;
                    }
                    p.path = path;
                }
            }
        }
        syn::visit_mut::visit_expr_call_mut(self, c);
    }
}
