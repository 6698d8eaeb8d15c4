//! Patterns: bindings and destructuring in `let`, integer and range patterns in `match`.

use super::hir::{LetPat, LocalId, Pat};
use super::ty::{Len, Ty};
use super::Checker;
use syn::spanned::Spanned;

impl<'a> Checker<'a> {
    /// A `let` pattern for a value of type `ty`. `uninit`: `let x;` (assigned later).
    pub fn let_pattern(&mut self, pat: &syn::Pat, ty: &Ty, uninit: bool) -> LetPat {
        match pat {
            syn::Pat::Ident(pi) => {
                if pi.by_ref.is_some() {
                    self.errors.error(pi, "`ref` bindings are not supported in device code; bind the value (`let x = ...`)");
                    return LetPat::Wild;
                }
                if let Some((_, sub)) = &pi.subpat {
                    self.errors.error(sub, "`@` patterns are only supported in `match` arms");
                }
                let name = pi.ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                LetPat::Bind(self.declare(&name, ty.clone(), pi.mutability.is_some() || uninit, pi.ident.span()))
            }
            syn::Pat::Wild(_) => LetPat::Wild,
            syn::Pat::Paren(p) => self.let_pattern(&p.pat, ty, uninit),
            syn::Pat::Type(pt) => {
                let annotated = self.resolve_type(&pt.ty, super::Position::Body);
                self.expect(pt.span(), &annotated, ty);
                self.let_pattern(&pt.pat, ty, uninit)
            }
            syn::Pat::Struct(ps) => {
                let t = self.describe(ty, ps.span());
                let Ty::Struct(def) = t else {
                    if !matches!(t, Ty::Error) {
                        self.errors.error(ps, "this pattern needs a struct value");
                    }
                    self.declare_pattern_names(pat);
                    return LetPat::Wild;
                };
                let mut fields = Vec::new();
                for f in &ps.fields {
                    let name = match &f.member {
                        syn::Member::Named(i) => i.to_string(),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    match def.field(&name) {
                        Some(i) => fields.push((i, self.let_pattern(&f.pat, &def.fields[i].ty, uninit))),
                        None => self.errors.error(&f.member, format!("`{}` has no field `{name}`", def.name)),
                    }
                }
                LetPat::Fields(fields)
            }
            syn::Pat::TupleStruct(ps) => {
                let t = self.describe(ty, ps.span());
                let Ty::Struct(def) = t else {
                    if !matches!(t, Ty::Error) {
                        self.errors.error(ps, "this pattern needs a tuple-struct value");
                    }
                    self.declare_pattern_names(pat);
                    return LetPat::Wild;
                };
                let mut fields = Vec::new();
                for (i, p) in ps.elems.iter().enumerate() {
                    if let syn::Pat::Rest(_) = p {
                        break;
                    }
                    match def.fields.get(i) {
                        Some(f) => {
                            let fty = f.ty.clone();
                            fields.push((i, self.let_pattern(p, &fty, uninit)));
                        }
                        None => self.errors.error(p, format!("`{}` has only {} fields", def.name, def.fields.len())),
                    }
                }
                LetPat::Fields(fields)
            }
            syn::Pat::Slice(ps) => {
                let elem = match self.shallow(ty) {
                    Ty::Array { elem, len: Len::Known(n) } if n as usize == ps.elems.len() => elem,
                    Ty::Error => {
                        self.declare_pattern_names(pat);
                        return LetPat::Wild;
                    }
                    _ => {
                        self.errors.error(ps, "array patterns need an array of exactly that many elements");
                        return LetPat::Wild;
                    }
                };
                let fields = ps.elems.iter().enumerate().map(|(i, p)| (i, self.let_pattern(p, &elem, uninit))).collect();
                LetPat::Fields(fields)
            }
            syn::Pat::Tuple(pt) => {
                let elems = match self.shallow(ty) {
                    Ty::Tuple(ts) if ts.len() == pt.elems.len() => ts,
                    t @ (Ty::Var(_) | Ty::Tuple(_)) => {
                        let ts: Vec<Ty> = pt.elems.iter().map(|_| self.var(super::infer::VarKind::General)).collect();
                        self.expect(pt.span(), &t, &Ty::Tuple(ts.clone()));
                        ts
                    }
                    Ty::Error => pt.elems.iter().map(|_| Ty::Error).collect(),
                    _ => {
                        self.errors.error(pat, "this tuple pattern needs a tuple value");
                        pt.elems.iter().map(|_| Ty::Error).collect()
                    }
                };
                let fields = pt.elems.iter().zip(&elems).enumerate().map(|(i, (p, t))| (i, self.let_pattern(p, t, uninit))).collect();
                LetPat::Fields(fields)
            }
            _ => {
                self.errors.error(pat, "this pattern is not supported in `let`; bind a name (`let x = ...`), a tuple (`let (a, b) = ...`) or destructure a struct (`let S { a, b } = s;`)");
                self.declare_pattern_names(pat);
                LetPat::Wild
            }
        }
    }

    /// Declares every name a rejected pattern binds (as errors), so later uses do not add
    /// errors of their own.
    pub fn declare_pattern_names(&mut self, pat: &syn::Pat) {
        struct Names(Vec<syn::Ident>);
        impl<'ast> syn::visit::Visit<'ast> for Names {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                self.0.push(p.ident.clone());
                syn::visit::visit_pat_ident(self, p);
            }
        }
        let mut n = Names(Vec::new());
        syn::visit::Visit::visit_pat(&mut n, pat);
        for id in n.0 {
            self.declare(&id.to_string(), Ty::Error, true, id.span());
        }
    }

