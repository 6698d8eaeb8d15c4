//! Which `#[device_fn]`s kernels inline by default, and what the kernels are told of them.
//!
//! nvcc inlines a small `__device__` function into its callers, and ptxas inlines no `.func`:
//! compiled as a call, a helper such as `fn gid() -> usize` costs each kernel the ABI's call
//! sequence, the copies of its parameters and result, and what the analyses cannot see across
//! the call (a bounds check in the helper is not folded into the kernel's loop). So once a
//! device function is compiled, its generated module says whether kernels inline it: the
//! replay `f::__ptx_inline`, which a kernel fetches after `f`'s own (`front::inline_call`),
//! holds `Info::Inline` (the item and the device-API paths its body calls) or `Info::NoInline`.
//!
//! A function is inlined when it is
//! - small: at most [`MAX_INSTRUCTIONS`] instructions in its own `.func`, not counting those
//!   that only pass values in, out or between registers (`ld.param`, `st.param`, `mov`, `ret`);
//! - self-contained: the only names it takes from outside its body are device-API functions,
//!   listed with the API function each names, so that the kernel compiles them without
//!   resolving anything in its own scope. A constant, table, type or function of the defining
//!   module would be named where the kernel is, which may be another module where it means
//!   something else or is private; such a function stays a call. So does one that declares
//!   shared memory (each inlined copy would declare its own), one with `?` (which would leave
//!   the kernel) and one whose parameters are patterns.
//!
//! A method of a `#[device_fn] impl` (`expand::method` says which kinds may be) is told the
//! same way, in the module beside its replay ([`method_replay`], `front::inline_method`). Its
//! body may also name `Self` and its type (written `Self` in the form, which the kernel reads
//! as the type it reached): calls of methods and operators resolve through the values' types
//! wherever the body is compiled. Every other path the body writes must be one of its own
//! bindings, a device-API function, a primitive type, `core`'s or the prelude's
//! (`Some`, `None`); its macros, std's assertions and panics.
//!
//! `#[inline(never)]` keeps the call (CUDA's `__noinline__`), and so does `#[no_mangle]` (a
//! symbol other modules link against: a kernel's module defines it by calling it, and C++
//! declaring it `extern` links with that). `#[inline(always)]` inlines
//! whatever the body (`front::force_inline`). Device functions do not inline by default: one
//! may call another that calls it back, and `f::__ptx_inline` exists only once `f` is compiled.

use crate::link::info::{Info, InlineInfo};
use crate::text::Text;
use proc_macro2::{TokenStream, TokenTree};
use quote::{format_ident, ToTokens};
use std::collections::HashSet;

/// The largest `.func` body, in PTX instructions, that kernels inline: a helper of a few
/// lines with a bounds check or two (its report block is five of them).
pub const MAX_INSTRUCTIONS: usize = 48;

/// What a compiled device function leaves for kernels to read about it.
pub struct Compiled<'a> {
    pub item: &'a syn::ItemFn,
    /// What its fetch chain found.
    pub found: &'a crate::link::Env,
    pub body: &'a Text,
    /// The front end's compile-time checks (recognised type names, layouts): names of the
    /// defining module.
    pub checks: usize,
    /// The string constants and tables its lowering declared.
    pub strings: &'a [TokenStream],
    pub tables: usize,
    /// `#[no_mangle]`: a symbol other modules link against (C++ declares it), which the
    /// kernels' modules define by calling it.
    pub exported: bool,
}

/// `f::__ptx_inline`, emitted inside the generated module `f`.
pub fn replay(c: &Compiled) -> TokenStream {
    emit(c, form(c))
}

/// `Vec3__dot__…::__ptx_inline`, emitted in the module beside a method's replay
/// (`expand::method::inline_module`); `self_ty`: the impl's type, as written.
pub fn method_replay(c: &Compiled, self_ty: &syn::Type) -> TokenStream {
    emit(c, method_form(c, self_ty))
}

/// The replay `__ptx_inline`: the inline form, or that the function stays a call.
fn emit(c: &Compiled, form: Option<InlineInfo>) -> TokenStream {
    let info = form.map_or(Info::NoInline, Info::Inline);
    crate::link::replay::emit("inl", &format_ident!("__ptx_inline"), &syn::parse_quote!(pub), &c.item.to_token_stream(), &info)
}

