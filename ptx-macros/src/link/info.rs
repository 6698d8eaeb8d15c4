//! What a replay says about its item, and how it is spelled inside the fetch chain:
//!
//! ```text
//! @struct Name named|tuple|union ALIGN { field [Ty] field [Ty] ... }
//! @generic Name (T U [N usize]) { @struct Name named|tuple ALIGN { field [Ty] ... } }
//! @generic_method name by_value|by_ref|by_mut|assoc {impl generics} {Self type} { item } [op code]
//! @fn name ( [Ty] [Ty] ... ) [Ret] inlinable? // [] for `()`; `inlinable`: a `#[device_fn]`
//! @inline { item } ( [path] api_name ... )    // `f::__ptx_inline`: its body, to inline
//! @no_inline
//! @api name
//! @trait Name
//! @method name by_value|by_ref|by_mut|assoc ( [Ty] ... ) [Ret]
//! @generic_fn name { item }
//! @enum Name u32 { Variant [value] ... }
//! @enum Name u32 c|int { Variant [value] named|tuple { field [Ty] ... } ... }   // with fields
//! ```
//!
//! Types are the tokens as written at the item's definition, with a leading `crate` made
//! `$crate` so it keeps naming the defining crate.

use crate::front::ty::StructKind;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::cell::OnceCell;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub enum Info {
    Struct(StructInfo),
    /// A generic `DeviceRepr` type: its type parameters and its fields as written (in terms of
    /// them); each use names the arguments (`Pair<f32>`), see `front::generic_type`.
    Generic(GenericStructInfo),
    Fn(FnInfo),
    /// A device-API function of `ptx-runtime`, by name.
    Api(String),
    /// A method or associated function of a `#[device_fn] impl` (see `expand::method`).
    Method(MethodInfo),
    /// A generic device function: its whole item, which each caller instantiates (see
    /// `front::generic`).
    GenericFn(GenericFnInfo),
    /// A C-like `DeviceRepr` enum (see `expand::derive_enum`).
    Enum(EnumInfo),
    /// A method of a generic `#[device_fn] impl<T> Pair<T>`: instantiated by each caller (see
    /// `front::generic_type`).
    GenericMethod(GenericMethodInfo),
    /// A `#[device_fn] trait`, by name: its functions are called through it
    /// (`Halve::halve(x)`, see `front::trait_call`).
    Trait(String),
    /// A generic `#[device_fn] trait Scale<T>`: its item, whose method signatures say how a
    /// call's arguments pick the impl (see `front::generic_trait`).
    GenericTrait(GenericFnInfo),
    /// `f::__ptx_inline` of a `#[device_fn] f` small and self-contained enough to be inlined into
    /// a kernel by default (see `expand::inline_form`).
    Inline(InlineInfo),
    /// `f::__ptx_inline` of a `#[device_fn] f` that stays a call.
    NoInline,
    /// An associated type of a user trait's impl, as written (see `expand::assoc_types`).
    AssocType(TokenStream),
    /// A `ptx-runtime` name device code cannot use as a type (`texture::Boundary`, a constant
    /// at each call): the rule and what to write instead, reported where the type is named.
    Refused(String),
    /// A method of one instance's impl (`impl Pair<f32>`): named by the instance, not the
    /// type (see `expand::instance_impl`).
    PerInstance,
}

/// A generic `DeviceRepr` struct: its type and const parameters and its fields with the
/// parameters as written.
#[derive(Clone, Debug)]
pub struct GenericStructInfo {
    pub params: Vec<StructParam>,
    pub def: StructInfo,
}

/// A parameter of a generic `DeviceRepr` struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructParam {
    Type(String),
    /// `const N: usize`: its name and its type's name.
    Const(String, String),
}

impl StructParam {
    pub fn name(&self) -> &str {
        match self {
            StructParam::Type(n) | StructParam::Const(n, _) => n,
        }
    }

    /// The name of a type parameter.
    pub fn type_name(&self) -> Option<&str> {
        match self {
            StructParam::Type(n) => Some(n),
            StructParam::Const(..) => None,
        }
    }
}

