//! Attribute arguments: `#[kernel(sm = 90, block = (16, 16), launch_bounds(...), fmad)]`,
//! and `#[no_mangle]` on the item.
//!
//! Launch bounds are CUDA's: `block = (x, y, z)` is the shape every launch must use (PTX
//! `.reqntid`, the facts range analysis starts from); `launch_bounds(max_threads = N,
//! min_blocks = M)` is `__launch_bounds__(N, M)` (PTX `.maxntid N, 1, 1` and
//! `.minnctapersm M`: ptxas budgets registers so that `M` blocks of `N` threads fit on one SM).
//! `fmad` is nvcc's `-fmad=true`: `a * b + c` contracted into `fma`.

use crate::report::Errors;
use crate::syntax::signature::FnKind;
use proc_macro2::TokenStream;
use ptx_abi::Target;
use syn::parse::Parser;
use syn::spanned::Spanned;

/// What `#[kernel(...)]` / `#[device_fn(...)]` asked for.
pub struct Args {
    pub target: Target,
    pub bounds: LaunchBounds,
    /// `fmad`: contract `a * b + c` into `fma` as nvcc's `-fmad=true` does (`ir::contract`).
    pub fmad: bool,
    /// `debug`, or the crate-wide `debug-info` feature: full debug information, and no
    /// optimisation that loses a variable (nvcc's `-G`; `back::ptx::dwarf`).
    pub debug: bool,
}

/// A kernel's declared launch bounds. `block` and `max_threads` exclude each other (ptxas
/// rejects `.reqntid` with `.maxntid`); `min_blocks` needs one of them (ptxas ignores
/// `.minnctapersm` alone).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchBounds {
    /// `block = (x, y, z)`: the exact block shape (`.reqntid x, y, z`).
    pub block: Option<[u32; 3]>,
    /// `launch_bounds(max_threads = n)`: at most `n` threads per block (`.maxntid n, 1, 1`).
    pub max_threads: Option<u32>,
    /// `launch_bounds(min_blocks = m)`: `.minnctapersm m`.
    pub min_blocks: Option<u32>,
}


/// CUDA's limits on a block (every architecture sm_75 and newer): 1024 threads, at most 1024
/// in x and y and 64 in z.
const MAX_THREADS: u64 = 1024;
const MAX_DIMS: [u32; 3] = [1024, 1024, 64];