/// What every inlined body must be, function or method: no shared memory (each inlined copy
/// would declare its own), at most [`MAX_INSTRUCTIONS`], no `?` (which would leave the caller),
/// and, since the API paths are renamed in the caller by their last name, no binding of the
/// body and no macro's tokens (which are not renamed) spelling one.
fn body_inlinable(c: &Compiled, apis: &[(TokenStream, String)]) -> bool {
    let text = c.body.literal();
    if text.lines().any(|l| l.trim_start().starts_with(".shared")) || instructions(&text) > MAX_INSTRUCTIONS {
        return false;
    }
    let api_names: HashSet<String> = apis.iter().filter_map(|(p, _)| last_ident(p)).collect();
    let mut seen = Seen::default();
    for input in &c.item.sig.inputs {
        syn::visit::Visit::visit_fn_arg(&mut seen, input);
    }
    syn::visit::Visit::visit_block(&mut seen, &c.item.block);
    !seen.try_op && !seen.names.iter().any(|n| api_names.contains(n))
}

fn method_form(c: &Compiled, self_ty: &syn::Type) -> Option<InlineInfo> {
    let self_name = match self_ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 => p.path.segments[0].ident.to_string(),
        _ => return None,
    };
    let sig = &c.item.sig;
    if c.exported || c.tables > 0 || crate::front::force_inline::is_never_inline(&c.item.attrs) || !sig.generics.params.is_empty() || sig.variadic.is_some() {
        return None;
    }
    let mut bound = Bound::default();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(_) => {}
            syn::FnArg::Typed(pt) if matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none()) => syn::visit::Visit::visit_pat(&mut bound, &pt.pat),
            _ => return None,
        }
    }
    let mut found: Vec<(&str, &Info)> = c.found.entries().collect();
    found.sort_by_key(|(k, _)| *k);
    // Its types and the methods it calls are found again by the kernel; only the device-API
    // paths are renamed.
    let apis: Vec<(TokenStream, String)> = found.iter().filter_map(|(path, info)| if let Info::Api(name) = info { Some((path.parse::<TokenStream>().ok()?, name.clone())) } else { None }).collect();
    let own = [self_name.as_str()];
    // A callee's symbol names it through the type it belongs to (or the instance compiled
    // for it), which the kernel resolves for itself, as the call itself.
    if !c.body.evaluated().chain(c.strings).all(|t| callee_symbol(t) || own_piece_with(t, &own)) || !body_inlinable(c, &apis) {
        return None;
    }
    syn::visit::Visit::visit_block(&mut bound, &c.item.block);
    let api_keys: HashSet<String> = apis.iter().map(|(p, _)| crate::link::key(p)).collect();
    let mut written = Written { bound: &bound.0, self_name: &self_name, apis: &api_keys, ok: true };
    syn::visit::Visit::visit_block(&mut written, &c.item.block);
    if !written.ok {
        return None;
    }
    let mut item = c.item.clone();
    item.attrs.clear();
    item.vis = syn::Visibility::Inherited;
    syn::visit_mut::VisitMut::visit_item_fn_mut(&mut TypeToSelf(&self_name), &mut item);
    Some(InlineInfo { item: crate::link::info::FnItem::new(item.to_token_stream()), apis })
}

/// Whether a piece is a called method's symbol: `Piece::Str(<Vec3>::__PTX_SYMBOL__dot)`, or a
/// generic method's instance's, `Piece::Str(__ptx_inst_…::SYMBOL)`.
fn callee_symbol(t: &TokenStream) -> bool {
    fn idents(t: &TokenStream, out: &mut Vec<String>) {
        for tt in t.clone() {
            match tt {
                TokenTree::Ident(i) => out.push(i.to_string()),
                TokenTree::Group(g) => idents(&g.stream(), out),
                _ => {}
            }
        }
    }
    let mut names = Vec::new();
    idents(t, &mut names);
    let symbol = |n: &String| n.starts_with("__PTX_SYMBOL__") || n.starts_with("__ptx_inst_");
    names.iter().any(|n| n == "Str") && names.iter().any(symbol) && names.last().is_some_and(|n| n.starts_with("__PTX_SYMBOL__") || n == "SYMBOL")
}

