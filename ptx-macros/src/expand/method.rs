//! `#[device_fn]` on an `impl` block: every method becomes a device function.
//!
//! A method call `v.dot(o)` has no path a replay could be found by; the body compiler knows
//! `v`'s type and the path it reached the type by (`geo::Vec3`). So each method leaves its
//! replay next to the type, under a name made of the type's and the method's
//! ([`replay_name`]: `geo::Vec3__dot__needs_device_fn_impl_in_scope!`, a name that reads as
//! guidance when it is missing), and its node and symbol as hidden associated constants of the
//! type (`Vec3::__PTX_NODE__dot`), which rustc resolves from any module. For an impl of `core::ops`
//! traits the key is the trait and its right operand (`Mul_scalar`, `Add`), so `a + b * s`
//! lowers to calls of these functions. Per method the impl expands to (besides itself):
//!
//! ```text
//! <replay> pub use <replay> as Vec3__dot__needs_device_fn_impl_in_scope;
//! impl Vec3 { pub const __PTX_SYMBOL__dot: &str; pub const __PTX_NODE__dot: &FnNode; }
//! mod __ptx_Vec3__dot { use super::*; static NODE: FnNode; ... }   // once compiled
//! ```
//!
//! Receivers: `self` and `&self` arrive by value (the type is `Copy` data; `&self` reads the
//! same bytes), `&mut self` by copy-in/copy-out: the function returns the updated receiver and
//! the caller stores it back into the place it was called on. An operator with a primitive on
//! the left (`impl Mul<Vec3> for f32`) is anchored at its right operand's type instead.
//!
//! Why not `#[macro_export]` replays named from the crate root (`$crate::Vec3__dot!`): rustc
//! refuses macro-expanded `macro_export` macros named by absolute paths inside their own crate
//! (`macro_expanded_macro_exports_accessed_by_absolute_paths`, deny by default), and the derive
//! cannot know its module path, so nothing on the type's side can lead to its methods.

use super::{node_items, Compiled};
use crate::link::info::{Info, MethodInfo, Recv};
use crate::report::Errors;
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;

/// The `core::ops` traits a `#[device_fn] impl` can implement: trait, method, Itanium
/// operator code. `Index` and `IndexMut` are reshaped for values in registers (see
/// `index_ops`).
pub const OPS: [(&str, &str, &str); 13] = [
    ("Add", "add", "pl"),
    ("Sub", "sub", "mi"),
    ("Mul", "mul", "ml"),
    ("Div", "div", "dv"),
    ("Rem", "rem", "rm"),
    ("Neg", "neg", "ng"),
    ("AddAssign", "add_assign", "pL"),
    ("SubAssign", "sub_assign", "mI"),
    ("MulAssign", "mul_assign", "mL"),
    ("DivAssign", "div_assign", "dV"),
    ("RemAssign", "rem_assign", "rM"),
    ("Index", "index", "ix"),
    ("IndexMut", "index_mut", "ix"),
];

/// The name a method's replay is re-exported under, next to its type.
/// A type spelled with arguments (a built-in generic such as `FragmentC<i32>`, which has no
/// user methods), as the type or as an operator's right operand in the key, gets an identifier
/// that names no replay, so rustc reports the missing impl at the call instead of the macro
/// panicking: every character an identifier cannot hold becomes `_`.
pub fn replay_name(ty: &str, key: &str, span: Span) -> proc_macro2::Ident {
    let name: String = format!("{ty}__{key}__needs_device_fn_impl_in_scope")
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) { format!("_{name}") } else { name };
    proc_macro2::Ident::new(&name, span)
}

