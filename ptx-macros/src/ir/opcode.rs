//! Opcodes as values: the operation with its modifiers (type, rounding, state space, memory
//! order), so passes match on structure instead of re-reading text. The PTX writer
//! (`back::ptx::spell`) is the one place that spells them.

pub use ptx_abi::atomic::{Scope, Sem};

/// An instruction type (`.u32`, `.b64`, `.f32`, `.pred`): signedness matters to `setp`, `shr`,
/// `cvt`; the bit types are what nvcc writes where it does not.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    Pred,
    /// Only in `suld.b`/`sust.b` of one byte.
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    BF16,
    F32,
    F64,
    /// Two packed 16-bit floats in a `.b32` register (`__half2`, `__nv_bfloat162`).
    F16x2,
    BF16x2,
}

impl Type {
    /// The signed (`s`) or unsigned integer type of `bits` (8, 16, 32 or 64).
    pub fn int(signed: bool, bits: u32) -> Type {
        match (signed, bits) {
            (true, 8) => Type::S8,
            (true, 16) => Type::S16,
            (true, 32) => Type::S32,
            (true, _) => Type::S64,
            (false, 8) => Type::U8,
            (false, 16) => Type::U16,
            (false, 32) => Type::U32,
            (false, _) => Type::U64,
        }
    }

    /// `.s<bits>`.
    pub fn s(bits: u32) -> Type {
        Type::int(true, bits)
    }

    /// `.u<bits>`.
    pub fn u(bits: u32) -> Type {
        Type::int(false, bits)
    }

    /// The untyped `.b<bits>` (16, 32 or 64).
    pub fn b(bits: u32) -> Type {
        match bits {
            16 => Type::B16,
            32 => Type::B32,
            _ => Type::B64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Type::F16 | Type::BF16 | Type::F32 | Type::F64 | Type::F16x2 | Type::BF16x2)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Type::S8 | Type::S16 | Type::S32 | Type::S64)
    }

    /// Width in bits (1 for a predicate).
    pub fn bits(self) -> u32 {
        match self {
            Type::Pred => 1,
            Type::B8 | Type::U8 | Type::S8 => 8,
            Type::B16 | Type::U16 | Type::S16 | Type::F16 | Type::BF16 => 16,
            Type::B32 | Type::U32 | Type::S32 | Type::F32 | Type::F16x2 | Type::BF16x2 => 32,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 => 64,
        }
    }
}

/// Arithmetic, logic and bit operations: `op[.mode].type`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Rem,
    Min,
    Max,
    Neg,
    Abs,
    And,
    Or,
    Xor,
    Not,
    Shl,
    Shr,
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
    Copysign,
    Popc,
    Clz,
    Brev,
    Bfe,
    Prmt,
}

/// The modifier between an operation and its type: a rounding mode, which half of a product,
/// saturation, or an approximation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Mode {
    None,
    /// IEEE rounding to nearest even.
    Rn,
    /// IEEE rounding toward zero, toward -infinity (down), toward +infinity (up).
    Rz,
    Rm,
    Rp,
    /// `cvt` to an integral value in a float or integer type, rounded each way.
    Rni,
    Rzi,
    Rmi,
    Rpi,
    /// The low half, the high half or the whole double-width product.
    Lo,
    Hi,
    Wide,
    Sat,
    Approx,
    /// `.approx.ftz`: subnormal operands and results flushed to zero (CUDA's `expf`).
    ApproxFtz,
    Full,
}

/// A `setp` comparison. Of floats, all are false when an operand is NaN except `Neu`
/// (Rust's `!=`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Neu,
}

impl Cmp {
    /// The comparison that holds exactly when this one does not (integers only: with floats,
    /// `!(a < b)` is not `a >= b`).
    pub fn negated(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Ge => Cmp::Lt,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            c => c,
        }
    }

    /// The same comparison with its operands swapped (`a < b` as `b > a`).
    pub fn swapped(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Gt => Cmp::Lt,
            Cmp::Le => Cmp::Ge,
            Cmp::Ge => Cmp::Le,
            c => c,
        }
    }
}

