//! The value of a module-level constant's initializer, evaluated as rustc evaluates it, for the
//! constants [`source_index`](super::source_index) finds (`const TILE: usize = 16;`).
//!
//! Only what a constant of a primitive integer or `bool` is usually written with: literals,
//! other such constants (through `resolve`), `usize::MAX`/`u32::BITS`-style constants of the
//! primitives, parentheses, unary `-`/`!`, the binary operators, comparisons, `&&`/`||` and
//! `as` between integers and from `bool`. Anything else (a call, a block, a float) is `None`,
//! and so is arithmetic that overflows or divides by zero (rustc refuses those). Literals
//! without a suffix take their type from their context, `i32` where none gives one, as in Rust.
//!
//! A value found here is an assumption the expansion has rustc check (see
//! `front::source_const`): a wrong one is a compile error, never wrong code.

use ptx_abi::Scalar;

/// A value and its type; `usize`/`isize` are 64-bit (their device width).
pub type Value = (i128, Scalar);

/// `e` evaluated with `want` as the type its context gives it (the constant's declared type);
/// `resolve` gives the value of another constant named by a path.
pub fn eval(e: &syn::Expr, want: Option<Scalar>, resolve: &mut dyn FnMut(&[String]) -> Option<Value>) -> Option<Value> {
    let v = match e {
        syn::Expr::Lit(l) => literal(&l.lit, want, false)?,
        syn::Expr::Paren(p) => eval(&p.expr, want, resolve)?,
        syn::Expr::Group(g) => eval(&g.expr, want, resolve)?,
        syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none()) => {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let v = match primitive_const(&segs) {
                Some(v) => v,
                None if p.path.leading_colon.is_none() => resolve(&segs)?,
                None => return None,
            };
            // rustc would refuse a constant of another type here.
            if want.is_some_and(|w| w != v.1) {
                return None;
            }
            v
        }
        // `-128i8`: the literal negated, as rustc reads it.
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) if matches!(&**expr, syn::Expr::Lit(_)) => {
            let syn::Expr::Lit(l) = &**expr else { return None };
            let (x, t) = literal(&l.lit, want, true)?;
            (fit(-x, t)?, t)
        }
        syn::Expr::Unary(u) => {
            let (x, t) = eval(&u.expr, want, resolve)?;
            match u.op {
                syn::UnOp::Neg(_) if t.is_signed() => (fit(-x, t)?, t),
                syn::UnOp::Not(_) if t == Scalar::Bool => (1 - x, t),
                syn::UnOp::Not(_) => (wrap(!x, t), t),
                _ => return None,
            }
        }
        syn::Expr::Binary(b) => binary(b, want, resolve)?,
        syn::Expr::Cast(c) => {
            let to = scalar_of(&c.ty)?;
            let (x, from) = eval(&c.expr, None, resolve)?;
            if !to.is_integral() || to == Scalar::Bool || from.is_float() {
                return None;
            }
            (wrap(x, to), to)
        }
        _ => return None,
    };
    Some(v)
}

/// A primitive integer or `bool` type written as a path (`usize`, `u32`).
pub fn scalar_of(ty: &syn::Type) -> Option<Scalar> {
    let syn::Type::Path(p) = ty else { return None };
    let (None, Some(name)) = (&p.qself, p.path.get_ident()) else { return None };
    Scalar::from_rust_name(&name.to_string()).filter(|s| s.is_integral())
}

/// A literal; `negated`: its magnitude may be one past the type's greatest value.
fn literal(lit: &syn::Lit, want: Option<Scalar>, negated: bool) -> Option<Value> {
    match lit {
        syn::Lit::Bool(b) => Some((b.value as i128, Scalar::Bool)),
        syn::Lit::Int(i) => {
            let t = match i.suffix() {
                "" => want.filter(|w| *w != Scalar::Bool).unwrap_or(Scalar::I32),
                s => Scalar::from_rust_name(s).filter(|s| s.is_integral() && *s != Scalar::Bool)?,
            };
            let v: i128 = i.base10_parse().ok()?;
            if t == Scalar::Bool || (negated && !t.is_signed()) {
                return None;
            }
            let limit = if negated { -range(t).0 } else { range(t).1 };
            (v <= limit).then_some((v, t))
        }
        _ => None,
    }
}