/// The operand of an operator in an impl for one instance of a generic type (`impl Add for
/// Pair<f32>`), as a `TemplateArg`: the class itself (`Self`, or the instance written out) as
/// its name, which the mangling abbreviates; a primitive's code; `v` for a unary operator.
fn instance_operand(f: &syn::ImplItemFn, self_ty: &syn::Type, class: &str, errors: &mut Errors) -> Option<TokenStream> {
    let p = quote!(::ptx_runtime::__private);
    let Some(syn::FnArg::Typed(pt)) = f.sig.inputs.iter().nth(1) else { return Some(quote!(#p::TemplateArg::Builtin("v"))) };
    let t = &*pt.ty;
    let is_self = matches!(t, syn::Type::Path(tp) if tp.path.is_ident("Self")) || t.to_token_stream().to_string() == self_ty.to_token_stream().to_string();
    if is_self {
        return Some(quote!(#p::TemplateArg::Struct { path: ::core::module_path!(), name: #class }));
    }
    super::generic_trait::type_arg(t, self_ty, errors)
}

/// The key of an operator impl: the trait, and `_scalar` or `_<Type>` for a right operand that
/// is not the type itself.
pub fn op_key(trait_name: &str, rhs: Option<&str>) -> String {
    match rhs {
        None => trait_name.to_owned(),
        Some(r) => format!("{trait_name}_{r}"),
    }
}

/// What a method's compile rounds carry besides the function: the type as written at the impl,
/// the type whose associated constants hold its node and symbol (the same, except for an
/// operator with a primitive on the left: its right operand's type), and the method's key.
pub struct MethodCx {
    pub self_ty: syn::Type,
    pub anchor: syn::Type,
    pub key: String,
    /// Whether bodies may inline it: its last round leaves the module `inline_module` names.
    pub inline: bool,
}

impl MethodCx {
    /// `{ self_ty } { anchor } { key } { inline }`, ahead of the item in the chain's state.
    pub fn write(&self) -> TokenStream {
        let (t, a, k, i) = (&self.self_ty, &self.anchor, &self.key, self.inline);
        quote!({#t} {#a} {#k} {#i})
    }

    pub fn read(item: TokenStream) -> Option<(MethodCx, TokenStream)> {
        let mut it = item.into_iter();
        let brace = proc_macro2::Delimiter::Brace;
        let self_ty = syn::parse2(crate::link::info::group(it.next()?, brace)?).ok()?;
        let anchor = syn::parse2(crate::link::info::group(it.next()?, brace)?).ok()?;
        let key: syn::LitStr = syn::parse2(crate::link::info::group(it.next()?, brace)?).ok()?;
        let inline: syn::LitBool = syn::parse2(crate::link::info::group(it.next()?, brace)?).ok()?;
        Some((MethodCx { self_ty, anchor, key: key.value(), inline: inline.value }, it.collect()))
    }

    fn module(&self) -> proc_macro2::Ident {
        // An instance of a generic type by its arguments too (`Pair_f32`), as each instance
        // may have its own impl.
        let ty: String = super::generic_trait::type_key(&self.anchor, "").chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }).collect();
        format_ident!("__ptx_{}__{}", ty, self.key)
    }

    fn node_const(&self) -> proc_macro2::Ident {
        format_ident!("__PTX_NODE__{}", self.key)
    }
}

pub fn symbol_const_name(key: &str) -> proc_macro2::Ident {
    format_ident!("__PTX_SYMBOL__{}", key)
}

fn type_name(t: &syn::Type) -> String {
    match t {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        _ => String::new(),
    }
}

/// For an impl that failed before its methods were compiled (its errors said why): a replay per
/// method under the name callers fetch (`Sq__area__needs_device_fn_impl_in_scope`) that ends
/// their fetch chain without a word, so a kernel calling `x.area()` adds no error of its own
/// (rustc's ``cannot find macro``) to the impl's.
fn silent_replays(imp: &syn::ItemImpl, ty_name: &str) -> TokenStream {
    let mut out = TokenStream::new();
    for item in &imp.items {
        let syn::ImplItem::Fn(f) = item else { continue };
        let name = replay_name(ty_name, &f.sig.ident.to_string(), f.sig.ident.span());
        let mac = crate::link::replay::unique_name("failed", &f.sig.ident, &quote!(#imp));
        out.extend(quote! {
            #[doc(hidden)]
            #[macro_export]
            macro_rules! #mac {
                ($($t:tt)*) => {};
            }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub use #mac as #name;
        });
    }
    out
}

/// `#[device_fn] impl ...`: the impl itself, and per method its replay, symbol and compile round.
pub fn device_impl(args: TokenStream, imp: syn::ItemImpl) -> TokenStream {
    impl_methods(args, imp, super::trait_def::Origin::Written)
}

/// The methods of `imp` as device functions. `origin`: an impl as written (emitted itself, and
/// for a user trait followed by the trait's default methods) or the trait's default methods the
/// impl leaves out (see `trait_def`), of which only the device functions are emitted.
pub fn impl_methods(args: TokenStream, mut imp: syn::ItemImpl, origin: super::trait_def::Origin) -> TokenStream {
    let mut errors = Errors::new();
    // `#[device_fn]` repeated on a method of a `#[device_fn] impl` says nothing more; a method
    // only device code calls is used.
    for item in &mut imp.items {
        if let syn::ImplItem::Fn(f) = item {
            f.attrs.retain(|a| !a.path().is_ident("device_fn"));
            f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
        }
    }
    let generic = !imp.generics.params.is_empty() || imp.generics.where_clause.is_some();
    if generic {
        return super::generic::generic_impl(args, imp, origin);
    }
    // `impl Scale<f32> for Pair<f32>`: one instance of a generic type, its methods named by
    // the instance (see `instance_impl`).
    let instance = super::instance_impl::of(&imp.self_ty, &mut errors);
    let ty_name = match &*imp.self_ty {
        _ if generic => String::new(),
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_empty()) => type_name(&imp.self_ty),
        _ if instance.is_some() => instance.as_ref().map(|i| i.name.clone()).unwrap_or_default(),
        syn::Type::Path(p) if p.qself.is_none() && !errors.is_empty() => String::new(),
        other => {
            errors.error(other, "`#[device_fn]` impls are for a `#[derive(DeviceRepr)]` type named by a path (`impl Vec3`); references and generic types are not supported");
            String::new()
        }
    };
    // For a trait impl: its entry in OPS and the right operand's part of the key.
    let mut op = None;
    // `impl From<X> for T`, `impl TryFrom<X> for T` (see `from_impl`).
    let mut from: Option<super::from_impl::Conversion> = None;
    let mut scalar_lhs = None;
    // For an impl of a user trait (`#[device_fn] trait`): the invocation of the trait's replay
    // that compiles the default methods this impl leaves out.
    let mut defaults = TokenStream::new();
    // For a generic trait's impl: the trait's path, its arguments' keys and template arguments.
    let mut gtrait: Option<(syn::Path, Vec<String>, Vec<TokenStream>)> = None;
    // Its arguments as written, which a generic method's instances are named by.
    let mut gtrait_args = TokenStream::new();
    // An impl of a trait with const parameters (`impl Dims<3> for Vec3`): its methods are
    // compiled by the trait's replay with the rest (see `trait_def::user_trait_impl`).
    let mut delegated = false;
    if let Some((bang, path, _)) = &imp.trait_ {
        if let Some(b) = bang {
            errors.error(b, "negative impls have no device code; remove `#[device_fn]`");
        }
        let last = path.segments.last();
        let name = last.map(|s| s.ident.to_string()).unwrap_or_default();
        let is_from = name == "From" || name == "TryFrom";
        if is_from {
            from = super::from_impl::conversion(&name, last, &ty_name, &mut errors);
            if from.is_none() && errors.is_empty() {
                // Between primitives: rustc's orphan rule refuses the impl; nothing to add.
                return imp.to_token_stream();
            }
        }
        match OPS.iter().find(|(t, _, _)| *t == name).filter(|_| !is_from) {
            Some(entry) => {
                let rhs_ty = match last.map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) => match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => Some(t.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                if Scalar::from_rust_name(&ty_name).is_some() {
                    // `impl Mul<Vec3> for f32`: `2.0 * v`, anchored at the right operand's type.
                    match &rhs_ty {
                        Some(t @ syn::Type::Path(p)) if OPS[..5].contains(entry) && !p.path.is_ident(&ty_name) && p.path.segments.iter().all(|s| s.arguments.is_empty()) => scalar_lhs = Some(t.clone()),
                        _ => errors.error(&imp.self_ty, "an operator with a primitive on the left is `impl Add<T> for f32` (`Add`, `Sub`, `Mul`, `Div`, `Rem`) with a `DeviceRepr` type `T` on the right"),
                    }
                }
                let rhs = rhs_ty.as_ref().and_then(|t| rhs_key(t, &ty_name, &mut errors));
                op = Some((*entry, rhs));
            }
            None if is_from => {}
            None => {
                if let Some(d) = super::trait_def::user_trait_impl(path, &imp, &args, origin, &mut errors) {
                    defaults = d;
                }
                // A generic trait's impl (`impl Scale<f32> for Vec3`): its methods keyed and
                // named by the trait's arguments (see `generic_trait`).
                let targs = super::generic_trait::trait_args(path, &mut errors);
                if !targs.is_empty() {
                    let keys: Vec<String> = targs.iter().map(|t| super::generic_trait::arg_key(t, &ty_name)).collect();
                    // A const argument's type is the trait's: the trait's round compiles the
                    // methods (`delegated`), with the argument suffixed.
                    delegated = origin == super::trait_def::Origin::Written && super::generic_trait::has_const_arg(path);
                    let margs = if delegated { Vec::new() } else { super::generic_trait::template_args(&targs, &imp.self_ty, &mut errors) };
                    gtrait = Some((super::generic_trait::bare(path), keys, margs));
                    // Empty where an argument is a const (not named yet).
                    if !targs.iter().any(|a| matches!(a, super::generic_trait::TraitArg::Const(..))) {
                        gtrait_args = super::generic_trait::type_args(&targs, &imp.self_ty);
                    }
                }
            }
        }
    }
    if let (Some(inst), true) = (&instance, from.is_some() || scalar_lhs.is_some()) {
        errors.error(&imp.self_ty, format!("conversion impls and operators with a primitive on the left for one instance of a generic type are not supported in device code yet: write the impl generic over the type's parameters (`impl<T: ..> From<T> for {}<T>`)", inst.base));
    }
    if !errors.is_empty() {
        let e = errors.to_compile_errors();
        return match origin {
            super::trait_def::Origin::Written => {
                let silent = if op.is_none() && from.is_none() && !ty_name.is_empty() { silent_replays(&imp, &ty_name) } else { TokenStream::new() };
                quote!(#imp #e #silent)
            }
            super::trait_def::Origin::Defaults => e,
        };
    }
    let self_ty = (*imp.self_ty).clone();
    // A user trait for a primitive: its functions hang on a hidden struct next to the impl
    // (`__ptx_Float_for_f32`), found through the trait's path (see `front::traits`).
    let prim = match (&op, &imp.trait_) {
        (None, Some((_, path, _))) if from.is_none() && Scalar::from_rust_name(&ty_name).is_some() => path.segments.last().map(|s| {
            // A generic trait's impls for one primitive (`Scale<f32>`, `Scale<u32>`) each have their own.
            let keys = gtrait.as_ref().map(|(_, k, _)| format!("_{}", k.join("_"))).unwrap_or_default();
            super::trait_def::prim_anchor(&format!("{}{keys}", s.ident), &ty_name)
        }),
        _ => None,
    };
    let anchor = match &prim {
        Some(p) => syn::parse_quote!(#p),
        None => scalar_lhs.clone().or_else(|| from.as_ref().and_then(|c| c.anchor.clone())).unwrap_or_else(|| self_ty.clone()),
    };
    // An instance's methods are named by the instance (`Pair_f32`).
    let anchor_name = if instance.is_some() { ty_name.clone() } else { type_name(&anchor) };
    // The names an instance's impl defines, each marked under the type's name.
    let mut instance_keys: Vec<String> = Vec::new();
    // `type Output = T;`: what `Self::Output` means in the impl's signatures.
    let output = imp.items.iter().find_map(|i| match i {
        syn::ImplItem::Type(t) if t.ident == "Output" => Some(t.ty.clone()),
        _ => None,
    });
    let error_ty = imp.items.iter().find_map(|i| match i {
        syn::ImplItem::Type(t) if t.ident == "Error" && from.is_some() => Some(t.ty.clone()),
        _ => None,
    });
    let mut out = TokenStream::new();
    // A user trait's associated types: `Self::Out` in the methods, and their replays.
    let assoc = super::assoc_types::of(&imp);
    if op.is_none() && from.is_none() && imp.trait_.is_some() && gtrait.is_none() && origin == super::trait_def::Origin::Written {
        out.extend(super::assoc_types::replays(&assoc, &anchor_name, &self_ty));
    }
    let mut symbols = Vec::new();
    for item in &imp.items {
        let syn::ImplItem::Fn(f) = item else { continue };
        if delegated {
            continue;
        }
        let name = f.sig.ident.to_string();
        if crate::front::generic::is_generic(&f.sig) && op.is_none() {
            if let (Some(inst), Some(_)) = (&instance, &imp.trait_) {
                errors.error(&f.sig.generics, format!("generic methods of a trait's impl for one instance of a generic type are not supported in device code yet: give the method concrete parameter types, or write the impl generic (`impl<T> Trait for {}<T>`)", inst.base));
            } else if instance.is_some() {
                // An inherent impl's generic method, keyed by the instance as its other methods.
                out.extend(super::generic::generic_method_replay(&ty_name, &name, &self_ty, f, TokenStream::new()));
                instance_keys.push(name.clone());
            } else if prim.is_some() {
                errors.error(&f.sig.generics, "generic methods of a trait implemented for a primitive are not supported in device code: give the method concrete parameter types, or implement the trait for a `DeviceRepr` type");
            } else if gtrait.is_some() && gtrait_args.is_empty() {
                errors.error(&f.sig.generics, "generic methods of a device trait with const parameters are not supported yet: give the method concrete parameter types, or make its parameters the trait's (`trait Dims<const N: usize, U>`)");
            } else if let Some((trait_path, keys, _)) = &gtrait {
                // Keyed by the trait's arguments, reached by the call as the impl's other
                // methods are (see `generic_trait`).
                let mut method = f.clone();
                super::assoc_types::AssocToType(&assoc).visit_impl_item_fn_mut(&mut method);
                let key = super::generic_trait::method_key(&name, keys);
                out.extend(super::generic::generic_method_replay(&ty_name, &key, &self_ty, &method, gtrait_args.clone()));
                let span = f.sig.ident.span();
                let named = |key: &str| replay_name(&anchor_name, key, span);
                out.extend(super::generic_trait::dispatch_alias(trait_path, named(&name), &name, &key, span));
                out.extend(super::generic_trait::literal_aliases(keys, &named, &name, &named(&key), span));
            } else {
                out.extend(super::generic::generic_method_replay(&ty_name, &name, &self_ty, f, TokenStream::new()));
            }
            continue;
        }
        let (key, symbol) = match &op {
            Some(((trait_name, method, code), rhs)) => {
                if name != *method {
                    errors.error(&f.sig.ident, format!("`{trait_name}` has one method, `{method}`"));
                    continue;
                }
                let params = match f.sig.inputs.iter().nth(1) {
                    None => "v".to_owned(),
                    // A free operator of the namespace: `operator*(float, krate::m::Vec3)`.
                    Some(_) if scalar_lhs.is_some() => format!("{}N#{}{}E", param_code(&self_ty, ""), anchor_name.len(), anchor_name),
                    Some(syn::FnArg::Typed(pt)) => param_code(&pt.ty, &ty_name),
                    Some(_) => String::new(),
                };
                let key = if scalar_lhs.is_some() { format!("{trait_name}_scalar_lhs") } else { op_key(trait_name, rhs.as_deref()) };
                (key, ((*code).to_owned(), true, params))
            }
            None => match &from {
                Some(c) if name == c.method => (c.key.clone(), (c.symbol.0.clone(), false, c.symbol.1.clone())),
                Some(c) => {
                    errors.error(&f.sig.ident, format!("this conversion trait has one method, `{}`", c.method));
                    continue;
                }
                None => match &gtrait {
                    Some((_, keys, _)) => (super::generic_trait::method_key(&name, keys), (name.clone(), false, String::new())),
                    None => (name.clone(), (name.clone(), false, String::new())),
                },
            },
        };
        let mut method = f.clone();
        if let Some(out) = &output {
            OutputToType(out).visit_impl_item_fn_mut(&mut method);
        }
        super::assoc_types::AssocToType(&assoc).visit_impl_item_fn_mut(&mut method);
        if let Some(e) = &error_ty {
            super::from_impl::ErrorToType(e).visit_impl_item_fn_mut(&mut method);
        }
        SelfToType(&self_ty).visit_impl_item_fn_mut(&mut method);
        let reshaped = match name.as_str() {
            "index" if op.is_some() => super::index_ops::index_by_value(&mut method, &mut errors),
            "index_mut" if op.is_some() => super::index_ops::index_mut_as_setter(&mut method, &mut errors),
            _ => true,
        };
        if !reshaped {
            continue;
        }
        let recv = match method.sig.inputs.first() {
            // The primitive is the first parameter of a function of the right operand's type.
            _ if scalar_lhs.is_some() => Recv::Assoc,
            Some(syn::FnArg::Receiver(r)) => Recv::of(r),
            _ => Recv::Assoc,
        };
        // Bodies may inline a plain method or operator of a plain type (`front::inline_method`;
        // whether it qualifies is decided once it is compiled, `inline_form::method_replay`).
        let inlinable = origin == super::trait_def::Origin::Written
            && instance.is_none()
            && prim.is_none()
            && scalar_lhs.is_none()
            && from.is_none()
            && gtrait.is_none()
            && (imp.trait_.is_none() || op.is_some())
            && !matches!(name.as_str(), "index" | "index_mut");
        let info = Info::Method(MethodInfo {
            // A generic trait's method is called by its key (see `generic_trait`).
            name: if gtrait.is_some() { key.clone() } else { name.clone() },
            recv,
            params: method
                .sig
                .inputs
                .iter()
                .filter_map(|a| match a {
                    syn::FnArg::Typed(pt) => Some(pt.ty.to_token_stream()),
                    syn::FnArg::Receiver(_) if scalar_lhs.is_some() => Some(self_ty.to_token_stream()),
                    syn::FnArg::Receiver(_) => None,
                })
                .collect(),
            ret: match &method.sig.output {
                syn::ReturnType::Default => None,
                syn::ReturnType::Type(_, t) => Some(t.to_token_stream()),
            },
            instance: None,
            inlinable,
            fetched: None,
        });
        let export = replay_name(&anchor_name, &key, f.sig.ident.span());
        let vis: syn::Visibility = syn::parse_quote!(pub);
        out.extend(match inlinable {
            true => crate::link::replay::emit_inlinable_method(&export, &vis, &method.to_token_stream(), &info),
            false => crate::link::replay::emit("method", &export, &vis, &method.to_token_stream(), &info),
        });
        if let Some(p) = &prim {
            // Method syntax on the primitive (`x.halve()`, see `front::prim_method`): one more
            // name made of the primitive's and the method's, the replay in the macro namespace
            // and the hidden struct in the type namespace.
            let alias = crate::front::prim_method::alias(&ty_name, &key, f.sig.ident.span());
            out.extend(crate::link::replay::emit("method", &alias, &vis, &method.to_token_stream(), &info));
            out.extend(quote!(#[doc(hidden)] #[allow(non_camel_case_types)] pub type #alias = #p;));
        }
        let (sym_name, operator, params) = symbol;
        let konst = matches!(recv, Recv::Value | Recv::Ref);
        let class = match &prim {
            None if from.as_ref().is_some_and(|c| c.anchor.is_some()) => anchor_name.clone(),
            // `krate::m::Float_f32::zero`: the trait for the primitive, as a class.
            Some(_) => format!("{}_{ty_name}", imp.trait_.as_ref().and_then(|t| t.1.segments.last()).map(|s| s.ident.to_string()).unwrap_or_default()),
            None if scalar_lhs.is_some() => String::new(),
            None => ty_name.clone(),
        };
        let sym_const = symbol_const_name(&key);
        // A member template's arguments: a generic trait's (`Vec3::scale<float>`); an instance's
        // methods are members of the class template's specialization (`Pair<float>::sum`).
        let template = if let Some((trait_path, keys, margs)) = &gtrait {
            // A primitive's names are those method syntax on it fetches (`front::prim_method`).
            let span = f.sig.ident.span();
            let named = |key: &str| match &prim {
                Some(_) => crate::front::prim_method::alias(&ty_name, key, span),
                None => replay_name(&anchor_name, key, span),
            };
            // The plain name is the type's, which an instance's call fetches first.
            let plain = match &instance {
                Some(inst) => replay_name(&inst.base, &name, span),
                None => named(&name),
            };
            out.extend(super::generic_trait::dispatch_alias(trait_path, plain, &name, &key, span));
            out.extend(super::generic_trait::literal_aliases(keys, &named, &name, &named(&key), span));
            if instance.is_some() {
                instance_keys.extend(super::generic_trait::alias_keys(keys).into_iter().map(|k| super::generic_trait::method_key(&name, &k)));
            }
            Some(margs.clone())
        } else {
            instance.as_ref().map(|_| Vec::new())
        };
        match template {
            Some(margs) => {
                let (class, args) = match &instance {
                    Some(inst) => (inst.base.clone(), inst.targs.clone()),
                    None => (class, Vec::new()),
                };
                // An instance's operator carries its operand's type, as nvcc's
                // `Pair<float>::operator+(Pair<float>) const` does (see `instance_operand`).
                let op_params = match (&instance, operator) {
                    (Some(_), true) => match instance_operand(f, &imp.self_ty, &class, &mut errors) {
                        Some(t) => vec![t],
                        None => continue,
                    },
                    _ => Vec::new(),
                };
                symbols.push(quote! {
                    #[doc(hidden)]
                    pub const #sym_const: &'static str = ::ptx_runtime::__private::ptx_text![::ptx_runtime::__private::Piece::MemberTemplate {
                        path: ::core::module_path!(), class: #class, args: &[#(#args),*], name: #sym_name, margs: &[#(#margs),*], konst: #konst, operator: #operator, params: &[#(#op_params),*],
                    }];
                });
            }
            None => symbols.push(quote! {
                #[doc(hidden)]
                pub const #sym_const: &'static str = ::ptx_runtime::__private::ptx_text![::ptx_runtime::__private::Piece::Member {
                    path: ::core::module_path!(), ty: #class, name: #sym_name, operator: #operator, konst: #konst, params: #params,
                }];
            }),
        }
        let item = syn::ItemFn { attrs: method.attrs.clone(), vis: syn::Visibility::Inherited, sig: method.sig.clone(), block: Box::new(method.block.clone()) };
        if instance.is_some() {
            instance_keys.push(key.clone());
        }
        let cx = MethodCx { self_ty: self_ty.clone(), anchor: anchor.clone(), key, inline: inlinable };
        out.extend(super::method_first_round(args.clone(), item, cx));
    }
    if let Some(inst) = &instance {
        out.extend(super::instance_impl::markers(inst, &instance_keys, syn::spanned::Spanned::span(&imp.self_ty)));
    }
    let e = errors.to_compile_errors();
    let prim_struct = match (&prim, origin) {
        (Some(p), super::trait_def::Origin::Written) => quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            pub struct #p;
        },
        _ => TokenStream::new(),
    };
    let imp = match origin {
        super::trait_def::Origin::Written => imp.to_token_stream(),
        super::trait_def::Origin::Defaults => TokenStream::new(),
    };
    quote! {
        #imp
        #prim_struct
        #[allow(non_upper_case_globals)]
        impl #anchor { #(#symbols)* }
        #out
        #defaults
        #e
    }
}

/// The right operand's part of an operator impl's key: none for the type itself, `scalar` for
/// a primitive, the type's name otherwise.
pub(crate) fn rhs_key(t: &syn::Type, ty_name: &str, errors: &mut Errors) -> Option<String> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => {
            let n = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            if n == "Self" || n == ty_name {
                None
            } else if p.path.segments.len() == 1 && Scalar::from_rust_name(&n).is_some() {
                Some("scalar".into())
            } else {
                Some(n)
            }
        }
        other => {
            errors.error(other, "the right operand of a device operator is a value: a primitive or a `DeviceRepr` type (references are not supported)");
            None
        }
    }
}

/// A parameter type's Itanium encoding (nvcc's for the C++ equivalent): builtin codes for
/// primitives, `$` (the class) for the type itself, the plain source name otherwise.
pub(super) fn param_code(t: &syn::Type, ty_name: &str) -> String {
    let syn::Type::Path(p) = t else { return String::new() };
    let n = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    if n == "Self" || n == ty_name {
        return "$".into();
    }
    match Scalar::from_rust_name(&n) {
        Some(s) => scalar_code(s).into(),
        None => format!("{}{}", n.len(), n),
    }
}

/// A primitive's Itanium builtin code, as nvcc encodes the C++ type it passes as (`usize` is
/// `unsigned long`, `f16` `_Float16`).
pub fn scalar_code(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "b",
        Scalar::I8 => "a",
        Scalar::U8 => "h",
        Scalar::I16 => "s",
        Scalar::U16 => "t",
        Scalar::I32 => "i",
        Scalar::U32 => "j",
        Scalar::I64 => "l",
        Scalar::U64 => "m",
        Scalar::F16 => "DF16_",
        Scalar::BF16 => "DF16b",
        Scalar::F32 => "f",
        Scalar::F64 => "d",
    }
}

/// `Self::Output` becomes the impl's `type Output`.
pub(crate) struct OutputToType<'t>(pub(crate) &'t syn::Type);

