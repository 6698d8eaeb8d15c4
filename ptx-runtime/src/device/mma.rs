//! Tensor cores: typed `mma.sync` fragments, [`mma_sync`], and `ldmatrix` / `stmatrix`
//! (docs/tensor-cores.md, "The device API").
//!
//! A fragment is what one lane holds of a warp's matrix: [`FragmentA`] (16 × k, row-major
//! `.row`), [`FragmentB`] (k × 8, column-major `.col`) and [`FragmentC`] (16 × 8, the
//! accumulator and the result). Their type parameters are the shape ([`M16N8K16`], [`M16N8K8`],
//! [`M16N8K32`]) and the element type, so passing an A fragment as B, mixing shapes, or
//! mixing `f16` with `bf16` is rustc's type error:
//!
//! | shape | A (per lane) | B (per lane) | C / D (per lane) | PTX | target |
//! |-------|--------------|--------------|------------------|-----|--------|
//! | `M16N8K16` | `FragmentA<M16N8K16, f16>`: 4 × b32 (8 halves) | `FragmentB<M16N8K16, f16>`: 2 × b32 | `FragmentC<f32>`: 4 × f32 | `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` | sm_80 |
//! | `M16N8K16` | `FragmentA<M16N8K16, bf16>` | `FragmentB<M16N8K16, bf16>` | `FragmentC<f32>` | `….f32.bf16.bf16.f32` | sm_80 |
//! | `M16N8K8` | `FragmentA<M16N8K8, Tf32>`: 4 × b32 | `FragmentB<M16N8K8, Tf32>`: 2 × b32 | `FragmentC<f32>` | `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` | sm_80 |
//! | `M16N8K32` | `FragmentA<M16N8K32, i8 or u8>`: 4 × b32 (16 bytes) | `FragmentB<M16N8K32, i8 or u8>`: 2 × b32 | `FragmentC<i32>`: 4 × s32 | `mma.sync.aligned.m16n8k32.row.col[.satfinite].s32.{s8,u8}.{s8,u8}.s32` | sm_80 |
//!
//! Which (row, column) of the matrix each element of a lane's fragment is: `position(lane, i)`
//! on each fragment type, the PTX ISA's table ("Matrix fragments for mma.m16n8k*", with
//! `g = lane / 4`, `t = lane % 4`), one table shared with the CPU backend
//! (`ptx_cpu`'s `exec/mma.rs`, `layout`).
//!
//! `ldmatrix_x1/x2/x4[_trans]` and `stmatrix_*` move 8 × 8 matrices of 16-bit elements between
//! shared memory and registers: lane `8·i + r` passes the address of row `r` of matrix `i`
//! (16 contiguous bytes, 16-byte aligned), and register `i` of lane `l` holds elements
//! `(l / 4, 2·(l % 4))` (low half) and `(l / 4, 2·(l % 4) + 1)` (high half) of matrix `i`
//! (`.trans`: row and column swapped). `ldmatrix_x4` at the rows of a 16 × 16 f16 tile (lanes
//! 0–15 rows 0–15 at column 0, lanes 16–31 rows 0–15 at column 8) is exactly a
//! `FragmentA<M16N8K16, f16>`; `ldmatrix_x2_trans` at the 16 rows of a row-major 16 × 8 B
//! tile is a `FragmentB<M16N8K16, f16>`.
//!
//! All of these are warp-collective: every lane of the warp calls them together (PTX's
//! `.sync.aligned`). On the host, the lanes exchange their registers (like [`shfl_sync`](super::shfl_sync))
//! and compute with the CPU backend's own tables and arithmetic, so the host run of a body
//! and its CPU-backend run agree bit for bit.
//!
//! In a `#[kernel]` or `#[device_fn]` these lower to one instruction each, as nvcc writes the
//! same inline asm; a fragment lives in registers (its `regs`). `mma_sync` needs sm_80
//! (`#[kernel(sm = 80)]`), `ldmatrix` sm_75, `stmatrix` sm_90; below it the call is a compile
//! error naming the attribute. In a body, build fragments with `from_regs(..)` or `zero()`
//! (`FragmentA::<M16N8K16, f16>::from_regs(r)`: the type arguments written), read and write
//! `regs`, and place elements with `position(lane, i)`.