    /// A `match` arm's pattern on an integer or `bool` of type `ty`: its alternatives and the
    /// name it binds, if any.
    pub fn match_pattern(&mut self, pat: &syn::Pat, ty: &Ty) -> (Vec<Pat>, Option<LocalId>) {
        match pat {
            syn::Pat::Ident(pi) if super::enums::names_a_constant(pi) => (self.alternatives(pat, ty), None),
            syn::Pat::Ident(pi) if pi.subpat.is_none() && super::use_variants::looks_like_variant(&pi.ident) => match self.bare_variant_pattern(&pi.ident, ty) {
                Some(pats) => (pats, None),
                None => {
                    self.errors.at(pi.ident.span(), super::use_variants::UNQUALIFIED);
                    (vec![Pat::Wild], None)
                }
            },
            syn::Pat::Ident(pi) if pi.by_ref.is_none() => {
                let name = pi.ident.to_string();
                let id = self.declare(&name, ty.clone(), pi.mutability.is_some(), pi.ident.span());
                let pats = match &pi.subpat {
                    Some((_, sub)) => self.alternatives(sub, ty),
                    None => vec![Pat::Wild],
                };
                (pats, Some(id))
            }
            p => (self.alternatives(p, ty), None),
        }
    }

    fn alternatives(&mut self, pat: &syn::Pat, ty: &Ty) -> Vec<Pat> {
        match pat {
            syn::Pat::Or(o) => o.cases.iter().flat_map(|c| self.alternatives(c, ty)).collect(),
            syn::Pat::Paren(p) => self.alternatives(&p.pat, ty),
            syn::Pat::Wild(_) => vec![Pat::Wild],
            syn::Pat::Ident(pi) if super::enums::names_a_constant(pi) => {
                let path = syn::PatPath { attrs: vec![], qself: None, path: pi.ident.clone().into() };
                self.const_pattern(&path)
            }
            syn::Pat::Ident(pi) if pi.subpat.is_none() && super::use_variants::looks_like_variant(&pi.ident) => match self.bare_variant_pattern(&pi.ident, ty) {
                Some(pats) => pats,
                None => {
                    self.errors.at(pi.ident.span(), super::use_variants::UNQUALIFIED);
                    vec![Pat::Wild]
                }
            },
            syn::Pat::Lit(l) => match self.pattern_value(&syn::Expr::Lit(l.clone()), ty) {
                Some(PatValue::Int(v)) => vec![Pat::Int(v)],
                Some(PatValue::Bool(b)) => vec![Pat::Bool(b)],
                None => vec![],
            },
            syn::Pat::Range(r) => {
                let bound = |c: &mut Self, e: &Option<Box<syn::Expr>>| match e {
                    None => Some(None),
                    Some(e) => match c.pattern_value(e, ty) {
                        Some(PatValue::Int(v)) => Some(Some(v)),
                        _ => None,
                    },
                };
                let (Some(lo), Some(hi)) = (bound(self, &r.start), bound(self, &r.end)) else { return vec![] };
                vec![Pat::Range { lo, hi, inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)) }]
            }
            syn::Pat::Path(p) => match self.known_const(&p.path) {
                Some((v, cty)) => {
                    self.expect(p.span(), ty, &cty);
                    vec![Pat::Int(v)]
                }
                None => match self.variant_pattern(&p.path, ty) {
                    Some(pats) => pats,
                    None => self.const_pattern(p),
                },
            },
            _ => {
                self.errors.error(pat, "`match` patterns in device code are integer or `bool` literals, ranges (`a..=b`), `_`, bindings and `|` alternatives");
                vec![]
            }
        }
    }

    fn pattern_value(&mut self, e: &syn::Expr, ty: &Ty) -> Option<PatValue> {
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => {
                    let x = self.expr(e);
                    self.expect(x.span, ty, &x.ty);
                    i.base10_parse::<i128>().ok().map(PatValue::Int)
                }
                syn::Lit::Byte(b) => {
                    self.expect(b.span(), ty, &Ty::Scalar(ptx_abi::Scalar::U8));
                    Some(PatValue::Int(b.value() as i128))
                }
                syn::Lit::Bool(b) => {
                    self.expect(b.span(), ty, &Ty::bool());
                    Some(PatValue::Bool(b.value))
                }
                _ => {
                    self.errors.error(e, "`match` patterns in device code are integer or `bool` literals");
                    None
                }
            },
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match self.pattern_value(&u.expr, ty)? {
                PatValue::Int(v) => Some(PatValue::Int(-v)),
                PatValue::Bool(_) => None,
            },
            syn::Expr::Path(p) => match self.known_const(&p.path) {
                Some((v, cty)) => {
                    self.expect(p.span(), ty, &cty);
                    Some(PatValue::Int(v))
                }
                None => {
                    self.errors.error(p, "range bounds in device `match` patterns are literals or the integer types' `MIN`/`MAX`");
                    None
                }
            },
            _ => {
                self.errors.error(e, "range bounds in device `match` patterns are literals");
                None
            }
        }
    }
}

enum PatValue {
    Int(i128),
    Bool(bool),
}