impl VisitMut for OutputToType<'_> {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(p) = t {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if p.qself.is_none() && segs == ["Self", "Output"] {
                *t = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `Self` (in types, paths and struct literals) becomes the impl's type, so a method compiles
/// as a free function would.
pub(crate) struct SelfToType<'t>(pub(crate) &'t syn::Type);

impl VisitMut for SelfToType<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_none() && path.segments.first().is_some_and(|s| s.ident == "Self") {
            if let syn::Type::Path(tp) = self.0 {
                let span = path.segments[0].ident.span();
                let mut segs: Vec<syn::PathSegment> = tp.path.segments.iter().cloned().collect();
                for s in &mut segs {
                    s.ident.set_span(span);
                }
                let rest: Vec<syn::PathSegment> = path.segments.iter().skip(1).cloned().collect();
                path.leading_colon = tp.path.leading_colon;
                path.segments = segs.into_iter().chain(rest).collect();
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_receiver_mut(&mut self, _: &mut syn::Receiver) {
        // Left as written: `&self` prints as `&self: &Vec3` once its implied type changes.
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {
        // A nested item has its own `Self`.
    }
}

/// The final round of a method: its hidden module and node constant.
pub fn expand(c: Compiled, m: &MethodCx) -> TokenStream {
    let module = m.module();
    let node_const = m.node_const();
    let anchor = &m.anchor;
    let inner_ty = crate::syntax::rewrite::for_inner_module(anchor);
    let sym_const = symbol_const_name(&m.key);
    let node = node_items(&c);
    let inline = inline_module(m, &c.item.sig.ident, c.inline.clone().unwrap_or_default());
    quote! {
        #[doc(hidden)]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals)]
        mod #module {
            use super::*;
            const __SYMBOL: &str = <#inner_ty>::#sym_const;
            #node
        }
        #[allow(non_upper_case_globals)]
        impl #anchor {
            #[doc(hidden)]
            pub const #node_const: &'static ::ptx_runtime::__private::FnNode = &#module::NODE;
        }
        #inline
    }
}

