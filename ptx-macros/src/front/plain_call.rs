//! A use of an item that is not a device item (a plain function, a method of an impl or a
//! trait without `#[device_fn]`, a type without `#[derive(DeviceRepr)]`): one error at the use
//! that names the item, where it is defined and the attribute to add, instead of rustc's
//! ``cannot find macro `helper` `` for the replay the use would fetch (see
//! `syntax::source_index` for how the definition is found, and where it is not).

use super::hir::Expr;
use super::ty::StructDef;
use super::Checker;
use crate::expand::method::OPS;
use crate::syntax::source_index;
use proc_macro2::{Span, TokenStream};
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

    /// Whether method syntax on the primitive `prim` (`x.name()`, fetching `alias`) was
    /// reported as one of the cases below, where the fetch cannot succeed.
    pub fn prim_method_reported(&mut self, prim: &str, name: &str, alias: &str, span: Span) -> bool {
        self.plain_prim_method(prim, name, span) || self.unseen_prim_method(prim, name, alias, span) || self.missing_prim_method(prim, name, alias, span)
    }

    /// Whether the method `key` of `def` (fetching `replay`; `per_instance`: the instance's
    /// name, see `expand::instance_impl`) was reported as one of the cases below.
    pub fn method_reported(&mut self, def: &StructDef, key: &str, replay: &str, per_instance: bool, span: Span) -> bool {
        let missing = per_instance && super::user_method::instance_name(def).is_some_and(|n| self.missing_instance_method(def, &n, key, span));
        missing || self.plain_method(def, key, span) || self.unseen_method(def, key, replay, span)
    }

    /// Reports a method that method syntax on the primitive `prim` cannot reach where it is
    /// called: the crate's `#[device_fn]` impls that define it are in a module whose items are
    /// not glob-imported here (so `alias`, the name the call fetches, is not in scope); `false`
    /// (fetch as usual) otherwise.
    fn unseen_prim_method(&mut self, prim: &str, name: &str, alias: &str, span: Span) -> bool {
        let Some(u) = source_index::unseen_prim_impl(span, prim, name, alias) else { return false };
        let t = &u.of_trait;
        let (module, import) = import_hint(u.module.as_deref());
        self.errors.at(
            span,
            format!(
                "`{name}` of `{prim}` is defined by `#[device_fn] impl {t} for {prim}`{module} (at {}:{}), whose items are not glob-imported here: method syntax on a primitive finds a trait's impl through its module's items; add {import}, or call it through the trait (`{t}::{name}(x, ..)`)",
                source_index::display(&u.file),
                u.line
            ),
        );
        true
    }

    /// Reports a method, associated function or operator (`key`) of a `DeviceRepr` type written
    /// by its name alone (`use geo::Vec3;`) where its module's items are not glob-imported: the
    /// replay the call fetches (`replay`) lives in that module, out of reach (see
    /// `source_index::unseen_type_impl`); `false` (fetch as usual) otherwise.
    fn unseen_method(&mut self, def: &StructDef, key: &str, replay: &str, span: Span) -> bool {
        let Some((ty, name, of_trait)) = method_target(def, key) else { return false };
        let Some((found, module)) = source_index::unseen_type_impl(span, &ty, name, of_trait, replay) else { return false };
        let base = def.base_name();
        let (place, import) = import_hint(module.as_deref());
        let what = match of_trait {
            Some(t) => format!("`{t}` of `{base}`"),
            None => format!("`{name}` of `{base}`"),
        };
        self.errors.at(
            span,
            format!(
                "{what} is defined by a `#[device_fn] impl`{place} (at {}:{}), whose items are not glob-imported here: device code reaches a type's methods through its module, and `use` of the type alone does not bring them; add {import}, or name the type by its module's path",
                source_index::display(&found.file),
                found.line
            ),
        );
        true
    }

    /// Reports a method that neither the primitive `prim` nor any `#[device_fn]` impl the call
    /// can reach has (`x.frobnicate()`), instead of fetching `alias`, which then cannot exist:
    /// only where every glob of the call's module can be followed, for a call in the item
    /// being compiled (an instance's body is written in another item, maybe another module);
    /// `false` (fetch as usual) otherwise. rustc's E0599 at the same token follows where the
    /// host has no such method either.
    fn missing_prim_method(&mut self, prim: &str, name: &str, alias: &str, span: Span) -> bool {
        if !in_item_body(span) || !source_index::prim_method_unreachable(span, prim, name, alias) {
            return false;
        }
        self.errors.at(
            span,
            format!(
                "`{name}` is not a method of `{prim}` in device code: `{prim}` has no such built-in method, and no `#[device_fn] impl` of a trait for `{prim}` that defines it is in scope here; implement a `#[device_fn]` trait for `{prim}` in a module whose items are glob-imported here (`use path::to::module::*;`), or use one of the built-in methods (docs/body-compiler.md lists them)"
            ),
        );
        true
    }

    /// Reports a method of a generic type's instance (`instance`: `Pair_u32`) that only
    /// `#[device_fn]` impls for other instances define (`impl Pair<f32> { fn total }`), instead
    /// of fetching the instance's replay, which then cannot exist; `false` (fetch as usual)
    /// otherwise. rustc's E0599 at the same token follows where the host has no such method.
    fn missing_instance_method(&mut self, def: &StructDef, instance: &str, name: &str, span: Span) -> bool {
        let Some(ty) = segments(&def.path) else { return false };
        let user_trait = |t: &str| !OPS.iter().any(|(op, _, _)| *op == t) && super::traits::is_user_trait_name(t);
        let Some(impls) = source_index::instance_impls(span, &ty, name, user_trait) else { return false };
        let mut written = Vec::new();
        for (self_ty, _, of_trait) in &impls {
            let Ok(t) = syn::parse_str::<syn::Type>(self_ty) else { return false };
            // An impl for this instance (a trait's may have the method as a default).
            if crate::expand::generic_trait::type_key(&t, "") == instance {
                return false;
            }
            if !of_trait {
                written.push(format!("`{}`", quote::ToTokens::to_token_stream(&t).to_string().replace(' ', "")));
            }
        }
        let Some((_, first, _)) = impls.iter().find(|i| !i.2) else { return false };
        let base = def.base_name();
        self.errors.at(
            span,
            format!(
                "`{name}` is defined for {} by `#[device_fn] impl`s for single instances (at {}:{}), not for `{}`: add `#[device_fn] impl {}` with it, or define it once in a generic impl (`impl<T> {base}<T>`)",
                written.join(", "),
                source_index::display(&first.file),
                first.line,
                def.name,
                def.name
            ),
        );
        true
    }

    /// Reports a type written `path` that the call's own files define without
    /// `#[derive(DeviceRepr)]` (its use would fetch a replay the type does not leave: rustc's
    /// ``cannot find macro `Plain` ``); `false` (fetch as usual) otherwise.
    pub fn plain_type(&mut self, path: &TokenStream, span: Span) -> bool {
        let Ok(p) = syn::parse2::<syn::Path>(path.clone()) else { return false };
        if p.leading_colon.is_some() || p.segments.iter().any(|s| !s.arguments.is_empty()) {
            return false;
        }
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(def) = source_index::plain_type(span, &segs) else { return false };
        let name = segs.last().cloned().unwrap_or_default();
        self.errors.at(
            span,
            format!(
                "`{name}` has no `#[derive(DeviceRepr)]` (defined at {}:{}): device code uses only types with a device layout; add `#[derive(DeviceRepr)]` (and `#[repr(C)]`) to it",
                source_index::display(&def.file),
                def.line
            ),
        );
        true
    }

    /// `Trait::method(..)` (`trait_path`: `Trait`) of a trait defined without `#[device_fn]` in
    /// the call's own files: one error at the trait's name (the call would fetch a replay the
    /// trait does not leave).
    pub fn plain_trait_call(&mut self, trait_path: &syn::Path, span: Span) -> Option<Expr> {
        let need = "device code calls the methods of `#[device_fn]` traits through `#[device_fn] impl`s";
        let e = plain_trait(trait_path, need, " and to its impls")?;
        self.errors.push(e);
        Some(self.error_expr(span))
    }

    /// Reports a method, associated function or operator (`key`, as the replay names it) of
    /// `def` that an impl without `#[device_fn]` defines in the type's module; `false` (fetch
    /// the replay as usual) otherwise.
    fn plain_method(&mut self, def: &StructDef, key: &str, span: Span) -> bool {
        let Some((ty, name, of_trait)) = method_target(def, key) else { return false };
        let Some(found) = source_index::plain_method(span, &ty, name, of_trait) else { return false };
        let at = format!("{}:{}", source_index::display(&found.file), found.line);
        let base = def.base_name();
        let msg = match (&found.of_trait, of_trait) {
            (Some(t), Some(_)) => format!("`{t}` of `{base}` is implemented without `#[device_fn]` (`impl {t} for {base}` at {at}): device code can use only operators of a `#[device_fn] impl`; add `#[device_fn]` to the impl"),
            (Some(t), None) => format!("`{name}` is defined by an `impl {t} for {base}` without `#[device_fn]` (at {at}): device code can call only methods of a `#[device_fn] impl`; add `#[device_fn]` to the impl (and to `trait {t}`, if it has none)"),
            (None, _) => format!("`{name}` is defined by an `impl {base}` without `#[device_fn]` (at {at}): device code can call only methods of a `#[device_fn] impl`; add `#[device_fn]` to the impl"),
        };
        self.errors.at(span, msg);
        true
    }

    /// Reports a method that method syntax on the primitive `prim` reaches only through impls
    /// of traits without `#[device_fn]` (every impl of a trait for `prim` in the crate that
    /// defines `name` is plain); `false` (fetch the replay as usual) otherwise.
    fn plain_prim_method(&mut self, prim: &str, name: &str, span: Span) -> bool {
        let Some(found) = source_index::plain_prim_impl(span, prim, name) else { return false };
        let t = found.of_trait.unwrap_or_default();
        self.errors.at(
            span,
            format!(
                "`{name}` of `{prim}` is defined by an `impl {t} for {prim}` without `#[device_fn]` (at {}:{}): device code can call only methods of a `#[device_fn] impl`; add `#[device_fn]` to the impl (and to `trait {t}`, if it has none)",
                source_index::display(&found.file),
                found.line
            ),
        );
        true
    }
}

