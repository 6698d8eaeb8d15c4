//! Types as the body compiler understands them.

use proc_macro2::TokenStream;
use ptx_abi::{Layout, Scalar};
use std::fmt;
use std::rc::Rc;

/// A length known when the macro runs, or a constant expression only rustc can evaluate
/// (`[f32; TILE]`, `shared_array::<f32, { 2 * N }>()`).
#[derive(Clone, Debug)]
pub enum Len {
    Known(u64),
    Const(TokenStream),
}

impl Len {
    pub fn known(&self) -> Option<u64> {
        match self {
            Len::Known(n) => Some(*n),
            Len::Const(_) => None,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Ty {
    Scalar(Scalar),
    Unit,
    /// The type of `return`, `break`, `continue`, and loops without `break`: coerces to any type.
    Never,
    /// `*const T`, `*mut T`, `&T`, `&mut T` (`reference` for the last two).
    Ptr { mutable: bool, reference: bool, pointee: Rc<Ty> },
    /// `&[T]` / `&mut [T]`: a pointer and a `usize` length.
    Slice { mutable: bool, elem: Rc<Ty> },
    Array { elem: Rc<Ty>, len: Len },
    Struct(Rc<StructDef>),
    /// A native vector (`f32x4`): lanes `x y z w`.
    Vector { elem: Scalar, lanes: u8 },
    /// A texture, sampler or surface handle: 64 bits; typed ones (`Texture2d<f32>`) say what
    /// they read (see `front::texture`).
    Handle(super::texture::HandleKind),
    /// Shared memory: `SharedArray<T, N>` (a length) or `SharedSlice<T>` (dynamic, none).
    Shared { elem: Rc<Ty>, len: Option<Len> },
    /// A tuple held in registers: built, destructured and read field by field inside a body,
    /// never passed to a function or stored in memory (it has no ABI layout).
    Tuple(Vec<Ty>),
    /// `Option<T>` and `Result<T, E>` as values (see `front::sum`): a `u32` tag (Rust's
    /// discriminant: `None`/`Ok` 0, `Some`/`Err` 1) and each variant's members, in registers.
    Sum { kind: SumKind, args: Vec<Ty> },
    /// An inference variable (see `infer`).
    Var(u32),
    /// A named type whose description has not been fetched (see `link`): it can be passed
    /// along whole but not looked into.
    Named(Rc<NamedRef>),
    /// The type of an expression that already had an error.
    Error,
}

/// A named type as written, resolvable in the scope of the item being compiled.
#[derive(Debug)]
pub struct NamedRef {
    /// The path tokens.
    pub path: TokenStream,
    /// The key of the fetch that would describe it.
    pub key: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SumKind {
    Option,
    Result,
}

impl SumKind {
    pub fn name(self) -> &'static str {
        match self {
            SumKind::Option => "Option",
            SumKind::Result => "Result",
        }
    }

    /// The variants' names, by discriminant.
    pub fn variants(self) -> [&'static str; 2] {
        match self {
            SumKind::Option => ["None", "Some"],
            SumKind::Result => ["Ok", "Err"],
        }
    }

    pub fn arity(self) -> usize {
        match self {
            SumKind::Option => 1,
            SumKind::Result => 2,
        }
    }

    /// The members of variant `v` given the type arguments.
    pub fn members(self, args: &[Ty], v: usize) -> Vec<Ty> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Ty::Error);
        match (self, v) {
            (SumKind::Option, 0) => vec![],
            (SumKind::Option, _) => vec![arg(0)],
            (SumKind::Result, 0) => vec![arg(0)],
            (SumKind::Result, _) => vec![arg(1)],
        }
    }

    /// The variant of a name (`Some`, `Err`), with its kind.
    pub fn of_variant(name: &str) -> Option<(SumKind, usize)> {
        Some(match name {
            "None" => (SumKind::Option, 0),
            "Some" => (SumKind::Option, 1),
            "Ok" => (SumKind::Result, 0),
            "Err" => (SumKind::Result, 1),
            _ => return None,
        })
    }
}

/// A sum's value in registers, as the lowering sees it: `(u32 tag, (variant 0's members),
/// (variant 1's members))`. As a device function's parameter or return value it is that
/// tuple's C struct (`ptx_runtime`'s `ParamType` of `Option` and `Result` agrees).
pub fn sum_repr(kind: SumKind, args: &[Ty]) -> Ty {
    let mut ts = vec![Ty::Scalar(Scalar::U32)];
    for v in 0..2 {
        ts.push(Ty::Tuple(kind.members(args, v)));
    }
    Ty::Tuple(ts)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StructKind {
    /// `struct S { a: T }`
    Named,
    /// `struct S(T, U);`
    Tuple,
    /// `union U { a: T }`
    Union,
    /// A data-carrying enum (see `front::enum_data`): field 0 is the tag (the variant's index),
    /// field `1 + k` the struct of variant `k`'s fields at their offsets in the enum. Variant
    /// `k`'s fields hold a value only when the tag is `k`.
    Enum,
    /// A C-like enum (`#[repr(u8)] enum Op { Add, Mul }`, see `front::enums`): field 0, its only
    /// one, is the discriminant in the `repr` integer, and `tags` holds each variant's. The
    /// type says which enum a value is (its methods, `From` impls, variants in patterns); its
    /// ABI, register and bytes are the integer's, which is all the lowering sees
    /// ([`Ty::lowered`]).
    CLike,
}

/// A `#[derive(DeviceRepr)]` type, from its replay (see `link::info`).
#[derive(Debug)]
pub struct StructDef {
    /// The type's name, for messages.
    pub name: String,
    /// The path it was described through, as the item being compiled names it (its methods'
    /// replays live next to it, see `expand::method`).
    pub path: TokenStream,
    pub kind: StructKind,
    pub fields: Vec<Field>,
    pub layout: Layout,
    /// An instance of a generic type (`Pair<f32>`): its own name and arguments.
    pub generic: Option<Rc<GenericArgs>>,
    /// A data-carrying enum's discriminants, by variant (the tag of variant `k`; see `tag`).
    pub tags: Vec<i128>,
}

/// The arguments of an instance of a generic `DeviceRepr` type (see `front::generic_type`).
#[derive(Debug)]
pub struct GenericArgs {
    /// The type's own name (`Pair`): its methods' replays are named by it.
    pub base: String,
    pub args: Vec<GenericArg>,
    /// The arguments as the item being compiled names them.
    pub tokens: Vec<TokenStream>,
}

/// An argument of a generic `DeviceRepr` type: a type, or a const parameter's value and its
/// type's Itanium code (`Tile<4>`: `4`, `m`).
#[derive(Debug, Clone)]
pub enum GenericArg {
    Type(Ty),
    Const(i128, &'static str),
}

#[derive(Debug)]
pub struct Field {
    /// The field name, or its index for tuple structs.
    pub name: String,
    pub ty: Ty,
    pub offset: u64,
}

/// The offset of each member of a tuple passed as a parameter (the C struct of its members).
pub fn tuple_offsets(ts: &[Ty]) -> Option<Vec<u64>> {
    let mut s = ptx_abi::layout::StructLayout::new(0);
    let mut out = Vec::new();
    for t in ts {
        s = s.field(member_layout(t)?);
        out.push(s.last_offset as u64);
    }
    Some(out)
}

/// A tuple member's layout: `()` (`Result<(), E>`'s `Ok`) takes no bytes.
fn member_layout(t: &Ty) -> Option<Layout> {
    match t {
        Ty::Unit => Some(Layout::new(0, 1)),
        t => t.layout(),
    }
}

impl StructDef {
    /// The tag of a data-carrying enum's variant `k`: its discriminant (`A(u32) = 3`), the
    /// index where none is recorded.
    pub fn tag(&self, k: usize) -> i128 {
        self.tags.get(k).copied().unwrap_or(k as i128)
    }

    /// The type's name without its generic arguments.
    pub fn base_name(&self) -> &str {
        self.generic.as_ref().map_or(&self.name, |g| &g.base)
    }

    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// A C-like enum's `repr` integer.
    pub fn c_enum_repr(&self) -> Option<Scalar> {
        match (self.kind, self.fields.first()) {
            (StructKind::CLike, Some(f)) => f.ty.scalar(),
            _ => None,
        }
    }
}

impl Ty {
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The `repr` integer of a C-like enum type.
    pub fn c_enum(&self) -> Option<Scalar> {
        match self {
            Ty::Struct(d) => d.c_enum_repr(),
            _ => None,
        }
    }

    /// The type as the lowering sees it at the top: a C-like enum is its integer.
    pub fn lowered(self) -> Ty {
        match self.c_enum() {
            Some(s) => Ty::Scalar(s),
            None => self,
        }
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Scalar(s) if s.is_integral() && *s != Scalar::Bool)
    }

    pub fn is_float(&self) -> bool {
        matches!(self, Ty::Scalar(Scalar::F32 | Scalar::F64))
    }

    pub fn is_bool(&self) -> bool {
        matches!(self, Ty::Scalar(Scalar::Bool))
    }

    pub fn usize() -> Ty {
        Ty::Scalar(Scalar::U64)
    }

    pub fn u32() -> Ty {
        Ty::Scalar(Scalar::U32)
    }

    pub fn bool() -> Ty {
        Ty::Scalar(Scalar::Bool)
    }

    /// An array whose size passes Rust's limit (`ptx_abi::layout::MAX_SIZE`), so it has no
    /// layout although its element has one.
    pub fn exceeds_max_size(&self) -> bool {
        match self {
            Ty::Array { elem, len: Len::Known(n) } => match elem.layout() {
                Some(l) => usize::try_from(*n).ok().and_then(|n| Layout::checked_array(l, n)).is_none(),
                None => elem.exceeds_max_size(),
            },
            _ => false,
        }
    }

    /// Size and alignment in device memory, when the macro knows them.
    pub fn layout(&self) -> Option<Layout> {
        Some(match self {
            Ty::Scalar(s) => Layout::scalar(*s),
            Ty::Ptr { .. } | Ty::Handle(_) => Layout::POINTER,
            Ty::Slice { .. } => Layout::SLICE,
            Ty::Array { elem, len } => Layout::checked_array(elem.layout()?, usize::try_from(len.known()?).ok()?)?,
            Ty::Struct(def) => def.layout,
            Ty::Vector { elem, lanes } => {
                let l = *lanes as usize;
                if !ptx_abi::layout::vector_lanes_allowed(*elem, l) {
                    return None;
                }
                Layout::vector(*elem, l)
            }
            // As a parameter: the C struct of its members (see `ptx_runtime`'s `ParamType`).
            Ty::Tuple(ts) => {
                let mut s = ptx_abi::layout::StructLayout::new(0);
                for t in ts {
                    s = s.checked_field(member_layout(t)?)?;
                }
                s.finish()
            }
            _ => return None,
        })
    }

}

pub const VECTOR_LANES: [&str; 4] = ["x", "y", "z", "w"];

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Scalar(s) => f.write_str(scalar_name(*s)),
            Ty::Unit => f.write_str("()"),
            Ty::Never => f.write_str("!"),
            Ty::Ptr { mutable, reference: true, pointee } => write!(f, "&{}{pointee}", if *mutable { "mut " } else { "" }),
            Ty::Ptr { mutable, pointee, .. } => write!(f, "*{} {pointee}", if *mutable { "mut" } else { "const" }),
            Ty::Slice { mutable, elem } => write!(f, "&{}[{elem}]", if *mutable { "mut " } else { "" }),
            Ty::Array { elem, len: Len::Known(n) } => write!(f, "[{elem}; {n}]"),
            Ty::Array { elem, len: Len::Const(t) } => write!(f, "[{elem}; {t}]"),
            Ty::Struct(d) => f.write_str(&d.name),
            Ty::Vector { elem, lanes } => write!(f, "{}x{lanes}", scalar_name(*elem)),
            Ty::Handle(k) => write!(f, "{k}"),
            Ty::Shared { elem, len: Some(_) } => write!(f, "SharedArray<{elem}>"),
            Ty::Shared { elem, len: None } => write!(f, "SharedSlice<{elem}>"),
            Ty::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(if ts.len() == 1 { ",)" } else { ")" })
            }
            Ty::Sum { kind, args } => {
                write!(f, "{}<", kind.name())?;
                for (i, t) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(">")
            }
            Ty::Var(_) => f.write_str("_"),
            Ty::Named(n) => write!(f, "{}", n.path),
            Ty::Error => f.write_str("{error}"),
        }
    }
}

pub fn scalar_name(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "bool",
        Scalar::I8 => "i8",
        Scalar::I16 => "i16",
        Scalar::I32 => "i32",
        Scalar::I64 => "i64",
        Scalar::U8 => "u8",
        Scalar::U16 => "u16",
        Scalar::U32 => "u32",
        Scalar::U64 => "u64",
        Scalar::F16 => "f16",
        Scalar::BF16 => "bf16",
        Scalar::F32 => "f32",
        Scalar::F64 => "f64",
    }
}