/// A method of a generic impl: the impl's generics, its self type and the method as written
/// (`Self` left for the instance to fill in).
#[derive(Clone, Debug)]
pub struct GenericMethodInfo {
    pub name: String,
    pub recv: Recv,
    pub generics: TokenStream,
    pub self_ty: TokenStream,
    pub item: TokenStream,
    /// For an operator of a trait impl (`impl<T> Add for Pair<T>`): its Itanium code (`pl`).
    pub op: Option<String>,
    /// For a generic method of a generic trait's impl (`impl Mix<f32> for V`): the trait's
    /// arguments as written there (`f32`), the first of each instance's template arguments.
    pub trait_args: TokenStream,
}

/// A generic `#[device_fn]`: its name and its tokens as written (signature, bounds, body).
#[derive(Clone, Debug)]
pub struct GenericFnInfo {
    pub name: String,
    pub item: FnItem,
}

/// A replayed function's tokens, parsed at most once per round: a body inlined at several calls
/// (`sinf` and `cosf` both inline `trig_reduce_f32`) was parsed at each, and parsing is a good
/// part of checking a body, in a macro cargo compiles unoptimized. Clones share the parse (the
/// front end clones what `link::Env` found before it looks inside).
#[derive(Clone, Debug)]
pub struct FnItem {
    pub tokens: TokenStream,
    parsed: Rc<OnceCell<Option<Rc<syn::ItemFn>>>>,
}

impl FnItem {
    pub fn new(tokens: TokenStream) -> FnItem {
        FnItem { tokens, parsed: Rc::default() }
    }

    /// The tokens as a function item; `None` when they are not one.
    pub fn parsed(&self) -> Option<std::rc::Rc<syn::ItemFn>> {
        self.parsed.get_or_init(|| syn::parse2(self.tokens.clone()).ok().map(Rc::new)).clone()
    }
}

/// A C-like enum: its integer representation and its variants' values.
#[derive(Clone, Debug)]
pub struct EnumInfo {
    pub name: String,
    pub repr: ptx_abi::Scalar,
    pub variants: Vec<(String, i128)>,
    /// A data-carrying enum (`#[repr(C, u32)]`, `#[repr(u8)]` with fields): how its fields are
    /// placed and each variant's fields (see `front::enum_data`).
    pub data: Option<EnumData>,
}

/// The fields of a data-carrying enum's variants, by variant, as written.
#[derive(Clone, Debug)]
pub struct EnumData {
    pub style: ptx_abi::tagged::TagStyle,
    /// Per variant: `Named` (`V { a: T }`) or `Tuple` (`V(T)`, and unit variants), and its
    /// fields.
    pub variants: Vec<(StructKind, Vec<(String, TokenStream)>)>,
}

/// How a method takes `self`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recv {
    /// `self` / `mut self`
    Value,
    /// `&self`
    Ref,
    /// `&mut self`
    Mut,
    /// No receiver: an associated function (`Vec3::new`).
    Assoc,
}

impl Recv {
    pub fn name(self) -> &'static str {
        match self {
            Recv::Value => "by_value",
            Recv::Ref => "by_ref",
            Recv::Mut => "by_mut",
            Recv::Assoc => "assoc",
        }
    }

    /// How `r` takes the receiver: `self`, `&self`, `&mut self`, or the same written with a
    /// type (`self: &Self`).
    pub fn of(r: &syn::Receiver) -> Recv {
        match (&r.reference, &*r.ty) {
            (Some(_), _) if r.mutability.is_some() => Recv::Mut,
            (Some(_), _) => Recv::Ref,
            (None, syn::Type::Reference(t)) if t.mutability.is_some() => Recv::Mut,
            (None, syn::Type::Reference(_)) => Recv::Ref,
            (None, _) => Recv::Value,
        }
    }

    fn parse(s: &str) -> Option<Recv> {
        [Recv::Value, Recv::Ref, Recv::Mut, Recv::Assoc].into_iter().find(|r| r.name() == s)
    }
}

/// A method's signature as its impl writes it, `Self` replaced by the type's name.
#[derive(Clone, Debug)]
pub struct MethodInfo {
    pub name: String,
    pub recv: Recv,
    /// The parameters after the receiver.
    pub params: Vec<TokenStream>,
    pub ret: Option<TokenStream>,
    /// For a method of a generic impl: the instance module the caller compiles it in (never
    /// in a replay).
    pub instance: Option<TokenStream>,
    /// Whether kernels may inline it: its last round leaves `__ptx_inline` beside its replay
    /// (`expand::method`, `front::inline_method`).
    pub inlinable: bool,
    /// The path the caller fetched the replay of an inlinable method by (never in a replay).
    pub fetched: Option<TokenStream>,
}

