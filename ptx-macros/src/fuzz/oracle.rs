//! What counts as a failure, and how an input is run: the macro an item names (both attribute
//! macros for a bare fn, the derive for a struct, union or enum) under `catch_unwind`, then
//! the fetch chain as rustc would run it — each requested path looked up in the [`World`] and
//! the compiler re-entered with what was found — so bodies reach the type checker, the
//! lowering and the PTX writer. A panic anywhere, or a `compile_error!` whose message starts
//! with `internal` (the compiler's spelling for "this should not happen"), is a failure.

use super::seeds::World;
use crate::expand;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// Where it panicked (`file:line:col`) and the message.
    Panic { at: String, message: String },
    /// An internal error's message.
    Internal(String),
}

impl Failure {
    /// What identifies the bug: the panic's location, or the internal error's message.
    pub fn key(&self) -> &str {
        match self {
            Failure::Panic { at, .. } => at,
            Failure::Internal(m) => m,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Failure::Panic { at, message } => write!(f, "panic at {at}: {message}"),
            Failure::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

/// A panic hook that, on threads running an input, records the panic instead of printing it;
/// other threads (the other tests) keep the previous hook.
fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let at = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())).unwrap_or_default();
                LAST_PANIC.set(Some(Failure::Panic { at, message }));
            } else {
                previous(info)
            }
        }));
    });
}

/// `f()`, or the panic it raised.
fn guarded(f: impl FnOnce() -> TokenStream) -> Result<TokenStream, Failure> {
    install_hook();
    QUIET.set(true);
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.set(false);
    let out = r.map_err(|_| LAST_PANIC.take().unwrap_or(Failure::Panic { at: "?".into(), message: "?".into() }))?;
    if std::env::var_os("PTX_FUZZ_SHOW").is_some() {
        eprintln!("fuzz: expansion:\n{out}\n");
    }
    match internal_error(&out) {
        Some(m) => Err(Failure::Internal(m)),
        None => Ok(out),
    }
}

/// The message of the first `compile_error!("internal...")` in `out`, at any depth.
fn internal_error(out: &TokenStream) -> Option<String> {
    let toks: Vec<TokenTree> = out.clone().into_iter().collect();
    for (i, t) in toks.iter().enumerate() {
        let TokenTree::Group(g) = t else { continue };
        let is_compile_error = i >= 2 && matches!((&toks[i - 2], &toks[i - 1]), (TokenTree::Ident(n), TokenTree::Punct(p)) if n == "compile_error" && p.as_char() == '!');
        if is_compile_error {
            for lit in g.stream() {
                if let TokenTree::Literal(l) = lit {
                    let text = l.to_string();
                    if text.trim_start_matches('"').starts_with("internal") {
                        return Some(text);
                    }
                }
            }
        } else if let Some(m) = internal_error(&g.stream()) {
            return Some(m);
        }
    }
    None
}