/// `testp`'s floating-point classes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FpClass {
    NotANumber,
    Infinite,
    Finite,
}

/// A state space; `Generic` is none named.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum StateSpace {
    Generic,
    Global,
    Shared,
    Local,
    Param,
    /// Initialized read-only data at module scope (`const`/`static` tables, see
    /// `lower::statics`).
    Const,
}

/// How a load or store is ordered with other threads' accesses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Order {
    /// A plain (weak) access.
    Plain,
    Volatile,
    /// An atomic access with semantics (`.relaxed`, `.acquire`, `.release`) at a scope.
    Atomic(Sem, Scope),
}

/// A load or store: `ld[.order][.space][.nc][.vN].type`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Mem {
    pub order: Order,
    pub space: StateSpace,
    /// Through the non-coherent (read-only) cache: `ld.global.nc`.
    pub nc: bool,
    /// Lanes of a vector access: 1, 2 or 4.
    pub lanes: u8,
    pub ty: Type,
}

impl Mem {
    /// A plain scalar access.
    pub fn plain(space: StateSpace, ty: Type) -> Mem {
        Mem { order: Order::Plain, space, nc: false, lanes: 1, ty }
    }
}

/// `atom`'s operations.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AtomOp {
    Exch,
    Cas,
    Add,
    And,
    Or,
    Xor,
    Min,
    Max,
    Inc,
    Dec,
}

/// `bar.red`'s reductions, `vote.sync`'s modes, `shfl.sync`'s modes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BarRed {
    Popc,
    And,
    Or,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Vote {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Shfl {
    Idx,
    Up,
    Down,
    Bfly,
}

/// A texture's or surface's geometry: `.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Geom {
    D1,
    D2,
    D3,
    A1,
    A2,
    Cube,
    ACube,
}

/// How `tex` picks the mipmap level: implicitly, `.level` (an explicit level of detail) or
/// `.grad` (from gradients).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TexLevel {
    Auto,
    Level,
    Grad,
}

/// `suld`/`sust`'s out-of-range behaviour: `.trap`, `.clamp`, `.zero`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SurfClamp {
    Trap,
    Clamp,
    Zero,
}

/// An input type of `mma.sync` (the accumulator is `.f32` for the floats, `.s32` for the
/// integers).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MmaIn {
    F16,
    Bf16,
    Tf32,
    S8,
    U8,
}