/// The error for a use of the trait written `path` when it is defined without `#[device_fn]`
/// in the use's own source files (the use would fetch a replay the trait does not leave:
/// rustc's ``cannot find macro `Area` ``); `None` otherwise. `need` says what needs the
/// attribute, `also` what else to annotate.
pub fn plain_trait(path: &syn::Path, need: &str, also: &str) -> Option<syn::Error> {
    let last = path.segments.last()?;
    if path.leading_colon.is_some() || path.segments.iter().any(|s| !s.arguments.is_empty() && s != last) {
        return None;
    }
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let at = last.ident.span();
    let def = source_index::plain_trait(at, &segs)?;
    let (name, file, line) = (&last.ident, source_index::display(&def.file), def.line);
    Some(syn::Error::new(at, format!("the trait `{name}` has no `#[device_fn]` (defined at {file}:{line}): {need}; add `#[device_fn]` to `trait {name}`{also}")))
}

thread_local! {
    /// Where the body of the item being compiled is: its file and its braces' lines and columns.
    static ITEM_BODY: std::cell::RefCell<Option<(std::path::PathBuf, proc_macro2::LineColumn, proc_macro2::LineColumn)>> = const { std::cell::RefCell::new(None) };
}

/// Records the body of the item a round compiles (its braces' span), for [`in_item_body`].
pub fn set_item_body(braces: Span) {
    let body = braces.local_file().map(|f| (f, braces.start(), braces.end()));
    ITEM_BODY.with(|b| *b.borrow_mut() = body);
}