use super::host::{ctx, warp_exchange};
use ptx_macros::__device_api as device_api;
use core::marker::PhantomData;
use half::{bf16, f16};
use ptx_cpu::tensor::{layout, matrix_element, warp_mma, MmaKind};

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// The m16n8k16 shape (f16, bf16 inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct M16N8K16;
/// The m16n8k8 shape (tf32 inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct M16N8K8;
/// The m16n8k32 shape (s8, u8 inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct M16N8K32;

/// A TensorFloat-32 input: an `f32` of which the tensor cores read the sign, the exponent and
/// the top 10 mantissa bits (the 13 low bits are ignored; CUDA's `wmma::precision::tf32`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(transparent)]
pub struct Tf32(pub f32);

/// An `mma` shape: the product is 16 × 8, summed over `K`.
pub trait Shape: Sealed + Copy {
    const K: usize;
}
impl Sealed for M16N8K16 {}
impl Sealed for M16N8K8 {}
impl Sealed for M16N8K32 {}
impl Shape for M16N8K16 {
    const K: usize = 16;
}
impl Shape for M16N8K8 {
    const K: usize = 8;
}
impl Shape for M16N8K32 {
    const K: usize = 32;
}

/// An input element type of shape `S`: what its A and B fragments hold.
pub trait Element<S: Shape>: Sealed + Copy {
    #[doc(hidden)]
    const KIND: MmaKind;
    #[doc(hidden)]
    fn from_bits(bits: u32) -> Self;
    #[doc(hidden)]
    fn to_bits(self) -> u32;
}

macro_rules! element {
    ($shape:ty, $t:ty, $kind:expr, |$x:ident| $to:expr, |$b:ident| $from:expr) => {
        impl Element<$shape> for $t {
            const KIND: MmaKind = $kind;
            fn from_bits($b: u32) -> Self {
                $from
            }
            fn to_bits(self) -> u32 {
                let $x = self;
                $to
            }
        }
    };
}
impl Sealed for f16 {}
impl Sealed for bf16 {}
impl Sealed for Tf32 {}
impl Sealed for i8 {}
impl Sealed for u8 {}
impl Sealed for f32 {}
impl Sealed for i32 {}
element!(M16N8K16, f16, MmaKind::F16, |x| x.to_bits() as u32, |b| f16::from_bits(b as u16));
element!(M16N8K16, bf16, MmaKind::Bf16, |x| x.to_bits() as u32, |b| bf16::from_bits(b as u16));
element!(M16N8K8, Tf32, MmaKind::Tf32, |x| x.0.to_bits(), |b| Tf32(f32::from_bits(b)));
const I8: MmaKind = MmaKind::I8 { a_signed: true, b_signed: true, satfinite: false };
element!(M16N8K32, i8, I8, |x| x as u8 as u32, |b| b as u8 as i8);
element!(M16N8K32, u8, I8, |x| x as u32, |b| b as u8);

/// An accumulator element type: `f32` or `i32`.
pub trait Accum: Sealed + Copy + Default {
    #[doc(hidden)]
    fn from_bits(bits: u32) -> Self;
    #[doc(hidden)]
    fn to_bits(self) -> u32;
}
impl Accum for f32 {
    fn from_bits(bits: u32) -> Self {
        f32::from_bits(bits)
    }
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
}
impl Accum for i32 {
    fn from_bits(bits: u32) -> Self {
        bits as i32
    }
    fn to_bits(self) -> u32 {
        self as u32
    }
}

/// The `mma.sync` forms: A elements `Self` times B elements `B` of shape `S`, accumulated in
/// `Acc`.
pub trait Mma<S: Shape, B: Element<S>>: Element<S> {
    type Acc: Accum;
    #[doc(hidden)]
    fn kind(satfinite: bool) -> MmaKind;
}

macro_rules! mma {
    ($shape:ty, $a:ty, $b:ty, $acc:ty, |$sat:ident| $kind:expr) => {
        impl Mma<$shape, $b> for $a {
            type Acc = $acc;
            fn kind($sat: bool) -> MmaKind {
                $kind
            }
        }
    };
}
mma!(M16N8K16, f16, f16, f32, |_s| MmaKind::F16);
mma!(M16N8K16, bf16, bf16, f32, |_s| MmaKind::Bf16);
mma!(M16N8K8, Tf32, Tf32, f32, |_s| MmaKind::Tf32);
mma!(M16N8K32, i8, i8, i32, |s| MmaKind::I8 { a_signed: true, b_signed: true, satfinite: s });
mma!(M16N8K32, i8, u8, i32, |s| MmaKind::I8 { a_signed: true, b_signed: false, satfinite: s });
mma!(M16N8K32, u8, i8, i32, |s| MmaKind::I8 { a_signed: false, b_signed: true, satfinite: s });
mma!(M16N8K32, u8, u8, i32, |s| MmaKind::I8 { a_signed: false, b_signed: false, satfinite: s });

