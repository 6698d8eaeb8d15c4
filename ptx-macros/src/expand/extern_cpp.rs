//! `#[device_extern]` on an `extern "C" { ... }` block: CUDA C++ `__device__` functions
//! declared in Rust, called from kernels and device functions like `#[device_fn]`s (each call
//! type-checked against the declaration) and emitted as `.extern .func` prototypes for a
//! linker to resolve (`ptx_runtime::Linker`).
//!
//! ```text
//! #[device_extern]
//! extern "C" {
//!     fn plain_c(x: f32) -> f32;                        // extern "C": `plain_c`
//!     #[cpp = "geo::scale"] fn scale(x: f32) -> f32;    // C++: `_ZN3geo5scaleEf`
//!     #[cpp = "twice<int>"]                              // a template instance:
//!     #[cpp_template = "template <typename T> T twice(T)"] // `_Z5twiceIiET_S0_`
//!     fn twice_i(x: i32) -> i32;
//!     #[link_name = "_Z3maxff"] fn max_f(a: f32, b: f32) -> f32;  // any symbol as written
//! }
//! ```
//!
//! Each function expands to a host function of the same signature (which panics: the code is
//! on the device), its replay (`@fn`, as a `#[device_fn]`'s), and a module with `SYMBOL` and a
//! `NODE` whose body is empty, so a kernel that reaches it declares the prototype once.

use super::abi_checks;
use crate::back::ptx::SigTypes;
use crate::link::info::{FnInfo, Info};
use crate::text::Text;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    if !args.is_empty() {
        return syn::Error::new_spanned(args, "`#[device_extern]` takes no arguments: name each function's symbol with `#[cpp = \"ns::f\"]` or `#[link_name = \"...\"]`").to_compile_error();
    }
    let block: syn::ItemForeignMod = match syn::parse2(item.clone()) {
        Ok(b) => b,
        Err(_) => {
            return syn::Error::new_spanned(item, "`#[device_extern]` applies to an `extern \"C\" { fn f(x: f32) -> f32; ... }` block of CUDA C++ device function declarations").to_compile_error();
        }
    };
    let mut out = TokenStream::new();
    for f in &block.items {
        match f {
            syn::ForeignItem::Fn(f) => out.extend(function(f).unwrap_or_else(|e| e.to_compile_error())),
            other => out.extend(
                syn::Error::new(other.span(), "only functions can be declared in a `#[device_extern]` block (device variables: declare them in CUDA C++ and pass pointers)").to_compile_error(),
            ),
        }
    }
    out
}

/// The symbol attribute of a declaration.
enum Name {
    Plain,
    Cpp(String, Span),
    Link(String),
}

