//! Tensor cores (`ptx_runtime::device::mma`): the fragment types, their constructors and
//! `position`, and the warp-level operations `mma_sync`, `ldmatrix_*`, `stmatrix_*`, checked
//! here and lowered by `lower::mma`.
//!
//! A fragment is a struct of one field, `regs`, held in registers like any struct: `[u32; 4]`
//! for A (every shape), `[u32; 2]` for B, `[f32; 4]` / `[i32; 4]` for C. The type's name
//! (`FragmentA<M16N8K16, f16>`) is its identity, so two shapes or element types never unify,
//! as in rustc.

use super::hir::{Expr, ExprKind};
use super::intrinsic::Intrinsic;
use super::ty::{Field, Len, StructDef, StructKind, Ty};
use super::Checker;
use proc_macro2::{Span, TokenStream};
use ptx_abi::layout::Layout;
use ptx_abi::Scalar;
use quote::quote;
use std::rc::Rc;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

type Args = Punctuated<syn::Expr, syn::Token![,]>;

/// The `mma` shapes: `M16N8K<k>`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    K16,
    K8,
    K32,
}

/// An element type of a fragment.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Elem {
    F16,
    Bf16,
    Tf32,
    S8,
    U8,
    F32,
    S32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    A,
    B,
    C,
}

/// One fragment type: `FragmentA<M16N8K16, f16>`, `FragmentC<f32>` (no shape).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Frag {
    pub role: Role,
    pub shape: Option<Shape>,
    pub elem: Elem,
}

/// One operation; arguments in the order the device API takes them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MmaOp {
    /// `mma.sync.aligned.m16n8k<k>.row.col[.satfinite].<d>.<a>.<b>.<c>`: args a, b, c.
    Mma { shape: Shape, a: Elem, b: Elem, acc: Elem, satfinite: bool },
    /// `ldmatrix.sync.aligned.m8n8.x<n>[.trans].shared.b16`: arg the row address.
    Ldmatrix { n: u8, trans: bool },
    /// `stmatrix.sync.aligned.m8n8.x<n>[.trans].shared.b16`: args the row address, the registers.
    Stmatrix { n: u8, trans: bool },
}

impl MmaOp {
    /// What the operation is called in messages, and the target it needs.
    pub fn requirement(self) -> (&'static str, u32) {
        match self {
            MmaOp::Mma { .. } => ("warp-level matrix multiply-accumulate (`mma.sync`) needs", 80),
            MmaOp::Ldmatrix { .. } => ("`ldmatrix` needs", 75),
            MmaOp::Stmatrix { .. } => ("`stmatrix` needs", 90),
        }
    }
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::K16 => "M16N8K16",
            Shape::K8 => "M16N8K8",
            Shape::K32 => "M16N8K32",
        }
    }

    fn by_name(s: &str) -> Option<Shape> {
        [Shape::K16, Shape::K8, Shape::K32].into_iter().find(|x| x.name() == s)
    }

    /// The A and B element types of this shape, and their accumulator.
    fn inputs(self) -> (&'static [Elem], Elem) {
        match self {
            Shape::K16 => (&[Elem::F16, Elem::Bf16], Elem::F32),
            Shape::K8 => (&[Elem::Tf32], Elem::F32),
            Shape::K32 => (&[Elem::S8, Elem::U8], Elem::S32),
        }
    }
}

impl Elem {
    /// The Rust name.
    pub fn name(self) -> &'static str {
        match self {
            Elem::F16 => "f16",
            Elem::Bf16 => "bf16",
            Elem::Tf32 => "Tf32",
            Elem::S8 => "i8",
            Elem::U8 => "u8",
            Elem::F32 => "f32",
            Elem::S32 => "i32",
        }
    }

    fn by_name(s: &str) -> Option<Elem> {
        [Elem::F16, Elem::Bf16, Elem::Tf32, Elem::S8, Elem::U8, Elem::F32, Elem::S32].into_iter().find(|x| x.name() == s)
    }

    /// The path rustc resolves the name to.
    fn canonical(self) -> TokenStream {
        match self {
            Elem::F16 => quote!(::ptx_runtime::half::f16),
            Elem::Bf16 => quote!(::ptx_runtime::half::bf16),
            Elem::Tf32 => quote!(::ptx_runtime::device::mma::Tf32),
            Elem::S8 => quote!(i8),
            Elem::U8 => quote!(u8),
            Elem::F32 => quote!(f32),
            Elem::S32 => quote!(i32),
        }
    }
}