#[derive(Clone, Debug)]
pub struct StructInfo {
    pub name: String,
    pub kind: StructKind,
    /// `repr(align(N))`, or 0.
    pub align: usize,
    pub fields: Vec<(String, TokenStream)>,
}

#[derive(Clone, Debug)]
pub struct FnInfo {
    pub name: String,
    pub params: Vec<TokenStream>,
    pub ret: Option<TokenStream>,
    /// A `#[device_fn]` (not `#[inline(never)]`) whose generated module says whether it is
    /// inlined (`f::__ptx_inline`); an `extern "C"` function is not.
    pub inlinable: bool,
}

/// A device function a kernel inlines: its item (signature and body, no attributes) and the
/// device-API paths its body calls with the API function each names (see `expand::inline_form`).
#[derive(Clone, Debug)]
pub struct InlineInfo {
    pub item: FnItem,
    pub apis: Vec<(TokenStream, String)>,
}

/// Writes `info` in the chain's spelling.
pub fn write(info: &Info) -> TokenStream {
    use quote::{format_ident, quote};
    match info {
        Info::Struct(s) => {
            let name = format_ident!("{}", s.name);
            let kind = format_ident!("{}", match s.kind {
                StructKind::Named => "named",
                StructKind::Tuple => "tuple",
                StructKind::Union => "union",
                // Never written as a struct: an enum's replay is `@enum`.
                StructKind::Enum | StructKind::CLike => "enum",
            });
            let align = proc_macro2::Literal::usize_unsuffixed(s.align);
            let fields = s.fields.iter().map(|(n, t)| {
                let n: TokenTree = match n.parse::<usize>() {
                    Ok(i) => proc_macro2::Literal::usize_unsuffixed(i).into(),
                    Err(_) => format_ident!("{}", n).into(),
                };
                quote!(#n [#t])
            });
            quote!(@struct #name #kind #align { #(#fields)* })
        }
        Info::Generic(g) => {
            let name = format_ident!("{}", g.def.name);
            let params = g.params.iter().map(|p| match p {
                StructParam::Type(p) => {
                    let p = format_ident!("{}", p);
                    quote!(#p)
                }
                StructParam::Const(p, t) => {
                    let (p, t) = (format_ident!("{}", p), format_ident!("{}", t));
                    quote!([#p #t])
                }
            });
            let def = write(&Info::Struct(g.def.clone()));
            quote!(@generic #name (#(#params)*) { #def })
        }
        Info::GenericMethod(m) => {
            let name = format_ident!("{}", m.name);
            let recv = format_ident!("{}", m.recv.name());
            let (g, t, item) = (&m.generics, &m.self_ty, &m.item);
            let op = m.op.iter().map(|o| format_ident!("{}", o));
            let targs = &m.trait_args;
            quote!(@generic_method #name #recv {#g} {#t} {#item} [#targs] #(#op)*)
        }
        Info::Fn(f) => {
            let name = format_ident!("{}", f.name);
            let params = &f.params;
            let ret = f.ret.clone().unwrap_or_default();
            let inlinable = f.inlinable.then(|| quote!(inlinable));
            quote!(@fn #name ( #([#params])* ) [#ret] #inlinable)
        }
        Info::Inline(i) => {
            let item = &i.item.tokens;
            let apis = i.apis.iter().map(|(p, n)| {
                let n = format_ident!("{}", n);
                quote!([#p] #n)
            });
            quote!(@inline { #item } ( #(#apis)* ))
        }
        Info::NoInline => quote!(@no_inline),
        Info::Api(n) => {
            let name = format_ident!("{}", n);
            quote!(@api #name)
        }
        Info::Trait(n) => {
            let name = format_ident!("{}", n);
            quote!(@trait #name)
        }
        Info::Method(m) => {
            let name = format_ident!("{}", m.name);
            let recv = format_ident!("{}", m.recv.name());
            let params = &m.params;
            let ret = m.ret.clone().unwrap_or_default();
            let inline = m.inlinable.then(|| quote!(inline));
            quote!(@method #name #recv ( #([#params])* ) [#ret] #inline)
        }
        Info::GenericFn(g) => {
            let name = format_ident!("{}", g.name);
            let item = &g.item.tokens;
            quote!(@generic_fn #name { #item })
        }
        Info::AssocType(t) => quote!(@assoc_type [#t]),
        Info::GenericTrait(g) => {
            let name = format_ident!("{}", g.name);
            let item = &g.item.tokens;
            quote!(@generic_trait #name { #item })
        }
        Info::Refused(msg) => {
            let msg = proc_macro2::Literal::string(msg);
            quote!(@refused #msg)
        }
        Info::PerInstance => quote!(@per_instance),
        Info::Enum(e) => {
            let name = format_ident!("{}", e.name);
            let repr = format_ident!("{}", crate::front::ty::scalar_name(e.repr));
            let variants = e.variants.iter().enumerate().map(|(k, (v, x))| {
                let v = format_ident!("{}", v);
                let x = proc_macro2::Literal::string(&x.to_string());
                let fields = e.data.as_ref().map(|d| {
                    let (kind, fields) = &d.variants[k];
                    let kind = format_ident!("{}", if *kind == StructKind::Named { "named" } else { "tuple" });
                    let fields = fields.iter().map(|(n, t)| {
                        let n: TokenTree = match n.parse::<usize>() {
                            Ok(i) => proc_macro2::Literal::usize_unsuffixed(i).into(),
                            Err(_) => format_ident!("{}", n).into(),
                        };
                        quote!(#n [#t])
                    });
                    quote!(#kind { #(#fields)* })
                });
                quote!(#v [#x] #fields)
            });
            let style = e.data.as_ref().map(|d| match d.style {
                ptx_abi::tagged::TagStyle::CTagged => format_ident!("c"),
                ptx_abi::tagged::TagStyle::Primitive => format_ident!("int"),
            });
            quote!(@enum #name #repr #style { #(#variants)* })
        }
    }
}

/// Reads an info; `None` if it is not in the chain's spelling.
pub fn parse(tokens: TokenStream) -> Option<Info> {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut it = tts.into_iter();
    match (it.next()?, it.next()?) {
        (TokenTree::Punct(p), TokenTree::Ident(kind)) if p.as_char() == '@' => match kind.to_string().as_str() {
            "struct" => {
                let name = ident(it.next()?)?;
                let kind = match ident(it.next()?)?.as_str() {
                    "named" => StructKind::Named,
                    "tuple" => StructKind::Tuple,
                    "union" => StructKind::Union,
                    _ => return None,
                };
                let align = literal(it.next()?)?.parse().ok()?;
                let body = group(it.next()?, Delimiter::Brace)?;
                let mut fields = Vec::new();
                let mut b = body.into_iter();
                while let Some(n) = b.next() {
                    let n = match n {
                        TokenTree::Ident(i) => i.to_string(),
                        TokenTree::Literal(l) => l.to_string(),
                        _ => return None,
                    };
                    let ty = group(b.next()?, Delimiter::Bracket)?;
                    fields.push((n.strip_prefix("r#").unwrap_or(&n).to_owned(), ty));
                }
                Some(Info::Struct(StructInfo { name, kind, align, fields }))
            }
            "generic" => {
                let _name = ident(it.next()?)?;
                let params = group(it.next()?, Delimiter::Parenthesis)?
                    .into_iter()
                    .map(|t| match t {
                        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                            let mut it = g.stream().into_iter();
                            Some(StructParam::Const(ident(it.next()?)?, ident(it.next()?)?))
                        }
                        t => ident(t).map(StructParam::Type),
                    })
                    .collect::<Option<Vec<_>>>()?;
                let Info::Struct(def) = parse(group(it.next()?, Delimiter::Brace)?)? else { return None };
                Some(Info::Generic(GenericStructInfo { params, def }))
            }
            "generic_method" => {
                let name = ident(it.next()?)?;
                let recv = Recv::parse(&ident(it.next()?)?)?;
                let generics = group(it.next()?, Delimiter::Brace)?;
                let self_ty = group(it.next()?, Delimiter::Brace)?;
                let item = group(it.next()?, Delimiter::Brace)?;
                let trait_args = group(it.next()?, Delimiter::Bracket)?;
                let op = match it.next() {
                    Some(t) => Some(ident(t)?),
                    None => None,
                };
                Some(Info::GenericMethod(GenericMethodInfo { name, recv, generics, self_ty, item, op, trait_args }))
            }
            "fn" => {
                let name = ident(it.next()?)?;
                let params = group(it.next()?, Delimiter::Parenthesis)?
                    .into_iter()
                    .map(|t| group(t, Delimiter::Bracket))
                    .collect::<Option<Vec<_>>>()?;
                let ret = group(it.next()?, Delimiter::Bracket)?;
                let ret = if ret.is_empty() { None } else { Some(ret) };
                let inlinable = match it.next() {
                    None => false,
                    Some(t) => ident(t)? == "inlinable",
                };
                Some(Info::Fn(FnInfo { name, params, ret, inlinable }))
            }
            "inline" => {
                let item = group(it.next()?, Delimiter::Brace)?;
                let mut apis = Vec::new();
                let mut list = group(it.next()?, Delimiter::Parenthesis)?.into_iter();
                while let Some(p) = list.next() {
                    apis.push((group(p, Delimiter::Bracket)?, ident(list.next()?)?));
                }
                Some(Info::Inline(InlineInfo { item: FnItem::new(item), apis }))
            }
            "no_inline" => Some(Info::NoInline),
            "api" => Some(Info::Api(ident(it.next()?)?)),
            "trait" => Some(Info::Trait(ident(it.next()?)?)),
            "method" => {
                let name = ident(it.next()?)?;
                let recv = Recv::parse(&ident(it.next()?)?)?;
                let params = group(it.next()?, Delimiter::Parenthesis)?
                    .into_iter()
                    .map(|t| group(t, Delimiter::Bracket))
                    .collect::<Option<Vec<_>>>()?;
                let ret = group(it.next()?, Delimiter::Bracket)?;
                let ret = if ret.is_empty() { None } else { Some(ret) };
                let inlinable = matches!(it.next(), Some(TokenTree::Ident(i)) if i == "inline");
                Some(Info::Method(MethodInfo { name, recv, params, ret, instance: None, inlinable, fetched: None }))
            }
            "generic_fn" => {
                let name = ident(it.next()?)?;
                let item = group(it.next()?, Delimiter::Brace)?;
                Some(Info::GenericFn(GenericFnInfo { name, item: FnItem::new(item) }))
            }
            "assoc_type" => Some(Info::AssocType(group(it.next()?, Delimiter::Bracket)?)),
            "generic_trait" => {
                let name = ident(it.next()?)?;
                let item = group(it.next()?, Delimiter::Brace)?;
                Some(Info::GenericTrait(GenericFnInfo { name, item: FnItem::new(item) }))
            }
            "per_instance" => Some(Info::PerInstance),
            "refused" => match it.next()? {
                TokenTree::Literal(l) => Some(Info::Refused(syn::parse_str::<syn::LitStr>(&l.to_string()).ok()?.value())),
                _ => None,
            },
            "enum" => {
                let name = ident(it.next()?)?;
                let repr = ptx_abi::Scalar::from_rust_name(&ident(it.next()?)?)?;
                let mut next = it.next()?;
                let style = match &next {
                    TokenTree::Ident(i) => {
                        let style = match i.to_string().as_str() {
                            "c" => ptx_abi::tagged::TagStyle::CTagged,
                            "int" => ptx_abi::tagged::TagStyle::Primitive,
                            _ => return None,
                        };
                        next = it.next()?;
                        Some(style)
                    }
                    _ => None,
                };
                let mut variants = Vec::new();
                let mut fields_of = Vec::new();
                let mut b = group(next, Delimiter::Brace)?.into_iter();
                while let Some(v) = b.next() {
                    let v = ident(v)?;
                    let mut value = group(b.next()?, Delimiter::Bracket)?.into_iter();
                    let lit = literal(value.next()?)?;
                    variants.push((v, lit.trim_matches('"').parse().ok()?));
                    if style.is_some() {
                        let kind = if ident(b.next()?)? == "named" { StructKind::Named } else { StructKind::Tuple };
                        let mut fb = group(b.next()?, Delimiter::Brace)?.into_iter();
                        let mut fields = Vec::new();
                        while let Some(n) = fb.next() {
                            let n = match n {
                                TokenTree::Ident(i) => i.to_string(),
                                TokenTree::Literal(l) => l.to_string(),
                                _ => return None,
                            };
                            let ty = group(fb.next()?, Delimiter::Bracket)?;
                            fields.push((n.strip_prefix("r#").unwrap_or(&n).to_owned(), ty));
                        }
                        fields_of.push((kind, fields));
                    }
                }
                let data = style.map(|style| EnumData { style, variants: fields_of });
                Some(Info::Enum(EnumInfo { name, repr, variants, data }))
            }
            _ => None,
        },
        _ => None,
    }
}

fn ident(t: TokenTree) -> Option<String> {
    match t {
        TokenTree::Ident(i) => {
            let s = i.to_string();
            Some(s.strip_prefix("r#").unwrap_or(&s).to_owned())
        }
        _ => None,
    }
}

fn literal(t: TokenTree) -> Option<String> {
    match t {
        TokenTree::Literal(l) => Some(l.to_string()),
        _ => None,
    }
}

pub fn group(t: TokenTree, d: Delimiter) -> Option<TokenStream> {
    match t {
        TokenTree::Group(g) if g.delimiter() == d => Some(g.stream()),
        // Tokens that went through `macro_rules!` may arrive wrapped in an invisible group.
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
            let mut inner = g.stream().into_iter();
            let first = inner.next()?;
            if inner.next().is_some() {
                return None;
            }
            group(first, d)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn infos_round_trip() {
        let s = Info::Struct(StructInfo {
            name: "P".into(),
            kind: StructKind::Named,
            align: 16,
            fields: vec![("x".into(), quote!(f32)), ("next".into(), quote!(*mut crate::P))],
        });
        let Some(Info::Struct(back)) = parse(write(&s)) else { panic!() };
        assert_eq!(back.align, 16);
        assert_eq!(back.fields.len(), 2);
        assert_eq!(back.fields[1].1.to_string(), "* mut crate :: P");
        let f = Info::Fn(FnInfo { name: "f".into(), params: vec![quote!(u32), quote!(&[f32])], ret: None, inlinable: true });
        let Some(Info::Fn(back)) = parse(write(&f)) else { panic!() };
        assert_eq!(back.params.len(), 2);
        assert!(back.ret.is_none() && back.inlinable);
        let extern_fn = Info::Fn(FnInfo { name: "g".into(), params: vec![], ret: Some(quote!(f32)), inlinable: false });
        let Some(Info::Fn(back)) = parse(write(&extern_fn)) else { panic!() };
        assert!(!back.inlinable && back.ret.is_some());
        let inline = Info::Inline(InlineInfo { item: FnItem::new(quote!(fn gid() -> usize { thread_idx_x() as usize })), apis: vec![(quote!(thread_idx_x), "thread_idx_x".into()), (quote!(warp::lane_id), "lane_id".into())] });
        let Some(Info::Inline(back)) = parse(write(&inline)) else { panic!() };
        assert_eq!(back.item.tokens.to_string(), "fn gid () -> usize { thread_idx_x () as usize }");
        let apis: Vec<(String, String)> = back.apis.iter().map(|(p, n)| (p.to_string(), n.clone())).collect();
        assert_eq!(apis, [("thread_idx_x".to_owned(), "thread_idx_x".to_owned()), ("warp :: lane_id".to_owned(), "lane_id".to_owned())]);
        assert!(matches!(parse(write(&Info::NoInline)), Some(Info::NoInline)));
        let m = Info::Method(MethodInfo { name: "dot".into(), recv: Recv::Ref, params: vec![quote!(Vec3)], ret: Some(quote!(f32)), instance: None, inlinable: true, fetched: None });
        let Some(Info::Method(back)) = parse(write(&m)) else { panic!() };
        assert_eq!((back.name.as_str(), back.recv, back.params.len(), back.inlinable), ("dot", Recv::Ref, 1, true));
        let plain = Info::Method(MethodInfo { inlinable: false, ..back });
        let Some(Info::Method(back)) = parse(write(&plain)) else { panic!() };
        assert!(!back.inlinable && back.ret.is_some());
        let e = Info::Enum(EnumInfo { name: "Op".into(), repr: ptx_abi::Scalar::I8, variants: vec![("Add".into(), 0), ("Neg".into(), -128)], data: None });
        let Some(Info::Enum(back)) = parse(write(&e)) else { panic!() };
        assert_eq!((back.repr, back.variants), (ptx_abi::Scalar::I8, vec![("Add".into(), 0), ("Neg".into(), -128)]));
        assert!(parse(quote!(@nonsense)).is_none());
        assert!(parse(quote!()).is_none());
    }
}
