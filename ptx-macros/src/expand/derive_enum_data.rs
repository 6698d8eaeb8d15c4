//! `#[derive(DeviceRepr)]` on a data-carrying enum with a defined layout: `#[repr(C, u32)]` or
//! `#[repr(u8)]` (any integer) with variants that have fields.
//!
//! Rust defines that layout (RFC 2195, `ptx_abi::tagged`): the tag, holding the discriminant, at
//! offset 0, and each variant's fields as a `#[repr(C)]` struct, after the tag in a union
//! (`repr(C, Int)`) or each struct starting with the tag (`repr(Int)`). The derive computes it
//! by those rules from the fields' own layouts and checks, during constant evaluation, that
//! rustc agrees: the enum's size and alignment, and every field's offset through `#[repr(C)]`
//! mirror types written as the RFC defines the enum (`offset_of!` does not reach into enum
//! variants on stable Rust). The discriminants are the implicit ones (`0, 1, 2, ..`): the tag
//! is the variant's index on the device.

use super::derive_enum::{int_literal, read_enum_repr, ReprItem};
use crate::front::ty::{scalar_name, StructKind};
use crate::link::info::{EnumData, EnumInfo, Info};
use crate::report::Errors;
use crate::syntax::types::{classify, Position};
use proc_macro2::TokenStream;
use ptx_abi::tagged::TagStyle;
use ptx_abi::Scalar;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// `#[repr(C, Int)]` or `#[repr(Int)]`.
fn parse_repr(attrs: &[syn::Attribute], errors: &mut Errors) -> Option<(Scalar, TagStyle)> {
    let (mut int, mut c) = (None, false);
    for item in read_enum_repr(attrs, errors) {
        match item {
            ReprItem::Int(s) => int = Some(s),
            ReprItem::C(_) => c = true,
            ReprItem::Other(p) => errors.error(&p, DATA_REPR),
        }
    }
    int.map(|s| (s, if c { TagStyle::CTagged } else { TagStyle::Primitive }))
}

/// The message for a data-carrying enum without a defined layout.
pub const DATA_REPR: &str = "a `DeviceRepr` enum with fields needs Rust's defined tagged-union layout: write `#[repr(C, u32)]` (the tag, then a union of the variants' fields) or `#[repr(u32)]` (each variant's fields right after the tag), with any integer as the tag";

