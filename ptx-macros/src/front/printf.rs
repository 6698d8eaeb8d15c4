//! `printf!("x = %d, y = %f\n", x, y)`: CUDA's `printf`, with C's format syntax.
//!
//! The format is interpreted on the device by the `vprintf` system call (the driver's C
//! formatter), so it is C's syntax and semantics — what the user writes is what runs. Each
//! conversion is checked here against its argument's type, after inference has settled the
//! types (an unsuffixed literal is `i32` or `f64`, as rustc decides it on the host):
//!
//! | conversion | argument |
//! |------------|----------|
//! | `%d %i %u %x %X %o %c`, with no length or `hh`/`h` | a 32-bit or narrower integer, or `bool` (promoted to `int`) |
//! | the same with `l`, `ll`, `j`, `z`, `t` | a 64-bit integer |
//! | `%f %F %e %E %g %G %a %A` | `f32` (promoted to `double`) or `f64` |
//! | `%s` | a string literal, or a `*const u8` / `*mut u8` to a NUL-terminated string |
//! | `%p` | a raw pointer |
//! | `*` width or precision | an `i32` (32-bit integer) |
//!
//! `%%` prints `%`; `%n` and `L` (long double) are errors.

use crate::syntax::first_token::FirstToken;
use super::hir::{Expr, ExprKind, PrintfArg};
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use ptx_abi::Scalar;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

/// What one conversion reads from the argument list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Want {
    /// An `int` (4 bytes after promotion).
    Int,
    /// A `long`/`long long`/`size_t` (8 bytes).
    Long,
    /// A `double` (an `f32` is promoted).
    Double,
    /// A `char *`.
    Str,
    /// A `void *`.
    Ptr,
}

impl Want {
    fn describe(self) -> &'static str {
        match self {
            Want::Int => "an integer of at most 32 bits (`i32`, `u32`, `i16`, `u16`, `i8`, `u8`) or a `bool`",
            Want::Long => "a 64-bit integer (`i64`, `u64`, `isize`, `usize`)",
            Want::Double => "a float (`f32`, promoted to `double`, or `f64`)",
            Want::Str => "a string literal or a `*const u8` to a NUL-terminated string",
            Want::Ptr => "a raw pointer (`*const T` / `*mut T`)",
        }
    }
}

/// One argument the format reads: what it must be, and the conversion that reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Conv {
    pub want: Want,
    /// The conversion as written (`%5.2f`), for messages.
    pub spec: String,
}

/// The arguments `format` reads, in order, or why the format is not supported.
pub fn parse(format: &str) -> Result<Vec<Conv>, String> {
    let b = format.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if b.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while i < b.len() && b"-+ #0".contains(&b[i]) {
            i += 1;
        }
        let mut stars = 0;
        if b.get(i) == Some(&b'*') {
            stars += 1;
            i += 1;
        } else {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if b.get(i) == Some(&b'*') {
                stars += 1;
                i += 1;
            } else {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
        }
        let len_start = i;
        while i < b.len() && b"hlLqjzt".contains(&b[i]) {
            i += 1;
        }
        let length = &format[len_start..i];
        let Some(&conv) = b.get(i) else {
            return Err(format!("the format ends inside the conversion `{}`", &format[start..]));
        };
        i += 1;
        let spec = format[start..i].to_owned();
        let long = match length {
            "" | "h" | "hh" => false,
            "l" | "ll" | "j" | "z" | "t" | "q" => true,
            "L" => return Err(format!("`{spec}`: `long double` does not exist on the device; use `%f` with an `f64`")),
            other => return Err(format!("`{spec}`: unknown length modifier `{other}`")),
        };
        let want = match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => {
                if long {
                    Want::Long
                } else {
                    Want::Int
                }
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' if length.is_empty() || length == "l" => Want::Double,
            b's' if length.is_empty() => Want::Str,
            b'p' if length.is_empty() => Want::Ptr,
            b'n' => return Err(format!("`{spec}`: `%n` writes through a pointer and is not supported by the device's printf")),
            _ => {
                let c = conv as char;
                return Err(format!("`{spec}`: unknown conversion `{c}`; the device's printf knows `d i u x X o c f F e E g G a A s p` and `%%`"));
            }
        };
        for _ in 0..stars {
            out.push(Conv { want: Want::Int, spec: format!("{spec} (its `*`)") });
        }
        out.push(Conv { want, spec });
    }
    Ok(out)
}

/// Whether an argument of type `ty` fits `want`; `None` when its type is not known (an error
/// was reported already).
fn fits(want: Want, ty: &Ty) -> Option<bool> {
    Some(match (want, ty) {
        (_, Ty::Error) => return None,
        (Want::Int, Ty::Scalar(s)) => !s.is_float() && s.size() <= 4,
        (Want::Long, Ty::Scalar(s)) => !s.is_float() && s.size() == 8,
        (Want::Double, Ty::Scalar(s)) => matches!(s, Scalar::F32 | Scalar::F64),
        (Want::Str, Ty::Ptr { reference: false, pointee, .. }) => matches!(**pointee, Ty::Scalar(Scalar::U8 | Scalar::I8)),
        (Want::Ptr, Ty::Ptr { reference: false, .. }) => true,
        _ => false,
    })
}

