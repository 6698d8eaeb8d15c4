//! Typed texture and surface handles (`Texture2d<f32>`, `Surface2d<u32>`) and the device API
//! that reads and writes through them (`tex2d`, `tex2d_lod`, `tex2d_gather`, `surf2d_read`,
//! ...), checked here and lowered by `lower::texture` to `tex`, `tld4`, `suld.b` and `sust.b`
//! as nvcc lowers CUDA's `tex2D<T>`, `tex2Dgather<T>`, `surf2Dread<T>`, `surf2Dwrite`.

use super::hir::{Expr, ExprKind};
use super::intrinsic::Intrinsic;
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use ptx_abi::Scalar;
use std::fmt;
use syn::punctuated::Punctuated;

type Args = Punctuated<syn::Expr, syn::Token![,]>;

/// A texture's or surface's geometry: PTX's `.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Shape {
    D1,
    D2,
    D3,
    /// A layered 1-D texture: a layer index and one coordinate.
    A1,
    /// A layered 2-D texture: a layer index and two coordinates.
    A2,
    /// A cube map: a direction of three coordinates.
    Cube,
    /// A layered cube map: a cube index and a direction.
    ACube,
}

impl Shape {
    /// Coordinates besides the layer.
    pub fn dims(self) -> usize {
        match self {
            Shape::D1 | Shape::A1 => 1,
            Shape::D2 | Shape::A2 => 2,
            Shape::D3 | Shape::Cube | Shape::ACube => 3,
        }
    }

    pub fn layered(self) -> bool {
        matches!(self, Shape::A1 | Shape::A2 | Shape::ACube)
    }

    fn suffix(self) -> &'static str {
        match self {
            Shape::D1 => "1d",
            Shape::D2 => "2d",
            Shape::D3 => "3d",
            Shape::A1 => "1dLayered",
            Shape::A2 => "2dLayered",
            Shape::Cube => "Cubemap",
            Shape::ACube => "CubemapLayered",
        }
    }
}

/// What a 64-bit handle refers to: the untyped `Texture`/`Sampler`/`Surface` of
/// `ptx_runtime::handle`, or a typed texture or surface, which only unify with the same type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum HandleKind {
    Untyped,
    /// `lanes` is 1 for a scalar texel (`Texture2d<f32>`), 2 or 4 for a vector one
    /// (`Texture2d<f32x4>`, CUDA's `float4`).
    Texture { shape: Shape, elem: Scalar, lanes: u8 },
    Surface { shape: Shape, elem: Scalar, lanes: u8 },
}

/// `f32` or `f32x4` as the handle's type argument spells it.
fn elem_name(elem: Scalar, lanes: u8) -> String {
    if lanes == 1 {
        super::ty::scalar_name(elem).to_string()
    } else {
        format!("{}x{lanes}", super::ty::scalar_name(elem))
    }
}

impl fmt::Display for HandleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandleKind::Untyped => f.write_str("handle"),
            HandleKind::Texture { shape, elem, lanes } => write!(f, "Texture{}<{}>", shape.suffix(), elem_name(*elem, *lanes)),
            HandleKind::Surface { shape, elem, lanes } => write!(f, "Surface{}<{}>", shape.suffix(), elem_name(*elem, *lanes)),
        }
    }
}

/// The typed handle names: (name, texture?, shape).
const TYPED: [(&str, bool, Shape); 12] = [
    ("Texture1d", true, Shape::D1),
    ("Texture2d", true, Shape::D2),
    ("Texture3d", true, Shape::D3),
    ("Texture1dLayered", true, Shape::A1),
    ("Texture2dLayered", true, Shape::A2),
    ("TextureCubemap", true, Shape::Cube),
    ("TextureCubemapLayered", true, Shape::ACube),
    ("Surface1d", false, Shape::D1),
    ("Surface2d", false, Shape::D2),
    ("Surface3d", false, Shape::D3),
    ("Surface1dLayered", false, Shape::A1),
    ("Surface2dLayered", false, Shape::A2),
];

/// What a texture fetch returns: four lanes of `f32`, `i32` or `u32` (`tex.v4.f32/.s32/.u32`).
pub fn texel_ok(s: Scalar) -> bool {
    matches!(s, Scalar::F32 | Scalar::I32 | Scalar::U32)
}