/// `u32::MAX`, `i8::MIN`, `usize::BITS`.
fn primitive_const(segs: &[String]) -> Option<Value> {
    let [ty, name] = segs else { return None };
    let t = Scalar::from_rust_name(ty).filter(|s| s.is_integral() && *s != Scalar::Bool)?;
    let (lo, hi) = range(t);
    match name.as_str() {
        "MAX" => Some((hi, t)),
        "MIN" => Some((lo, t)),
        "BITS" => Some((t.bits() as i128, Scalar::U32)),
        _ => None,
    }
}

fn binary(b: &syn::ExprBinary, want: Option<Scalar>, resolve: &mut dyn FnMut(&[String]) -> Option<Value>) -> Option<Value> {
    use syn::BinOp::*;
    match b.op {
        And(_) | Or(_) => {
            let (l, lt) = eval(&b.left, Some(Scalar::Bool), resolve)?;
            let (r, rt) = eval(&b.right, Some(Scalar::Bool), resolve)?;
            if lt != Scalar::Bool || rt != Scalar::Bool {
                return None;
            }
            let v = if matches!(b.op, And(_)) { l & r } else { l | r };
            return Some((v, Scalar::Bool));
        }
        Shl(_) | Shr(_) => {
            // The amount has a type of its own.
            let (x, t) = eval(&b.left, want, resolve)?;
            let (n, _) = eval(&b.right, None, resolve)?;
            if t == Scalar::Bool || n < 0 || n >= t.bits() as i128 {
                return None;
            }
            let v = if matches!(b.op, Shl(_)) { wrap(((x as u128) << n) as i128, t) } else { x >> n };
            return Some((v, t));
        }
        _ => {}
    }
    let compare = matches!(b.op, Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_));
    // Operands share one type: a literal without a suffix takes the other's.
    let operand_want = if compare { None } else { want };
    let (l, r) = if unsuffixed(&b.left) && !unsuffixed(&b.right) {
        let r = eval(&b.right, operand_want, resolve)?;
        (eval(&b.left, Some(r.1), resolve)?, r)
    } else {
        let l = eval(&b.left, operand_want, resolve)?;
        (l, eval(&b.right, Some(l.1), resolve)?)
    };
    let ((x, t), (y, u)) = (l, r);
    if t != u {
        return None;
    }
    if compare {
        let v = match b.op {
            Eq(_) => x == y,
            Ne(_) => x != y,
            Lt(_) => x < y,
            Le(_) => x <= y,
            Gt(_) => x > y,
            _ => x >= y,
        };
        return Some((v as i128, Scalar::Bool));
    }
    let v = match b.op {
        Add(_) => fit(x.checked_add(y)?, t)?,
        Sub(_) => fit(x.checked_sub(y)?, t)?,
        Mul(_) => fit(x.checked_mul(y)?, t)?,
        // Rust's division truncates, as i128's does; `MIN / -1` overflows the type.
        Div(_) if y != 0 => fit(x / y, t)?,
        Rem(_) if y != 0 => fit(x % y, t)?,
        BitAnd(_) => x & y,
        BitOr(_) => x | y,
        BitXor(_) => x ^ y,
        _ => return None,
    };
    Some((v, t))
}

fn unsuffixed(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.suffix().is_empty(),
        syn::Expr::Paren(p) => unsuffixed(&p.expr),
        syn::Expr::Unary(u) => unsuffixed(&u.expr),
        _ => false,
    }
}

/// The least and greatest values of an integer type (`bool`: 0 and 1).
fn range(t: Scalar) -> (i128, i128) {
    let bits = t.bits() as u32;
    match t {
        Scalar::Bool => (0, 1),
        _ if t.is_signed() => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        _ => (0, (1i128 << bits) - 1),
    }
}

/// `v` when the type holds it (rustc refuses a constant that overflows).
fn fit(v: i128, t: Scalar) -> Option<i128> {
    let (lo, hi) = range(t);
    (lo..=hi).contains(&v).then_some(v)
}

