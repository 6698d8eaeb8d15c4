//! `#[derive(DeviceRepr)]` on a `#[repr(C)]` struct or union.
//!
//! The layout is computed by the guide's rules (`ptx_abi::layout`) from the fields' own layouts
//! and checked, during constant evaluation, against rustc's `size_of`, `align_of` and
//! `offset_of!` of every field: if the two ever disagreed, host and device would read different
//! bytes, so that is a compile error.

use crate::front::ty::StructKind;
use crate::link::info::{Info, StructInfo};
use crate::report::Errors;
use crate::syntax::types::{classify, Position};
use proc_macro2::TokenStream;
use ptx_abi::layout::MAX_AGGREGATE_ALIGN;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// What `#[repr(...)]` says.
#[derive(Default)]
struct Repr {
    c: bool,
    transparent: bool,
    align: Option<usize>,
}

fn parse_repr(attrs: &[syn::Attribute], errors: &mut Errors) -> Repr {
    let mut repr = Repr::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") {
                repr.c = true;
            } else if meta.path.is_ident("transparent") {
                repr.transparent = true;
            } else if meta.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in meta.input);
                let lit: syn::LitInt = content.parse()?;
                let n: usize = lit.base10_parse()?;
                if !n.is_power_of_two() || n > MAX_AGGREGATE_ALIGN {
                    errors.error(&lit, "aggregate alignment must be 1, 2, 4, 8, 16, 32, 64 or 128 bytes (PTX Interoperability §2.3 note D); use `align(128)` or less");
                }
                repr.align = Some(n);
            } else if meta.path.is_ident("packed") {
                if meta.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let _: TokenStream = content.parse()?;
                }
                errors.error(&meta.path, "`repr(packed)` is not supported: the PTX ABI places every member at its natural alignment (§1.2); remove `packed` and let `repr(C)` insert the padding");
            } else {
                errors.error(&meta.path, "this `repr` has no PTX ABI layout; use `#[repr(C)]`, optionally with `align(N)`");
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    repr
}