/// One lane's part of the 16 × k A matrix (row-major, PTX `.row`): 4 × 32-bit registers for
/// every shape here (8 halves, 4 tf32, or 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct FragmentA<S, T> {
    /// The registers as PTX names them (`{a0, a1, a2, a3}`).
    pub regs: [u32; 4],
    _t: PhantomData<(S, T)>,
}

/// One lane's part of the k × 8 B matrix (column-major, PTX `.col`): 2 × 32-bit registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct FragmentB<S, T> {
    /// The registers as PTX names them (`{b0, b1}`).
    pub regs: [u32; 2],
    _t: PhantomData<(S, T)>,
}

/// One lane's part of the 16 × 8 accumulator C (and result D): 4 × `f32` or `i32`, the same
/// layout for every shape.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct FragmentC<T> {
    /// The registers as PTX names them (`{c0, c1, c2, c3}`).
    pub regs: [T; 4],
}

impl<S: Shape, T: Element<S>> FragmentA<S, T> {
    /// Elements per lane: `16 · K / 32`.
    pub const ELEMENTS: usize = 16 * S::K / 32;

    pub const fn from_regs(regs: [u32; 4]) -> Self {
        FragmentA { regs, _t: PhantomData }
    }

    pub const fn zero() -> Self {
        Self::from_regs([0; 4])
    }

    /// The (row, column) in the 16 × K matrix of element `i` (`0..ELEMENTS`) of lane `lane`'s
    /// fragment (the ISA's table: for m16n8k16, element `i` is row `g + 8·((i / 2) % 2)`,
    /// column `2t + i % 2 + 8·(i / 4)`, with `g = lane / 4`, `t = lane % 4`).
    pub fn position(lane: u32, i: usize) -> (usize, usize) {
        layout::a(T::KIND, lane as usize / 4, lane as usize % 4, i)
    }

    /// Element `i` (`0..ELEMENTS`).
    pub fn get(&self, i: usize) -> T {
        T::from_bits(layout::element(T::KIND, &self.regs, i))
    }

    /// Sets element `i` (`0..ELEMENTS`).
    pub fn set(&mut self, i: usize, v: T) {
        set_element(T::KIND, &mut self.regs, i, v.to_bits());
    }
}

impl<S: Shape, T: Element<S>> FragmentB<S, T> {
    /// Elements per lane: `8 · K / 32`.
    pub const ELEMENTS: usize = 8 * S::K / 32;

    pub const fn from_regs(regs: [u32; 2]) -> Self {
        FragmentB { regs, _t: PhantomData }
    }

    pub const fn zero() -> Self {
        Self::from_regs([0; 2])
    }

    /// The (row, column) in the K × 8 matrix of element `i` of lane `lane`'s fragment (for
    /// m16n8k16: row `2t + i % 2 + 8·(i / 2)`, column `g`).
    pub fn position(lane: u32, i: usize) -> (usize, usize) {
        layout::b(T::KIND, lane as usize / 4, lane as usize % 4, i)
    }

    /// Element `i` (`0..ELEMENTS`).
    pub fn get(&self, i: usize) -> T {
        T::from_bits(layout::element(T::KIND, &self.regs, i))
    }

    /// Sets element `i` (`0..ELEMENTS`).
    pub fn set(&mut self, i: usize, v: T) {
        set_element(T::KIND, &mut self.regs, i, v.to_bits());
    }
}

impl<T: Accum> FragmentC<T> {
    /// Elements per lane.
    pub const ELEMENTS: usize = 4;

    pub const fn from_regs(regs: [T; 4]) -> Self {
        FragmentC { regs }
    }

    /// The zero accumulator.
    pub fn zero() -> Self {
        Self::default()
    }

    /// The (row, column) in the 16 × 8 matrix of element `i` (`0..4`) of lane `lane`'s
    /// fragment: row `g + 8·(i / 2)`, column `2t + i % 2`.
    pub fn position(lane: u32, i: usize) -> (usize, usize) {
        layout::c(lane as usize / 4, lane as usize % 4, i)
    }
}

