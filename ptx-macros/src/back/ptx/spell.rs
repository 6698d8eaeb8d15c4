//! How each [`Opcode`] is spelled: the one place that writes PTX instruction names.

use crate::ir::{Arith, AtomOp, BarRed, Cmp, FpClass, Geom, Mbar, Mem, MmaIn, Mode, Opcode, Order, Shfl, StateSpace, SurfClamp, TexLevel, Type, Vote};

pub fn opcode(op: &Opcode) -> String {
    match *op {
        Opcode::Mov(t) => format!("mov{}", ty(t)),
        Opcode::Arith(a, m, t) => format!("{}{}{}", arith(a), mode(m), ty(t)),
        Opcode::Setp(c, t) => format!("setp.{}{}", cmp(c), ty(t)),
        Opcode::Set(c, d, t) => format!("set.{}{}{}", cmp(c), ty(d), ty(t)),
        Opcode::Selp(t) => format!("selp{}", ty(t)),
        Opcode::Cvt(m, to, from) => format!("cvt{}{}{}", mode(m), ty(to), ty(from)),
        Opcode::Cvta { to, space: s } => format!("cvta{}{}.u64", if to { ".to" } else { "" }, space(s)),
        Opcode::Testp(c, t) => format!("testp.{}{}", fp_class(c), ty(t)),
        Opcode::Ld(m) => format!("ld{}", mem(m, true)),
        Opcode::St(m) => format!("st{}", mem(m, false)),
        Opcode::Atom { sem, scope, space: s, op, ty: t } => format!("atom{}{}{}.{}{}", sem.ptx(), scope.ptx(), space(s), atom(op), ty(t)),
        Opcode::Fence(sem, scope) => format!("fence{}{}", sem.ptx(), scope.ptx()),
        Opcode::Membar(scope) => format!("membar.{}", match scope {
            crate::ir::Scope::Block => "cta",
            crate::ir::Scope::Device => "gl",
            crate::ir::Scope::System => "sys",
        }),
        Opcode::BarSync => "bar.sync".into(),
        Opcode::BarRed(r, t) => format!("bar.red.{}{}", match r {
            BarRed::Popc => "popc",
            BarRed::And => "and",
            BarRed::Or => "or",
        }, ty(t)),
        Opcode::BarWarpSync => "bar.warp.sync".into(),
        Opcode::Vote(v, t) => format!("vote.sync.{}{}", match v {
            Vote::All => "all",
            Vote::Any => "any",
            Vote::Uni => "uni",
            Vote::Ballot => "ballot",
        }, ty(t)),
        Opcode::Shfl(s) => format!("shfl.sync.{}.b32", match s {
            Shfl::Idx => "idx",
            Shfl::Up => "up",
            Shfl::Down => "down",
            Shfl::Bfly => "bfly",
        }),
        Opcode::Activemask => "activemask.b32".into(),
        Opcode::Nanosleep => "nanosleep.u32".into(),
        Opcode::ShfWrap { left } => format!("shf.{}.wrap.b32", if left { "l" } else { "r" }),
        Opcode::Tex { geom: g, level, dst, coord } => {
            let level = match level {
                TexLevel::Auto => "",
                TexLevel::Level => ".level",
                TexLevel::Grad => ".grad",
            };
            format!("tex{level}{}.v4{}{}", geom(g), ty(dst), ty(coord))
        }
        Opcode::Tld4 { comp, geom: g, dst } => format!("tld4.{}{}.v4{}.f32", ["r", "g", "b", "a"][comp as usize & 3], geom(g), ty(dst)),
        Opcode::Suld { geom: g, vec, ty: t, clamp: c } => format!("suld.b{}{}{}{}", geom(g), vec_suffix(vec), ty(t), surf_clamp(c)),
        Opcode::Sust { geom: g, vec, ty: t, clamp: c } => format!("sust.b{}{}{}{}", geom(g), vec_suffix(vec), ty(t), surf_clamp(c)),
        Opcode::CpAsync { cg } => format!("cp.async.{}.shared.global", if cg { "cg" } else { "ca" }),
        Opcode::CpAsyncCommit => "cp.async.commit_group".into(),
        Opcode::CpAsyncWait => "cp.async.wait_group".into(),
        Opcode::CpAsyncWaitAll => "cp.async.wait_all".into(),
        Opcode::CpAsyncBulk => "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes".into(),
        Opcode::CpAsyncBulkStore => "cp.async.bulk.global.shared::cta.bulk_group".into(),
        Opcode::CpAsyncBulkCommit => "cp.async.bulk.commit_group".into(),
        Opcode::CpAsyncBulkWait => "cp.async.bulk.wait_group".into(),
        Opcode::FenceProxyAsync => "fence.proxy.async.shared::cta".into(),
        Opcode::Mbarrier(m) => mbarrier(m).into(),
        Opcode::Mma { k, a, b, satfinite } => {
            let d = if matches!(a, MmaIn::S8 | MmaIn::U8) { "s32" } else { "f32" };
            let sat = if satfinite { ".satfinite" } else { "" };
            format!("mma.sync.aligned.m16n8k{k}.row.col{sat}.{d}.{}.{}.{d}", mma_in(a), mma_in(b))
        }
        Opcode::Ldmatrix { n, trans } => format!("ldmatrix.sync.aligned.m8n8.x{n}{}.shared.b16", if trans { ".trans" } else { "" }),
        Opcode::Stmatrix { n, trans } => format!("stmatrix.sync.aligned.m8n8.x{n}{}.shared.b16", if trans { ".trans" } else { "" }),
    }
}