pub fn derive_device_repr(input: TokenStream) -> TokenStream {
    let tokens = input.clone();
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    if let syn::Data::Enum(e) = &input.data {
        return super::derive_enum::derive_enum(&input, e, &tokens);
    }
    // Written above `#[bitfields]`, the derive runs first, on the item as written: derive the
    // item `#[bitfields]` will emit instead (nothing if it will report errors).
    if input.attrs.iter().any(super::bitfields::is_bitfields_attr) {
        return match super::bitfields::rewritten(&input) {
            Some(item) => derive_device_repr(item),
            None => TokenStream::new(),
        };
    }
    let mut errors = Errors::new();
    let repr = parse_repr(&input.attrs, &mut errors);
    if !repr.c && !repr.transparent {
        errors.error(
            &input.ident,
            "`DeviceRepr` requires `#[repr(C)]`: Rust's default layout is unspecified, while the PTX ABI places fields in declaration order at their natural alignment (PTX Interoperability §1.2); add `#[repr(C)]`",
        );
    }
    let (fields, is_union) = match &input.data {
        syn::Data::Struct(s) => (s.fields.iter().collect::<Vec<_>>(), false),
        syn::Data::Union(u) => (u.fields.named.iter().collect(), true),
        syn::Data::Enum(_) => return errors.to_compile_errors(),
    };
    if fields.is_empty() {
        errors.error(&input.ident, "an empty struct has no PTX ABI layout (C has no empty structs); add a field or remove the derive");
    }
    for f in &fields {
        if let Some(bits) = f.attrs.iter().find(|a| a.path().is_ident("bits")) {
            errors.error(bits, "bit fields need `#[bitfields]` (from `ptx_runtime`) on the struct, which lays them out as C does (§1.3) and generates their getters and setters; add it next to `#[derive(DeviceRepr)]`");
            continue;
        }
        classify(&f.ty, Position::Data, &mut errors);
    }
    if !errors.is_empty() {
        return errors.to_compile_errors();
    }

    let name = &input.ident;
    let mut generics = input.generics.clone();
    for tp in generics.type_params_mut() {
        tp.bounds.push(syn::parse_quote!(::ptx_runtime::DeviceRepr));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let p = quote!(::ptx_runtime::__private);

    let members: Vec<syn::Member> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match &f.ident {
            Some(id) => syn::Member::Named(id.clone()),
            None => syn::Member::Unnamed(syn::Index::from(i)),
        })
        .collect();
    // `<F as DeviceRepr>::LAYOUT`, spanned at the field's type so a field that is not
    // `DeviceRepr` is reported there.
    let field_layouts: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let ty = &f.ty;
            quote_spanned!(ty.span()=> <#ty as ::ptx_runtime::DeviceRepr>::LAYOUT)
        })
        .collect();
    let align = repr.align.unwrap_or(0);
    let self_ty = quote!(#name #ty_generics);

    let (layout, write) = if is_union {
        (
            quote!(#p::union_layout(&[#(#field_layouts),*], #align)),
            // A union's active member is unknown: its bytes are copied as they are.
            quote! {
                let size = <Self as ::ptx_runtime::DeviceRepr>::LAYOUT.size;
                // SAFETY: `self` is `size` bytes long (checked against `size_of` at compile time).
                let bytes = unsafe { ::core::slice::from_raw_parts(self as *const Self as *const u8, size) };
                out[..size].copy_from_slice(bytes);
            },
        )
    } else {
        let offsets = field_layouts.iter().zip(&members).enumerate().map(|(i, (layout, member))| {
            let message = format!("DeviceRepr: rustc's offset of field `{}` of `{}` differs from the PTX ABI's (§1.2)", quote!(#member), name);
            quote! {
                assert!(::core::mem::offset_of!(#self_ty, #member) == #p::field_offset(&fields, #i), #message);
                let _ = #layout;
            }
        });
        let layout = quote! {{
            let fields = [#(#field_layouts),*];
            let layout = #p::struct_layout(&fields, #align);
            #(#offsets)*
            layout
        }};
        let writes = fields.iter().zip(&field_layouts).zip(&members).map(|((field, layout), member)| {
            let ty = &field.ty;
            let write = quote_spanned!(ty.span()=> <#ty as ::ptx_runtime::DeviceRepr>::write_bytes);
            quote! {
                let s = s.field(#layout);
                #write(&self.#member, &mut out[s.last_offset..]);
            }
        });
        let write = quote! {
            let s = #p::StructLayout::new(#align);
            #(#writes)*
            let _ = s;
        };
        (layout, write)
    };

    // A struct has no padding when its fields have none and their sizes add up to its own; a
    // union's inactive bytes are unknown.
    let no_padding = if is_union {
        quote!(false)
    } else {
        let tys = fields.iter().map(|f| &f.ty);
        let sizes = field_layouts.iter();
        quote!(true #(&& <#tys as ::ptx_runtime::DeviceRepr>::NO_PADDING)* && (0 #(+ #sizes.size)*) == <Self as ::ptx_runtime::DeviceRepr>::LAYOUT.size)
    };

    // A struct's bytes are valid when each field's are (an enum field, a `bool`).
    let valid = if is_union {
        quote!()
    } else {
        let checks = fields.iter().zip(&field_layouts).map(|(field, layout)| {
            let ty = &field.ty;
            quote! {
                let s = s.field(#layout);
                if !<#ty as ::ptx_runtime::DeviceRepr>::is_valid(&bytes[s.last_offset..]) {
                    return false;
                }
            }
        });
        quote! {
            fn is_valid(bytes: &[u8]) -> bool {
                let s = #p::StructLayout::new(#align);
                #(#checks)*
                let _ = s;
                true
            }
        }
    };

    let replay = replay(&input, &fields, is_union, align, &tokens);
    let size_msg = format!("DeviceRepr: rustc's size of `{name}` differs from the PTX ABI's (§1.2)");
    let align_msg = format!("DeviceRepr: rustc's alignment of `{name}` differs from the PTX ABI's (§1.2)");
    // Types without generic parameters are checked where they are defined; generic ones on first
    // use of their layout.
    let force = if input.generics.params.is_empty() {
        let check = format_ident!("_");
        quote!(const #check: () = { let _ = <#name as ::ptx_runtime::DeviceRepr>::LAYOUT; };)
    } else {
        quote!()
    };

    quote! {
        unsafe impl #impl_generics ::ptx_runtime::DeviceRepr for #name #ty_generics #where_clause {
            const LAYOUT: #p::Layout = {
                let layout: #p::Layout = #layout;
                assert!(::core::mem::size_of::<Self>() == layout.size, #size_msg);
                assert!(::core::mem::align_of::<Self>() == layout.align, #align_msg);
                layout
            };
            const PARAM: #p::ParamAbi = #p::ParamAbi::Aggregate(<Self as ::ptx_runtime::DeviceRepr>::LAYOUT);
            const NO_PADDING: bool = #no_padding;
            fn write_bytes(&self, out: &mut [u8]) {
                #write
            }
            const MODULE_PATH: &'static str = ::core::module_path!();
            #valid
        }

        impl #impl_generics ::ptx_runtime::ParamType for #name #ty_generics #where_clause {
            const ABI: #p::ParamAbi = <Self as ::ptx_runtime::DeviceRepr>::PARAM;
        }

        #force

        #replay
    }
}

/// The replay bodies compiled elsewhere fetch to read the fields (see `link`).
fn replay(input: &syn::DeriveInput, fields: &[&syn::Field], is_union: bool, align: usize, tokens: &TokenStream) -> TokenStream {
    let name = input.ident.to_string();
    let info = {
        let tuple = fields.iter().any(|f| f.ident.is_none());
        let kind = if is_union {
            StructKind::Union
        } else if tuple {
            StructKind::Tuple
        } else {
            StructKind::Named
        };
        let fields = fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let n = f.ident.as_ref().map(|id| id.to_string()).unwrap_or_else(|| i.to_string());
                (n, f.ty.to_token_stream())
            })
            .collect();
        let def = StructInfo { name, kind, align, fields };
        if input.generics.params.is_empty() {
            Info::Struct(def)
        } else {
            // rustc allows only integers, `bool` and `char` here, and the replay spells the
            // type as one identifier: anything else would not survive it.
            let plain = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some());
            if let Some(c) = input.generics.const_params().find(|c| !plain(&c.ty)) {
                return syn::Error::new_spanned(&c.ty, "a const parameter of a `DeviceRepr` type is an integer, `bool` or `char` (`const N: usize`)").to_compile_error();
            }
            let params = input
                .generics
                .params
                .iter()
                .filter_map(|p| match p {
                    syn::GenericParam::Type(t) => Some(crate::link::info::StructParam::Type(t.ident.to_string())),
                    syn::GenericParam::Const(c) => Some(crate::link::info::StructParam::Const(c.ident.to_string(), c.ty.to_token_stream().to_string())),
                    syn::GenericParam::Lifetime(_) => None,
                })
                .collect();
            Info::Generic(crate::link::info::GenericStructInfo { params, def })
        }
    };
    crate::link::replay::emit("repr", &input.ident, &input.vis, tokens, &info)
}