/// Whether `span` is in the body of the item being compiled (not in a generic function's
/// instance, whose body is written in another item, maybe in another module).
pub(super) fn in_item_body(span: Span) -> bool {
    let (Some(file), at) = (span.local_file(), span.start()) else { return false };
    ITEM_BODY.with(|b| {
        b.borrow().as_ref().is_some_and(|(f, start, end)| *f == file && (start.line, start.column) <= (at.line, at.column) && (at.line, at.column) < (end.line, end.column))
    })
}

/// The type a method `key` (as the replay names it) is looked up on, by its path's segments,
/// and the function the impl defines for it: the method, or an operator trait's method with
/// the trait (`Add` is `add` of `Add`, `Mul_scalar` `mul` of `Mul`).
fn method_target<'k>(def: &StructDef, key: &'k str) -> Option<(Vec<String>, &'k str, Option<&'static str>)> {
    let ty = segments(&def.path)?;
    let op = OPS.iter().find(|(t, _, _)| key == *t || key.strip_prefix(t).is_some_and(|r| r.starts_with('_')));
    Some(match op {
        Some((t, m, _)) => (ty, *m, Some(*t)),
        None => (ty, key, None),
    })
}

/// A path's segments by name (generic arguments left out), as the source index looks them up.
fn segments(path: &TokenStream) -> Option<Vec<String>> {
    let p = syn::parse2::<syn::Path>(path.clone()).ok()?;
    Some(p.segments.iter().map(|s| s.ident.to_string()).collect())
}

/// Where an impl's module is and the `use` that brings its items (`crate::num`), from its path
/// when the crate's root is known.
fn import_hint(module: Option<&str>) -> (String, String) {
    match module {
        Some(m) => (format!(" in `{m}`"), format!("`use {m}::*;`")),
        None => (String::new(), "a glob import of its module's items (`use path::to::module::*;`)".to_owned()),
    }
}
