//! The decoded, executable form of a module: one flat instruction array (every function's
//! body, back to back), with names resolved to register indices, frame offsets, addresses and
//! instruction indices, and each arithmetic instruction bound to the lane-vectorized function
//! that computes it. Built once per `load_module` by `decode`.

use std::collections::HashMap;

/// One value per lane of a warp.
pub type Lanes = [u64; 32];

/// An arithmetic kernel over 32 lanes: `(a, b, c, k, out, out2)`. `k` carries the
/// instruction's static modifiers (rounding mode, flags, widths) chosen at decode time; `out2`
/// is a second result (a carry flag, a complementary predicate) when the instruction has one.
pub type AluFn = fn(&Lanes, &Lanes, &Lanes, u32, &mut Lanes, &mut Lanes);

/// Like [`AluFn`] with a fourth source (`bfi`'s length, `madc`'s carry flag).
pub type Alu4Fn = fn(&Lanes, &Lanes, &Lanes, &Lanes, u32, &mut Lanes, &mut Lanes);

/// A register index in the current function's register file.
pub type Reg = u32;
/// "No register" (an absent second destination, a sink `_`).
pub const NOREG: Reg = u32::MAX;

/// Where an operand's per-lane values come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Src {
    /// Absent (reads as zeros).
    None,
    Reg(Reg),
    Imm(u64),
    Special(Sreg),
    /// The local-space address of a `.local` variable: the lane's frame base + offset.
    LocalAddr(u32),
    /// The address of a function-frame `.param` variable: the lane's parameter frame + offset.
    ParamAddr(u32),
    /// The shared-space address of shared variable `.0` (laid out per entry, see
    /// [`SharedLayout`]) plus `.1`.
    Shared(u32, u32),
}

/// Special registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    DynamicSmemSize,
    /// Static plus dynamic shared memory (`%total_smem_size`).
    TotalSmemSize,
    /// That plus the reserved region (`%aggr_smem_size`).
    AggrSmemSize,
    /// `%envreg1` (`true`: the high half) and `%envreg2`: the address of a cooperative
    /// launch's grid workspace, where cooperative groups keep their grid barrier (0 outside a
    /// cooperative launch, as the driver leaves it).
    GridWorkspace(bool),
    /// Registers that read as a constant here (`%cluster_ctarank` = 0, the other `%envregN`
    /// = 0, ...).
    Const(u32),
}

/// An address operand `[base+offset]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Addr {
    pub base: Src,
    pub offset: i64,
}

/// The state space an access names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    Global,
    Shared,
    Local,
    Const,
    /// Kernel parameters (read-only), addressed in the parameter window.
    KernelParam,
    /// A function's parameter frame (`.param` of a `.func` or a call scope).
    FrameParam,
    Generic,
}

/// Memory-ordering strength of an access, from `.relaxed/.acquire/.release/...` (a plain or
/// `.volatile` access is `Weak`/`Relaxed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Add,
    Inc,
    Dec,
    Min,
    Max,
}

/// The operand type of an atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomTy {
    B16,
    U32,
    S32,
    U64,
    S64,
    F16,
    Bf16,
    F16x2,
    Bf16x2,
    F32,
    F64,
}

