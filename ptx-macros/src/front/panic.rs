//! `assert!`, `assert_eq!`, `assert_ne!`, their `debug_` forms, `panic!`, `unreachable!`,
//! `todo!` and `unimplemented!`: a [`Panic`] that the lowering turns into a failure reporting
//! the message Rust's panic would carry and the macro's `file!()`/`line!()` (`lower::panic`).
//!
//! A message is text rustc evaluates to a `&'static str`: `"assertion failed: <cond>"` for a bare
//! `assert!` (the condition printed as rustc prints it, see `pretty`), the literal (with
//! `{{`/`}}` unescaped) for an explicit message. Messages
//! with `{}` arguments would need formatting, which a fixed report cannot do: they are an error
//! that points to `printf!`.

use crate::syntax::first_token::FirstToken;
use super::hir::{Expr, ExprKind, Panic, PanicWhen};
use super::ty::Ty;
use super::Checker;
use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

impl<'a> Checker<'a> {
    /// One of the panicking macros, by its name.
    pub fn panic_macro(&mut self, name: &str, m: &syn::Macro) -> Expr {
        let span = m.first_span();
        let args = match m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated) {
            Ok(a) => a,
            Err(e) => return self.error(e.span(), e),
        };
        let args: Vec<&syn::Expr> = args.iter().collect();
        let debug = name.starts_with("debug_");
        let base = name.strip_prefix("debug_").unwrap_or(name);
        let (when, message) = match base {
            "assert" => {
                let Some(cond) = args.first() else { return self.error(span, "`assert!` needs a condition: `assert!(i < n)`") };
                let c = self.expr(cond);
                self.expect(c.span, &Ty::bool(), &c.ty);
                let message = match self.panic_message(&args[1..]) {
                    Ok(Some(msg)) => msg,
                    Ok(None) => {
                        let text = format!("assertion failed: {}", super::pretty::expr(cond));
                        quote!(#text)
                    }
                    Err(Reported) => return self.error_expr(span),
                };
                (PanicWhen::Not(c), message)
            }
            "assert_eq" | "assert_ne" => {
                let eq = base == "assert_eq";
                if args.len() < 2 {
                    return self.error(span, format!("`{name}!` compares two values: `{name}!(a, b)`"));
                }
                let left = self.expr(args[0]);
                let left = self.auto_deref_value(left);
                let right = self.expr(args[1]);
                let right = self.auto_deref_value(right);
                self.expect(right.span, &left.ty, &right.ty);
                let op = if eq { "==" } else { "!=" };
                let head = format!("assertion `left {op} right` failed");
                let message = match self.panic_message(&args[2..]) {
                    Ok(Some(msg)) => quote!(::core::concat!(#head, ": ", #msg)),
                    Ok(None) => quote!(#head),
                    Err(Reported) => return self.error_expr(span),
                };
                self.pending_compares.push((left.ty.clone(), left.span, name.to_owned()));
                (PanicWhen::Compare { eq, left, right }, message)
            }
            "panic" | "unreachable" | "todo" | "unimplemented" => {
                let prefix = match base {
                    "panic" => "",
                    "unreachable" => "internal error: entered unreachable code",
                    "todo" => "not yet implemented",
                    _ => "not implemented",
                };
                let message = match (self.panic_message(&args), prefix) {
                    (Err(Reported), _) => return self.error_expr(span),
                    (Ok(None), "") => quote!("explicit panic"),
                    (Ok(None), p) => quote!(#p),
                    (Ok(Some(msg)), "") => msg,
                    (Ok(Some(msg)), p) => quote!(::core::concat!(#p, ": ", #msg)),
                };
                let p = Panic { when: PanicWhen::Always, message, span, debug: false };
                return Expr { kind: ExprKind::Panic(Box::new(p)), ty: Ty::Never, span };
            }
            _ => return self.error(span, format!("internal: `{name}!` is not a panicking macro")),
        };
        let p = Panic { when, message, span, debug };
        Expr { kind: ExprKind::Panic(Box::new(p)), ty: Ty::Unit, span }
    }

    /// The explicit message of a panicking macro: `None` without one, the text as a string
    /// literal when it is plain text; `Err` (reported) when it formats arguments.
    fn panic_message(&mut self, args: &[&syn::Expr]) -> Result<Option<TokenStream>, Reported> {
        let Some(first) = args.first() else { return Ok(None) };
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(lit), .. }) = super::expr::strip(first) else {
            self.errors.at(first.span(), "a device panic message is a string literal (the text the failure reports)");
            return Err(Reported);
        };
        const NO_FORMAT: &str = "device panic messages are plain text: a failure reports a fixed string, made at compile time, and cannot format values; print the values with `printf!(\"...%d...\", x)` before the assertion and keep the message free of `{}`";
        let error = match unescape(&lit.value()) {
            _ if args.len() > 1 => (args[1].span(), NO_FORMAT),
            Some(text) if !text.contains('\0') => return Ok(Some(quote!(#text))),
            Some(_) => (lit.span(), "the message contains a NUL character, where a C string (`__assertfail`'s, under `debug`) would stop"),
            None => (lit.span(), NO_FORMAT),
        };
        self.errors.at(error.0, error.1);
        Err(Reported)
    }

    /// `assert_eq!`/`assert_ne!` compare scalars and pointers (what PTX compares), checked
    /// once inference has settled their types.
    pub fn check_compares(&mut self) {
        for (ty, span, name) in std::mem::take(&mut self.pending_compares) {
            match self.infer.resolve(&ty) {
                Ty::Scalar(s) if !matches!(s, ptx_abi::Scalar::F16 | ptx_abi::Scalar::BF16) => {}
                Ty::Ptr { .. } | Ty::Error => {}
                t => {
                    self.errors.at(span, format!("`{name}!` in device code compares integers, floats, `bool`s and pointers, not `{t}`; compare the fields one by one"));
                }
            }
        }
    }
}

/// An error was reported already.
struct Reported;

/// A format string without arguments as the text it prints (`{{` → `{`, `}}` → `}`); `None`
/// when it has a `{}` placeholder (an argument, or a captured variable `{x}`).
fn unescape(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut cs = s.chars().peekable();
    while let Some(c) = cs.next() {
        match c {
            '{' | '}' if cs.peek() == Some(&c) => {
                cs.next();
                out.push(c);
            }
            '{' | '}' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn messages_are_format_strings_without_arguments() {
        assert_eq!(unescape("plain").as_deref(), Some("plain"));
        assert_eq!(unescape("a {{b}} c").as_deref(), Some("a {b} c"));
        assert_eq!(unescape("x = {}"), None);
        assert_eq!(unescape("x = {x}"), None);
        assert_eq!(unescape("}"), None);
    }
}