/// Splits off the item's macro attribute: `(Some((macro, args)), item without it)`. The macro
/// is `kernel`, `device_fn` or `derive` (a derive is removed the way rustc removes it before
/// calling the derive macro).
pub fn without_macro_attr(item: TokenStream) -> (Option<(&'static str, TokenStream)>, TokenStream) {
    let Ok(mut parsed) = syn::parse2::<syn::Item>(item.clone()) else { return (None, item) };
    let attrs = match &mut parsed {
        syn::Item::Fn(f) => &mut f.attrs,
        syn::Item::Struct(s) => &mut s.attrs,
        syn::Item::Union(u) => &mut u.attrs,
        syn::Item::Enum(e) => &mut e.attrs,
        _ => return (None, item),
    };
    let which = attrs.iter().position(|a| {
        let last = a.path().segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        matches!(last.as_str(), "kernel" | "device_fn" | "derive")
    });
    let Some(i) = which else { return (None, item) };
    let attr = attrs.remove(i);
    let name = match attr.path().segments.last().map(|s| s.ident.to_string()).as_deref() {
        Some("kernel") => "kernel",
        Some("device_fn") => "device_fn",
        _ => "derive",
    };
    let args = match attr.meta {
        syn::Meta::List(l) => l.tokens,
        syn::Meta::Path(_) => TokenStream::new(),
        syn::Meta::NameValue(nv) => nv.value.to_token_stream(),
    };
    (Some((name, args)), parsed.to_token_stream())
}

/// How far an input got: how many rounds after a fetch ran, and whether one gave PTX.
#[derive(Clone, Copy, Default)]
pub struct Reached {
    pub fetched: bool,
    pub ptx: bool,
}

impl Reached {
    fn or(self, other: Reached) -> Reached {
        Reached { fetched: self.fetched || other.fetched, ptx: self.ptx || other.ptx }
    }
}

/// Runs `item` through the macros (and their fetch chains); the first failure, if any.
pub fn check(item: &TokenStream, world: &World) -> Option<Failure> {
    run(item, world).err()
}

/// Runs `item` through the macros; how far it got, or the first failure.
pub fn run(item: &TokenStream, world: &World) -> Result<Reached, Failure> {
    let Ok(parsed) = syn::parse2::<syn::Item>(item.clone()) else { return Ok(Reached::default()) };
    let (attr, stripped) = without_macro_attr(item.clone());
    let is_fn = matches!(parsed, syn::Item::Fn(_));
    match attr {
        Some(("kernel", args)) => first_round(expand::kernel, args, stripped, world),
        Some(("device_fn", args)) => first_round(expand::device_fn, args, stripped, world),
        _ if is_fn => {
            let k = first_round(expand::kernel, TokenStream::new(), stripped.clone(), world)?;
            Ok(k.or(first_round(expand::device_fn, TokenStream::new(), stripped, world)?))
        }
        _ => guarded(|| expand::derive_device_repr(stripped)).map(|_| Reached::default()),
    }
}

/// Whether `out` holds a compiled module (`pub const PTX`).
fn has_ptx(out: &TokenStream) -> bool {
    let toks: Vec<TokenTree> = out.clone().into_iter().collect();
    toks.windows(2).any(|w| matches!(w, [TokenTree::Ident(c), TokenTree::Ident(p)] if c == "const" && p == "PTX"))
        || toks.iter().any(|t| matches!(t, TokenTree::Group(g) if has_ptx(&g.stream())))
}

/// Rounds a fetch chain may take before the fuzzer stops following it (a struct in a struct
/// in a struct ... each takes one).
const MAX_ROUNDS: usize = 8;

fn first_round(f: fn(TokenStream, TokenStream) -> TokenStream, args: TokenStream, item: TokenStream, world: &World) -> Result<Reached, Failure> {
    let mut out = guarded(|| f(args, item))?;
    let mut reached = Reached::default();
    for _ in 0..MAX_ROUNDS {
        reached.ptx |= has_ptx(&out);
        let Some(input) = next_round(&out, world) else { break };
        reached.fetched = true;
        out = guarded(|| expand::compile(input))?;
    }
    Ok(reached)
}

/// The compiler's input for the round after `out`, if `out` starts a fetch chain whose every
/// path the world knows (rustc would reject a path it cannot resolve, so the chain stops).
fn next_round(out: &TokenStream, world: &World) -> Option<TokenStream> {
    let toks: Vec<TokenTree> = out.clone().into_iter().collect();
    for (i, t) in toks.iter().enumerate() {
        let TokenTree::Group(g) = t else { continue };
        let after_bang = i >= 1 && matches!(&toks[i - 1], TokenTree::Punct(p) if p.as_char() == '!');
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let is_fetch = matches!(inner.first(), Some(TokenTree::Punct(p)) if p.as_char() == '@') && matches!(inner.get(1), Some(TokenTree::Ident(n)) if n == "ptx_fetch");
        if after_bang && g.delimiter() == Delimiter::Brace && is_fetch {
            // @ptx_fetch ([first]) { ([p] [p]) ... } [fin] {STATE} {FOUND}
            let [_, _, TokenTree::Group(first), TokenTree::Group(rest), _, TokenTree::Group(state), TokenTree::Group(found)] = &inner[..] else { return None };
            let mut paths = vec![bracketed(first.stream())?];
            for pair in rest.stream() {
                let TokenTree::Group(pair) = pair else { return None };
                paths.push(bracketed(pair.stream())?);
            }
            let mut found = found.stream();
            for p in paths {
                let info = world.get(&p)?;
                found.extend(quote!(([#p] {#info})));
            }
            let state = state.stream();
            return Some(quote!({#state} {#found}));
        }
        let is_compile = i >= 2 && matches!(&toks[i - 2], TokenTree::Ident(n) if n == "compile");
        if after_bang && is_compile && g.delimiter() == Delimiter::Brace {
            return Some(g.stream());
        }
        if let Some(input) = next_round(&g.stream(), world) {
            return Some(input);
        }
    }
    None
}

/// The tokens inside the first bracketed group of `ts`.
fn bracketed(ts: TokenStream) -> Option<TokenStream> {
    match ts.into_iter().next()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => Some(g.stream()),
        _ => None,
    }
}
