//! Generic kernels: `#[kernel(instances(f32, f64))] fn scale<T: ..>(..)` compiles one `.entry`
//! per declared instance, and `scale::launch::<f32>(..)` launches one of them.
//!
//! ```text
//! #[kernel(instances(f32, f64))] pub fn scale<T>(a: T, x: &mut [T]) { .. }
//!   => the function (for the host), and per instance (arguments substituted, no generics) a
//!      kernel compiled as any other, in a hidden module, its entry named as nvcc names the
//!      instance of the function template (`_ZN5krate6kernel5scaleIfEE`, `Piece::Template`):
//!        mod __ptx_scale_0 { PTX, ENTRY, KERNEL, launch }
//!      and the module users name:
//!        mod scale {
//!            pub struct Instances;
//!            #[diagnostic::on_unimplemented(..how to declare it..)]
//!            pub trait Instance<T> { const KERNEL; const PTX; const ENTRY; }
//!            impl Instance<f32> for Instances { .. __ptx_scale_0 .. }
//!            pub fn launch<T>(stream, config, a: impl KernelArg<T>, x: impl KernelArg<&mut [T]>)
//!                where Instances: Instance<T>;
//!        }
//! ```
//!
//! Several parameters are declared as tuples: `instances((f32, 4), (f64, 8))` for
//! `fn k<T, const N: usize>`. Launching an instance that is not declared is rustc's unsatisfied
//! bound `Instances: Instance<u32>`, whose message (`diagnostic::on_unimplemented`) says how to
//! declare it.

use crate::front::generic::{const_value, Subst};
use crate::report::Errors;
use crate::syntax::signature::FnKind;
use proc_macro2::{Span, TokenStream, TokenTree};
use ptx_abi::Scalar;
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;
use syn::parse::Parser;
use syn::visit_mut::VisitMut;

/// The hidden attribute an instance's item carries to its compile rounds: its symbol.
const SYMBOL_ATTR: &str = "ptx_instance_symbol";

/// Whether the attribute's arguments have `instances(..)`.
pub fn declares_instances(args: &TokenStream) -> bool {
    split_args(args).0.is_some()
}

/// Removes the instance symbol attribute, returning its `Piece`.
pub fn take_symbol(attrs: &mut Vec<syn::Attribute>) -> Option<TokenStream> {
    let i = attrs.iter().position(|a| a.path().is_ident(SYMBOL_ATTR))?;
    let a = attrs.remove(i);
    match a.meta {
        syn::Meta::List(l) => Some(l.tokens),
        _ => None,
    }
}

/// `instances(..)` (its parenthesized tokens and the span of `instances`), and the other
/// arguments.
fn split_args(args: &TokenStream) -> (Option<(Span, TokenStream)>, TokenStream) {
    let mut chunks: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for tt in args.clone() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => chunks.push(Vec::new()),
            _ => chunks.last_mut().into_iter().for_each(|c| c.push(tt.clone())),
        }
    }
    let mut found = None;
    let mut rest = Vec::new();
    for c in chunks {
        match &c[..] {
            [TokenTree::Ident(i), TokenTree::Group(g)] if i == "instances" && g.delimiter() == proc_macro2::Delimiter::Parenthesis && found.is_none() => {
                found = Some((i.span(), g.stream()));
            }
            [] => {}
            _ => rest.push(c.into_iter().collect::<TokenStream>()),
        }
    }
    (found, quote!(#(#rest),*))
}

/// One declared instance: its arguments, in the order of the kernel's parameters.
fn parse_instances(tokens: TokenStream) -> syn::Result<Vec<Vec<syn::GenericArgument>>> {
    let one = |input: syn::parse::ParseStream| -> syn::Result<Vec<syn::GenericArgument>> {
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            let args = content.parse_terminated(<syn::GenericArgument as syn::parse::Parse>::parse, syn::Token![,])?;
            Ok(args.into_iter().collect())
        } else {
            Ok(vec![input.parse()?])
        }
    };
    let parser = |input: syn::parse::ParseStream| -> syn::Result<Vec<Vec<syn::GenericArgument>>> {
        let mut out = Vec::new();
        while !input.is_empty() {
            out.push(one(input)?);
            if input.is_empty() {
                break;
            }
            input.parse::<syn::Token![,]>()?;
        }
        Ok(out)
    };
    parser.parse2(tokens)
}

