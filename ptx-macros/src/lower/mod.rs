//! The checked body ([`hir::Body`]) to the IR ([`ir::Func`]).
//!
//! Scalars are virtual registers (a fresh one per value; a mutable local is one register
//! updated with `mov`); aggregates are their fields' values; pointers carry the state space of
//! their address so loads and stores use `ld.global`, `ld.shared`, ... Arrays indexed at run
//! time live in `.local` memory.
//!
//! Files: [`value`] values and spaces, [`expr`] expressions, [`arith`] operators,
//! [`cast`] `as`, [`place`] places, loads and stores, [`control`] control flow,
//! [`call`] the calling sequence and parameters, [`intrinsic`] the device API and methods,
//! [`panic`] run-time checks, [`asm`] inline PTX, [`syscall`] the system calls and string
//! constants, [`atomic`] atomic operations and fences.

mod arith;
mod asm;
mod atomic;
mod call;
mod cast;
mod enum_store;
mod cascade;
mod const_array;
mod control;
pub mod debug;
mod expr;
mod half;
mod cuda_math;
mod half_fma;
mod half2;
mod half2_math;
mod round;
mod round_bf16;
mod intrinsic;
mod limits;
mod panic;
mod place;
pub mod statics;
mod syscall;
mod texture;
mod async_copy;
mod bulk_store;
mod mma;
mod try_int;
mod zero;
pub mod value;

pub use intrinsic::DYN_SMEM;
pub use syscall::string_name;
pub use panic::{slot_name, slot_word_name};
pub use place::visit;

use crate::front::hir::{Body, LocalId, LoopId};
use crate::front::infer::Infer;
use crate::front::ty::{StructDef, Ty};
use crate::ir::{BlockId, Builder, Func, Opcode, Reg, RegClass, Type};
use crate::report::Errors;
use crate::syntax::signature::FnKind;
use proc_macro2::{Span, TokenStream};
use ptx_abi::target::Isa;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use value::{Space, Val};

/// A lowered function.
pub struct Lowered {
    pub func: Func,
    /// References to the nodes of the device functions called (for `FnNode::callees`), each
    /// once.
    pub callees: Vec<TokenStream>,
    /// The lowest PTX ISA the instructions need.
    pub isa: Isa,
    /// Module-scope declarations the function needs (see [`syscall`]).
    pub decls: Decls,
    /// Under `debug`, what the DWARF describes (see [`debug`]): each local's final value,
    /// and the symbols of the `.local`/`.shared` arrays the registers hold.
    pub debug: Option<debug::Vars>,
}

/// What a function needs declared at module scope: system calls, string constants, tables and
/// the sites of its report slot.
#[derive(Default, Clone)]
pub struct Decls {
    /// Names of `ptx_abi::syscall` nodes (`VPRINTF_NODE`, ...), each once.
    pub syscalls: Vec<&'static str>,
    /// String constants: expressions rustc evaluates to a `&'static str` (a literal,
    /// `file!()`, `concat!(...)`), each once; constant `i` is named `<symbol>$str$<i>`.
    pub strings: Vec<TokenStream>,
    /// Tables defined outside the body that the function reads, each once (see `statics`).
    pub tables: Vec<statics::Table>,
    /// The sites its failures report through its slot, numbered from 1 (see `panic`).
    pub reports: Vec<panic::ReportSite>,
}

/// What the lowering needs from outside the body.
pub struct Context<'a> {
    pub body: &'a Body,
    pub infer: &'a Infer,
    pub structs: &'a HashMap<String, Rc<StructDef>>,
    /// The enums described while checking: each is its integer (see `front::enums`).
    pub enums: &'a HashMap<String, ptx_abi::Scalar>,
    pub kind: FnKind,
    /// Parameter types as written, nameable in the generated module (opaque copies).
    pub param_types: &'a [syn::Type],
    /// The function's `.target`: what the atomics' fences may use.
    pub target: ptx_abi::Target,
    /// The kernel's declared launch bounds: the launch is refused outside them, so the body
    /// may rely on them (`block_dim_x()` is a constant under `block = ...`).
    pub bounds: crate::syntax::attrs::LaunchBounds,
    /// `#[kernel(fmad)]`: contract floating-point multiply-adds into `fma`.
    pub fmad: bool,
    /// `#[kernel(debug)]`: no optimisation that loses a variable (nvcc's `-G`).
    pub debug: bool,
    /// Failures call `__assertfail` instead of reporting through the function's slot: under
    /// `debug`, and in exported (`#[no_mangle]`) functions (see `panic`).
    pub assertfail: bool,
}

/// Facts learned while lowering that require lowering again: a mutable local of pointer
/// type assigned pointers of different state spaces holds generic addresses.
#[derive(Default, Clone)]
struct Facts {
    space: HashMap<LocalId, Space>,
}

