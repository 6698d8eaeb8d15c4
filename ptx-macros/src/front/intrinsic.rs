//! Operations the lowering implements directly: the device API, and the methods of scalars,
//! pointers and slices. The front end resolves calls and method calls to these; their
//! arguments are checked there, so the lowering only selects instructions.

use super::ty::{Len, Ty};

#[derive(Clone, Debug)]
pub enum Intrinsic {
    /// `mov.u32 d, %tid.x` and friends: a 32-bit special register.
    Sreg(&'static str),
    /// A 64-bit special register (`%clock64`, `%globaltimer`).
    Sreg64(&'static str),
    /// `bar.sync 0` (`__syncthreads`).
    SyncThreads,
    /// `bar.red.popc.u32` / `.and.pred` / `.or.pred` (`__syncthreads_count/and/or`).
    SyncThreadsRed(RedOp),
    /// `bar.warp.sync mask` (`__syncwarp`).
    SyncWarp,
    /// `shfl.sync.<mode>`: args mask, value, lane/delta/lane mask.
    Shfl(ShflMode),
    /// `vote.sync.<mode>`: args mask, predicate.
    Vote(VoteMode),
    /// `activemask.b32`
    ActiveMask,
    /// `membar` at a block, device or system scope (`__threadfence_block` / `__threadfence` /
    /// `__threadfence_system`).
    Fence(ptx_abi::atomic::Scope),
    /// `nanosleep.u32 t`
    Nanosleep,
    /// `trap;`
    Trap,
    /// A static per-block shared array.
    SharedArray { elem: Ty, len: Len },
    /// The dynamic shared memory the launch sized, as a slice of `elem`.
    DynShared { elem: Ty },
    /// An integer method.
    Int(IntOp),
    /// A float method.
    Float(FloatOp),
    /// An approximate float function (`fast::sin` ...): one `.approx` instruction or a short
    /// sequence of them.
    Fast(FastOp),
    /// `f32::exp` ... as nvcc emits CUDA's `expf` ... inline (`lower::cuda_math`).
    CudaMath(CudaOp),
    /// Pointer methods.
    Ptr(PtrOp),
    /// `len()` of a slice, array or shared array.
    Len,
    /// `as_ptr()` / `as_mut_ptr()` of a slice, array or shared memory.
    AsPtr,
    /// `f32::to_bits` / `f32::from_bits` and the integer equivalents: a bit-cast.
    Bits,
    /// `x.try_into()` between integer types: `Result<T, TryFromIntError>` once `T` is known
    /// (see `lower::try_int`).
    TryInt,
    /// An atomic operation of `device::atomic`: args are the address (not for a fence), then
    /// the operands (value; current and new for a compare-exchange; the bound of inc/dec).
    Atomic(AtomicOp),
    /// `malloc::<T>(count)`: `count * size_of::<T>()` bytes from the device heap.
    Malloc { elem: Ty },
    /// `free(ptr)`.
    Free,
    /// A texture read (`front::texture`): args are the handle, the coordinates, the layer,
    /// then the level or the two gradients.
    Tex { shape: super::texture::Shape, read: super::texture::TexRead, elem: ptx_abi::Scalar, lanes: u8 },
    /// `x.to_f16_rz()` and friends (`front::round`): a conversion rounded in the named mode.
    Round { to: ptx_abi::Scalar, mode: RoundMode },
    /// A surface read or write: args are the handle, the coordinates, then the value written.
    Surf { shape: super::texture::Shape, elem: ptx_abi::Scalar, lanes: u8, write: bool, boundary: super::texture::Boundary },
    /// An asynchronous copy, its group operations, or an mbarrier operation
    /// (`front::async_copy`).
    Async(super::async_copy::AsyncOp),
    /// A method of `f16x2` / `bf16x2` (`front::half2`): args are the receiver, then operands.
    Half2(super::half2::Half2Op),
    /// A tensor-core operation: `mma.sync`, `ldmatrix`, `stmatrix` (`front::mma`).
    Mma(super::mma::MmaOp),
}

/// An atomic operation with the memory order and scope it was written with (a compare-exchange
/// carries the one order PTX takes, `ptx_abi::atomic::cas_order` of its two).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AtomicOp {
    pub kind: AtomicKind,
    pub order: ptx_abi::atomic::Order,
    pub scope: ptx_abi::atomic::Scope,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AtomicKind {
    Load,
    Store,
    Swap,
    CompareExchange,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Min,
    Max,
    /// `atom.inc`: `old >= bound ? 0 : old + 1`.
    Inc,
    /// `atom.dec`: `old == 0 || old > bound ? bound : old - 1`.
    Dec,
    Fence,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RedOp {
    Popc,
    And,
    Or,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntOp {
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    WrappingNeg,
    /// `wrapping_div` / `wrapping_rem`: `MIN / -1` wraps instead of stopping the kernel.
    WrappingDiv,
    WrappingRem,
    SaturatingAdd,
    SaturatingSub,
    Min,
    Max,
    Clamp,
    Abs,
    UnsignedAbs,
    AbsDiff,
    Signum,
    Pow,
    LeadingZeros,
    TrailingZeros,
    CountOnes,
    CountZeros,
    RotateLeft,
    RotateRight,
    SwapBytes,
    ReverseBits,
    IsPowerOfTwo,
    /// Unsigned `div_ceil`: division rounding up (a zero divisor stops the kernel, as `/`).
    DivCeil,
    /// Unsigned `is_multiple_of`: `a % b == 0`, with `b == 0` meaning `a == 0` (never stops).
    IsMultipleOf,
    RemEuclid,
    DivEuclid,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FloatOp {
    Sqrt,
    Abs,
    Min,
    Max,
    Clamp,
    MulAdd,
    Floor,
    Ceil,
    Round,
    RoundTiesEven,
    Trunc,
    Fract,
    Recip,
    Copysign,
    Signum,
    IsNan,
    IsInfinite,
    IsFinite,
    IsSignNegative,
    IsSignPositive,
    ToDegrees,
    ToRadians,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FastOp {
    Sin,
    Cos,
    Tan,
    Exp2,
    Exp,
    Log2,
    Ln,
    Rsqrt,
    Sqrt,
    Recip,
    Div,
    Tanh,
    Powf,
    /// `ex2.approx.ftz.f32`, `rcp.approx.ftz.f32`, `rsqrt.approx.ftz.f32`, `div.approx.ftz.f32`:
    /// the forms CUDA's own math functions use inside (subnormal operands and results flushed).
    Exp2Ftz,
    RecipFtz,
    RsqrtFtz,
    DivFtz,
}

/// The `f32` methods lowered inline as nvcc lowers CUDA's single-precision function of the
/// same name (`lower::cuda_math`), within CUDA's documented error bound.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CudaOp {
    /// `expf`: 2 ulp.
    Exp,
    /// `exp2f`: 2 ulp.
    Exp2,
}

impl CudaOp {
    /// The `f32` method this stands for.
    pub fn of_method(name: &str) -> Option<CudaOp> {
        match name {
            "exp" => Some(CudaOp::Exp),
            "exp2" => Some(CudaOp::Exp2),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PtrOp {
    /// `add(n)` / `wrapping_add(n)` (elements, `usize`).
    Add,
    /// `sub(n)` / `wrapping_sub(n)`.
    Sub,
    /// `offset(n)` / `wrapping_offset(n)` (elements, `isize`).
    Offset,
    /// `read()` / `*p`; `read_volatile()` (`ld.volatile`: never merged, hoisted or removed).
    Read { volatile: bool },
    /// `write(v)`; `write_volatile(v)` (`st.volatile`).
    Write { volatile: bool },
    IsNull,
}

/// A rounding mode named by a conversion method's suffix (CUDA's `_rn`, `_rz`, `_rd`, `_ru`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RoundMode {
    Nearest,
    Zero,
    Down,
    Up,
}