/// What a surface access moves: a 1-, 2-, 4- or 8-byte scalar (`suld.b.b8` ... `.b64`).
pub fn surface_elem_ok(s: Scalar) -> bool {
    !matches!(s, Scalar::Bool | Scalar::F16 | Scalar::BF16)
}

/// The lanes of a texture's or surface's element: 1, or a vector of 2 or 4 (CUDA's `float2`,
/// `uchar4`: `tex.v4` fills two or four of its lanes, `suld.b.v2`/`.v4` moves them), at most
/// 16 bytes for a surface (no `.v4.b64`).
fn lanes_ok(texture: bool, elem: Scalar, lanes: u8) -> bool {
    matches!(lanes, 1 | 2 | 4) && (texture || elem.size() * lanes as usize <= 16)
}

/// `sust`/`suld`'s out-of-range behaviour (`cudaBoundaryModeTrap/Clamp/Zero`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Boundary {
    Trap,
    Clamp,
    Zero,
}

/// A texture read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TexRead {
    /// `tex1Dfetch`: an integer element index (`tex.1d.v4.T.s32`).
    Fetch,
    /// `tex2D<T>`: float coordinates.
    Plain,
    /// `tex2DLod<T>`: an explicit level of detail (`tex.level`).
    Level,
    /// `tex2DGrad<T>`: gradients (`tex.grad`), two of one lane per coordinate (`f32`, `f32x2`,
    /// or `f32x4` for three coordinates, CUDA's `float4`, whose fourth lane is ignored).
    Grad,
    /// `tex2Dgather<T>`: one component of the four texels (`tld4.r/g/b/a`).
    Gather(u8),
}