/// The names a body binds (patterns, closure parameters).
#[derive(Default)]
struct Bound(HashSet<String>);

impl<'ast> syn::visit::Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// Whether every path a method's body writes means the same wherever the body is compiled:
/// its bindings, `self`, `Self` or its type, a device-API function, a primitive, `core`'s, the
/// prelude's. A macro: std's assertions and panics only (their arguments become pieces,
/// checked apart).
struct Written<'a> {
    bound: &'a HashSet<String>,
    self_name: &'a str,
    apis: &'a HashSet<String>,
    ok: bool,
}

const PRELUDE: &[&str] = &["Some", "None", "Ok", "Err", "Option", "Result"];
const STD_MACROS: &[&str] = &["assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "panic", "unreachable", "todo", "unimplemented"];

impl Written<'_> {
    fn allowed(&self, p: &syn::Path) -> bool {
        let Some(first) = p.segments.first().map(|s| s.ident.to_string()) else { return false };
        if p.leading_colon.is_some() {
            return first == "core";
        }
        let single = p.segments.len() == 1;
        self.apis.contains(&crate::link::key(&crate::front::call::strip_generics(p)))
            || single && (self.bound.contains(&first) || first == "self")
            || first == "Self"
            || first == self.self_name
            || first == "core"
            || first == "str"
            || ptx_abi::Scalar::from_rust_name(&first).is_some()
            || single && PRELUDE.contains(&first.as_str())
    }
}

impl Written<'_> {
    /// `Self::EPS`, `Vec3::UP`: an associated constant, evaluated by rustc where the body is
    /// compiled, where a private one cannot be named (associated functions are called through
    /// their replays and public symbols, whatever their visibility).
    fn associated_value(&self, p: &syn::Path) -> bool {
        p.segments.len() > 1 && p.segments.first().is_some_and(|s| s.ident == "Self" || s.ident == self.self_name)
    }
}

impl<'ast> syn::visit::Visit<'ast> for Written<'_> {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.ok &= self.allowed(p);
        syn::visit::visit_path(self, p);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        match e {
            syn::Expr::Call(c) => {
                match &*c.func {
                    syn::Expr::Path(f) => self.visit_path(&f.path),
                    f => self.visit_expr(f),
                }
                for a in &c.args {
                    self.visit_expr(a);
                }
            }
            syn::Expr::Path(p) if self.associated_value(&p.path) => self.ok = false,
            _ => syn::visit::visit_expr(self, e),
        }
    }

    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        if let syn::Pat::Path(pp) = p {
            if self.associated_value(&pp.path) {
                self.ok = false;
            }
        }
        syn::visit::visit_pat(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.ok &= m.path.segments.len() == 1 && m.path.get_ident().is_some_and(|i| STD_MACROS.contains(&i.to_string().as_str()));
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {
        // An item in the body names things of its own scope.
        self.ok = false;
    }
}

/// The impl's type, written by its name, becomes `Self`: the kernel names it by its own path.
struct TypeToSelf<'a>(&'a str);

impl syn::visit_mut::VisitMut for TypeToSelf<'_> {
    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        if p.leading_colon.is_none() && p.segments.first().is_some_and(|s| s.ident == self.0) {
            let span = p.segments[0].ident.span();
            p.segments[0].ident = proc_macro2::Ident::new("Self", span);
        }
        syn::visit_mut::visit_path_mut(self, p);
    }
}

fn form(c: &Compiled) -> Option<InlineInfo> {
    let sig = &c.item.sig;
    if c.exported || c.checks > 0 || c.tables > 0 || crate::front::force_inline::is_never_inline(&c.item.attrs) || !sig.generics.params.is_empty() || sig.variadic.is_some() {
        return None;
    }
    for input in &sig.inputs {
        match input {
            syn::FnArg::Typed(pt) if matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none()) => {}
            _ => return None,
        }
    }
    let mut found: Vec<(&str, &Info)> = c.found.entries().collect();
    // In path order: the same function makes the same replay.
    found.sort_by_key(|(k, _)| *k);
    let mut apis = Vec::new();
    for (path, info) in found {
        match info {
            Info::Api(name) => apis.push((path.parse::<TokenStream>().ok()?, name.clone())),
            _ => return None,
        }
    }
    if !c.body.evaluated().chain(c.strings).all(own_piece) || !body_inlinable(c, &apis) {
        return None;
    }
    let mut item = c.item.clone();
    item.attrs.clear();
    item.vis = syn::Visibility::Inherited;
    Some(InlineInfo { item: crate::link::info::FnItem::new(item.to_token_stream()), apis })
}