impl Frag {
    fn base(self) -> &'static str {
        match self.role {
            Role::A => "FragmentA",
            Role::B => "FragmentB",
            Role::C => "FragmentC",
        }
    }

    pub fn name(self) -> String {
        match self.shape {
            Some(s) => format!("{}<{}, {}>", self.base(), s.name(), self.elem.name()),
            None => format!("{}<{}>", self.base(), self.elem.name()),
        }
    }

    /// The registers: (count, element type).
    pub fn regs(self) -> (u64, Scalar) {
        match (self.role, self.elem) {
            (Role::A, _) => (4, Scalar::U32),
            (Role::B, _) => (2, Scalar::U32),
            (Role::C, Elem::S32) => (4, Scalar::I32),
            (Role::C, _) => (4, Scalar::F32),
        }
    }

    /// The struct this fragment is in the body.
    pub fn ty(self) -> Ty {
        let (n, s) = self.regs();
        let base = syn::Ident::new(self.base(), Span::call_site());
        let elem = self.elem.canonical();
        let path = match self.shape {
            Some(sh) => {
                let sh = syn::Ident::new(sh.name(), Span::call_site());
                quote!(::ptx_runtime::device::mma::#base<::ptx_runtime::device::mma::#sh, #elem>)
            }
            None => quote!(::ptx_runtime::device::mma::#base<#elem>),
        };
        let field = Field { name: "regs".into(), ty: Ty::Array { elem: Rc::new(Ty::Scalar(s)), len: Len::Known(n) }, offset: 0 };
        let layout = Layout::new(4 * n as usize, 4);
        Ty::Struct(Rc::new(StructDef { name: self.name(), path, kind: StructKind::Named, fields: vec![field], layout, generic: None, tags: Vec::new() }))
    }

    /// The fragment a struct type is, if any.
    pub fn of(ty: &Ty) -> Option<Frag> {
        let Ty::Struct(def) = ty else { return None };
        let (base, rest) = def.name.split_once('<')?;
        let args: Vec<&str> = rest.strip_suffix('>')?.split(", ").collect();
        let role = match base {
            "FragmentA" => Role::A,
            "FragmentB" => Role::B,
            "FragmentC" => Role::C,
            _ => return None,
        };
        let f = match (role, args.as_slice()) {
            (Role::C, [e]) => Frag { role, shape: None, elem: Elem::by_name(e)? },
            (_, [s, e]) => Frag { role, shape: Some(Shape::by_name(s)?), elem: Elem::by_name(e)? },
            _ => return None,
        };
        // A user's own struct of the same name has a different path.
        def.path.to_string().starts_with(":: ptx_runtime :: device :: mma ::").then_some(f)
    }
}

/// The last identifier of a type written as a path (`mma::M16N8K16`, `f16`).
fn last_name(t: &syn::GenericArgument) -> Option<String> {
    match t {
        syn::GenericArgument::Type(t) => type_name(t),
        _ => None,
    }
}

fn type_name(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().filter(|s| s.arguments.is_none()).map(|s| s.ident.to_string()),
        // A type passed through `macro_rules!` (`$t:ty`).
        syn::Type::Group(g) => type_name(&g.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

const FORMS: &str = "`FragmentA<M16N8K16, f16>` (or `bf16`), `FragmentA<M16N8K8, Tf32>`, `FragmentA<M16N8K32, i8>` (or `u8`), the same for `FragmentB`, and `FragmentC<f32>` / `FragmentC<i32>`";

impl<'a> Checker<'a> {
    /// `FragmentA<S, T>`, `FragmentB<S, T>`, `FragmentC<T>`; `None` for any other name.
    pub fn fragment_type(&mut self, p: &syn::TypePath) -> Option<Ty> {
        let last = p.path.segments.last()?;
        let role = match last.ident.to_string().as_str() {
            "FragmentA" => Role::A,
            "FragmentB" => Role::B,
            "FragmentC" => Role::C,
            _ => return None,
        };
        let names: Vec<Option<String>> = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().map(last_name).collect(),
            _ => vec![],
        };
        let frag = match (role, names.as_slice()) {
            (Role::C, [Some(e)]) => Elem::by_name(e).filter(|e| matches!(e, Elem::F32 | Elem::S32)).map(|elem| Frag { role, shape: None, elem }),
            (Role::A | Role::B, [Some(s), Some(e)]) => match (Shape::by_name(s), Elem::by_name(e)) {
                (Some(shape), Some(elem)) if shape.inputs().0.contains(&elem) => Some(Frag { role, shape: Some(shape), elem }),
                _ => None,
            },
            _ => None,
        };
        let Some(frag) = frag else {
            self.errors.error(p, format!("a tensor-core fragment is one of {FORMS}"));
            return Some(Ty::Error);
        };
        let ty = frag.ty();
        if let Ty::Struct(def) = &ty {
            self.check_same_type(p, def.path.clone());
        }
        Some(ty)
    }

    /// `FragmentA::<S, T>::from_regs(r)`, `::zero()`, `::position(lane, i)`; `FragmentC::<T>`'s
    /// too and `default()`. `owner` is the path without the function; `None` when it does not
    /// name a fragment.
    pub fn fragment_fn(&mut self, owner: &syn::Path, name: &str, args: &Args, span: Span) -> Option<Expr> {
        let last = owner.segments.last()?;
        if !matches!(last.ident.to_string().as_str(), "FragmentA" | "FragmentB" | "FragmentC") {
            return None;
        }
        if last.arguments.is_none() {
            let n = &last.ident;
            let form = if n == "FragmentC" { "<f32>" } else { "<M16N8K16, f16>" };
            return Some(self.error(span, format!("write the fragment's type arguments: `{n}::{form}::{name}(..)`")));
        }
        let ty = self.fragment_type(&syn::TypePath { qself: None, path: owner.clone() })?;
        let Some(frag) = Frag::of(&ty) else { return Some(self.error_expr(span)) };
        let Ty::Struct(def) = ty.clone() else { return Some(self.error_expr(span)) };
        let (n, s) = frag.regs();
        let want = match name {
            "from_regs" | "position" => if name == "position" { 2 } else { 1 },
            "zero" | "default" => 0,
            _ => {
                return Some(self.error(span, format!("`{}::{name}` is not supported in device code: build a fragment with `from_regs(..)` or `zero()`, read and write its `regs`, and find an element with `position(lane, i)`", frag.name())));
            }
        };
        if args.len() != want {
            return Some(self.error(span, format!("`{}::{name}` takes {want} argument(s)", frag.name())));
        }
        let regs = match name {
            "from_regs" => {
                let x = self.expr(&args[0]);
                let x = self.auto_deref_value(x);
                self.expect(x.span, &def.fields[0].ty, &x.ty);
                x
            }
            "position" => return Some(self.fragment_position(frag, &args[0], &args[1], span)),
            _ => {
                let zero: syn::Expr = match s {
                    Scalar::F32 => syn::parse_quote!([0.0f32; 4]),
                    Scalar::I32 => syn::parse_quote!([0i32; 4]),
                    _ if n == 2 => syn::parse_quote!([0u32; 2]),
                    _ => syn::parse_quote!([0u32; 4]),
                };
                self.expr(&zero)
            }
        };
        Some(Expr { kind: ExprKind::Struct { def: def.clone(), fields: vec![(0, regs)], base: None }, ty: Ty::Struct(def), span })
    }

    /// `position(lane, i)`: the ISA's table ("Matrix fragments for mma.m16n8k*"), with
    /// `g = lane / 4`, `t = lane % 4`, written as the arithmetic it is.
    fn fragment_position(&mut self, frag: Frag, lane: &syn::Expr, i: &syn::Expr, span: Span) -> Expr {
        let (row, col) = match (frag.role, frag.shape) {
            (Role::C, _) => (quote!(g + 8 * (i / 2)), quote!(2 * t + i % 2)),
            (Role::A, Some(Shape::K16)) => (quote!(g + 8 * ((i / 2) % 2)), quote!(2 * t + i % 2 + 8 * (i / 4))),
            (Role::A, Some(Shape::K8)) => (quote!(g + 8 * (i % 2)), quote!(t + 4 * (i / 2))),
            (Role::A, _) => (quote!(g + 8 * ((i / 4) % 2)), quote!(4 * t + i % 4 + 16 * (i / 8))),
            (Role::B, Some(Shape::K16)) => (quote!(2 * t + i % 2 + 8 * (i / 2)), quote!(g)),
            (Role::B, Some(Shape::K8)) => (quote!(t + 4 * i), quote!(g)),
            (Role::B, _) => (quote!(4 * t + i % 4 + 16 * (i / 4)), quote!(g)),
        };
        let e: syn::Expr = syn::parse_quote_spanned! {span=> {
            let __ptx_lane: u32 = #lane;
            let i: usize = #i;
            let g = (__ptx_lane / 4) as usize;
            let t = (__ptx_lane % 4) as usize;
            (#row, #col)
        }};
        self.expr(&e)
    }

    /// The tensor-core functions; `None` for any other name.
    pub fn mma_call(&mut self, name: &str, args: &Args, span: Span) -> Option<Expr> {
        let (op, n) = match name {
            "mma_sync" | "mma_sync_satfinite" => return Some(self.mma_sync(name == "mma_sync_satfinite", args, span)),
            _ => {
                let (ld, rest) = if let Some(r) = name.strip_prefix("ldmatrix_x") {
                    (true, r)
                } else {
                    (false, name.strip_prefix("stmatrix_x")?)
                };
                let (n, trans) = match rest {
                    "1" | "2" | "4" => (rest, false),
                    r => (r.strip_suffix("_trans")?, true),
                };
                let n: u8 = n.parse().ok().filter(|n| matches!(n, 1 | 2 | 4))?;
                (if ld { MmaOp::Ldmatrix { n, trans } } else { MmaOp::Stmatrix { n, trans } }, n)
            }
        };
        let regs = Ty::Array { elem: Rc::new(Ty::u32()), len: Len::Known(n as u64) };
        let want = if matches!(op, MmaOp::Ldmatrix { .. }) { 1 } else { 2 };
        if args.len() != want {
            let form = if want == 1 { format!("{name}(row)") } else { format!("{name}(row, regs)") };
            return Some(self.error(span, format!("`{name}` takes {want} argument(s): `{form}`")));
        }
        let p = self.expr(&args[0]);
        let mut xs = vec![];
        match self.shallow(&p.ty) {
            Ty::Ptr { pointee, .. } => {
                let t = self.shallow(&pointee);
                if !matches!(t, Ty::Var(_) | Ty::Error | Ty::Scalar(Scalar::U16 | Scalar::I16 | Scalar::F16 | Scalar::BF16)) {
                    let t = self.infer.resolve(&t);
                    self.errors.at(p.span, format!("`{name}` moves 16-bit elements (`u16`, `i16`, `f16`, `bf16`), not `{t}`"));
                }
            }
            Ty::Error => {}
            t => {
                let t = self.infer.resolve(&t);
                self.errors.at(p.span, format!("`{name}` takes a pointer to this lane's row in shared memory (`tile.as_ptr().add(i)`), not `{t}`"));
            }
        }
        xs.push(p);
        let ret = if want == 2 {
            let r = self.expr(&args[1]);
            let r = self.auto_deref_value(r);
            self.expect(r.span, &regs, &r.ty);
            xs.push(r);
            Ty::Unit
        } else {
            regs
        };
        Some(Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Mma(op), args: xs }, ty: ret, span })
    }

    fn mma_sync(&mut self, satfinite: bool, args: &Args, span: Span) -> Expr {
        let name = if satfinite { "mma_sync_satfinite" } else { "mma_sync" };
        if args.len() != 3 {
            return self.error(span, format!("`{name}` takes 3 arguments: `{name}(a, b, c)`"));
        }
        let xs: Vec<Expr> = args.iter().map(|a| {
            let x = self.expr(a);
            self.auto_deref_value(x)
        }).collect();
        let fs: Vec<Option<Frag>> = xs.iter().map(|x| Frag::of(&self.shallow(&x.ty))).collect();
        if xs.iter().any(|x| matches!(self.shallow(&x.ty), Ty::Error)) {
            return self.error_expr(span);
        }
        let op = match fs.as_slice() {
            [Some(a @ Frag { role: Role::A, shape: Some(s), .. }), Some(b @ Frag { role: Role::B, shape: Some(sb), .. }), Some(c @ Frag { role: Role::C, .. })] if s == sb => {
                let acc = s.inputs().1;
                let same = a.elem == b.elem || *s == Shape::K32;
                if same && c.elem == acc && (!satfinite || acc == Elem::S32) {
                    Some(MmaOp::Mma { shape: *s, a: a.elem, b: b.elem, acc, satfinite })
                } else {
                    None
                }
            }
            _ => None,
        };
        let Some(op) = op else {
            let shown: Vec<String> = xs.iter().map(|x| self.infer.resolve(&x.ty).to_string()).collect();
            let which = if satfinite { "the integer shape: `FragmentA<M16N8K32, i8 or u8>`, `FragmentB<M16N8K32, i8 or u8>`, `FragmentC<i32>`" } else { "fragments of one shape: `FragmentA<S, T>`, `FragmentB<S, T>` and `FragmentC` of the accumulator (`f32` for `f16`, `bf16`, `Tf32`; `i32` for `i8`/`u8`)" };
            return self.error(span, format!("`{name}` takes {which}; these are `{}`", shown.join("`, `")));
        };
        let Some(Frag { elem: acc, .. }) = fs[2] else { return self.error_expr(span) };
        let ret = Frag { role: Role::C, shape: None, elem: acc }.ty();
        let _ = args.span();
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Mma(op), args: xs }, ty: ret, span }
    }
}