fn mma_in(t: MmaIn) -> &'static str {
    match t {
        MmaIn::F16 => "f16",
        MmaIn::Bf16 => "bf16",
        MmaIn::Tf32 => "tf32",
        MmaIn::S8 => "s8",
        MmaIn::U8 => "u8",
    }
}

/// As nvcc writes `__mbarrier_*` (sm_80) and `cuda::ptx::mbarrier_*` (sm_90).
fn mbarrier(m: Mbar) -> &'static str {
    match m {
        Mbar::Init => "mbarrier.init.shared.b64",
        Mbar::Arrive => "mbarrier.arrive.shared.b64",
        Mbar::ArriveDrop => "mbarrier.arrive_drop.shared.b64",
        Mbar::TestWait => "mbarrier.test_wait.shared.b64",
        Mbar::TryWait => "mbarrier.try_wait.shared::cta.b64",
        Mbar::TryWaitParity => "mbarrier.try_wait.parity.shared::cta.b64",
        Mbar::Inval => "mbarrier.inval.shared.b64",
        Mbar::ExpectTx => "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
        Mbar::ArriveExpectTx => "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64",
    }
}

fn geom(g: Geom) -> &'static str {
    match g {
        Geom::D1 => ".1d",
        Geom::D2 => ".2d",
        Geom::D3 => ".3d",
        Geom::A1 => ".a1d",
        Geom::A2 => ".a2d",
        Geom::Cube => ".cube",
        Geom::ACube => ".acube",
    }
}

/// `.v2`/`.v4` of a vector surface access (none for one element).
fn vec_suffix(n: u8) -> &'static str {
    match n {
        2 => ".v2",
        4 => ".v4",
        _ => "",
    }
}

fn surf_clamp(c: SurfClamp) -> &'static str {
    match c {
        SurfClamp::Trap => ".trap",
        SurfClamp::Clamp => ".clamp",
        SurfClamp::Zero => ".zero",
    }
}

