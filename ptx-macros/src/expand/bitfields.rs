//! `#[bitfields]`: C bit fields (§1.3) in a `#[repr(C)]` struct or union, next to
//! `#[derive(DeviceRepr)]`. Above it, it runs first and the derive sees the rewritten item;
//! below it, the derive runs first and derives the item [`rewritten`] gives.
//!
//! ```text
//! #[bitfields]
//! #[derive(Clone, Copy, DeviceRepr)]
//! #[repr(C)]
//! pub struct Header { pub c: u8, #[bits(3)] pub kind: u32, #[bits(5)] pub level: i32, #[bits(0)] _z: u16, pub d: u8 }
//! ```
//!
//! Rust has no bit fields, so the item is rewritten: each run of consecutive bit fields becomes
//! one private byte array (`__bits0: [u8; K]`) holding exactly the bytes the C layout gives the
//! run, placed by `repr(C)` at the byte where the run starts (bytes have alignment 1); the
//! alignment named bit fields give a C struct is added as `repr(align(N))`. Host and device
//! therefore see the same bytes, and the struct is an ordinary `DeviceRepr` aggregate
//! everywhere (parameters, buffers, registers). The layout is `ptx_abi::bitfield`'s rule, run
//! here to place the runs and again during constant evaluation, on rustc's layouts of the
//! members, where it must agree with rustc's `size_of`, `align_of` and `offset_of!`.
//!
//! Each named bit field gets a getter and a setter (`kind()`, `set_kind(v)`) in a
//! `#[device_fn] impl`, so they compile to PTX too: plain Rust on the run's bytes (shifts and
//! masks; a signed field is sign-extended by an arithmetic shift). `zeroed()` builds a value with
//! every byte zero. Device code keeps unions out of registers, so a union's value accessors are
//! the host's, and its device accessors take a pointer (`f_at(p)`, `set_f_at(p, v)`). Names starting with `_` are C's unnamed bit fields: no accessors, and they do
//! not raise the alignment.

use crate::report::Errors;
use proc_macro2::{Literal, TokenStream};
use ptx_abi::bitfield::{check_bits, BitError, BitStruct, Member};
use ptx_abi::{Layout, Scalar};
use quote::{format_ident, quote};

/// One member as declared.
struct Decl {
    /// The field as written, its `#[bits]` attribute removed.
    field: syn::Field,
    /// `(type, width)` for a bit field.
    bits: Option<(Scalar, u32)>,
    /// The macro-time layout of an ordinary member.
    layout: Option<Layout>,
}

impl Decl {
    fn name(&self) -> String {
        self.field.ident.as_ref().map(|i| i.to_string()).unwrap_or_default()
    }

    fn named(&self) -> bool {
        !self.name().starts_with('_')
    }

    fn member(&self) -> Member {
        match (self.bits, self.layout) {
            (Some((unit, width)), _) => Member::Bits { unit, width, named: self.named() },
            (None, Some(l)) => Member::Field(l),
            (None, None) => Member::Field(Layout::new(1, 1)),
        }
    }
}

/// Where a named bit field's bits are: which storage array, and the bit offset inside it.
struct Access {
    storage: syn::Ident,
    bit: usize,
    width: u32,
    ty: Scalar,
}