pub fn lower(cx: &Context, errors: &mut Errors) -> Option<Lowered> {
    let mut facts = Facts::default();
    for _ in 0..8 {
        let before = errors.len();
        let (b, restart, callees, isa, decls, vars) = {
            let mut l = Lowerer::new(cx, errors, facts.clone());
            l.run();
            let vars = cx.debug.then(|| l.debug_vars());
            (l.b, l.restart, l.callees, l.isa, l.decls, vars)
        };
        if !restart.space.is_empty() {
            errors.truncate(before);
            facts.space.extend(restart.space);
            continue;
        }
        if errors.len() > before {
            // Every rule broken is reported; what only follows from an earlier error is not
            // (see `cascade`).
            cascade::drop_consequences(errors, before);
            return None;
        }
        let mut func = b.finish();
        func.launch = crate::ir::LaunchFacts { block: cx.bounds.block, max_threads: cx.bounds.max_threads };
        if cx.fmad {
            crate::ir::contract::run(&mut func);
        }
        if cx.debug {
            // As nvcc's -G: every value stays where the lowering put it.
            func.debug = true;
        } else {
            crate::ir::opt::run(&mut func);
        }
        return Some(Lowered { func, callees: callees.into_iter().map(|(_, p)| p).collect(), isa, decls, debug: vars });
    }
    // No module without an error.
    errors.at(proc_macro2::Span::call_site(), "internal: the lowering did not settle on the memory spaces of its pointers after 8 rounds; please report this function");
    None
}

struct LoopTarget {
    brk: BlockId,
    cont: Option<BlockId>,
    /// Registers receiving `break value`.
    result: Option<Val>,
}

pub struct Lowerer<'a, 'e> {
    b: Builder,
    cx: &'a Context<'a>,
    errors: &'e mut Errors,
    /// Each local's value (registers, or `Ptr(address, Local)` for locals in memory).
    slots: Vec<Option<Val>>,
    /// Registers of mutable locals (values read from them are copied before being kept).
    mutable_regs: HashSet<Reg>,
    loops: HashMap<LoopId, LoopTarget>,
    callees: Vec<(String, TokenStream)>,
    isa: Isa,
    facts: Facts,
    restart: Facts,
    /// `*const T` kernel parameters may use `ld.global.nc`: the kernel writes no memory.
    const_ptrs_nc: bool,
    /// The function's return registers are stored at `return`.
    ret_ty: Ty,
    /// 64-bit registers made by widening a 32-bit one (`cvt.u64.u32`), for `mul.wide`
    /// address arithmetic: the narrow register and whether it was signed.
    widened: HashMap<Reg, (Reg, bool)>,
    /// Values already computed in the current region (see `Builder::region`): bounds checks
    /// passed and element addresses, by a key of their operands.
    avail: HashMap<String, (u64, Option<Reg>, Vec<Reg>)>,
    /// Special registers read once, at the entry.
    sregs: HashMap<&'static str, Reg>,
    /// Constants rustc evaluates, materialised once at the entry.
    consts: HashMap<String, Reg>,
    /// The load or store being emitted is `read_volatile` / `write_volatile`.
    volatile: bool,
    /// System calls and string constants the function uses.
    decls: Decls,
    /// Failure stubs, by message and source location.
    fails: HashMap<String, BlockId>,
    /// The function's one report block, and the registers its stubs set (see `panic`).
    reporter: Option<panic::Reporter>,
    /// Under `__assertfail`: the messages the stubs pass to it (their numbers among the
    /// function's strings, once).
    report_messages: Vec<usize>,
    /// The files those reports name (string constants' numbers): more than one where an
    /// inlined function's checks are in another file.
    report_files: Vec<usize>,
    /// The functions they name: more than one where an inlined function fails a check.
    report_functions: Vec<usize>,
    /// The span of the expression being lowered: the location a failed check reports.
    span: Span,
    /// Under `debug`: the `.local`/`.shared` array each register holding one's address names.
    debug_syms: HashMap<Reg, String>,
    /// Under `debug`: the register holding each local bound to a constant.
    debug_consts: HashMap<LocalId, Val>,
    /// Under `debug`: the lexical block being lowered (index into `func.scopes`; `None`: the
    /// function's body), the body's block, and the block each local was bound in.
    debug_scope: Option<usize>,
    debug_body_seen: bool,
    debug_local_scope: HashMap<LocalId, usize>,
    /// The statement being lowered has reported an error (see `error`).
    stmt_failed: bool,
    /// A call needing a newer target was reported (`async_copy`): once per function.
    target_reported: bool,
    /// Locals bound by a failed `let`: a statement using one has failed already (`cascade`).
    failed_locals: HashSet<LocalId>,
}

impl<'a, 'e> Lowerer<'a, 'e> {
    fn new(cx: &'a Context<'a>, errors: &'e mut Errors, facts: Facts) -> Self {
        let const_ptrs_nc = cx.kind == FnKind::Kernel && !place::writes_memory(&cx.body.block);
        Lowerer {
            b: Builder::new(),
            cx,
            errors,
            slots: vec![None; cx.body.locals.len()],
            mutable_regs: HashSet::new(),
            loops: HashMap::new(),
            callees: Vec::new(),
            isa: Isa::ABI_CALLS,
            facts,
            restart: Facts::default(),
            const_ptrs_nc,
            ret_ty: cx.body.ret.clone(),
            widened: HashMap::new(),
            avail: HashMap::new(),
            sregs: HashMap::new(),
            consts: HashMap::new(),
            volatile: false,
            decls: Decls::default(),
            fails: HashMap::new(),
            reporter: None,
            report_messages: Vec::new(),
            report_files: Vec::new(),
            report_functions: Vec::new(),
            span: Span::call_site(),
            debug_syms: HashMap::new(),
            debug_consts: HashMap::new(),
            debug_scope: None,
            debug_body_seen: false,
            debug_local_scope: HashMap::new(),
            stmt_failed: false,
            target_reported: false,
            failed_locals: HashSet::new(),
        }
    }

