//! A call of a function that is not a device function: one error at the call that names the
//! function, where it is defined and the attribute to add, instead of rustc's ``cannot find
//! macro `helper` `` for the replay the call would fetch (see `syntax::source_index` for how
//! the definition is found, and where it is not).

use super::hir::Expr;
use super::ty::StructDef;
use super::Checker;
use crate::expand::method::OPS;
use crate::syntax::source_index;
use proc_macro2::Span;
use syn::spanned::Spanned;

impl Checker<'_> {
    /// The error for a call of `path` when its definition is a plain function in the call's
    /// own source files; `None` (fetch the callee's replay as usual) otherwise.
    pub fn plain_call(&mut self, path: &syn::Path, span: Span) -> Option<Expr> {
        let mut segs: Vec<String> = Vec::new();
        if path.leading_colon.is_some() {
            segs.push("::".to_owned());
        }
        segs.extend(path.segments.iter().map(|s| s.ident.to_string()));
        let at = path.segments.first().map(|s| s.ident.span()).unwrap_or_else(|| path.span());
        let def = source_index::plain_fn(at, &segs)?;
        let name = segs.last().cloned().unwrap_or_default();
        let what = if def.generic { "a plain generic function" } else { "a plain function" };
        let also = if def.generic { " (each instance is then compiled where it is called)" } else { "" };
        let name_span = path.segments.last().map(|s| s.ident.span()).unwrap_or(at);
        self.errors.at(
            name_span,
            format!(
                "`{name}` is {what} (defined at {}:{}): device code can call only `#[device_fn]` functions; add `#[device_fn]` to it{also}, or inline its code",
                source_index::display(&def.file),
                def.line
            ),
        );
        Some(self.error_expr(span))
    }

    /// Reports a method, associated function or operator (`key`, as the replay names it) of
    /// `def` that an impl without `#[device_fn]` defines in the type's module; `false` (fetch
    /// the replay as usual) otherwise.
    pub fn plain_method(&mut self, def: &StructDef, key: &str, span: Span) -> bool {
        let Ok(ty) = syn::parse2::<syn::Path>(def.path.clone()) else { return false };
        let ty: Vec<String> = ty.segments.iter().map(|s| s.ident.to_string()).collect();
        let op = OPS.iter().find(|(t, _, _)| key == *t || key.strip_prefix(t).is_some_and(|r| r.starts_with('_')));
        let (name, of_trait) = match op {
            Some((t, m, _)) => (*m, Some(*t)),
            None => (key, None),
        };
        let Some(found) = source_index::plain_method(span, &ty, name, of_trait) else { return false };
        let at = format!("{}:{}", source_index::display(&found.file), found.line);
        let base = def.base_name();
        let msg = match &found.of_trait {
            Some(t) => format!("`{t}` of `{base}` is implemented without `#[device_fn]` (`impl {t} for {base}` at {at}): device code can use only operators of a `#[device_fn] impl`; add `#[device_fn]` to the impl"),
            None => format!("`{name}` is defined by an `impl {base}` without `#[device_fn]` (at {at}): device code can call only methods of a `#[device_fn] impl`; add `#[device_fn]` to the impl"),
        };
        self.errors.at(span, msg);
        true
    }
}