/// A `printf!` argument whose type is checked once inference is done.
pub struct Pending {
    pub conv: Conv,
    pub ty: Ty,
    pub span: Span,
}

impl<'a> Checker<'a> {
    pub fn printf(&mut self, m: &syn::Macro) -> Expr {
        let span = m.first_span();
        let unit = |kind| Expr { kind, ty: Ty::Unit, span };
        let parsed = m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
        let args = match parsed {
            Ok(a) => a,
            Err(e) => return self.error(e.span(), format!("{e}; write `printf!(\"x = %d\\n\", x)`")),
        };
        let mut it = args.iter();
        let format = match it.next().map(super::expr::strip) {
            Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) => s.clone(),
            Some(other) => return self.error(other.span(), "the first argument of `printf!` is the format, a string literal (C's syntax: `printf!(\"x = %d\\n\", x)`)"),
            None => return self.error(span, "`printf!` needs a format string: `printf!(\"x = %d\\n\", x)`"),
        };
        let text = format.value();
        if text.contains('\0') {
            return self.error(format.span(), "the format contains a NUL character, where the device's printf would stop reading it");
        }
        let convs = match parse(&text) {
            Ok(c) => c,
            Err(msg) => return self.error(format.span(), format!("{msg} (`printf!` uses C's format syntax)")),
        };
        let rest: Vec<&syn::Expr> = it.collect();
        if rest.len() != convs.len() {
            let specs: Vec<&str> = convs.iter().map(|c| c.spec.as_str()).collect();
            let listed = if specs.is_empty() { String::from("none") } else { specs.join(", ") };
            return self.error(
                format.span(),
                format!("the format reads {} argument(s) ({listed}) but {} were given", convs.len(), rest.len()),
            );
        }
        let mut out = Vec::new();
        for (arg, conv) in rest.into_iter().zip(convs) {
            if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = super::expr::strip(arg) {
                let v = s.value();
                if conv.want != Want::Str {
                    self.errors.at(s.span(), format!("`{}` takes {}, found a string literal", conv.spec, conv.want.describe()));
                } else if v.contains('\0') {
                    self.errors.at(s.span(), "this string contains a NUL character, where `%s` would stop printing it");
                } else {
                    out.push(PrintfArg::Str(v));
                }
                continue;
            }
            let x = self.expr(arg);
            let x = match self.shallow(&x.ty) {
                Ty::Ptr { reference: false, .. } => x,
                _ => self.auto_deref_value(x),
            };
            self.pending_printf.push(Pending { conv, ty: x.ty.clone(), span: x.span });
            out.push(PrintfArg::Value(x));
        }
        unit(ExprKind::Printf { format: text, args: out })
    }

    /// Checks the `printf!` arguments against their conversions, with the types inference
    /// settled on (what rustc infers for the same body).
    pub fn check_printf_args(&mut self) {
        for p in std::mem::take(&mut self.pending_printf) {
            let ty = self.infer.resolve(&p.ty);
            match fits(p.conv.want, &ty) {
                Some(true) | None => {}
                Some(false) => {
                    let hint = match (p.conv.want, &ty) {
                        (Want::Int, Ty::Scalar(s)) if s.size() == 8 && !s.is_float() => "; use `%ld`/`%lu`/`%lx` for 64-bit integers",
                        (Want::Long, Ty::Scalar(s)) if !s.is_float() => "; use `%d`/`%u`/`%x` for integers of 32 bits or less, or convert with `as i64`",
                        (Want::Int | Want::Long, Ty::Scalar(s)) if s.is_float() => "; use `%f`, `%e` or `%g` for floats",
                        (Want::Double, Ty::Scalar(Scalar::F16 | Scalar::BF16)) => "; convert 16-bit floats with `to_f32()`",
                        (Want::Double, Ty::Scalar(_)) => "; use `%d`/`%u`/`%x` for integers, or convert with `as f64`",
                        (Want::Ptr, Ty::Ptr { reference: true, .. }) => "; cast the reference to a raw pointer (`r as *const T`)",
                        (Want::Str, Ty::Slice { .. }) => "; pass the bytes' address (`s.as_ptr()`) of a NUL-terminated string",
                        _ => "",
                    };
                    self.errors.at(p.span, format!("`{}` takes {}, found `{ty}`{hint}", p.conv.spec, p.conv.want.describe()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wants(f: &str) -> Vec<Want> {
        parse(f).map(|v| v.into_iter().map(|c| c.want).collect()).unwrap_or_default()
    }

    #[test]
    fn conversions_read_what_c_reads() {
        assert_eq!(wants("a=%d b=%5.2f %s %p %%"), [Want::Int, Want::Double, Want::Str, Want::Ptr]);
        assert_eq!(wants("%ld %llu %zx %jd %hhd %hu %c"), [Want::Long, Want::Long, Want::Long, Want::Long, Want::Int, Want::Int, Want::Int]);
        assert_eq!(wants("%*.*e|%-08.3lf"), [Want::Int, Want::Int, Want::Double, Want::Double]);
        assert_eq!(wants("100%% sure"), []);
    }

    #[test]
    fn unsupported_conversions_are_errors() {
        assert!(parse("%n").is_err());
        assert!(parse("%Lf").is_err());
        assert!(parse("%k").is_err());
        assert!(parse("50%").is_err());
        assert!(parse("%ls").is_err());
    }
}