impl<'a> Checker<'a> {
    /// `Texture2d<f32>` and the other typed handles; `None` for any other name.
    pub fn texture_type(&mut self, name: &str, last: &syn::PathSegment) -> Option<Ty> {
        let (_, texture, shape) = *TYPED.iter().find(|(n, ..)| *n == name)?;
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
            self.errors.error(last, format!("write the element type: `{name}<f32>`"));
            return Some(Ty::Error);
        };
        let elem = match a.args.first() {
            Some(syn::GenericArgument::Type(t)) if a.args.len() == 1 => self.resolve_type(t, super::Position::Signature),
            _ => {
                self.errors.error(last, format!("`{name}` takes one element type: `{name}<f32>`"));
                return Some(Ty::Error);
            }
        };
        let parts = match &elem {
            Ty::Scalar(s) => Some((*s, 1)),
            Ty::Vector { elem, lanes } => Some((*elem, *lanes)),
            Ty::Error => return Some(Ty::Error),
            _ => None,
        };
        let (elem, lanes) = match parts {
            Some((s, n)) if ((texture && texel_ok(s)) || (!texture && surface_elem_ok(s))) && lanes_ok(texture, s, n) => (s, n),
            _ => {
                let other = elem;
                let allowed = if texture {
                    "f32, i32 or u32, or a vector of 2 or 4 of them (`f32x4`: CUDA's float4): what a fetch returns, so an 8- or 16-bit texture is a `u32`/`i32` texture (`u32x4` for `u8x4` texels), or `f32`/`f32x4` in normalized-float mode"
                } else {
                    "an 8-, 16-, 32- or 64-bit integer or float, or a vector of 2 or 4 of them of at most 16 bytes (`u8x4`, `f32x4`)"
                };
                self.errors.error(last, format!("`{name}<{other}>`: the element type must be {allowed}"));
                return Some(Ty::Error);
            }
        };
        let kind = if texture { HandleKind::Texture { shape, elem, lanes } } else { HandleKind::Surface { shape, elem, lanes } };
        Some(Ty::Handle(kind))
    }

    /// `tex2d(t, x, y)` and the other texture reads; `surf2d_read` / `surf2d_write`.
    pub fn texture_call(&mut self, name: &str, args: &Args, span: Span) -> Option<Expr> {
        if let Some(rest) = name.strip_prefix("surf") {
            let (dims, write) = match rest {
                "1d_read" => (Shape::D1, false),
                "2d_read" => (Shape::D2, false),
                "3d_read" => (Shape::D3, false),
                "1d_write" => (Shape::D1, true),
                "2d_write" => (Shape::D2, true),
                "3d_write" => (Shape::D3, true),
                "1d_layered_read" => (Shape::A1, false),
                "2d_layered_read" => (Shape::A2, false),
                "1d_layered_write" => (Shape::A1, true),
                "2d_layered_write" => (Shape::A2, true),
                _ => return None,
            };
            return Some(self.surface_call(name, dims, write, args, span));
        }
        let rest = name.strip_prefix("tex")?;
        let (shape, read) = match rest {
            "1d_fetch" => (Shape::D1, TexRead::Fetch),
            "1d" => (Shape::D1, TexRead::Plain),
            "2d" => (Shape::D2, TexRead::Plain),
            "3d" => (Shape::D3, TexRead::Plain),
            "1d_layered" => (Shape::A1, TexRead::Plain),
            "2d_layered" => (Shape::A2, TexRead::Plain),
            "1d_lod" => (Shape::D1, TexRead::Level),
            "2d_lod" => (Shape::D2, TexRead::Level),
            "3d_lod" => (Shape::D3, TexRead::Level),
            "2d_grad" => (Shape::D2, TexRead::Grad),
            "1d_grad" => (Shape::D1, TexRead::Grad),
            "3d_grad" => (Shape::D3, TexRead::Grad),
            "1d_layered_lod" => (Shape::A1, TexRead::Level),
            "2d_layered_lod" => (Shape::A2, TexRead::Level),
            "1d_layered_grad" => (Shape::A1, TexRead::Grad),
            "2d_layered_grad" => (Shape::A2, TexRead::Grad),
            "_cubemap" => (Shape::Cube, TexRead::Plain),
            "_cubemap_lod" => (Shape::Cube, TexRead::Level),
            "_cubemap_grad" => (Shape::Cube, TexRead::Grad),
            "_cubemap_layered" => (Shape::ACube, TexRead::Plain),
            "_cubemap_layered_lod" => (Shape::ACube, TexRead::Level),
            "2d_gather" => (Shape::D2, TexRead::Gather(0)),
            "2d_layered_gather" => (Shape::A2, TexRead::Gather(0)),
            _ => return None,
        };
        Some(self.tex_call(name, shape, read, args, span))
    }

    fn handle_arg(&mut self, a: &syn::Expr, texture: bool, shape: Shape) -> Option<(Expr, Scalar, u8)> {
        let h = self.expr(a);
        let h = self.auto_deref_value(h);
        let t = self.shallow(&h.ty);
        match t {
            Ty::Handle(HandleKind::Texture { shape: s, elem, lanes }) if texture && s == shape => Some((h, elem, lanes)),
            Ty::Handle(HandleKind::Surface { shape: s, elem, lanes }) if !texture && s == shape => Some((h, elem, lanes)),
            // Anything else: rustc reports the mismatch against the device API's typed host
            // definition; an error type keeps the device compiler quiet.
            _ => None,
        }
    }

    fn typed_args(&mut self, args: &[&syn::Expr], tys: &[Ty]) -> Vec<Expr> {
        let mut xs = Vec::new();
        for (a, t) in args.iter().zip(tys) {
            let x = self.expr(a);
            let x = self.auto_deref_value(x);
            self.expect(x.span, t, &x.ty);
            xs.push(x);
        }
        xs
    }

    fn tex_call(&mut self, name: &str, shape: Shape, mut read: TexRead, args: &Args, span: Span) -> Expr {
        let f32t = Ty::Scalar(Scalar::F32);
        let i32t = Ty::Scalar(Scalar::I32);
        // CUDA's order: the coordinates, the layer, then the level or the gradients.
        let mut params = Vec::new();
        let coord = if read == TexRead::Fetch { i32t.clone() } else { f32t.clone() };
        params.extend(std::iter::repeat_n(coord, shape.dims()));
        if shape.layered() {
            params.push(i32t.clone());
        }
        match read {
            TexRead::Level => params.push(f32t.clone()),
            TexRead::Grad => {
                let g = match shape.dims() {
                    1 => f32t.clone(),
                    2 => Ty::Vector { elem: Scalar::F32, lanes: 2 },
                    _ => Ty::Vector { elem: Scalar::F32, lanes: 4 },
                };
                params.push(g.clone());
                params.push(g);
            }
            _ => {}
        }
        let gather = matches!(read, TexRead::Gather(_));
        let n = 1 + params.len() + gather as usize;
        if args.len() != n {
            let form = if gather { "(texture, x, y, component: 0..=3)".to_string() } else { format!("(texture and {} more)", params.len()) };
            return self.error(span, format!("`{name}` takes {n} arguments {form} but {} were given", args.len()));
        }
        let all: Vec<&syn::Expr> = args.iter().collect();
        let Some((h, elem, lanes)) = self.handle_arg(all[0], true, shape) else {
            return self.error_expr(span);
        };
        let mut xs = vec![h];
        xs.extend(self.typed_args(&all[1..1 + params.len()], &params));
        if gather {
            let comp = match all[n - 1] {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u8>().ok().filter(|c| *c < 4),
                _ => None,
            };
            let Some(comp) = comp else {
                return self.error(syn::spanned::Spanned::span(all[n - 1]), "the gathered component is a literal 0, 1, 2 or 3 (r, g, b, a)");
            };
            read = TexRead::Gather(comp);
        }
        let ty = match (gather, lanes) {
            (true, _) => Ty::Vector { elem, lanes: 4 },
            (false, 1) => Ty::Scalar(elem),
            (false, lanes) => Ty::Vector { elem, lanes },
        };
        let lanes = if gather { 4 } else { lanes };
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Tex { shape, read, elem, lanes }, args: xs }, ty, span }
    }

    /// `surf2d_read(s, x_bytes, y, Boundary::Trap)`, `surf2d_write(value, s, x_bytes, y, Boundary::Trap)`
    /// (CUDA's argument order; `x` counts bytes, as in CUDA; a layered surface's layer follows
    /// the coordinates, `surf2d_layered_read(s, x_bytes, y, layer, Boundary::Trap)`).
    fn surface_call(&mut self, name: &str, shape: Shape, write: bool, args: &Args, span: Span) -> Expr {
        let n = write as usize + 1 + shape.dims() + shape.layered() as usize + 1;
        if args.len() != n {
            let form = if write { "(value, surface, x_bytes, ..., Boundary::Trap)" } else { "(surface, x_bytes, ..., Boundary::Trap)" };
            return self.error(span, format!("`{name}` takes {n} arguments {form} but {} were given", args.len()));
        }
        let all: Vec<&syn::Expr> = args.iter().collect();
        let first = write as usize;
        // Evaluated in source order: the value (when writing), the surface, the coordinates.
        let value = if write { Some(self.expr(all[0])) } else { None };
        let Some((h, elem, lanes)) = self.handle_arg(all[first], false, shape) else {
            return self.error_expr(span);
        };
        let boundary = match all[n - 1] {
            syn::Expr::Path(p) => match p.path.segments.last().map(|s| s.ident.to_string()).as_deref() {
                Some("Trap") => Some(Boundary::Trap),
                Some("Clamp") => Some(Boundary::Clamp),
                Some("Zero") => Some(Boundary::Zero),
                _ => None,
            },
            _ => None,
        };
        let Some(boundary) = boundary else {
            return self.error(syn::spanned::Spanned::span(all[n - 1]), "write the boundary mode as a constant: `Boundary::Trap`, `Boundary::Clamp` or `Boundary::Zero`");
        };
        let mut xs = vec![h];
        let coords = vec![Ty::Scalar(Scalar::I32); shape.dims() + shape.layered() as usize];
        xs.extend(self.typed_args(&all[first + 1..n - 1], &coords));
        let elem_ty = if lanes == 1 { Ty::Scalar(elem) } else { Ty::Vector { elem, lanes } };
        if let Some(v) = value {
            let v = self.auto_deref_value(v);
            self.expect(v.span, &elem_ty, &v.ty);
            xs.push(v);
        }
        let ty = if write { Ty::Unit } else { elem_ty };
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Surf { shape, elem, lanes, write, boundary }, args: xs }, ty, span }
    }
}