/// `v` wrapped into the type, as `as` and `<<` do.
fn wrap(v: i128, t: Scalar) -> i128 {
    let bits = t.bits() as u32;
    let low = v & ((1i128 << bits) - 1);
    if t.is_signed() && low >> (bits - 1) == 1 {
        low - (1i128 << bits)
    } else {
        low
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, want: Option<Scalar>) -> Option<Value> {
        let consts = [("TILE", (16, Scalar::U64)), ("SMALL", (3, Scalar::U32)), ("NEG", (-3, Scalar::I32))];
        let e: syn::Expr = syn::parse_str(text).unwrap();
        eval(&e, want, &mut |p| consts.iter().find(|(n, _)| p == [n.to_string()]).map(|(_, v)| *v))
    }

    #[test]
    fn literals_take_the_context_type() {
        assert_eq!(value("16", Some(Scalar::U64)), Some((16, Scalar::U64)));
        assert_eq!(value("16", None), Some((16, Scalar::I32)));
        assert_eq!(value("16u8", None), Some((16, Scalar::U8)));
        assert_eq!(value("300", Some(Scalar::U8)), None);
        assert_eq!(value("-128", Some(Scalar::I8)), Some((-128, Scalar::I8)));
        assert_eq!(value("-(128)", Some(Scalar::I8)), None, "128i8 overflows before it is negated");
        assert_eq!(value("-1", Some(Scalar::U8)), None);
        assert_eq!(value("true && !false", Some(Scalar::Bool)), Some((1, Scalar::Bool)));
    }

    #[test]
    fn arithmetic_is_rusts() {
        assert_eq!(value("TILE * TILE + 1", Some(Scalar::U64)), Some((257, Scalar::U64)));
        assert_eq!(value("(TILE + 1) / 2 - 1", Some(Scalar::U64)), Some((7, Scalar::U64)));
        assert_eq!(value("1 + TILE", Some(Scalar::U64)), Some((17, Scalar::U64)));
        assert_eq!(value("NEG / 2", Some(Scalar::I32)), Some((-1, Scalar::I32)), "truncates toward zero");
        assert_eq!(value("NEG % 2", Some(Scalar::I32)), Some((-1, Scalar::I32)));
        assert_eq!(value("NEG >> 1", Some(Scalar::I32)), Some((-2, Scalar::I32)), "arithmetic shift");
        assert_eq!(value("1u32 << 31", None), Some((1 << 31, Scalar::U32)));
        assert_eq!(value("3u8 << 7", None), Some((128, Scalar::U8)), "bits shifted out are lost");
        assert_eq!(value("1u32 << 32", None), None);
        assert_eq!(value("!0u8", None), Some((255, Scalar::U8)));
        assert_eq!(value("!NEG", None), Some((2, Scalar::I32)));
        assert_eq!(value("0 - SMALL", Some(Scalar::U32)), None, "underflow");
        assert_eq!(value("TILE / 0", Some(Scalar::U64)), None);
        assert_eq!(value("i32::MIN / -1", None), None);
        assert_eq!(value("u32::MAX", None), Some((u32::MAX as i128, Scalar::U32)));
        assert_eq!(value("usize::BITS", None), Some((64, Scalar::U32)));
        assert_eq!(value("TILE > 8 && SMALL == 3", Some(Scalar::Bool)), Some((1, Scalar::Bool)));
    }

    #[test]
    fn casts_wrap_and_types_must_agree() {
        assert_eq!(value("SMALL as usize * TILE", Some(Scalar::U64)), Some((48, Scalar::U64)));
        assert_eq!(value("NEG as u8", None), Some((253, Scalar::U8)));
        assert_eq!(value("300 as u8", None), Some((44, Scalar::U8)), "the literal is an i32");
        assert_eq!(value("true as u32", None), Some((1, Scalar::U32)));
        assert_eq!(value("TILE * SMALL", Some(Scalar::U64)), None, "rustc's type error");
        assert_eq!(value("SMALL", Some(Scalar::U64)), None);
        assert_eq!(value("1.5 as u32", None), None);
        assert_eq!(value("f(3)", None), None);
        assert_eq!(value("OTHER", None), None);
        assert_eq!(value("::TILE", None), None);
    }
}
