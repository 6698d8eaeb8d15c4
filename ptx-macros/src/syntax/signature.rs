//! A kernel's or device function's signature, and the rules a signature must follow.

use super::types::{classify, Position, Ty};
use crate::report::Errors;

/// Which macro is compiling the function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FnKind {
    /// `#[kernel]`: a `.entry`.
    Kernel,
    /// `#[device_fn]`: a `.func`.
    Device,
}

impl FnKind {
    pub fn attr(self) -> &'static str {
        match self {
            FnKind::Kernel => "#[kernel]",
            FnKind::Device => "#[device_fn]",
        }
    }
}

pub struct Param {
    /// The binding; `None` for `_`.
    pub ident: Option<syn::Ident>,
    /// The classified type, `None` when it broke a rule (already reported).
    pub ty: Option<Ty>,
    /// The type as written.
    pub syn_ty: syn::Type,
}

pub struct Signature {
    pub params: Vec<Param>,
    /// The return type as written and classified; `None` for `()`.
    pub ret: Option<(syn::Type, Option<Ty>)>,
}

impl Signature {
    /// Parses `sig`, reporting every rule it breaks. `self_ty`: the function is a method of
    /// this type (a `#[device_fn] impl`), its receiver the first parameter, passed by value;
    /// a `&mut self` method returns the updated receiver (see `expand::method`).
    pub fn parse(sig: &syn::Signature, kind: FnKind, self_ty: Option<&syn::Type>, errors: &mut Errors) -> Signature {
        let attr = kind.attr();
        if let Some(a) = &sig.asyncness {
            errors.error(a, format!("{attr} functions cannot be `async`: device code has no executor; write a plain `fn`"));
        }
        if let Some(c) = &sig.constness {
            errors.error(c, format!("{attr} functions cannot be `const fn`; remove `const`"));
        }
        if let Some(abi) = &sig.abi {
            errors.error(abi, format!("{attr} functions take no `extern` ABI: the PTX calling convention is applied for you; remove `{}`", quote::quote!(#abi)));
        }
        if let Some(v) = &sig.variadic {
            errors.error(v, format!("{attr} functions cannot be variadic: PTX parameters are fixed; take a slice `&[T]` instead"));
        }
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            let generics = &sig.generics;
            // Lifetimes alone are harmless: they do not change the ABI.
            let only_lifetimes = generics.params.iter().all(|p| matches!(p, syn::GenericParam::Lifetime(_)))
                && generics.where_clause.is_none();
            if !only_lifetimes {
                errors.error(
                    generics,
                    format!("{attr} functions cannot be generic: each one is compiled to a single PTX function; write concrete types (a `macro_rules!` can stamp out one function per type)"),
                );
            }
        }

        let mut params = Vec::new();
        let mut mut_receiver = false;
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) if self_ty.is_some() => {
                    let ty = self_ty.cloned().unwrap_or_else(|| syn::parse_quote!(()));
                    mut_receiver = crate::link::info::Recv::of(r) == crate::link::info::Recv::Mut;
                    let classified = classify(&ty, Position::Param, errors);
                    params.push(Param { ident: Some(syn::Ident::new("self", r.self_token.span)), ty: classified, syn_ty: ty });
                }
                syn::FnArg::Receiver(r) => errors.error(
                    r,
                    format!("{attr} functions cannot be methods: `self` has no PTX counterpart; make it a free function and pass the value as a parameter"),
                ),
                syn::FnArg::Typed(pt) => {
                    let ident = match &*pt.pat {
                        syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => Some(pi.ident.clone()),
                        syn::Pat::Wild(_) => None,
                        other => {
                            errors.error(other, "parameter patterns are not supported in device signatures; bind a plain name (`x: T`) and destructure in the body");
                            None
                        }
                    };
                    let ty = classify_value(&pt.ty, kind, Position::Param, errors);
                    params.push(Param { ident, ty, syn_ty: (*pt.ty).clone() });
                }
            }
        }

        let ret = match &sig.output {
            syn::ReturnType::Default | syn::ReturnType::Type(..) if mut_receiver => {
                if let syn::ReturnType::Type(_, ty) = &sig.output {
                    if !is_unit(ty) {
                        errors.error(ty, "a `&mut self` device method cannot return a value yet: the updated receiver is its return value (copy-in/copy-out); return `()` and read the result from the receiver, or take `self` and return a new value");
                    }
                }
                let ty = self_ty.cloned().unwrap_or_else(|| syn::parse_quote!(()));
                let classified = classify(&ty, Position::Return, errors);
                Some((ty, classified))
            }
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, ty) if is_unit(ty) => None,
            syn::ReturnType::Type(arrow, ty) => {
                if kind == FnKind::Kernel {
                    errors.push(syn::Error::new_spanned(
                        quote::quote!(#arrow #ty),
                        "kernels cannot return a value: a PTX `.entry` has no return parameter; write the result through a `&mut [T]` or pointer parameter",
                    ));
                    None
                } else {
                    let classified = classify_value(ty, kind, Position::Return, errors);
                    Some(((**ty).clone(), classified))
                }
            }
        };

        Signature { params, ret }
    }
}

/// A device function's parameter or return type: also a tuple of device data, passed as the
/// C struct of its members (`ParamType` of tuples in `ptx_runtime`). A kernel's parameters are
/// the host's view of device memory, where a tuple has no layout, so they stay `classify`'s.
fn classify_value(ty: &syn::Type, kind: FnKind, pos: Position, errors: &mut Errors) -> Option<Ty> {
    match ty {
        syn::Type::Tuple(t) if kind == FnKind::Device && !t.elems.is_empty() => {
            let mut ok = true;
            for e in &t.elems {
                if let syn::Type::Tuple(_) = e {
                    errors.error(e, "a tuple parameter's members are passed as the C struct of them, and a tuple has no C layout to be a member; make the inner tuple a `#[repr(C)]` struct with `#[derive(DeviceRepr)]`, or flatten it");
                    ok = false;
                    continue;
                }
                ok &= classify(e, Position::Data, errors).is_some();
            }
            ok.then_some(Ty::Named)
        }
        syn::Type::Paren(p) => classify_value(&p.elem, kind, pos, errors),
        // `Option<T>` / `Result<T, E>`: a tag and the members (see `front::sum`).
        syn::Type::Path(p) if kind == FnKind::Device && sum_args(p).is_some() => {
            let mut ok = true;
            for a in sum_args(p).unwrap_or_default() {
                let unit = matches!(a, syn::Type::Tuple(t) if t.elems.is_empty());
                // `Option<&T>`: the reference passes as its address (`sum_ref`).
                let pos = if super::sum_ref::is_held_reference(a) { Position::Param } else { Position::Data };
                ok &= unit || classify_value(a, kind, pos, errors).is_some();
            }
            ok.then_some(Ty::Named)
        }
        _ => classify(ty, pos, errors),
    }
}

/// The type arguments of `Option<T>` / `Result<T, E>`.
fn sum_args(p: &syn::TypePath) -> Option<Vec<&syn::Type>> {
    let last = p.path.segments.last()?;
    let n = match last.ident.to_string().as_str() {
        "Option" => 1,
        "Result" => 2,
        _ => return None,
    };
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
    let tys: Vec<&syn::Type> = a.args.iter().filter_map(|g| if let syn::GenericArgument::Type(t) = g { Some(t) } else { None }).collect();
    (tys.len() == n && p.qself.is_none()).then_some(tys)
}

fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}