impl AtomTy {
    pub fn size(self) -> u32 {
        match self {
            AtomTy::B16 | AtomTy::F16 | AtomTy::Bf16 => 2,
            AtomTy::U32 | AtomTy::S32 | AtomTy::F32 | AtomTy::F16x2 | AtomTy::Bf16x2 => 4,
            AtomTy::U64 | AtomTy::S64 | AtomTy::F64 => 8,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarKind {
    Sync,
    Arrive,
    RedPopc,
    RedAnd,
    RedOr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    UMin,
    UMax,
    And,
    Or,
    Xor,
}

/// Combining a comparison with a third predicate (`setp.lt.and.s32 p, a, b, c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comb {
    None,
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CallTarget {
    Direct(u32),
    /// A register holding a function address (see [`func_address`]).
    Indirect(Src),
}

/// The system calls of the guide's chapter 3, executed by the backend itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syscall {
    Vprintf,
    Malloc,
    Free,
    AssertFail,
}

#[derive(Debug, Clone)]
pub enum Op {
    Alu { f: AluFn, k: u32, d: Reg, d2: Reg, a: Src, b: Src, c: Src },
    Alu4 { f: Alu4Fn, k: u32, d: Reg, d2: Reg, a: Src, b: Src, c: Src, e: Src },
    /// `setp`/`set`: `f` compares into 0/1; the result is combined with `c` (negated if
    /// `cneg`) and written as `t` (true) or 0; `d2` gets the complement combined the same way,
    /// or with `x2` (packed-half comparisons) the high half's result.
    /// `t`: the value written for true (`set`), or with [`SET_LANES`] a packed pair's `set`
    /// writing the low 16 bits of `t` into each lane where its comparison holds.
    Setp { f: AluFn, k: u32, d: Reg, d2: Reg, a: Src, b: Src, comb: Comb, c: Src, cneg: bool, x2: bool, t: u64 },
    /// `mov.b64 d, {a, b}`: packs `n` parts of `bits` each, lowest first.
    Pack { d: Reg, parts: [Src; 4], n: u8, bits: u8 },
    /// `mov.b64 {a, b}, d`: the inverse.
    Unpack { ds: [Reg; 4], a: Src, n: u8, bits: u8 },
    Ld { space: MemSpace, size: u8, sext: bool, vec: u8, ds: [Reg; 8], dbits: u8, addr: Addr, order: Order },
    St { space: MemSpace, size: u8, vec: u8, srcs: [Src; 8], addr: Addr, order: Order },
    Atom { space: MemSpace, op: AtomOp, ty: AtomTy, d: Reg, addr: Addr, b: Src, c: Src, order: Order, ftz: bool },
    Bra { target: u32 },
    Call { target: CallTarget, args: Box<[u32]>, rets: Box<[u32]> },
    Syscall { which: Syscall, args: Box<[u32]>, rets: Box<[u32]> },
    Ret,
    Exit,
    Trap,
    Brkpt,
    Bar { kind: BarKind, id: Src, count: Src, aligned: bool, d: Reg, p: Src, pneg: bool },
    BarWarp { mask: Src },
    Shfl { mode: ShflMode, d: Reg, p: Reg, a: Src, b: Src, c: Src, mask: Src },
    Vote { mode: VoteMode, d: Reg, a: Src, neg: bool, mask: Src },
    Redux { op: ReduxOp, d: Reg, a: Src, mask: Src },
    Match { all: bool, wide: bool, d: Reg, p: Reg, a: Src, mask: Src },
    /// `mma.sync.aligned` (the whole warp; `exec/mma.rs`): `d = a·b + c` over the warp's fragments.
    Mma { kind: MmaKind, d: [Reg; 4], a: [Src; 4], b: [Src; 2], c: [Src; 4] },
    /// `tex` / `tld4` (`exec/texture.rs`): a texture object's sampled texel, per lane.
    Tex(Box<TexOp>),
    /// `suld.b` / `sust.b` (`exec/texture.rs`): a surface object's bytes, per lane.
    Surf(Box<SurfOp>),
    /// `ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16` (`exec/matrix.rs`): each lane
    /// names a row of the warp's `num` 8 × 8 matrices and receives its fragment of each.
    LdMatrix { num: u8, trans: bool, ds: [Reg; 4], addr: Addr },
    /// `stmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`: the inverse of `LdMatrix`.
    StMatrix { num: u8, trans: bool, srcs: [Src; 4], addr: Addr },
    Activemask { d: Reg },
    /// `cp.async`: one thread's copy of `size` bytes from global to shared memory, of which
    /// `src_size` are read and the rest zero-filled (`exec/async_copy.rs`).
    CpAsync { size: u8, dst: Addr, src: Addr, src_size: Src },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group n`; `u32::MAX`: `cp.async.wait_all`.
    CpAsyncWait { n: u32 },
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar]`.
    CpAsyncBulk { dst: Addr, src: Addr, size: Src, bar: Addr },
    /// `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size`.
    BulkStore { dst: Addr, src: Addr, size: Src },
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group[.read] n`.
    BulkWait { n: u32 },
    /// An `mbarrier` operation on the 64-bit object at `addr` (`ptx_abi::mbarrier`'s state):
    /// `b` is the count, token, parity or byte count; `d` the token or predicate; `space`
    /// `Shared` or (no state space named) `Generic`.
    Mbar { op: MbarOp, d: Reg, addr: Addr, b: Src, space: MemSpace },
    Fence { order: Order },
    /// Gives other threads a chance to run (`nanosleep`).
    Yield,
    Nop,
    /// An instruction the backend does not implement; launching an entry that can reach it
    /// fails with `Error::Unsupported` before anything runs.
    Unsupported { what: String },
}

/// `mbarrier`'s operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MbarOp {
    Init,
    /// `arrive` / `arrive_drop`, with `.expect_tx` (then `b` is the byte count, else the
    /// optional arrival count).
    Arrive { drop: bool, expect_tx: bool },
    ExpectTx,
    CompleteTx,
    /// `test_wait` / `try_wait`, with a token or (`.parity`) a phase parity.
    Wait { parity: bool },
    Inval,
    /// `pending_count d, state`: no memory access.
    PendingCount,
}

/// The shapes and types of `mma.sync` the backend executes (`.row.col`, f32 or s32 accumulators).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaKind {
    /// m16n8k16, f16 inputs.
    F16,
    /// m16n8k16, bf16 inputs.
    Bf16,
    /// m16n8k8, tf32 inputs.
    Tf32,
    /// m16n8k32, s8/u8 inputs (`a_signed`, `b_signed`), s32 accumulators; `satfinite` clamps.
    I8 { a_signed: bool, b_signed: bool, satfinite: bool },
}

/// The coordinate layout of a texture or surface instruction (`.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexGeom {
    D1,
    D2,
    D3,
    /// Layered 1-D: `{layer, x}`.
    A1d,
    /// Layered 2-D: `{layer, x, y, _}`.
    A2d,
    /// A cube map: `{x, y, z, _}`, a direction.
    Cube,
    /// A layered cube map: `{cube, x, y, z}`.
    ACube,
}

impl TexGeom {
    /// Spatial coordinates (without the layer).
    pub fn dims(self) -> usize {
        match self {
            TexGeom::D1 | TexGeom::A1d => 1,
            TexGeom::D2 | TexGeom::A2d => 2,
            TexGeom::D3 | TexGeom::Cube | TexGeom::ACube => 3,
        }
    }

    pub fn layered(self) -> bool {
        matches!(self, TexGeom::A1d | TexGeom::A2d | TexGeom::ACube)
    }

    pub fn cube(self) -> bool {
        matches!(self, TexGeom::Cube | TexGeom::ACube)
    }
}

/// How `tex` picks its mipmap level: level 0 (`.base`, the default), `.level`'s operand, or
/// `.grad`'s two gradient vectors (up to three lanes each).
#[derive(Debug, Clone, Copy)]
pub enum TexLod {
    Base,
    Level(Src),
    Grad([Src; 3], [Src; 3]),
}

/// `tex[.level|.grad].{geom}.v4.{dst}.{coord}` or `tld4.{comp}.2d.v4.{dst}.f32` (`gather`: 0-3).
#[derive(Debug, Clone)]
pub struct TexOp {
    pub geom: TexGeom,
    /// `tld4`'s component.
    pub gather: Option<u8>,
    /// `.s32` coordinates (`tex1Dfetch`).
    pub int_coords: bool,
    pub d: [Reg; 4],
    pub handle: Src,
    /// The coordinate vector as written: the layer first for `a1d`/`a2d`/`acube`.
    pub coords: [Src; 4],
    pub lod: TexLod,
}

/// Out-of-range behaviour of a surface access (`.trap`, `.clamp`, `.zero`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfClamp {
    Trap,
    Clamp,
    Zero,
}

/// `suld.b.{geom}[.vN].bB.{clamp}` (`store` false: `d` receives) or `sust.b` (`v` is stored).
#[derive(Debug, Clone)]
pub struct SurfOp {
    pub geom: TexGeom,
    pub store: bool,
    /// Bits of one element (8, 16, 32, 64) and elements (1, 2, 4).
    pub bits: u8,
    pub vec: u8,
    pub clamp: SurfClamp,
    pub handle: Src,
    /// `x` in bytes, then `y`, `z`.
    pub coords: [Src; 3],
    pub d: [Reg; 4],
    pub v: [Src; 4],
}

#[derive(Debug, Clone)]
pub struct Inst {
    pub op: Op,
    /// `@p` / `@!p`: (predicate register, negated).
    pub guard: Option<(Reg, bool)>,
    pub line: u32,
}

/// A parameter's place in a parameter block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSlot {
    pub offset: u32,
    pub size: u32,
    pub align: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
    Syscall(Syscall),
    /// Declared but never defined in this module.
    Extern,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub kind: FuncKind,
    pub line: u32,
    /// First instruction; `pc_end` is one past the last.
    pub pc: u32,
    pub pc_end: u32,
    /// Registers, the carry flag included.
    pub nregs: u32,
    /// For an entry: the kernel parameter block; for a function: offsets in its frame.
    pub params: Vec<ParamSlot>,
    pub rets: Vec<ParamSlot>,
    /// Bytes of the parameter frame (formals, return values, call-scope parameters).
    pub param_frame: u32,
    /// Bytes and alignment of the `.local` frame.
    pub local_frame: u32,
    pub local_align: u32,
    /// For an entry: bytes of its kernel parameter block.
    pub kparam_size: u32,
    /// The shared variables this function's instructions name.
    pub shared_vars: Vec<u32>,
    /// Whether it reads a `%reserved_smem_offset_*` register, so an entry reaching it gets the
    /// reserved shared-memory region (see [`RESERVED_SMEM_BYTES`]).
    pub reserved_smem: bool,
}

/// Bytes of the shared-memory region reserved for NVIDIA's system software on sm_80 and
/// newer (`cudaDevAttrReservedSharedMemoryPerBlock`: 1 KiB). Cooperative groups keep the
/// scratch of multi-warp tiles there, found through `%reserved_smem_offset_1`. As on the GPU
/// it sits at the start of the block's shared window, before the kernel's own variables; a
/// kernel gets it only when its code reads one of the `%reserved_smem_offset_*` registers, so
/// every other kernel's shared memory (and its memcheck) is exactly what it declares.
pub const RESERVED_SMEM_BYTES: u32 = 1024;

/// Where `%reserved_smem_offset_1` points in the reserved region: its second half, which
/// leaves 512 bytes to `%reserved_smem_offset_0` (the region's start) and 512 to cooperative
/// groups' multi-warp scratch (which needs 288).
pub const RESERVED_SMEM_OFFSET_1: u32 = 512;

/// A `.shared` variable of the module (every `.extern .shared` declaration is the one
/// dynamic region).
#[derive(Debug, Clone)]
pub struct SharedVar {
    pub name: String,
    pub size: u32,
    pub align: u32,
    pub dynamic: bool,
}

/// Where an entry's shared variables are: only those its code can reach are placed, in
/// declaration order, so each kernel's shared memory is exactly what it uses (as ptxas lays it
/// out) and memcheck bounds it exactly; the dynamic region follows, aligned. A reserved region
/// comes first when the entry uses one.
#[derive(Debug, Clone, Default)]
pub struct SharedLayout {
    /// Offset of each variable (`u32::MAX`: not used by this entry).
    pub offsets: Vec<u32>,
    /// Bytes of static shared memory, including padding before the dynamic region (and not
    /// the reserved region, which the GPU does not count against the kernel's limits either).
    pub static_size: u32,
    /// Bytes of the reserved region at offset 0: [`RESERVED_SMEM_BYTES`] when the entry
    /// reads a `%reserved_smem_offset_*` register, else 0. The kernel's own variables follow.
    pub reserved: u32,
}

/// A module-scope `.global`/`.const` variable: its image and where it must live.
#[derive(Debug, Clone)]
pub struct GlobalVar {
    pub name: String,
    pub size: u64,
    pub align: u32,
    pub init: Vec<u8>,
    /// (byte offset, symbol, addend, generic): pointers to fill in once addresses are known.
    pub relocs: Vec<(u64, String, i64, bool)>,
    pub constant: bool,
}

/// Function "addresses" for indirect calls: not memory, only identities.
pub const FUNC_BASE: u64 = 0x0000_4000_0000_0000;

pub fn func_address(index: u32) -> u64 {
    FUNC_BASE + (index as u64) * 16
}

#[derive(Debug, Clone)]
pub struct Program {
    pub insts: Vec<Inst>,
    pub funcs: Vec<Function>,
    pub entries: HashMap<String, u32>,
    pub func_by_name: HashMap<String, u32>,
    pub shared_vars: Vec<SharedVar>,
    /// Per entry: its shared-memory layout.
    pub shared_layout: HashMap<u32, SharedLayout>,
    /// Per entry: the first unsupported instruction reachable from it (name, line).
    pub unsupported: HashMap<u32, (String, u32)>,
    /// Per entry with `.reqntid` or `.maxntid`: the launches it accepts.
    pub bounds: HashMap<u32, ptx_abi::launch::LaunchBounds>,
}

/// Windows of the generic address space (each 4 GiB), as on a GPU: a generic address in one of
/// them is a shared, local or kernel-parameter address; any other generic address is global.
/// `cvta` adds or subtracts the window base.
pub const SHARED_WINDOW: u64 = 0x0000_1000_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x0000_2000_0000_0000;
pub const PARAM_WINDOW: u64 = 0x0000_3000_0000_0000;
pub const WINDOW_SIZE: u64 = 1 << 32;

/// In `Op::Setp`'s `t`: a `set` on a packed pair, written lane by lane.
pub const SET_LANES: u64 = 1 << 63;
