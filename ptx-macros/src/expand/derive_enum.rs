//! `#[derive(DeviceRepr)]` on a C-like enum with an integer `repr` (`#[repr(u32)]`, ...).
//!
//! Rust defines such an enum's layout as its `repr` integer (the Reference, "primitive
//! representation"), so its ABI is that integer's: a kernel parameter is a `.param .u32`, a
//! buffer element or struct field is 4 bytes, and on the device a value lives in the integer's
//! register. The discriminants are read from the tokens (integer literals, or the previous one
//! plus one, as Rust counts), and a const assertion per variant makes sure rustc gives every
//! variant the same value. A value read back from the device is checked (`is_valid`): bytes that
//! are no variant's are an `Err` of the copy, never an invalid enum on the host.

use crate::front::ty::scalar_name;
use crate::link::info::{EnumInfo, Info};
use crate::report::Errors;
use proc_macro2::TokenStream;
use ptx_abi::Scalar;
use quote::{format_ident, quote};

/// The message for an enum without an integer `repr`.
pub const NEEDS_INT_REPR: &str = "a `DeviceRepr` enum needs an integer representation: write `#[repr(u8)]`, `#[repr(u16)]`, `#[repr(u32)]`, `#[repr(u64)]` or a signed one (`#[repr(i32)]`, ...); its values then have that integer's layout and ABI on the device";