pub fn parse_args(tokens: TokenStream, kind: FnKind, errors: &mut Errors) -> Args {
    let mut args = Args { target: Target::DEFAULT, bounds: LaunchBounds::default(), fmad: false, debug: cfg!(feature = "debug-info") };
    let mut block_span = None;
    let mut max_threads_span = None;
    let mut min_blocks_span = None;
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
        } else if meta.path.is_ident("block") || meta.path.is_ident("launch_bounds") {
            if kind == FnKind::Device {
                return Err(meta.error("launch bounds belong to a kernel: put `block` / `launch_bounds` on the `#[kernel]` that calls this device function"));
            }
            if meta.path.is_ident("block") {
                if block_span.is_some() {
                    return Err(meta.error("`block` is given twice: write it once"));
                }
                let expr: syn::Expr = meta.value()?.parse()?;
                args.bounds.block = Some(block_shape(&expr)?);
                block_span = Some(expr.span());
                return Ok(());
            }
            if meta.input.peek(syn::Token![=]) {
                return Err(meta.error("`launch_bounds` takes named arguments, as CUDA's `__launch_bounds__(256, 2)` is written `launch_bounds(max_threads = 256, min_blocks = 2)`"));
            }
            meta.parse_nested_meta(|inner| {
                let (slot, span, what) = if inner.path.is_ident("max_threads") {
                    (&mut args.bounds.max_threads, &mut max_threads_span, "max_threads")
                } else if inner.path.is_ident("min_blocks") {
                    (&mut args.bounds.min_blocks, &mut min_blocks_span, "min_blocks")
                } else {
                    return Err(inner.error("unknown launch bound: write `launch_bounds(max_threads = 256)` (at most 256 threads per block, CUDA's `__launch_bounds__(256)`) and optionally `min_blocks = 2` (at least 2 blocks resident per SM, its second argument)"));
                };
                if slot.is_some() {
                    return Err(inner.error(format!("`{what}` is given twice: write it once")));
                }
                let lit: syn::LitInt = inner.value()?.parse().map_err(|e| syn::Error::new(e.span(), format!("`{what}` takes an integer literal, e.g. `{what} = {}`", if what == "max_threads" { 256 } else { 2 })))?;
                let n = positive(&lit)?;
                if what == "max_threads" && n as u64 > MAX_THREADS {
                    return Err(syn::Error::new_spanned(&lit, format!("`max_threads = {n}` exceeds CUDA's {MAX_THREADS} threads per block: write at most {MAX_THREADS}")));
                }
                *slot = Some(n);
                *span = Some(lit.span());
                Ok(())
            })
            .map_err(|e| {
                if e.to_string().starts_with("unexpected literal") {
                    syn::Error::new(e.span(), "name the arguments: CUDA's `__launch_bounds__(256, 2)` is `launch_bounds(max_threads = 256, min_blocks = 2)`")
                } else if e.to_string().starts_with("expected parentheses") {
                    meta.error("write `launch_bounds(max_threads = 256)` or `launch_bounds(max_threads = 256, min_blocks = 2)`, as CUDA's `__launch_bounds__(256, 2)`")
                } else {
                    e
                }
            })
        } else if meta.path.is_ident("fmad") {
            if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                return Err(meta.error("`fmad` takes no value: write `#[kernel(fmad)]` to contract, nothing to keep Rust's rounding"));
            }
            args.fmad = true;
            Ok(())
        } else if meta.path.is_ident("debug") {
            if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                return Err(meta.error("`debug` takes no value: write `#[kernel(debug)]` for full debug information (or enable `ptx-runtime`'s `debug-info` feature for every kernel)"));
            }
            args.debug = true;
            Ok(())
        } else {
            Err(meta.error("unknown argument: the arguments are the target (`sm = 90`), the block shape every launch must use (`block = (16, 16)`), CUDA's `__launch_bounds__` (`launch_bounds(max_threads = 256, min_blocks = 2)`), `fmad` (contract `a * b + c` into `fma`, as nvcc's `-fmad=true`) and `debug` (full debug information, as nvcc's `-G`)"))
        }
    });
    if let Err(e) = parser.parse2(tokens) {
        errors.push(e);
        return args;
    }
    if let (Some(_), Some(span)) = (block_span, max_threads_span) {
        errors.push(syn::Error::new(span, "`block` already fixes the threads per block: drop `max_threads` (ptxas accepts `.reqntid` or `.maxntid`, not both)"));
    } else if let (Some(span), None, None) = (min_blocks_span, block_span, max_threads_span) {
        errors.push(syn::Error::new(span, "`min_blocks` needs the block size it is about: write `launch_bounds(max_threads = 256, min_blocks = 2)` (as `__launch_bounds__(256, 2)`) or give `block = ...`"));
    }
    args
}

/// `256`, `(16, 16)` or `(8, 8, 4)`: missing dimensions are 1, as for `dim3`.
fn block_shape(expr: &syn::Expr) -> syn::Result<[u32; 3]> {
    const HOW: &str = "`block` is the block shape as integer literals: `block = 256`, `block = (16, 16)` or `block = (8, 8, 4)`";
    let elems: Vec<&syn::Expr> = match expr {
        syn::Expr::Tuple(t) => t.elems.iter().collect(),
        syn::Expr::Paren(p) => vec![&*p.expr],
        e => vec![e],
    };
    if elems.is_empty() || elems.len() > 3 {
        return Err(syn::Error::new_spanned(expr, HOW));
    }
    let mut dims = [1u32; 3];
    for (i, e) in elems.iter().enumerate() {
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(lit), .. }) = e else {
            return Err(syn::Error::new_spanned(e, HOW));
        };
        dims[i] = positive(lit)?;
        if dims[i] > MAX_DIMS[i] {
            let axis = ["x", "y", "z"][i];
            return Err(syn::Error::new_spanned(lit, format!("a block is at most {} threads in {axis}: write at most {}", MAX_DIMS[i], MAX_DIMS[i])));
        }
    }
    let volume = dims.iter().map(|&d| d as u64).product::<u64>();
    if volume > MAX_THREADS {
        return Err(syn::Error::new_spanned(expr, format!("a block of {} × {} × {} = {volume} threads exceeds CUDA's {MAX_THREADS} threads per block: make the shape smaller", dims[0], dims[1], dims[2])));
    }
    Ok(dims)
}

/// A literal from 1 to `u32::MAX`.
fn positive(lit: &syn::LitInt) -> syn::Result<u32> {
    match lit.base10_parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(syn::Error::new_spanned(lit, "launch bounds are whole numbers of at least 1: a block extent of 0 (or no blocks per SM) launches nothing")),
    }
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
