//! Attribute arguments: `#[kernel(sm = 90)]`, `#[kernel(fmad)]`, and `#[no_mangle]` on the
//! item.

use crate::report::Errors;
use proc_macro2::TokenStream;
use ptx_abi::Target;
use syn::parse::Parser;

/// What `#[kernel(...)]` / `#[device_fn(...)]` asked for.
pub struct Args {
    pub target: Target,
    /// `fmad`: contract `a * b + c` into `fma` as nvcc's `-fmad=true` does (`ir::contract`).
    pub fmad: bool,
}

pub fn parse_args(tokens: TokenStream, errors: &mut Errors) -> Args {
    let mut args = Args { target: Target::DEFAULT, fmad: false };
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("sm") {
            let value = meta.value()?;
            let lit: syn::Lit = value.parse()?;
            let text = match &lit {
                syn::Lit::Int(i) => i.base10_digits().to_owned(),
                syn::Lit::Str(s) => s.value(),
                _ => return Err(syn::Error::new_spanned(&lit, "`sm` takes a number, e.g. `sm = 90`, or a string such as `sm = \"90a\"`")),
            };
            match Target::parse(&text) {
                Some(t) => args.target = t,
                None => {
                    let known: Vec<String> = Target::known_list().map(|s| s.to_string()).collect();
                    return Err(syn::Error::new_spanned(
                        &lit,
                        format!("unknown target `sm_{text}`: known targets are sm_{} (with an `a` or, from sm_100, `f` suffix for architecture-specific code); sm_75 is the oldest CUDA 13 compiles for", known.join(", sm_")),
                    ));
                }
            }
            Ok(())
        } else if meta.path.is_ident("fmad") {
            if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                return Err(meta.error("`fmad` takes no value: write `#[kernel(fmad)]` to contract, nothing to keep Rust's rounding"));
            }
            args.fmad = true;
            Ok(())
        } else {
            Err(meta.error("unknown argument: the arguments are the target, e.g. `sm = 90`, and `fmad` (contract `a * b + c` into `fma`, as nvcc's `-fmad=true`)"))
        }
    });
    if let Err(e) = parser.parse2(tokens) {
        errors.push(e);
    }
    args
}

/// Removes `#[no_mangle]` (or `#[unsafe(no_mangle)]`) from the attributes and says whether it
/// was there. It names the PTX symbol, not the host function, so it does not stay on the host
/// copy (where it would also export a host symbol of that name).
pub fn take_no_mangle(attrs: &mut Vec<syn::Attribute>) -> bool {
    let before = attrs.len();
    attrs.retain(|a| !is_no_mangle(a));
    attrs.len() != before
}

fn is_no_mangle(a: &syn::Attribute) -> bool {
    if a.path().is_ident("no_mangle") {
        return true;
    }
    if a.path().is_ident("unsafe") {
        if let Ok(inner) = a.parse_args::<syn::Path>() {
            return inner.is_ident("no_mangle");
        }
    }
    false
}