pub fn ty(t: Type) -> &'static str {
    match t {
        Type::Pred => ".pred",
        Type::B8 => ".b8",
        Type::B16 => ".b16",
        Type::B32 => ".b32",
        Type::B64 => ".b64",
        Type::U8 => ".u8",
        Type::U16 => ".u16",
        Type::U32 => ".u32",
        Type::U64 => ".u64",
        Type::S8 => ".s8",
        Type::S16 => ".s16",
        Type::S32 => ".s32",
        Type::S64 => ".s64",
        Type::F16 => ".f16",
        Type::BF16 => ".bf16",
        Type::F32 => ".f32",
        Type::F64 => ".f64",
        Type::F16x2 => ".f16x2",
        Type::BF16x2 => ".bf16x2",
    }
}

fn arith(a: Arith) -> &'static str {
    match a {
        Arith::Add => "add",
        Arith::Sub => "sub",
        Arith::Mul => "mul",
        Arith::Fma => "fma",
        Arith::Div => "div",
        Arith::Rem => "rem",
        Arith::Min => "min",
        Arith::Max => "max",
        Arith::Neg => "neg",
        Arith::Abs => "abs",
        Arith::And => "and",
        Arith::Or => "or",
        Arith::Xor => "xor",
        Arith::Not => "not",
        Arith::Shl => "shl",
        Arith::Shr => "shr",
        Arith::Sqrt => "sqrt",
        Arith::Rsqrt => "rsqrt",
        Arith::Rcp => "rcp",
        Arith::Ex2 => "ex2",
        Arith::Lg2 => "lg2",
        Arith::Sin => "sin",
        Arith::Cos => "cos",
        Arith::Tanh => "tanh",
        Arith::Copysign => "copysign",
        Arith::Popc => "popc",
        Arith::Clz => "clz",
        Arith::Brev => "brev",
        Arith::Bfe => "bfe",
        Arith::Prmt => "prmt",
    }
}

fn mode(m: Mode) -> &'static str {
    match m {
        Mode::None => "",
        Mode::Rn => ".rn",
        Mode::Rz => ".rz",
        Mode::Rm => ".rm",
        Mode::Rp => ".rp",
        Mode::Rni => ".rni",
        Mode::Rzi => ".rzi",
        Mode::Rmi => ".rmi",
        Mode::Rpi => ".rpi",
        Mode::Lo => ".lo",
        Mode::Hi => ".hi",
        Mode::Wide => ".wide",
        Mode::Sat => ".sat",
        Mode::Approx => ".approx",
        Mode::ApproxFtz => ".approx.ftz",
        Mode::Full => ".full",
    }
}

fn cmp(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "eq",
        Cmp::Ne => "ne",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
        Cmp::Neu => "neu",
    }
}

fn fp_class(c: FpClass) -> &'static str {
    match c {
        FpClass::NotANumber => "notanumber",
        FpClass::Infinite => "infinite",
        FpClass::Finite => "finite",
    }
}

fn space(s: StateSpace) -> &'static str {
    match s {
        StateSpace::Generic => "",
        StateSpace::Global => ".global",
        StateSpace::Shared => ".shared",
        StateSpace::Local => ".local",
        StateSpace::Param => ".param",
        StateSpace::Const => ".const",
    }
}

fn atom(op: AtomOp) -> &'static str {
    match op {
        AtomOp::Exch => "exch",
        AtomOp::Cas => "cas",
        AtomOp::Add => "add",
        AtomOp::And => "and",
        AtomOp::Or => "or",
        AtomOp::Xor => "xor",
        AtomOp::Min => "min",
        AtomOp::Max => "max",
        AtomOp::Inc => "inc",
        AtomOp::Dec => "dec",
    }
}

/// `[.order][.space][.nc][.vN].type` of a load or store.
fn mem(m: Mem, load: bool) -> String {
    let order = match m.order {
        Order::Plain => String::new(),
        Order::Volatile => ".volatile".into(),
        Order::Atomic(sem, scope) => format!("{}{}", sem.ptx(), scope.ptx()),
    };
    let nc = if m.nc && load { ".nc" } else { "" };
    let lanes = if m.lanes > 1 { format!(".v{}", m.lanes) } else { String::new() };
    format!("{order}{}{nc}{lanes}{}", space(m.space), ty(m.ty))
}