/// For a method bodies may inline (`MethodCx::inline`), the module beside its replay that a
/// fetch of the method chains to (`link::replay::emit_inlinable_method`), named as the replay:
/// `__ptx_inline`, the inline form or `NoInline` (`inline_form::method_replay`), and `__PATH`,
/// the method's path (`m::Vec3::dot`), which a failed check in the inlined body names.
fn inline_module(m: &MethodCx, method: &syn::Ident, replay: TokenStream) -> TokenStream {
    if !m.inline {
        return TokenStream::new();
    }
    let name = replay_name(&type_name(&m.anchor), &m.key, Span::call_site());
    let path_const = format_ident!("__PTX_PATH__{}", m.key);
    let (anchor, inner_ty) = (&m.anchor, crate::syntax::rewrite::for_inner_module(&m.anchor));
    let function = format!("::{}::{method}", type_name(&m.anchor));
    quote! {
        #[allow(non_upper_case_globals)]
        impl #anchor {
            #[doc(hidden)]
            pub const #path_const: &'static str = ::core::concat!(::core::module_path!(), #function);
        }
        #[doc(hidden)]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals)]
        pub mod #name {
            use super::*;
            #replay
            pub const __PATH: &str = <#inner_ty>::#path_const;
        }
    }
}

/// A method that failed to compile still defines its node (empty), so calls elsewhere report
/// nothing more than its own errors.
pub fn stub(m: &MethodCx) -> TokenStream {
    let node_const = m.node_const();
    let anchor = &m.anchor;
    let no_inline = crate::link::replay::emit("inl", &format_ident!("__ptx_inline"), &syn::parse_quote!(pub), &quote!(#anchor), &crate::link::info::Info::NoInline);
    let inline = inline_module(m, &format_ident!("{}", m.key), no_inline);
    quote! {
        #inline
        #[allow(non_upper_case_globals)]
        impl #anchor {
            #[doc(hidden)]
            pub const #node_const: &'static ::ptx_runtime::__private::FnNode = &::ptx_runtime::__private::FnNode {
                symbol: "", prototype: "", body: "", callees: &[], isa: ::ptx_runtime::__private::Isa::ABI_CALLS, files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[],
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expand(item: syn::ItemImpl) -> String {
        let out = super::device_impl(quote!(), item);
        syn::parse2::<syn::File>(out.clone()).expect("the expansion is items");
        out.to_string()
    }

    #[test]
    fn receivers_keep_their_spelling_and_each_method_has_its_replay() {
        let out = expand(syn::parse_quote! {
            impl Ray {
                pub fn at(&self, t: f32) -> Vec3 { self.origin }
                pub fn push(&mut self, d: Self) { self.origin = d; }
            }
        });
        // `&self` with its implied type changed would print as `&self: &Ray`, which does not parse
        // as a method again.
        assert!(!out.contains("self : &"), "{out}");
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("as Ray__at__needs_device_fn_impl_in_scope") && out.contains("as Ray__push__needs_device_fn_impl_in_scope"), "{out}");
        assert!(out.contains("@ method push by_mut ([Ray]) []"), "`Self` is the type in the replay: {out}");
    }

    /// Odd impls give errors (or expand), never a panic, and the output is still items.
    #[test]
    fn odd_impls_do_not_panic() {
        let cases: Vec<syn::ItemImpl> = vec![
            syn::parse_quote!(impl Add for &Vec3 { type Output = Vec3; fn add(self, o: &Vec3) -> Vec3 { *o } }),
            syn::parse_quote!(impl<T> Pair<T> { fn a(self) -> T { self.a } }),
            syn::parse_quote!(impl Mul<[f32; 3]> for Vec3 { type Output = Vec3; fn mul(self, o: [f32; 3]) -> Vec3 { self } }),
            syn::parse_quote!(impl Mul<f32> for f64 { type Output = f64; fn mul(self, o: f32) -> f64 { self } }),
            syn::parse_quote!(impl Index<usize> for V { fn index(&self, i: usize) -> f32 { self.a } }),
            syn::parse_quote!(impl IndexMut<usize> for V { fn index_mut(&mut self, i: usize) { } }),
            syn::parse_quote!(impl Neg for V { type Output = V; fn neg(self) -> V { self } fn extra(self) {} }),
            syn::parse_quote!(impl V { const A: f32 = 1.0; type X = u32; }),
            syn::parse_quote!(impl V {}),
            syn::parse_quote!(impl Drop for V { fn drop(&mut self) {} }),
            syn::parse_quote!(impl !Send for V {}),
            syn::parse_quote!(impl V { fn f(self: Box<Self>) {} fn g<T>(&self, t: T) {} async fn h(&self) {} }),
            syn::parse_quote!(impl Pair<f32> { fn s(self) -> f32 { self.a } fn g<U>(self, u: U) {} }),
            syn::parse_quote!(impl Scale<f32> for Pair<Pair<V>> { fn scale(self, by: f32) -> Self { self } }),
            syn::parse_quote!(impl Tile<{ 2 + 2 }> { fn s(self) {} }),
            syn::parse_quote!(impl Mix<f32> for V { fn mix<U: Into<f32>>(&self, by: f32, u: U) -> f32 { by } }),
        ];
        for item in cases {
            let out = super::device_impl(quote!(), item);
            syn::parse2::<syn::File>(out.clone()).unwrap_or_else(|e| panic!("{e}: {out}"));
        }
    }

    #[test]
    fn operator_keys_name_the_right_operand() {
        let out = expand(syn::parse_quote! {
            impl Mul<f32> for Vec3 { type Output = Vec3; fn mul(self, s: f32) -> Vec3 { self } }
        });
        assert!(out.contains("Vec3__Mul_scalar__needs_device_fn_impl_in_scope") && out.contains("name : \"ml\"") && out.contains("params : \"f\""), "{out}");
        let out = expand(syn::parse_quote! {
            impl Add<Vec3> for Vec3 { type Output = Vec3; fn add(self, o: Self) -> Vec3 { o } }
        });
        assert!(out.contains("Vec3__Add__needs_device_fn_impl_in_scope") && out.contains("params : \"$\""), "{out}");
    }
}