pub fn derive_enum(input: &syn::DeriveInput, data: &syn::DataEnum, tokens: &TokenStream) -> TokenStream {
    if data.variants.iter().any(|v| !matches!(v.fields, syn::Fields::Unit)) {
        return super::derive_enum_data::derive_enum_data(input, data, tokens);
    }
    let mut errors = Errors::new();
    let repr = parse_int_repr(&input.attrs, &mut errors);
    if repr.is_none() && errors.is_empty() {
        errors.error(&input.ident, NEEDS_INT_REPR);
    }
    if !input.generics.params.is_empty() {
        errors.error(&input.generics, "a `DeviceRepr` enum cannot be generic: the device needs one layout per type; remove the parameters");
    }
    if data.variants.is_empty() {
        errors.error(&input.ident, "an enum without variants has no values to pass to the device; add a variant or remove the derive");
    }
    let variants = discriminants(data, &mut errors);
    let Some(repr) = repr else { return errors.to_compile_errors() };
    if let Some((name, value)) = variants.iter().find(|(_, x)| !fits(*x, repr)) {
        errors.error(&input.ident, format!("the discriminant of `{name}` ({value}) does not fit `{}`", scalar_name(repr)));
    }
    if !errors.is_empty() {
        return errors.to_compile_errors();
    }

    let name = &input.ident;
    let p = quote!(::ptx_runtime::__private);
    let int = format_ident!("{}", scalar_name(repr));
    let scalar = format_ident!("{}", format!("{repr:?}"));
    let size = repr.size();
    let checks = variants.iter().map(|(v, x)| {
        let v = format_ident!("{}", v);
        let lit = int_literal(*x, repr);
        let msg = format!("DeviceRepr: the discriminant of `{name}::{v}` differs from the one the device compiler read ({x})");
        quote!(assert!(#name::#v as #int == #lit, #msg);)
    });
    let valid = variants.iter().map(|(_, x)| int_literal(*x, repr));
    let info = Info::Enum(EnumInfo { name: name.to_string(), repr, variants: variants.clone(), data: None });
    let replay = crate::link::replay::emit("repr", name, &input.vis, tokens, &info);
    quote! {
        unsafe impl ::ptx_runtime::DeviceRepr for #name {
            const LAYOUT: #p::Layout = {
                let layout = #p::Layout::scalar(#p::Scalar::#scalar);
                assert!(::core::mem::size_of::<Self>() == layout.size && ::core::mem::align_of::<Self>() == layout.align);
                #(#checks)*
                layout
            };
            const PARAM: #p::ParamAbi = #p::ParamAbi::Scalar(#p::Scalar::#scalar);
            fn write_bytes(&self, out: &mut [u8]) {
                out[..#size].copy_from_slice(&(*self as #int).to_le_bytes());
            }
            fn is_valid(bytes: &[u8]) -> bool {
                let mut b = [0u8; #size];
                b.copy_from_slice(&bytes[..#size]);
                let v = #int::from_le_bytes(b);
                #(v == #valid)||*
            }
        }

        impl ::ptx_runtime::ParamType for #name {
            const ABI: #p::ParamAbi = <Self as ::ptx_runtime::DeviceRepr>::PARAM;
        }

        const _: () = { let _ = <#name as ::ptx_runtime::DeviceRepr>::LAYOUT; };

        #replay
    }
}

/// One item of an enum's `#[repr(..)]`, in the order written.
pub(super) enum ReprItem {
    /// `u8`, `i32`, ...: the discriminant's integer.
    Int(Scalar),
    /// `C`.
    C(syn::Path),
    /// Anything else (`align(..)`, `packed`, `Rust`...), for the caller to refuse.
    Other(syn::Path),
}

/// The items of an enum's `#[repr(..)]` attributes; each kind of enum applies its own rule.
pub(super) fn read_enum_repr(attrs: &[syn::Attribute], errors: &mut Errors) -> Vec<ReprItem> {
    let mut items = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let result = attr.parse_nested_meta(|meta| {
            let name = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            items.push(match Scalar::from_rust_name(&name) {
                Some(s) if s.is_integral() && s != Scalar::Bool => ReprItem::Int(s),
                _ if name == "C" => ReprItem::C(meta.path.clone()),
                _ => ReprItem::Other(meta.path.clone()),
            });
            if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: TokenStream = content.parse()?;
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    items
}

/// The integer of `#[repr(..)]`; `C`, `align` and the like are errors on a C-like enum.
fn parse_int_repr(attrs: &[syn::Attribute], errors: &mut Errors) -> Option<Scalar> {
    let mut repr = None;
    for item in read_enum_repr(attrs, errors) {
        match item {
            ReprItem::Int(s) => repr = Some(s),
            ReprItem::C(p) => errors.error(&p, format!("`#[repr(C)]` on an enum means C's `int`-sized enum; {}", &NEEDS_INT_REPR[NEEDS_INT_REPR.find("write").unwrap_or(0)..])),
            ReprItem::Other(p) => errors.error(&p, NEEDS_INT_REPR),
        }
    }
    repr
}

/// The variants and their discriminants, read from the tokens: integer literals (`A = 3`,
/// `B = -1`) or implicit (the previous one plus one), as Rust assigns them.
pub(super) fn discriminants(data: &syn::DataEnum, errors: &mut Errors) -> Vec<(String, i128)> {
    let mut variants: Vec<(String, i128)> = Vec::new();
    let mut next: i128 = 0;
    for v in &data.variants {
        if let Some((_, e)) = &v.discriminant {
            match literal_value(e) {
                Some(x) => next = x,
                None => {
                    errors.error(e, "write this discriminant as an integer literal (`A = 3`, `B = -1`): the device compiler reads the values from the enum's tokens");
                    continue;
                }
            }
        }
        variants.push((v.ident.to_string(), next));
        next += 1;
    }
    variants
}

/// An integer literal, possibly negated (and parenthesised).
fn literal_value(e: &syn::Expr) -> Option<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<i128>().ok(),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => literal_value(&u.expr).map(|x| -x),
        syn::Expr::Paren(p) => literal_value(&p.expr),
        syn::Expr::Group(g) => literal_value(&g.expr),
        _ => None,
    }
}

pub(super) fn fits(x: i128, s: Scalar) -> bool {
    let bits = s.bits() as u32;
    if s.is_signed() {
        x >= -(1i128 << (bits - 1)) && x < (1i128 << (bits - 1))
    } else {
        x >= 0 && x < (1i128 << bits)
    }
}

/// `x` as a literal of type `s` (a negative value as `-N` with the type's suffix).
pub(super) fn int_literal(x: i128, s: Scalar) -> TokenStream {
    let abs = proc_macro2::Literal::u128_unsuffixed(x.unsigned_abs());
    let int = format_ident!("{}", scalar_name(s));
    if x < 0 {
        // `-128i8` parses as `-(128i8)`, which overflows: go through i128.
        quote!(((-#abs as i128) as #int))
    } else {
        quote!((#abs as #int))
    }
}