fn function(f: &syn::ForeignItemFn) -> syn::Result<TokenStream> {
    let sig = &f.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new(sig.generics.span(), "a `#[device_extern]` function cannot be generic: declare each template instance as its own function with `#[cpp = \"f<int>\"]` and `#[cpp_template = \"template <typename T> T f(T)\"]`"));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new(v.span(), "variadic device functions are not supported (the guide's ABI has no variadic calls besides `vprintf`)"));
    }
    let mut name = Name::Plain;
    let mut template: Option<(String, Span)> = None;
    let mut attrs = Vec::new();
    for a in &f.attrs {
        if a.path().is_ident("cpp_template") {
            let syn::Meta::NameValue(syn::MetaNameValue { value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }), .. }) = &a.meta else {
                return Err(syn::Error::new(a.span(), "write the template's declaration as a string: `#[cpp_template = \"template <typename T> T twice(T)\"]`"));
            };
            if template.replace((s.value(), s.span())).is_some() {
                return Err(syn::Error::new(a.span(), "one `#[cpp_template]` per function"));
            }
            continue;
        }
        let which = if a.path().is_ident("cpp") {
            1
        } else if a.path().is_ident("link_name") {
            2
        } else {
            attrs.push(a.clone());
            continue;
        };
        if !matches!(name, Name::Plain) {
            return Err(syn::Error::new(a.span(), "one symbol per function: write either `#[cpp = \"ns::f\"]` or `#[link_name = \"...\"]`, once"));
        }
        let syn::Meta::NameValue(syn::MetaNameValue { value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }), .. }) = &a.meta else {
            return Err(syn::Error::new(a.span(), "write `#[cpp = \"ns::f\"]` or `#[link_name = \"symbol\"]` with a string"));
        };
        name = if which == 1 { Name::Cpp(s.value(), s.span()) } else { Name::Link(s.value()) };
    }
    let mut params = Vec::new();
    let mut idents = Vec::new();
    for (i, input) in sig.inputs.iter().enumerate() {
        match input {
            syn::FnArg::Typed(pt) => {
                params.push((*pt.ty).clone());
                idents.push(match &*pt.pat {
                    syn::Pat::Ident(p) => p.ident.clone(),
                    _ => quote::format_ident!("__arg{}", i),
                });
            }
            syn::FnArg::Receiver(r) => return Err(syn::Error::new(r.span(), "a `#[device_extern]` function takes no `self`")),
        }
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => Some((**t).clone()),
    };
    let ident = &sig.ident;
    if let (Some((_, at)), false) = (&template, matches!(name, Name::Cpp(..))) {
        return Err(syn::Error::new(*at, "`#[cpp_template]` describes the template of a `#[cpp = \"f<args>\"]` instance: add the instance's `#[cpp]`"));
    }
    let symbol = match name {
        Name::Plain => {
            let s = ident.to_string();
            s.strip_prefix("r#").unwrap_or(&s).to_owned()
        }
        Name::Link(s) => s,
        Name::Cpp(path, span) => match &template {
            Some((decl, at)) => crate::expand::cpp_template::mangle(&path, decl, params.len()).map_err(|msg| syn::Error::new(if path.contains('<') { *at } else { span }, msg))?,
            None => mangle(&path, &params).map_err(|(at, msg)| syn::Error::new(at.unwrap_or(span), msg))?,
        },
    };

    if symbol.is_empty() || !symbol.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$') || symbol.as_bytes()[0].is_ascii_digit() {
        return Err(syn::Error::new(ident.span(), format!("`{symbol}` is not a PTX identifier (letters, digits, `_`, `$`, not starting with a digit)")));
    }
    let vis = &f.vis;
    let types = SigTypes { params: params.clone(), ret: ret.clone() };
    let prototype = prototype(&types);
    let abi = abi_checks(&types);
    let msg = format!("`{ident}` is a CUDA C++ device function (`{symbol}`): it runs on the device only, in a module linked with its definition (`ptx_runtime::Linker`)");
    let inputs = &sig.inputs;
    let output = &sig.output;
    let info = Info::Fn(FnInfo { name: ident.to_string(), params: params.iter().map(|t| t.to_token_stream()).collect(), ret: ret.as_ref().map(|t| t.to_token_stream()), inlinable: false });
    let replay = crate::link::replay::emit("fn", ident, vis, &f.to_token_stream(), &info);
    let doc = format!("PTX declaration of the CUDA C++ device function [`{ident}`](fn@{ident}).");
    Ok(quote! {
        #(#attrs)*
        #[allow(dead_code, unused_variables)]
        #vis fn #ident(#inputs) #output {
            let _ = (#(#idents,)*);
            ::core::panic!(#msg)
        }
        #replay
        #[doc = #doc]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals)]
        #vis mod #ident {
            #[doc(no_inline)]
            pub use super::*;
            const __SYMBOL: &str = #symbol;
            /// The symbol the C++ definition has.
            pub const SYMBOL: &str = __SYMBOL;
            /// Its node in the call graph: a prototype only (an empty body), which every module
            /// reaching it declares once as `.extern .func`.
            #[doc(hidden)]
            pub static NODE: ::ptx_runtime::__private::FnNode = ::ptx_runtime::__private::FnNode {
                symbol: __SYMBOL,
                prototype: #prototype,
                body: "",
                callees: &[],
                isa: ::ptx_runtime::__private::Isa::new(6, 3),
                files: &[],
                file_refs: &[],
                dwarf: "",
                dwarf_refs: &[],
            };
            #abi
        }
    })
}

/// `.extern .func (ret) sym(params)`: the `.visible` prototype's declarations (§2.3).
fn prototype(types: &SigTypes) -> Text {
    crate::back::ptx::extern_prototype(types)
}

/// The Itanium C++ ABI name of the function `path` (`ns::inner::f` or `f`) with these
/// parameter types, as nvcc names it: `_ZN2ns5inner1fE` + parameters, or `_Z1f` + parameters
/// at global scope; `v` for none. Types: the primitives (`f32` is `float`: `f`, `i64` is `long
/// long`: `x`, `usize` is `size_t`: `m`), pointers and references (`*const T` is `const T*`:
/// `PK…`), and `DeviceRepr` structs by their name in the global namespace (`P` is `1P`), with
/// the ABI's substitutions (`S_`, `S0_`, …) for repeated components; CUDA's vector types
/// (`f32x4` is `float4`: `6float4`).
pub fn mangle(path: &str, params: &[syn::Type]) -> Result<String, (Option<Span>, String)> {
    let segs: Vec<&str> = path.split("::").map(str::trim).collect();
    if segs.iter().any(|s| s.is_empty() || !s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') || s.as_bytes()[0].is_ascii_digit()) {
        return Err((None, if path.contains('<') { format!("`{path}` is a template instance: add the template's declaration, `#[cpp_template = \"template <typename T> T f(T)\"]`") } else { format!("`{path}` is not a C++ qualified name (`ns::f`): for an operator, write `#[link_name = \"...\"]` with the symbol nvcc emits") }));
    }
    let mut m = String::new();
    let mut subs: Vec<String> = Vec::new();
    let (name, ns) = segs.split_last().ok_or((None, "empty name".to_owned()))?;
    if ns.is_empty() {
        m.push_str(&format!("_Z{}{name}", name.len()));
    } else {
        m.push_str("_ZN");
        let mut prefix = String::new();
        for s in ns {
            prefix.push_str(&format!("{}{s}", s.len()));
            subs.push(prefix.clone());
            m.push_str(&format!("{}{s}", s.len()));
        }
        m.push_str(&format!("{}{name}E", name.len()));
    }
    if params.is_empty() {
        m.push('v');
    }
    for p in params {
        m.push_str(&encode(p, &mut subs)?);
    }
    Ok(m)
}