/// A kernel's generic parameter: a type, or a const with its type's Itanium code.
enum Param {
    Type(syn::Ident),
    Const(syn::Ident, &'static str, syn::Type),
}

/// `#[kernel]` on a generic function, or with `instances(..)`.
pub fn definition(args: TokenStream, item: syn::ItemFn) -> TokenStream {
    let mut errors = Errors::new();
    let (instances, rest) = split_args(&args);
    let ident = item.sig.ident.clone();
    let generic = crate::front::generic::is_generic(&item.sig);
    let how = format!("`#[kernel(instances(f32, f64))]` (one type per instance; `instances((f32, 4), (f64, 8))` for several parameters), then launch one with `{ident}::launch::<f32>(..)`");
    let Some((span, list)) = instances else {
        errors.error(&item.sig.generics, format!("a generic kernel is compiled once per declared instance: list them, {how}"));
        return quote!(#item #errors);
    };
    if !generic {
        errors.at(span, format!("`instances(..)` declares the instances of a generic kernel, and `{ident}` has no type or const parameters: remove it"));
        let e = errors.to_compile_errors();
        let round = super::first_round(FnKind::Kernel, rest, item.to_token_stream());
        return quote!(#round #e);
    }
    let list = match parse_instances(list) {
        Ok(l) if !l.is_empty() => l,
        Ok(_) => {
            errors.at(span, format!("list at least one instance: {how}"));
            return quote!(#item #errors);
        }
        Err(e) => {
            errors.push(syn::Error::new(e.span(), format!("{e}: {how}")));
            return quote!(#item #errors);
        }
    };
    let mut params = Vec::new();
    for p in &item.sig.generics.params {
        match p {
            syn::GenericParam::Type(t) => params.push(Param::Type(t.ident.clone())),
            syn::GenericParam::Const(c) => {
                let code = match &c.ty {
                    syn::Type::Path(tp) => tp.path.get_ident().and_then(|i| Scalar::from_rust_name(&i.to_string())).filter(|s| s.is_integral() || *s == Scalar::Bool).map(super::method::scalar_code),
                    _ => None,
                };
                match code {
                    Some(code) => params.push(Param::Const(c.ident.clone(), code, c.ty.clone())),
                    None => errors.error(&c.ty, "const parameters of kernels are integers or `bool`"),
                }
            }
            syn::GenericParam::Lifetime(_) => {}
        }
    }
    if !errors.is_empty() {
        return quote!(#item #errors);
    }
    let p = quote!(::ptx_runtime::__private);
    let vis = &item.vis;
    let mut instance_items = TokenStream::new();
    let mut impls = Vec::new();
    for (n, inst) in list.iter().enumerate() {
        if inst.len() != params.len() {
            errors.at(span, format!("each instance of `{ident}` gives its {} generic argument(s), in order (`instances((f32, 4))` for `<T, const N: usize>`)", params.len()));
            continue;
        }
        let mut types = HashMap::new();
        let mut consts = HashMap::new();
        let mut targs = Vec::new();
        let mut trait_args = Vec::new();
        for (param, arg) in params.iter().zip(inst) {
            match (param, arg) {
                (Param::Type(name), syn::GenericArgument::Type(t)) => match template_arg(t) {
                    Some(targ) => {
                        types.insert(name.to_string(), t.clone());
                        targs.push(targ);
                        trait_args.push(t.to_token_stream());
                    }
                    None => errors.error(t, "an instance's type is a primitive or a non-generic `DeviceRepr` struct named by a path"),
                },
                (Param::Const(name, code, _), a) => match const_value(a).or_else(|| match a {
                    // `4` parses as a type-less const argument; a bare literal may also come as an expression.
                    syn::GenericArgument::Type(syn::Type::Verbatim(v)) => syn::parse2::<syn::LitInt>(v.clone()).ok().and_then(|l| l.base10_parse().ok()),
                    _ => None,
                }) {
                    Some(v) => {
                        consts.insert(name.to_string(), (v, *code));
                        let (value, negative) = (v.unsigned_abs() as u64, v < 0);
                        targs.push(quote!(#p::TemplateArg::Int { code: #code, value: #value, negative: #negative }));
                        trait_args.push(quote!({ #a }));
                    }
                    None => errors.error(a, format!("the const parameter `{name}` takes an integer literal here")),
                },
                (Param::Type(name), other) => errors.error(other, format!("`{name}` is a type parameter: give a type")),
            }
        }
        if !errors.is_empty() {
            continue;
        }
        let mut concrete = item.clone();
        concrete.sig.generics = syn::Generics::default();
        Subst::new(types, consts).visit_item_fn_mut(&mut concrete);
        let module = format_ident!("__ptx_{}_{}", ident.to_string().trim_start_matches("r#"), n);
        concrete.sig.ident = module.clone();
        concrete.attrs.retain(|a| !a.path().is_ident("kernel"));
        let attr = format_ident!("{}", SYMBOL_ATTR);
        let symbol = quote!(#p::Piece::Template { path: super::#ident::__PTX_MODULE, args: &[#(#targs),*] });
        concrete.attrs.push(syn::parse_quote!(#[#attr(#symbol)]));
        instance_items.extend(super::round(FnKind::Kernel, rest.clone(), (concrete.to_token_stream(), None), quote!(), Vec::new(), true, None));
        impls.push(quote! {
            impl Instance<#(#trait_args),*> for Instances {
                const KERNEL: &'static ::ptx_runtime::Kernel = &super::#module::KERNEL;
                const PTX: &'static str = super::#module::PTX;
                const ENTRY: &'static str = super::#module::ENTRY;
            }
        });
    }
    if !errors.is_empty() {
        return quote!(#item #errors);
    }
    // The launcher, generic over the kernel's parameters, bound by the declared instances.
    let generics_decl: Vec<TokenStream> = params
        .iter()
        .map(|p| match p {
            Param::Type(i) => quote!(#i: 'static),
            Param::Const(i, _, t) => quote!(const #i: #t),
        })
        .collect();
    let generics_use: Vec<TokenStream> = params
        .iter()
        .map(|p| match p {
            Param::Type(i) | Param::Const(i, _, _) => quote!(#i),
        })
        .collect();
    let trait_params = generics_decl.clone();
    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut raw = false;
    for (i, a) in item.sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(pt) = a else { continue };
        let name = match &*pt.pat {
            syn::Pat::Ident(pi) if !["stream", "config"].contains(&pi.ident.to_string().as_str()) => pi.ident.clone(),
            syn::Pat::Ident(pi) => format_ident!("{}_", pi.ident),
            _ => format_ident!("arg{}", i),
        };
        raw |= matches!(&*pt.ty, syn::Type::Ptr(_));
        names.push(name);
        types.push(crate::syntax::rewrite::for_inner_module(&pt.ty));
    }
    let unsafety = raw.then(|| quote!(unsafe));
    let shown: Vec<String> = list.iter().map(|i| if i.len() == 1 { i[0].to_token_stream().to_string() } else { format!("({})", i.iter().map(|a| a.to_token_stream().to_string()).collect::<Vec<_>>().join(", ")) }).collect();
    let param_list = generics_use.iter().map(|g| format!("{{{g}}}")).collect::<Vec<_>>().join(", ");
    let message = format!("the generic kernel `{ident}` has no instance `{ident}::<{param_list}>`");
    let note = format!("each instance of a generic kernel is compiled to its own PTX entry: add this one to its declaration, `#[kernel(instances({}, ..))]`", shown.join(", "));
    let doc = format!("PTX and launcher of the generic kernel [`{ident}`](fn@{ident}), compiled for its declared instances: {}.", shown.join(", "));
    let mut launch_doc = format!("Launches the instance of [`{ident}`](fn@super::{ident}) at the given arguments (`{ident}::launch::<{}>(..)`) on `stream`: one argument per kernel parameter, in order. Only the declared instances can be launched.", shown[0].trim_matches(|c| c == '(' || c == ')'));
    if raw {
        launch_doc.push_str("\n\n# Safety\nThe kernel takes raw pointers: every pointer argument must be valid device memory for every access the kernel makes.");
    }
    let trait_doc = format!("The declared instances of `{ident}`: the kernel, its PTX and its entry per instance (`<{ident}::Instances as {ident}::Instance<f32>>::PTX`).");
    quote! {
        #[allow(dead_code)]
        #item
        #instance_items
        #[doc = #doc]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals, non_camel_case_types)]
        #vis mod #ident {
            use super::*;
            #[doc(hidden)]
            pub const __PTX_MODULE: &str = ::core::module_path!();
            /// Implements [`Instance`] for each declared instance.
            pub struct Instances;
            #[doc = #trait_doc]
            #[diagnostic::on_unimplemented(message = #message, label = "not a declared instance", note = #note)]
            pub trait Instance<#(#trait_params),*> {
                const KERNEL: &'static ::ptx_runtime::Kernel;
                const PTX: &'static str;
                const ENTRY: &'static str;
            }
            #(#impls)*
            #[doc = #launch_doc]
            #[allow(clippy::too_many_arguments)]
            pub #unsafety fn launch<'__a, #(#generics_decl),*>(
                stream: &'__a ::ptx_runtime::Stream,
                config: ::ptx_runtime::LaunchConfig,
                #(#names: impl ::ptx_runtime::KernelArg<#types> + '__a),*
            ) -> ::ptx_runtime::Result<()>
            where
                Instances: Instance<#(#generics_use),*>,
            {
                let mut __args = ::ptx_runtime::Args::new(stream);
                #( ::ptx_runtime::KernelArg::<#types>::push(#names, &mut __args)?; )*
                stream.launch_kernel(<Instances as Instance<#(#generics_use),*>>::KERNEL, config, __args)
            }
        }
    }
}

/// An instance's type as a `TemplateArg` (named from the instance's module).
fn template_arg(t: &syn::Type) -> Option<TokenStream> {
    let p = quote!(::ptx_runtime::__private);
    let syn::Type::Path(tp) = t else { return None };
    if tp.qself.is_some() || tp.path.segments.iter().any(|s| !s.arguments.is_empty()) {
        return None;
    }
    let last = tp.path.segments.last()?.ident.to_string();
    if let Some(s) = Scalar::from_rust_name(&last).filter(|_| tp.path.segments.len() == 1) {
        if matches!(s, Scalar::F16 | Scalar::BF16) {
            return None;
        }
        let code = super::method::scalar_code(s);
        return Some(quote!(#p::TemplateArg::Builtin(#code)));
    }
    let inner = crate::syntax::rewrite::for_inner_module(t);
    Some(quote!(#p::TemplateArg::Struct { path: <#inner as ::ptx_runtime::DeviceRepr>::MODULE_PATH, name: #last }))
}