/// Whether a piece rustc evaluates names only the function's own symbol, strings and lines:
/// nothing of its module's scope.
fn own_piece(t: &TokenStream) -> bool {
    own_piece_with(t, &[])
}

/// [`own_piece`], also allowing the names in `extra` (a method's type).
fn own_piece_with(t: &TokenStream, extra: &[&str]) -> bool {
    const OWN: &[&str] = &["ptx_runtime", "__private", "Piece", "Str", "Seq", "Dec", "FileRef", "ParamName", "symbol", "index", "__SYMBOL", "core", "line", "column", "file", "module_path", "u64", "usize", "as"];
    t.clone().into_iter().all(|tt| match tt {
        TokenTree::Ident(i) => {
            let s = i.to_string();
            OWN.contains(&s.as_str()) || extra.contains(&s.as_str())
        }
        TokenTree::Group(g) => own_piece_with(&g.stream(), extra),
        _ => true,
    })
}

/// PTX instructions in a `.func` body that stay when it is inlined: statements, not directives,
/// labels or braces, and not what only passes values in and out (its parameters' loads, its
/// result's stores, `ret`) or between registers (`mov`, which the copies of an inlined body
/// do not need either).
fn instructions(text: &str) -> usize {
    let passing = ["ld.param", "st.param", "ret;", "mov."];
    text.lines()
        .map(str::trim)
        .map(|l| l.split_once(' ').filter(|(g, _)| g.starts_with('@')).map_or(l, |(_, rest)| rest.trim_start()))
        .filter(|l| l.ends_with(';') && !l.starts_with('.') && !l.starts_with("//") && !passing.iter().any(|p| l.starts_with(p)))
        .count()
}

fn last_ident(path: &TokenStream) -> Option<String> {
    path.clone().into_iter().filter_map(|t| if let TokenTree::Ident(i) = t { Some(i.to_string()) } else { None }).last()
}

/// The names a body binds or spells in macro arguments, and whether it uses `?`.
#[derive(Default)]
struct Seen {
    names: Vec<String>,
    try_op: bool,
}

impl<'ast> syn::visit::Visit<'ast> for Seen {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn idents(ts: TokenStream, out: &mut Vec<String>) {
            for tt in ts {
                match tt {
                    TokenTree::Ident(i) => out.push(i.to_string()),
                    TokenTree::Group(g) => idents(g.stream(), out),
                    _ => {}
                }
            }
        }
        idents(m.tokens.clone(), &mut self.names);
    }

    fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
        self.try_op = true;
        syn::visit::visit_expr_try(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn pieces_of_the_function_itself_are_its_own() {
        assert!(own_piece(&quote!(::ptx_runtime::__private::Piece::Dec(::core::line!() as u64))));
        assert!(own_piece(&quote!(::ptx_runtime::__private::Piece::Seq(&[::ptx_runtime::__private::Piece::Str(__SYMBOL), ::ptx_runtime::__private::Piece::Str("$str$"), ::ptx_runtime::__private::Piece::Dec(2usize as u64)]))));
        assert!(own_piece(&quote!(::core::file!())));
        assert!(!own_piece(&quote!({ const __V: f32 = (PIO4) as f32; ::ptx_runtime::__private::Piece::Dec(f32::to_bits(__V) as u64) })));
        assert!(!own_piece(&quote!(::ptx_runtime::__private::Piece::Dec(N as u64))));
    }

    #[test]
    fn instructions_are_the_statements_an_inlined_body_keeps() {
        let text = "{\n\t.reg .b32 \t%r<6>;\n\n\t.loc\t1 9 30\n\tld.param.u32 \t%r2, [p];\n\tmov.u32 \t%r1, %ctaid.x;\n\tadd.s32 \t%r3, %r1, %r2;\n$L__BB1:\n\t@%p1 bra \t$L__BB1;\n\t@%p1 st.param.b32 \t[func_retval0], %r3;\n\tret;\n}";
        assert_eq!(instructions(text), 2, "the add and the branch");
    }
}
