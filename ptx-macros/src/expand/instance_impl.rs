//! `#[device_fn]` impls for one instance of a generic type: `impl Pair<f32> { fn sum(self) }`,
//! `impl Scale<f32> for Pair<f32>`, several instances each with their own, as rustc accepts.
//!
//! A call on a `Pair<f32>` knows the type's name and its arguments, but not whether the
//! method comes from a generic impl (`impl<T> Pair<T>`, whose replay is `Pair__sum__…`) or
//! from one instance's. So an instance's impl names its methods by the instance
//! (`Pair_f32__sum__needs_device_fn_impl_in_scope`, the arguments' keys as a generic trait's
//! are) and makes the type's name for each (`Pair__sum__…`) a marker, `per_instance`, through a
//! glob of a hidden module: the globs of several instances' impls name the same macro, which
//! rustc accepts. The caller fetches the type's name, finds the marker and fetches the
//! instance's (`front::user_method::method_info`). A call on an instance with no impl is one
//! error naming the instances that have it, where the type's module shows that no other impl
//! may define it (`front::plain_call::missing_instance_method`); elsewhere it fetches a name
//! nothing defines, rustc's "cannot find macro `Pair_u32__sum__needs_device_fn_impl_in_scope`".
//! Operators are keyed like methods (`Pair_f32__Add__…`) and named with their operand's type.
//!
//! Each method is the member of the class template's explicit specialization, as nvcc names
//! `template <> struct Pair<float> { float sum() const; }`'s: `krate::geo::Pair<float>::sum()
//! const` (the same name as a generic impl's instance).

use crate::report::Errors;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// An impl's self type when it is one instance of a generic type (`Pair<f32>`): the type's
/// name (`Pair`), the instance's (`Pair_f32`) and its arguments as `TemplateArg`s.
pub struct Instance {
    pub base: String,
    pub name: String,
    pub targs: Vec<TokenStream>,
}

/// `Some` for a path type whose last segment has arguments (and no other segment does).
pub fn of(self_ty: &syn::Type, errors: &mut Errors) -> Option<Instance> {
    let syn::Type::Path(p) = self_ty else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(ab) = &last.arguments else { return None };
    if p.qself.is_some() || p.path.segments.iter().rev().skip(1).any(|s| !s.arguments.is_empty()) {
        return None;
    }
    let mut targs = Vec::new();
    for a in &ab.args {
        match a {
            syn::GenericArgument::Type(t) => targs.push(super::generic_trait::type_arg(t, self_ty, errors)?),
            c @ syn::GenericArgument::Const(_) => match crate::front::generic::const_value(c) {
                Some(v) => {
                    let (value, negative) = (v.unsigned_abs() as u64, v < 0);
                    targs.push(quote!(::ptx_runtime::__private::TemplateArg::Int { code: "m", value: #value, negative: #negative }));
                }
                None => {
                    errors.error(c, "an impl for one instance of a generic type names it by types and integer literals (`impl Tile<4>`)");
                    return None;
                }
            },
            other => {
                errors.error(other, "an impl for one instance of a generic type names it by types and integer literals (`impl Pair<f32>`)");
                return None;
            }
        }
    }
    Some(Instance { base: last.ident.to_string(), name: super::generic_trait::type_key(self_ty, ""), targs })
}

/// The type's names of an instance's methods (`keys`: each name the impl defines under the
/// instance's), each the `per_instance` marker through a glob (see the module's docs).
pub fn markers(inst: &Instance, keys: &[String], span: Span) -> TokenStream {
    let mut out = TokenStream::new();
    for key in keys {
        let alias = super::method::replay_name(&inst.base, key, span);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&(alias.to_string(), &inst.name, span.start().line, span.start().column), &mut h);
        let module = format_ident!("__ptx_instance_{}_{:x}", inst.name, std::hash::Hasher::finish(&h));
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, unused_imports)]
            mod #module {
                pub use ::ptx_runtime::__private::per_instance as #alias;
            }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub use #module::*;
        });
    }
    out
}
