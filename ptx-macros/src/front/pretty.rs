//! An expression's source text as rustc's pretty-printer writes it: the `cond` of
//! `assertion failed: cond`, the message Rust's `assert!` panics with. (rustc prints the
//! parsed expression, so `v[i]` and `a.len() > 1` keep their usual spacing, which a token
//! stream that went through a proc macro no longer records.) Forms outside the device subset
//! fall back to the tokens' own text.

use quote::ToTokens;

/// `expr` as rustc's `pprust::expr_to_string` prints it.
pub fn expr(e: &syn::Expr) -> String {
    let mut s = String::new();
    write(e, &mut s);
    s
}

fn list<'a>(xs: impl IntoIterator<Item = &'a syn::Expr>, out: &mut String) {
    for (i, x) in xs.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write(x, out);
    }
}

fn write(e: &syn::Expr, out: &mut String) {
    use syn::Expr as E;
    match e {
        E::Lit(l) => out.push_str(&l.lit.to_token_stream().to_string()),
        E::Path(p) if p.qself.is_none() => path(&p.path, out),
        E::Paren(p) => {
            out.push('(');
            write(&p.expr, out);
            out.push(')');
        }
        E::Group(g) => write(&g.expr, out),
        E::Unary(u) => {
            out.push_str(match u.op {
                syn::UnOp::Deref(_) => "*",
                syn::UnOp::Not(_) => "!",
                syn::UnOp::Neg(_) => "-",
                _ => "?",
            });
            write(&u.expr, out);
        }
        E::Binary(b) => {
            write(&b.left, out);
            out.push(' ');
            out.push_str(&b.op.to_token_stream().to_string().replace(' ', ""));
            out.push(' ');
            write(&b.right, out);
        }
        E::Reference(r) => {
            out.push('&');
            if r.mutability.is_some() {
                out.push_str("mut ");
            }
            write(&r.expr, out);
        }
        E::Cast(c) => {
            write(&c.expr, out);
            out.push_str(" as ");
            ty(&c.ty, out);
        }
        E::Field(f) => {
            write(&f.base, out);
            out.push('.');
            match &f.member {
                syn::Member::Named(i) => out.push_str(&i.to_string()),
                syn::Member::Unnamed(i) => out.push_str(&i.index.to_string()),
            }
        }
        E::Index(i) => {
            write(&i.expr, out);
            out.push('[');
            write(&i.index, out);
            out.push(']');
        }
        E::Call(c) => {
            write(&c.func, out);
            out.push('(');
            list(&c.args, out);
            out.push(')');
        }
        E::MethodCall(m) => {
            write(&m.receiver, out);
            out.push('.');
            out.push_str(&m.method.to_string());
            if let Some(t) = &m.turbofish {
                out.push_str("::");
                out.push_str(&squeeze(&t.to_token_stream().to_string()));
            }
            out.push('(');
            list(&m.args, out);
            out.push(')');
        }
        E::Range(r) => {
            if let Some(a) = &r.start {
                write(a, out);
            }
            out.push_str(match r.limits {
                syn::RangeLimits::HalfOpen(_) => "..",
                syn::RangeLimits::Closed(_) => "..=",
            });
            if let Some(b) = &r.end {
                write(b, out);
            }
        }
        E::Tuple(t) => {
            out.push('(');
            list(&t.elems, out);
            if t.elems.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        E::Array(a) => {
            out.push('[');
            list(&a.elems, out);
            out.push(']');
        }
        other => out.push_str(&other.to_token_stream().to_string()),
    }
}

fn path(p: &syn::Path, out: &mut String) {
    if p.leading_colon.is_some() {
        out.push_str("::");
    }
    for (i, seg) in p.segments.iter().enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        out.push_str(&seg.ident.to_string());
        if !seg.arguments.is_empty() {
            out.push_str(&squeeze(&seg.arguments.to_token_stream().to_string()));
        }
    }
}

fn ty(t: &syn::Type, out: &mut String) {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => path(&p.path, out),
        syn::Type::Ptr(p) => {
            out.push_str(if p.mutability.is_some() { "*mut " } else { "*const " });
            ty(&p.elem, out);
        }
        syn::Type::Reference(r) => {
            out.push('&');
            if r.mutability.is_some() {
                out.push_str("mut ");
            }
            ty(&r.elem, out);
        }
        other => out.push_str(&other.to_token_stream().to_string()),
    }
}

/// Generic arguments without the spaces token printing puts around `<`, `>` and `::`.
fn squeeze(s: &str) -> String {
    s.replace(" :: ", "::").replace(":: ", "::").replace(" <", "<").replace("< ", "<").replace(" >", ">").replace(" ,", ",")
}

#[cfg(test)]
mod tests {
    use super::expr;

    fn p(s: &str) -> String {
        expr(&syn::parse_str(s).unwrap())
    }

    #[test]
    fn prints_as_rustc_does() {
        assert_eq!(p("v [ i ] >= 0"), "v[i] >= 0");
        assert_eq!(p("a.len()>1&&!b"), "a.len() > 1 && !b");
        assert_eq!(p("(x as u64) < n * 2"), "(x as u64) < n * 2");
        assert_eq!(p("*p.add(1) == s.0 + f(-x, &mut y[j])"), "*p.add(1) == s.0 + f(-x, &mut y[j])");
        assert_eq!(p("core::f32::consts::PI > x.powi(2)"), "core::f32::consts::PI > x.powi(2)");
        assert_eq!(p("q as *const u8 != r"), "q as *const u8 != r");
    }
}