/// Writes element `i`'s bits into a fragment's registers (the inverse of `layout::element`).
fn set_element(kind: MmaKind, regs: &mut [u32], i: usize, bits: u32) {
    let (r, shift, mask) = match kind {
        MmaKind::F16 | MmaKind::Bf16 => (i / 2, 16 * (i & 1), 0xffff),
        MmaKind::Tf32 => (i, 0, u32::MAX),
        MmaKind::I8 { .. } => (i / 4, 8 * (i & 3), 0xff),
    };
    regs[r] = regs[r] & !(mask << shift) | (bits & mask) << shift;
}

/// `d = a·b + c` over the warp (PTX `mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>`; CUDA:
/// the same instruction through inline asm). Every lane of the warp calls it; each passes its
/// fragments and receives its fragment of `d`. Float shapes: see docs/tensor-cores.md for the
/// summation order this crate's host and CPU backend use; integer shapes wrap.
#[device_api]
#[inline]
pub fn mma_sync<S: Shape, A: Mma<S, B>, B: Element<S>>(a: FragmentA<S, A>, b: FragmentB<S, B>, c: FragmentC<A::Acc>) -> FragmentC<A::Acc> {
    host_mma(A::kind(false), a.regs, b.regs, c)
}

/// [`mma_sync`] for the integer shapes with `.satfinite`: the sums clamp to
/// `i32::MIN..=i32::MAX` instead of wrapping.
#[device_api]
#[inline]
pub fn mma_sync_satfinite<S: Shape, A: Mma<S, B, Acc = i32>, B: Element<S>>(a: FragmentA<S, A>, b: FragmentB<S, B>, c: FragmentC<i32>) -> FragmentC<i32> {
    host_mma(A::kind(true), a.regs, b.regs, c)
}

/// The warp's registers gathered by lane (lanes past the block's end hold zeros, as on the
/// CPU backend).
fn gather<const N: usize>(regs: [u32; N]) -> [[u32; N]; 32] {
    let mut out = [[0u32; N]; 32];
    for pair in (0..N).step_by(2) {
        let hi = if pair + 1 < N { regs[pair + 1] } else { 0 };
        let all = warp_exchange(regs[pair] as u64 | (hi as u64) << 32);
        for (l, v) in all.iter().enumerate().take(32) {
            out[l][pair] = *v as u32;
            if pair + 1 < N {
                out[l][pair + 1] = (*v >> 32) as u32;
            }
        }
    }
    out
}

fn host_mma<T: Accum>(kind: MmaKind, a: [u32; 4], b: [u32; 2], c: FragmentC<T>) -> FragmentC<T> {
    let lane = ctx(|x| x.lane()) as usize;
    let (ra, rb, rc) = (gather(a), gather(b), gather(c.regs.map(T::to_bits)));
    let d = warp_mma(kind, &ra, &rb, &rc);
    FragmentC { regs: d[lane].map(T::from_bits) }
}

/// The 16-bit element types `ldmatrix` / `stmatrix` move.
pub trait B16: Sealed + Copy {}
impl Sealed for u16 {}
impl Sealed for i16 {}
impl B16 for u16 {}
impl B16 for i16 {}
impl B16 for f16 {}
impl B16 for bf16 {}

/// Each lane's registers of `N` matrices loaded through the rows the lanes name.
///
/// # Safety
/// Lanes `0..8·N` pass valid, 16-byte-aligned addresses of 8 readable elements.
unsafe fn host_ldmatrix<T: B16, const N: usize>(row: *const T, trans: bool) -> [u32; N] {
    let lane = ctx(|x| x.lane()) as usize;
    let rows = warp_exchange(row as usize as u64);
    let mut out = [0u32; N];
    for (i, o) in out.iter_mut().enumerate() {
        for j in 0..2 {
            let (r, c) = matrix_element(lane, j, trans);
            let p = rows.get(8 * i + r).copied().unwrap_or(0) as usize as *const u16;
            // SAFETY: the caller's contract; element `c` of the row.
            let bits = unsafe { p.add(c).read() };
            *o |= (bits as u32) << (16 * j);
        }
    }
    out
}