/// One type's encoding, with substitutions for components seen before.
fn encode(t: &syn::Type, subs: &mut Vec<String>) -> Result<String, (Option<Span>, String)> {
    let unsupported = || (Some(t.span()), format!("`{}` has no C++ mangling here: write `#[link_name = \"...\"]` with the symbol nvcc emits", t.to_token_stream()));
    match t {
        syn::Type::Paren(p) => encode(&p.elem, subs),
        syn::Type::Group(g) => encode(&g.elem, subs),
        syn::Type::Ptr(p) => {
            let inner = encode(&p.elem, subs)?;
            let inner = if p.const_token.is_some() { qualified('K', &inner, subs) } else { inner };
            Ok(qualified('P', &inner, subs))
        }
        syn::Type::Reference(r) => {
            let inner = encode(&r.elem, subs)?;
            let inner = if r.mutability.is_none() { qualified('K', &inner, subs) } else { inner };
            Ok(qualified('R', &inner, subs))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().ok_or_else(unsupported)?;
            if !last.arguments.is_empty() {
                return Err(unsupported());
            }
            let name = last.ident.to_string();
            if let Some((_, code)) = ptx_abi::cpp::fundamental(&name).filter(|(_, code)| !code.is_empty()) {
                return Ok(code.to_owned());
            }
            // CUDA's vector types are structs in the global namespace (`float4` is `6float4`).
            if let Some(v) = super::cpp_header::vector(&name) {
                let n = format!("{}{v}", v.len());
                return Ok(substitutable(n.clone(), n, subs));
            }
            let n = format!("{}{name}", name.len());
            Ok(substitutable(n.clone(), n, subs))
        }
        _ => Err(unsupported()),
    }
}

/// A substitution candidate: `key` is the component spelled out (what the candidates hold),
/// `written` its encoding with the substitutions already made inside it. Seen before, it is
/// written `S_`, `S0_`, ...; else it becomes the next candidate.
pub(super) fn substitutable(key: String, written: String, subs: &mut Vec<String>) -> String {
    if let Some(k) = subs.iter().position(|s| *s == key) {
        return if k == 0 { "S_".to_owned() } else { format!("S{}_", base36(k - 1)) };
    }
    subs.push(key);
    written
}

/// `q` (`P`, `K`, `R`) applied to an encoded type: a candidate of its own.
pub(super) fn qualified(q: char, inner: &str, subs: &mut Vec<String>) -> String {
    let key = format!("{q}{}", full(inner, subs));
    substitutable(key, format!("{q}{inner}"), subs)
}

/// The full encoding behind a component (a substitution stands for what it replaced).
fn full(enc: &str, subs: &[String]) -> String {
    if let Some(rest) = enc.strip_prefix('S') {
        let k = if rest == "_" { Some(0) } else { rest.strip_suffix('_').and_then(|d| usize::from_str_radix(d, 36).ok()).map(|v| v + 1) };
        if let Some(s) = k.and_then(|k| subs.get(k)) {
            return s.clone();
        }
    }
    enc.to_owned()
}

fn base36(mut n: usize) -> String {
    let mut v = Vec::new();
    loop {
        let d = (n % 36) as u8;
        v.push(if d < 10 { b'0' + d } else { b'A' + d - 10 });
        n /= 36;
        if n == 0 {
            break;
        }
    }
    v.reverse();
    String::from_utf8(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::mangle;

    fn m(path: &str, params: &str) -> String {
        let f: syn::ForeignItemFn = syn::parse_str(&format!("fn f({params});")).unwrap();
        let tys: Vec<syn::Type> = f.sig.inputs.iter().map(|a| if let syn::FnArg::Typed(p) = a { (*p.ty).clone() } else { unreachable!() }).collect();
        mangle(path, &tys).unwrap()
    }

    /// Names as nvcc (cu++filt) spells them.
    #[test]
    fn itanium_names() {
        assert_eq!(m("geo::scale", "x: f32"), "_ZN3geo5scaleEf");
        assert_eq!(m("geo::scale", "x: f64"), "_ZN3geo5scaleEd");
        assert_eq!(m("takes_p", "p: P"), "_Z7takes_p1P");
        assert_eq!(m("f", ""), "_Z1fv");
        assert_eq!(m("f", "a: P, b: P"), "_Z1f1PS_");
        assert_eq!(m("f", "a: *const f32, b: *const f32"), "_Z1fPKfS0_");
        assert_eq!(m("a::b::g", "x: *mut P, y: &P, z: u64"), "_ZN1a1b1gEP1PRKS1_y");
        assert_eq!(m("sum4", "v: f32x4, w: f32x4"), "_Z4sum46float4S_");
        assert!(mangle("twice<int>", &[]).is_err());
    }
}