    fn run(&mut self) {
        self.ret_ty = self.ty(&self.cx.body.ret.clone());
        if self.oversized() {
            return;
        }
        // The parameters are loaded at the signature's line, as nvcc does.
        if let Some(span) = self.cx.body.params.iter().flatten().next().map(|&id| self.cx.body.locals[id].span) {
            self.b.set_loc(span);
        }
        self.load_params();
        let body = &self.cx.body.block;
        let v = self.block(body);
        if self.b.is_open() {
            self.ret(v, proc_macro2::Span::call_site());
        }
        self.settle_report();
    }

    /// The type with inference variables and named types resolved.
    pub fn ty(&self, t: &Ty) -> Ty {
        let t = self.cx.infer.resolve(t);
        match &t {
            Ty::Named(n) => match (self.cx.structs.get(&n.key), self.cx.enums.get(&n.key)) {
                (Some(d), _) => Ty::Struct(d.clone()).lowered(),
                (None, Some(s)) => Ty::Scalar(*s),
                (None, None) => t,
            },
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|e| self.ty(e)).collect()),
            Ty::Sum { kind, args } => self.ty(&crate::front::ty::sum_repr(*kind, args)),
            _ => t.lowered(),
        }
    }

    /// Reports a broken rule; the failed expression's value is a placeholder. What the rest of
    /// the statement says about it only follows from this error and is not reported (see
    /// `cascade`).
    pub fn error(&mut self, span: Span, msg: impl std::fmt::Display) -> Val {
        if !self.stmt_failed {
            self.stmt_failed = true;
            self.errors.at(span, msg);
        }
        Val::Unit
    }

    pub fn reg(&mut self, c: RegClass) -> Reg {
        self.b.reg(c)
    }

    pub fn need_isa(&mut self, major: u32, minor: u32) {
        self.isa = self.isa.max(Isa::new(major, minor));
    }

    /// A copy of `v` in fresh registers where it holds registers of mutable locals (so later
    /// assignments to those locals do not change it).
    pub fn stabilize(&mut self, v: Val) -> Val {
        let mut regs = Vec::new();
        v.regs(&mut regs);
        if !regs.iter().any(|r| self.mutable_regs.contains(r)) {
            return v;
        }
        self.copy_fresh(&v)
    }

    fn copy_fresh(&mut self, v: &Val) -> Val {
        match v {
            Val::S(crate::ir::Arg::Reg(r)) if self.mutable_regs.contains(r) => {
                let c = self.b.class(*r);
                let d = self.reg(c);
                self.mov(d, crate::ir::Arg::Reg(*r));
                Val::S(crate::ir::Arg::Reg(d))
            }
            Val::Ptr(crate::ir::Arg::Reg(r), s) if self.mutable_regs.contains(r) => {
                let c = self.b.class(*r);
                let d = self.reg(c);
                self.mov(d, crate::ir::Arg::Reg(*r));
                Val::Ptr(crate::ir::Arg::Reg(d), *s)
            }
            Val::Agg(xs) => Val::Agg(xs.iter().map(|x| self.copy_fresh(x)).collect()),
            v => v.clone(),
        }
    }

    /// A value computed earlier in the current region under `key`.
    pub fn available(&self, key: &str) -> Option<Option<Reg>> {
        match self.avail.get(key) {
            Some((region, r, _)) if *region == self.b.region => Some(*r),
            _ => None,
        }
    }

    /// Records a value (or a passed check, `None`) computed from `operands` under `key`.
    pub fn remember(&mut self, key: String, value: Option<Reg>, operands: &[crate::ir::Arg]) {
        let mut regs = Vec::new();
        operands.iter().for_each(|a| a.regs(&mut regs));
        self.avail.insert(key, (self.b.region, value, regs));
    }

    /// `mov` with the register's own type.
    pub fn mov(&mut self, dst: Reg, src: crate::ir::Arg) {
        // What was computed from `dst`'s old value no longer holds.
        self.avail.retain(|_, (_, v, regs)| !regs.contains(&dst) && *v != Some(dst));
        let t = match self.b.class(dst) {
            RegClass::Pred => Opcode::Mov(Type::Pred),
            RegClass::B16 => Opcode::Mov(Type::B16),
            RegClass::B32 => Opcode::Mov(Type::B32),
            RegClass::B64 => Opcode::Mov(Type::B64),
            RegClass::F32 => Opcode::Mov(Type::F32),
            RegClass::F64 => Opcode::Mov(Type::F64),
        };
        self.b.op_into(t, dst, vec![src]);
    }
}