/// Stores `N` matrices from each lane's registers through the rows the lanes name.
///
/// # Safety
/// Lanes `0..8·N` pass valid, 16-byte-aligned addresses of 8 writable elements.
unsafe fn host_stmatrix<T: B16, const N: usize>(row: *mut T, regs: [u32; N], trans: bool) {
    let lane = ctx(|x| x.lane()) as usize;
    let all = gather(regs);
    if lane < 8 * N {
        let (i, r) = (lane / 8, lane % 8);
        let p = row as *mut u16;
        for (l, regs_l) in all.iter().enumerate() {
            for j in 0..2 {
                let (rr, c) = matrix_element(l, j, trans);
                if rr == r {
                    // SAFETY: the caller's contract; element `c` of this lane's row.
                    unsafe { p.add(c).write((regs_l[i] >> (16 * j)) as u16) };
                }
            }
        }
    }
    // The stores are done when the warp leaves the instruction.
    let _ = warp_exchange(0);
}

macro_rules! ldst {
    ($(($ld:ident, $st:ident, $n:literal, $trans:literal, $ptx:literal)),* $(,)?) => {$(
        #[doc = concat!("`ldmatrix.sync.aligned.m8n8.", $ptx, ".shared.b16`: ", stringify!($n), " 8 × 8 matrices from shared memory; lane `8·i + r` passes the address of row `r` of matrix `i` (see the [module](self) for which elements each register holds).")]
        ///
        /// # Safety
        #[doc = concat!("Every lane of the warp calls it; lanes `0..", stringify!($n), "·8` pass 16-byte-aligned shared-memory addresses of 8 readable elements.")]
        #[device_api]
        #[inline]
        pub unsafe fn $ld<T: B16>(row: *const T) -> [u32; $n] {
            // SAFETY: the caller's contract.
            unsafe { host_ldmatrix::<T, $n>(row, $trans) }
        }

        #[doc = concat!("`stmatrix.sync.aligned.m8n8.", $ptx, ".shared.b16` (sm_90): the inverse of [`", stringify!($ld), "`].")]
        ///
        /// # Safety
        #[doc = concat!("Every lane of the warp calls it; lanes `0..", stringify!($n), "·8` pass 16-byte-aligned shared-memory addresses of 8 writable elements.")]
        #[device_api]
        #[inline]
        pub unsafe fn $st<T: B16>(row: *mut T, regs: [u32; $n]) {
            // SAFETY: the caller's contract.
            unsafe { host_stmatrix::<T, $n>(row, regs, $trans) }
        }
    )*};
}
ldst!(
    (ldmatrix_x1, stmatrix_x1, 1, false, "x1"),
    (ldmatrix_x2, stmatrix_x2, 2, false, "x2"),
    (ldmatrix_x4, stmatrix_x4, 4, false, "x4"),
    (ldmatrix_x1_trans, stmatrix_x1_trans, 1, true, "x1.trans"),
    (ldmatrix_x2_trans, stmatrix_x2_trans, 2, true, "x2.trans"),
    (ldmatrix_x4_trans, stmatrix_x4_trans, 4, true, "x4.trans"),
);

// A fragment is `N` 4-byte registers (a struct of one array field by the guide's rules), so it
// can be a device function's parameter or result (the tile API's functions pass them).
macro_rules! fragment_repr {
    ($(impl[$($g:tt)*] $t:ty = $n:literal;)*) => {$(
        // SAFETY: `#[repr(C)]` of `[u32 or f32 or i32; N]` (and a zero-sized marker): `4·N`
        // bytes, 4-aligned, no padding.
        unsafe impl<$($g)*> crate::DeviceRepr for $t {
            const LAYOUT: crate::abi::Layout = crate::abi::Layout::new(4 * $n, 4);
            const PARAM: crate::abi::ParamAbi = crate::abi::ParamAbi::Aggregate(Self::LAYOUT);
            const NO_PADDING: bool = true;
            fn write_bytes(&self, out: &mut [u8]) {
                for (i, r) in self.regs.iter().enumerate() {
                    out[4 * i..4 * i + 4].copy_from_slice(&r.to_le_bytes());
                }
            }
        }
        impl<$($g)*> crate::ParamType for $t {
            const ABI: crate::abi::ParamAbi = <Self as crate::DeviceRepr>::PARAM;
        }
    )*};
}
fragment_repr! {
    impl[S: Shape + 'static, T: Element<S> + 'static] FragmentA<S, T> = 4;
    impl[S: Shape + 'static, T: Element<S> + 'static] FragmentB<S, T> = 2;
    impl[] FragmentC<f32> = 4;
    impl[] FragmentC<i32> = 4;
}