/// `mbarrier`'s operations (each spelled as nvcc and CUDA's `cuda::ptx` write it).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Mbar {
    Init,
    Arrive,
    ArriveDrop,
    TestWait,
    TryWait,
    TryWaitParity,
    Inval,
    ExpectTx,
    ArriveExpectTx,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Opcode {
    /// `mov.type`: copies, immediates, special registers and symbols' addresses.
    Mov(Type),
    Arith(Arith, Mode, Type),
    Setp(Cmp, Type),
    /// `set.cmp.dst.src`: the comparison as a value (`f16x2` / `bf16x2` lane-wise comparisons;
    /// `set.<cmp>.f32.f32` gives 1.0 or 0.0, `.u32` all ones or zero per lane).
    Set(Cmp, Type, Type),
    Selp(Type),
    /// `cvt[.mode].dst.src`.
    Cvt(Mode, Type, Type),
    /// `cvta.space.u64` (to generic), or `cvta.to.space.u64` when `to`.
    Cvta { to: bool, space: StateSpace },
    Testp(FpClass, Type),
    Ld(Mem),
    St(Mem),
    /// `atom[.sem.scope][.space].op.type`.
    Atom { sem: Sem, scope: Scope, space: StateSpace, op: AtomOp, ty: Type },
    Fence(Sem, Scope),
    /// `membar.cta`, `membar.gl`, `membar.sys`.
    Membar(Scope),
    /// `bar.sync` (barrier 0 and every thread of the block).
    BarSync,
    BarRed(BarRed, Type),
    BarWarpSync,
    Vote(Vote, Type),
    /// `shfl.sync.mode.b32`.
    Shfl(Shfl),
    Activemask,
    Nanosleep,
    /// `shf.l.wrap.b32` / `shf.r.wrap.b32`: a rotate by a funnel shift.
    ShfWrap { left: bool },
    /// `tex[.level|.grad].geom.v4.dst.coord d, [t, {c}][, lod | , {dx}, {dy}]`.
    Tex { geom: Geom, level: TexLevel, dst: Type, coord: Type },
    /// `tld4.comp.geom.v4.dst.f32` (`.2d`, `.a2d`): component `comp` (0..=3, r g b a) of the
    /// four texels that bilinear filtering would read.
    Tld4 { comp: u8, geom: Geom, dst: Type },
    /// `suld.b.geom[.vN].ty.clamp {d}, [s, {c}]` (`vec` 1, 2 or 4 elements).
    Suld { geom: Geom, vec: u8, ty: Type, clamp: SurfClamp },
    /// `sust.b.geom[.vN].ty.clamp [s, {c}], {v}`.
    Sust { geom: Geom, vec: u8, ty: Type, clamp: SurfClamp },
    /// `cp.async.{ca,cg}.shared.global [d], [s], size, src_size`.
    CpAsync { cg: bool },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group n`.
    CpAsyncWait,
    /// `cp.async.wait_all`.
    CpAsyncWaitAll,
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [s], n, [bar]`.
    CpAsyncBulk,
    /// `cp.async.bulk.global.shared::cta.bulk_group [d], [s], n`.
    CpAsyncBulkStore,
    /// `cp.async.bulk.commit_group`.
    CpAsyncBulkCommit,
    /// `cp.async.bulk.wait_group n`.
    CpAsyncBulkWait,
    /// `fence.proxy.async.shared::cta`.
    FenceProxyAsync,
    /// `mbarrier.<op>.<space>.b64`.
    Mbarrier(Mbar),
    /// `mma.sync.aligned.m16n8k<k>.row.col[.satfinite].<d>.<a>.<b>.<d> {d}, {a}, {b}, {c}`.
    Mma { k: u8, a: MmaIn, b: MmaIn, satfinite: bool },
    /// `ldmatrix.sync.aligned.m8n8.x<n>[.trans].shared.b16 {d}, [p]`.
    Ldmatrix { n: u8, trans: bool },
    /// `stmatrix.sync.aligned.m8n8.x<n>[.trans].shared.b16 [p], {r}`.
    Stmatrix { n: u8, trans: bool },
}

impl Opcode {
    /// `op.type` with no modifier.
    pub fn arith(op: Arith, ty: Type) -> Opcode {
        Opcode::Arith(op, Mode::None, ty)
    }

    /// Whether the instruction has no effect besides writing its results (dead code
    /// elimination may remove it when they are unused).
    pub fn is_pure(self) -> bool {
        match self {
            Opcode::Mov(_) | Opcode::Setp(..) | Opcode::Set(..) | Opcode::Selp(_) | Opcode::Cvt(..) | Opcode::Cvta { .. } | Opcode::Testp(..) => true,
            // These and generic loads are left for ptxas to remove, as they always were.
            Opcode::Arith(op, ..) => !matches!(op, Arith::Rsqrt | Arith::Tanh | Arith::Copysign | Arith::Bfe | Arith::Prmt),
            Opcode::Ld(m) => m.order == Order::Plain && m.space != StateSpace::Generic,
            _ => false,
        }
    }

    /// Whether the source operands may be immediates (PTX's `a, b` operands).
    pub fn takes_immediates(self) -> bool {
        use Arith::*;
        match self {
            Opcode::Arith(op, ..) => matches!(op, Add | Sub | Mul | Div | Rem | And | Or | Xor | Shl | Shr | Min | Max),
            Opcode::Setp(..) | Opcode::Selp(_) => true,
            _ => false,
        }
    }
}