pub fn bitfields(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand(args, item) {
        Ok((item, rest)) => quote!(#item #rest),
        Err(errors) => errors,
    }
}

/// The item `#[derive(DeviceRepr)]` must see when it is written above `#[bitfields]` (and so
/// runs first, on the item as written): the rewritten struct, or `None` when `#[bitfields]`
/// will report errors.
pub fn rewritten(item: &syn::DeriveInput) -> Option<TokenStream> {
    let mut item = item.clone();
    item.attrs.retain(|a| !is_bitfields_attr(a));
    expand(TokenStream::new(), quote!(#item)).ok().map(|(item, _)| item)
}

/// `#[bitfields]` or `#[ptx_runtime::bitfields]`.
pub fn is_bitfields_attr(a: &syn::Attribute) -> bool {
    a.path().segments.last().is_some_and(|s| s.ident == "bitfields")
}

/// The rewritten item and what goes with it (accessors, layout checks), or the errors.
fn expand(args: TokenStream, item: TokenStream) -> Result<(TokenStream, TokenStream), TokenStream> {
    let mut errors = Errors::new();
    if !args.is_empty() {
        errors.error(&args, "`#[bitfields]` takes no arguments; give each bit field its width with `#[bits(N)]`");
    }
    let item: syn::Item = match syn::parse2(item) {
        Ok(i) => i,
        Err(e) => return Err(e.to_compile_error()),
    };
    let (attrs, vis, ident, generics, fields, is_union) = match &item {
        syn::Item::Struct(s) => match &s.fields {
            syn::Fields::Named(n) => (&s.attrs, &s.vis, &s.ident, &s.generics, n.named.iter().cloned().collect::<Vec<_>>(), false),
            other => {
                errors.error(other, "bit fields need named fields: write `struct S { #[bits(3)] a: u32, ... }`");
                return Err(errors.to_compile_errors());
            }
        },
        syn::Item::Union(u) => (&u.attrs, &u.vis, &u.ident, &u.generics, u.fields.named.iter().cloned().collect(), true),
        other => {
            errors.error(other, "`#[bitfields]` applies to a `#[repr(C)]` struct or union");
            return Err(errors.to_compile_errors());
        }
    };
    if !generics.params.is_empty() {
        errors.error(generics, "a struct with bit fields cannot be generic (the macro lays out every member itself); write one struct per concrete type");
        return Err(with_item(&errors, &item));
    }

    let decls: Vec<Decl> = fields.into_iter().filter_map(|f| declare(f, &mut errors)).collect();
    if !errors.is_empty() {
        return Err(with_item(&errors, &item));
    }

    // The alignment C gives the struct beyond its members': its named bit fields'.
    let bits_align = decls.iter().filter(|d| d.named()).filter_map(|d| d.bits.filter(|b| b.1 > 0)).map(|(s, _)| s.align()).max().unwrap_or(1);
    let user_align = repr_align(attrs);
    if let Some((n, lit)) = &user_align {
        if *n < bits_align {
            errors.error(lit, format!("this struct's named bit fields align it to {bits_align} bytes (§1.3: a named bit field aligns the struct like a member of its type); write `align({bits_align})` or more"));
        }
    }
    if !errors.is_empty() {
        return Err(with_item(&errors, &item));
    }
    let min_align = user_align.as_ref().map_or(0, |(n, _)| *n);

    // The Rust members: ordinary fields as written, each run of bit fields as its bytes.
    let mut out_fields: Vec<TokenStream> = Vec::new();
    let mut accesses: Vec<(&Decl, Access)> = Vec::new();
    let mut storage: Vec<(syn::Ident, usize)> = Vec::new();
    let mut s = BitStruct::new(min_align);
    let mut i = 0;
    while i < decls.len() {
        let d = &decls[i];
        if d.bits.is_none() {
            s = s.member(d.member());
            let f = &d.field;
            out_fields.push(quote!(#f));
            i += 1;
            continue;
        }
        // A run: in a union, one bit field (every member starts at bit 0); in a struct, every
        // bit field up to the next ordinary member.
        let start_byte = if is_union { 0 } else { s.bit.div_ceil(8) };
        let name = format_ident!("__bits{}", storage.len());
        let mut end_bit = start_byte * 8;
        loop {
            let d = &decls[i];
            let at = if is_union { BitStruct::new(0).member(d.member()) } else { s.member(d.member()) };
            if !is_union {
                s = at;
            }
            let Some((unit, width)) = d.bits else { break };
            if width > 0 {
                end_bit = end_bit.max(at.last_bit + width as usize);
            } else if !is_union {
                end_bit = end_bit.max(at.last_bit);
            }
            if d.named() {
                accesses.push((d, Access { storage: name.clone(), bit: at.last_bit - start_byte * 8, width, ty: unit }));
            }
            i += 1;
            if is_union || i == decls.len() || decls[i].bits.is_none() {
                break;
            }
        }
        let len = end_bit.div_ceil(8) - start_byte;
        if len > 0 {
            let n = Literal::usize_unsuffixed(len);
            out_fields.push(quote!(#[doc(hidden)] #name: [u8; #n]));
            storage.push((name, len));
        }
    }

    let (accessors, pointer_accessors): (Vec<TokenStream>, Vec<TokenStream>) = accesses.iter().map(|(d, a)| accessor(d, a, is_union)).unzip();
    let zero_fields = decls.iter().filter(|d| d.bits.is_none()).map(|d| {
        let name = &d.field.ident;
        let zero = zero_of(&d.field.ty);
        quote!(#name: #zero)
    });
    let zero_storage = storage.iter().map(|(name, len)| {
        let n = Literal::usize_unsuffixed(*len);
        quote!(#name: [0u8; #n])
    });
    // A union's accessors are the host's (see below), and every one of its bytes is zero.
    let zeroed_body = if is_union {
        // SAFETY: every member of a union with bit fields is an integer, a float, a `bool` or
        // an array of them, for which all-zero bytes are a value.
        quote!(unsafe { ::core::mem::zeroed() })
    } else {
        quote!(Self { #(#zero_fields,)* #(#zero_storage,)* })
    };

    let align_attr = if bits_align > 1 && user_align.is_none() {
        let n = Literal::usize_unsuffixed(bits_align);
        quote!(#[repr(align(#n))])
    } else {
        quote!()
    };
    let keyword = if is_union { quote!(union) } else { quote!(struct) };
    // The body compiler keeps union values out of registers: a union's value accessors (and
    // `zeroed`) are the host's, its pointer accessors are device functions.
    let device_fn = if is_union { quote!() } else { quote!(#[::ptx_runtime::device_fn]) };
    let pointer_impl = if is_union && !pointer_accessors.is_empty() {
        quote! {
            #[::ptx_runtime::device_fn]
            impl #ident {
                #(#pointer_accessors)*
            }
        }
    } else {
        quote!()
    };
    let check = layout_check(ident, &decls, &accesses, min_align, is_union);
    let item = quote! {
        #(#attrs)*
        #align_attr
        #vis #keyword #ident {
            #(#out_fields,)*
        }
    };
    let rest = quote! {
        #device_fn
        impl #ident {
            /// A value whose every byte is zero.
            pub fn zeroed() -> Self {
                #zeroed_body
            }
            #(#accessors)*
        }

        #pointer_impl

        #check
    };
    Ok((item, rest))
}

/// The errors, and the item as written without its `#[bits]` attributes, so that code using it
/// reports nothing more.
fn with_item(errors: &Errors, item: &syn::Item) -> TokenStream {
    let mut item = item.clone();
    let fields: Vec<&mut syn::Field> = match &mut item {
        syn::Item::Struct(s) => s.fields.iter_mut().collect(),
        syn::Item::Union(u) => u.fields.named.iter_mut().collect(),
        _ => Vec::new(),
    };
    for f in fields {
        f.attrs.retain(|a| !a.path().is_ident("bits"));
    }
    let errors = errors.to_compile_errors();
    quote!(#errors #item)
}

/// Reads one field: its `#[bits(N)]` (checked against the guide's table), or its layout as an
/// ordinary member.
fn declare(mut field: syn::Field, errors: &mut Errors) -> Option<Decl> {
    let mut bits = None;
    let mut ok = true;
    field.attrs.retain(|a| {
        if !a.path().is_ident("bits") {
            return true;
        }
        match a.parse_args::<syn::LitInt>().and_then(|l| l.base10_parse::<u32>().map(|n| (n, l))) {
            Ok(w) => bits = Some(w),
            Err(_) => {
                errors.error(a, "write a bit field's width as `#[bits(N)]`, N a number of bits");
                ok = false;
            }
        }
        false
    });
    let name = field.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
    let Some((width, lit)) = bits else {
        if !ok {
            return None;
        }
        let Some(layout) = static_layout(&field.ty) else {
            errors.error(&field.ty, "a struct with bit fields may have ordinary members of integer, float and `bool` types and arrays of them (the macro lays the struct out itself); put other members in a struct that contains this one");
            return None;
        };
        return Some(Decl { field, bits: None, layout: Some(layout) });
    };
    let unit = scalar_of(&field.ty);
    let named = !name.starts_with('_');
    let problem = match unit {
        None => Some(BitError::NotInteger),
        Some(u) => check_bits(u, width, named).err(),
    };
    match problem {
        None => unit.map(|u| Decl { field, bits: Some((u, width)), layout: None }),
        Some(BitError::NotInteger) => {
            errors.error(&field.ty, "a bit field's type must be an integer of the guide's table (§1.3): `u8`/`i8` (char), `u16`/`i16` (short), `u32`/`i32` (int) or `u64`/`i64` (long long)");
            None
        }
        Some(BitError::TooWide { max }) => {
            errors.error(&lit, format!("a bit field of type `{}` is 1 to {max} bits wide (§1.3); write `#[bits({max})]` or less, or a wider type", quote_ty(&field.ty)));
            None
        }
        Some(BitError::ZeroWidthNamed) => {
            errors.error(&lit, format!("a zero-width bit field must be unnamed (§1.3): name it `_{name}` to align the next member, or give `{name}` a width"));
            None
        }
    }
}

fn quote_ty(ty: &syn::Type) -> String {
    quote!(#ty).to_string()
}

/// The scalar a primitive path names.
fn scalar_of(ty: &syn::Type) -> Option<Scalar> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let seg = &p.path.segments[0];
            if !matches!(seg.arguments, syn::PathArguments::None) {
                return None;
            }
            Scalar::from_rust_name(&seg.ident.to_string()).filter(|s| !matches!(s, Scalar::F16 | Scalar::BF16))
        }
        syn::Type::Paren(p) => scalar_of(&p.elem),
        syn::Type::Group(g) => scalar_of(&g.elem),
        _ => None,
    }
}

/// The layout of an ordinary member whose type the macro can see through: a primitive (but
/// the 16-bit floats) or an array of them with a literal length.
fn static_layout(ty: &syn::Type) -> Option<Layout> {
    match ty {
        syn::Type::Array(a) => {
            let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) = &a.len else { return None };
            let elem = static_layout(&a.elem)?;
            let n: usize = n.base10_parse().ok()?;
            // Sizes the bit arithmetic can hold (no device struct comes near).
            elem.size.checked_mul(n).filter(|&s| s < 1 << 40)?;
            Some(Layout::array(elem, n))
        }
        _ => scalar_of(ty).map(Layout::scalar),
    }
}

/// A zero of an ordinary member's type, as an expression.
fn zero_of(ty: &syn::Type) -> TokenStream {
    match ty {
        syn::Type::Array(a) => {
            let e = zero_of(&a.elem);
            let n = &a.len;
            quote!([#e; #n])
        }
        _ => match scalar_of(ty) {
            Some(Scalar::Bool) => quote!(false),
            Some(Scalar::F32) => quote!(0.0f32),
            Some(Scalar::F64) => quote!(0.0f64),
            _ => quote!(0),
        },
    }
}

/// `align(N)` in the item's `repr`, with its literal.
fn repr_align(attrs: &[syn::Attribute]) -> Option<(usize, syn::LitInt)> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in meta.input);
                let lit: syn::LitInt = content.parse()?;
                if let Ok(n) = lit.base10_parse() {
                    found = Some((n, lit));
                }
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: TokenStream = content.parse()?;
            }
            Ok(())
        });
    }
    found
}

/// The working integer for a field spanning `bytes` bytes: `u32` up to four, `u64` beyond.
fn work_type(bytes: usize) -> (TokenStream, TokenStream, u32) {
    if bytes <= 4 {
        (quote!(u32), quote!(i32), 32)
    } else {
        (quote!(u64), quote!(i64), 64)
    }
}

fn lit(v: u64, bits: u32) -> Literal {
    if bits == 32 {
        Literal::u32_suffixed(v as u32)
    } else {
        Literal::u64_suffixed(v)
    }
}

/// The getter and setter of one named bit field, on `&self`; for a union also on a pointer
/// (`{name}_at(p)`, `set_{name}_at(p, v)`), the form device code can use. Returns (value
/// accessors, pointer accessors).
fn accessor(d: &Decl, a: &Access, is_union: bool) -> (TokenStream, TokenStream) {
    let vis = &d.field.vis;
    // Fields are named (tuple structs are refused before this).
    let Some(name) = d.field.ident.as_ref() else { return (TokenStream::new(), TokenStream::new()) };
    let plain = name.to_string();
    let plain = plain.strip_prefix("r#").unwrap_or(&plain);
    let setter = format_ident!("set_{}", plain);
    let ty = &d.field.ty;
    let w = a.width;
    let signed = matches!(a.ty, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64);
    let doc_get = format!("The bit field `{name}: {}` ({w} bits at bit {} of its storage, C layout §1.3){}.", quote_ty(ty), a.bit, if signed { ", sign-extended" } else { "" });
    let doc_set = format!("Stores the low {w} bits of `v` in the bit field `{name}`, as C's assignment to it does.");
    let (get_body, set_body) = bodies(a, ty, &quote!(self), is_union);
    let values = quote! {
        #[doc = #doc_get]
        #[allow(unused_unsafe, clippy::precedence, clippy::identity_op)]
        #vis fn #name(&self) -> #ty {
            #get_body
        }
        #[doc = #doc_set]
        #[allow(unused_unsafe, clippy::precedence, clippy::identity_op)]
        #vis fn #setter(&mut self, v: #ty) {
            #set_body
        }
    };
    if !is_union {
        return (values, quote!());
    }
    let get_at = format_ident!("{}_at", plain);
    let set_at = format_ident!("set_{}_at", plain);
    let (get_body, set_body) = bodies(a, ty, &quote!((*p)), true);
    let doc_get_at = format!("{doc_get} Read through a pointer, as device code reads unions.\n\n# Safety\n`p` points to a valid value.");
    let doc_set_at = format!("{doc_set} Written through a pointer, as device code writes unions.\n\n# Safety\n`p` points to a valid value.");
    let pointers = quote! {
        #[doc = #doc_get_at]
        #[allow(unused_unsafe, clippy::precedence, clippy::identity_op)]
        #vis unsafe fn #get_at(p: *const Self) -> #ty {
            #get_body
        }
        #[doc = #doc_set_at]
        #[allow(unused_unsafe, clippy::precedence, clippy::identity_op)]
        #vis unsafe fn #set_at(p: *mut Self, v: #ty) {
            #set_body
        }
    };
    (values, pointers)
}

/// The getter's and the setter's bodies on `recv` (`self` or `(*p)`): join the bytes the field
/// spans into a `u32` (`u64` past four bytes), then extract (a logical shift and a mask, or for
/// a signed field a left shift and an arithmetic right shift), or insert and store the bytes.
fn bodies(a: &Access, ty: &syn::Type, recv: &TokenStream, unsafe_: bool) -> (TokenStream, TokenStream) {
    let storage = &a.storage;
    let w = a.width;
    let lo = a.bit / 8;
    let shift = (a.bit % 8) as u32;
    let n = (a.bit + w as usize - 1) / 8 - lo + 1;
    let (work, swork, wb) = work_type(n);
    let mask: u64 = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let bytes: Vec<Literal> = (lo..lo + n).map(Literal::usize_unsuffixed).collect();
    let raw_terms = bytes.iter().enumerate().map(|(k, b)| {
        if k == 0 {
            quote!((#recv.#storage[#b] as #work))
        } else {
            let sh = Literal::u32_unsuffixed(8 * k as u32);
            quote!(((#recv.#storage[#b] as #work) << #sh))
        }
    });
    let raw = quote!(#(#raw_terms)|*);
    let signed = matches!(a.ty, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64);
    let get = if signed {
        // Move the field's top bit to the word's top, then shift back arithmetically.
        let up = Literal::u32_unsuffixed(wb - shift - w);
        let down = Literal::u32_unsuffixed(wb - w);
        quote!((((raw << #up) as #swork) >> #down) as #ty)
    } else if w == wb && shift == 0 {
        quote!(raw as #ty)
    } else {
        let sh = Literal::u32_unsuffixed(shift);
        let m = lit(mask, wb);
        quote!(((raw >> #sh) & #m) as #ty)
    };
    let field_mask = lit(mask, wb);
    let keep_bits: u64 = !(mask << shift) & if n * 8 >= 64 { u64::MAX } else { (1u64 << (n * 8)) - 1 };
    let keep = lit(keep_bits, wb);
    let sh = Literal::u32_unsuffixed(shift);
    let stores = bytes.iter().enumerate().map(|(k, b)| {
        if k == 0 {
            quote!(#recv.#storage[#b] = raw as u8;)
        } else {
            let s = Literal::u32_unsuffixed(8 * k as u32);
            quote!(#recv.#storage[#b] = (raw >> #s) as u8;)
        }
    });
    // A union's members (and anything through a pointer) are read and written in `unsafe`.
    let wrap = |body: TokenStream| if unsafe_ { quote!(unsafe { #body }) } else { body };
    let get_body = wrap(quote! {
        let raw: #work = #raw;
        #get
    });
    let set_body = wrap(quote! {
        let v: #work = (v as #work) & #field_mask;
        let raw: #work = (#raw & #keep) | (v << #sh);
        #(#stores)*
    });
    (get_body, set_body)
}

/// The rule run again by rustc on the members' own layouts: size, alignment, every ordinary
/// member's offset and every storage array's position must be what `ptx_abi::bitfield` says.
fn layout_check(ident: &syn::Ident, decls: &[Decl], accesses: &[(&Decl, Access)], min_align: usize, is_union: bool) -> TokenStream {
    let p = quote!(::ptx_runtime::__private);
    let members = decls.iter().map(|d| match d.bits {
        Some((unit, width)) => {
            let unit = format_ident!("{}", format!("{unit:?}"));
            let named = d.named();
            quote!(#p::BitMember::Bits { unit: #p::Scalar::#unit, width: #width, named: #named })
        }
        None => {
            let ty = &d.field.ty;
            quote!(#p::BitMember::Field(<#ty as ::ptx_runtime::DeviceRepr>::LAYOUT))
        }
    });
    let size_msg = format!("bitfields: rustc's size of `{ident}` differs from the PTX ABI's (§1.3)");
    let align_msg = format!("bitfields: rustc's alignment of `{ident}` differs from the PTX ABI's (§1.3)");
    let offsets = decls.iter().enumerate().filter(|(_, d)| d.bits.is_none()).filter_map(|(i, d)| {
        let f = d.field.ident.as_ref()?;
        let msg = format!("bitfields: rustc's offset of `{f}` in `{ident}` differs from the PTX ABI's (§1.3)");
        Some(quote!(assert!(::core::mem::offset_of!(#ident, #f) * 8 == #p::member_bit(MEMBERS, #i, #is_union), #msg);))
    });
    let bits = accesses.iter().filter_map(|(d, a)| {
        let i = decls.iter().position(|x| std::ptr::eq(x, *d))?;
        let storage = &a.storage;
        let bit = a.bit;
        let msg = format!("bitfields: bit field `{}` of `{ident}` is not where the PTX ABI puts it (§1.3)", d.name());
        Some(quote!(assert!(::core::mem::offset_of!(#ident, #storage) * 8 + #bit == #p::member_bit(MEMBERS, #i, #is_union), #msg);))
    });
    quote! {
        const _: () = {
            const MEMBERS: &[#p::BitMember] = &[#(#members),*];
            let layout = #p::bit_layout(MEMBERS, #min_align, #is_union);
            assert!(::core::mem::size_of::<#ident>() == layout.size, #size_msg);
            assert!(::core::mem::align_of::<#ident>() == layout.align, #align_msg);
            #(#offsets)*
            #(#bits)*
        };
    }
}