pub fn derive_enum_data(input: &syn::DeriveInput, data: &syn::DataEnum, tokens: &TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    let repr = parse_repr(&input.attrs, &mut errors);
    if repr.is_none() && errors.is_empty() {
        errors.error(&input.ident, DATA_REPR);
    }
    if !input.generics.params.is_empty() {
        errors.error(&input.generics, "a `DeviceRepr` enum cannot be generic: the device needs one layout per type; remove the parameters");
    }
    // Explicit discriminants (RFC 2363) are the tags' values, read as the C-like derive reads
    // them: integer literals, or the previous one plus one.
    let tags = super::derive_enum::discriminants(data, &mut errors);
    for v in &data.variants {
        for f in &v.fields {
            classify(&f.ty, Position::Data, &mut errors);
        }
    }
    let Some((repr, style)) = repr else { return errors.to_compile_errors() };
    if let Some((v, x)) = tags.iter().find(|(_, x)| !super::derive_enum::fits(*x, repr)) {
        errors.error(&input.ident, format!("the discriminant of `{v}` ({x}) does not fit a `{}` tag", scalar_name(repr)));
    }
    if !errors.is_empty() {
        return errors.to_compile_errors();
    }

    let name = &input.ident;
    let p = quote!(::ptx_runtime::__private);
    let int = format_ident!("{}", scalar_name(repr));
    let scalar = format_ident!("{}", format!("{repr:?}"));
    let tag_size = repr.size();
    let style_tokens = match style {
        TagStyle::CTagged => quote!(#p::TagStyle::CTagged),
        TagStyle::Primitive => quote!(#p::TagStyle::Primitive),
    };
    let layout_of = |t: &syn::Type| quote_spanned!(t.span()=> <#t as ::ptx_runtime::DeviceRepr>::LAYOUT);
    let variant_layouts = data.variants.iter().map(|v| {
        let ls = v.fields.iter().map(|f| layout_of(&f.ty));
        quote!(&[#(#ls),*])
    });
    let variants_const = quote!(const VARIANTS: &[&[#p::Layout]] = &[#(#variant_layouts),*];);
    let tag = quote!(#p::Layout::scalar(#p::Scalar::#scalar));
    let offset = |v: usize, i: usize| quote!(#p::tagged_field_offset(#tag, #style_tokens, VARIANTS, #v, #i));

    // Per variant: the pattern binding its fields, and the fields as bindings.
    let pattern = |v: &syn::Variant| {
        let id = &v.ident;
        let binds: Vec<syn::Ident> = (0..v.fields.len()).map(|i| format_ident!("__f{}", i)).collect();
        let pat = match &v.fields {
            syn::Fields::Named(n) => {
                let names = n.named.iter().map(|f| f.ident.clone());
                quote!(#name::#id { #(#names: #binds),* })
            }
            syn::Fields::Unnamed(_) => quote!(#name::#id(#(#binds),*)),
            syn::Fields::Unit => quote!(#name::#id),
        };
        (pat, binds)
    };
    let writes = data.variants.iter().enumerate().map(|(k, v)| {
        let (pat, binds) = pattern(v);
        let tag_lit = int_literal(tags[k].1, repr);
        let fields = v.fields.iter().zip(&binds).enumerate().map(|(i, (f, b))| {
            let ty = &f.ty;
            let off = offset(k, i);
            quote_spanned!(ty.span()=> <#ty as ::ptx_runtime::DeviceRepr>::write_bytes(#b, &mut out[#off..]);)
        });
        quote!(#pat => {
            out[..#tag_size].copy_from_slice(&#tag_lit.to_le_bytes());
            #(#fields)*
        })
    });
    let valids = data.variants.iter().enumerate().map(|(k, v)| {
        let tag_lit = int_literal(tags[k].1, repr);
        let fields = v.fields.iter().enumerate().map(|(i, f)| {
            let ty = &f.ty;
            let off = offset(k, i);
            quote!(<#ty as ::ptx_runtime::DeviceRepr>::is_valid(&bytes[#off..]))
        });
        quote!(if tag == #tag_lit { return true #(&& #fields)*; })
    });

    // Mirrors of the enum as RFC 2195 defines it, for rustc's offsets of every field.
    let mirrors = data.variants.iter().enumerate().map(|(k, v)| {
        let m = format_ident!("__V{}", k);
        let tys: Vec<&syn::Type> = v.fields.iter().map(|f| &f.ty).collect();
        let lead = (style == TagStyle::Primitive).then(|| quote!(#int,));
        quote!(#[repr(C)] #[allow(dead_code)] struct #m(#lead #(#tys,)*);)
    });
    let union_fields = (0..data.variants.len()).map(|k| {
        let (f, m) = (format_ident!("v{}", k), format_ident!("__V{}", k));
        quote!(#f: ::core::mem::ManuallyDrop<#m>,)
    });
    let offset_checks = data.variants.iter().enumerate().flat_map(|(k, v)| {
        let m = format_ident!("__V{}", k);
        let vf = format_ident!("v{}", k);
        let vname = v.ident.to_string();
        let offset = &offset;
        v.fields.iter().enumerate().map(move |(i, f)| {
            let field = f.ident.as_ref().map(|x| x.to_string()).unwrap_or_else(|| i.to_string());
            let msg = format!("DeviceRepr: rustc's offset of field `{field}` of `{name}::{vname}` differs from RFC 2195's layout as the device compiler computes it");
            let ours = offset(k, i);
            let rustc = match style {
                TagStyle::CTagged => {
                    let idx = syn::Index::from(i);
                    quote!(::core::mem::offset_of!(__Whole, payload) + ::core::mem::offset_of!(#m, #idx))
                }
                TagStyle::Primitive => {
                    let idx = syn::Index::from(i + 1);
                    quote!(::core::mem::offset_of!(#m, #idx))
                }
            };
            let _ = &vf;
            quote!(assert!(#rustc == #ours, #msg);)
        })
    });
    let whole = match style {
        TagStyle::CTagged => quote!(#[repr(C)] #[allow(dead_code)] struct __Whole { tag: #int, payload: __Payload }),
        TagStyle::Primitive => quote!(#[allow(dead_code)] type __Whole = __Payload;),
    };
    let size_msg = format!("DeviceRepr: rustc's size or alignment of `{name}` differs from RFC 2195's layout as the device compiler computes it");

    let kinds = data
        .variants
        .iter()
        .map(|v| {
            let kind = if matches!(v.fields, syn::Fields::Named(_)) { StructKind::Named } else { StructKind::Tuple };
            let fields = v
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| (f.ident.as_ref().map(|x| x.to_string()).unwrap_or_else(|| i.to_string()), f.ty.to_token_stream()))
                .collect();
            (kind, fields)
        })
        .collect();
    let variants = tags.clone();
    let info = Info::Enum(EnumInfo { name: name.to_string(), repr, variants, data: Some(EnumData { style, variants: kinds }) });
    let replay = crate::link::replay::emit("repr", name, &input.vis, tokens, &info);
    quote! {
        unsafe impl ::ptx_runtime::DeviceRepr for #name {
            const LAYOUT: #p::Layout = {
                #variants_const
                let layout = #p::tagged_layout(#tag, #style_tokens, VARIANTS);
                #(#mirrors)*
                #[repr(C)]
                #[allow(dead_code)]
                union __Payload { #(#union_fields)* }
                #whole
                assert!(::core::mem::size_of::<Self>() == layout.size && ::core::mem::align_of::<Self>() == layout.align, #size_msg);
                assert!(::core::mem::size_of::<__Whole>() == layout.size && ::core::mem::align_of::<__Whole>() == layout.align, #size_msg);
                #(#offset_checks)*
                layout
            };
            const PARAM: #p::ParamAbi = #p::ParamAbi::Aggregate(<Self as ::ptx_runtime::DeviceRepr>::LAYOUT);
            fn write_bytes(&self, out: &mut [u8]) {
                #variants_const
                let size = <Self as ::ptx_runtime::DeviceRepr>::LAYOUT.size;
                // The inactive variants' bytes and the padding: zeros, never stale data.
                out[..size].fill(0);
                match self {
                    #(#writes)*
                }
            }
            const MODULE_PATH: &'static str = ::core::module_path!();
            fn is_valid(bytes: &[u8]) -> bool {
                #variants_const
                let mut b = [0u8; #tag_size];
                b.copy_from_slice(&bytes[..#tag_size]);
                let tag = #int::from_le_bytes(b);
                #(#valids)*
                false
            }
        }

        impl ::ptx_runtime::ParamType for #name {
            const ABI: #p::ParamAbi = <Self as ::ptx_runtime::DeviceRepr>::PARAM;
        }

        const _: () = { let _ = <#name as ::ptx_runtime::DeviceRepr>::LAYOUT; };

        #replay
    }
}
