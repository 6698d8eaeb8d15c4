//! One function body: names resolved through nested scopes, each instruction decoded to an
//! [`Op`].

use super::mods::Mods;
use super::types::T;
use super::{decl_size, err, float_bits, DecodeError, ModuleSyms, Sym};
use crate::parse::ast::{self, FuncKind as AstKind, Operand, Space, Stmt};
use crate::program::*;
use std::collections::HashMap;

pub(super) type R<T> = Result<T, DecodeError>;

#[derive(Default)]
pub struct FnInfo {
    pub shared_vars: Vec<u32>,
    pub reserved_smem: bool,
    pub nregs: u32,
    pub param_frame: u32,
    pub local_frame: u32,
    pub local_align: u32,
}

pub struct FnDecoder<'a> {
    pub(super) syms: &'a ModuleSyms,
    pub(super) fname: String,
    pub(super) scopes: Vec<HashMap<String, Sym>>,
    pub(super) reg_bits: Vec<u32>,
    pub(super) labels: HashMap<String, u32>,
    pub(super) protos: HashMap<String, (Vec<ParamSlot>, Vec<ParamSlot>)>,
    pub(super) param_frame: u32,
    pub(super) local_frame: u32,
    pub(super) local_align: u32,
    pub(super) cc: Option<Reg>,
    /// Shared variables named so far.
    pub(super) shared_used: std::cell::RefCell<std::collections::BTreeSet<u32>>,
    /// Whether a `%reserved_smem_offset_*` register was read.
    pub(super) reserved_smem: std::cell::Cell<bool>,
    pub(super) line: u32,
}

/// An instruction the executor does not implement.
pub(super) fn unsupported(what: impl Into<String>) -> R<Op> {
    Ok(Op::Unsupported { what: what.into() })
}

/// A special register or predefined identifier, by name (the PTX ISA's "Special Registers"
/// chapter and its table of predefined identifiers; the values are in docs/cpu-backend.md).
/// `None` for any other name.
pub(super) fn special(name: &str) -> Option<Sreg> {
    let (base, comp) = match name.split_once('.') {
        Some((b, c)) => (b, Some(c)),
        None => (name, None),
    };
    let dim = |c: Option<&str>| -> Option<u8> {
        match c {
            Some("x") => Some(0),
            Some("y") => Some(1),
            Some("z") => Some(2),
            _ => None,
        }
    };
    // Registers without components take none.
    if comp.is_some() && !matches!(base, "%tid" | "%ntid" | "%ctaid" | "%nctaid" | "%clusterid" | "%nclusterid" | "%cluster_ctaid" | "%cluster_nctaid") {
        return None;
    }
    // `%pm0`..`%pm7`, `%pm0_64`..`%pm7_64`, `%envreg0`..`%envreg31` (but 1 and 2): read as 0.
    let numbered = |prefix: &str, suffix: &str, n: u32| {
        base.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(suffix))
            .filter(|d| !d.is_empty() && d.len() <= 2 && d.bytes().all(|b| b.is_ascii_digit()) && (d.len() == 1 || !d.starts_with('0')))
            .and_then(|d| d.parse::<u32>().ok())
            .is_some_and(|d| d < n)
    };
    Some(match base {
        "%tid" => Sreg::Tid(dim(comp)?),
        "%ntid" => Sreg::Ntid(dim(comp)?),
        // No clusters: every CTA is a cluster of one, so cluster ids are CTA ids.
        "%ctaid" | "%clusterid" => Sreg::Ctaid(dim(comp)?),
        "%nctaid" | "%nclusterid" => Sreg::Nctaid(dim(comp)?),
        "%cluster_ctaid" => {
            dim(comp)?;
            Sreg::Const(0)
        }
        "%cluster_nctaid" => {
            dim(comp)?;
            Sreg::Const(1)
        }
        "%cluster_ctarank" | "%is_explicit_cluster" => Sreg::Const(0),
        "%cluster_nctarank" => Sreg::Const(1),
        "%laneid" => Sreg::LaneId,
        "%warpid" => Sreg::WarpId,
        "%nwarpid" => Sreg::NWarpId,
        "%smid" => Sreg::SmId,
        "%nsmid" => Sreg::NSmId,
        "%gridid" => Sreg::GridId,
        "%lanemask_eq" => Sreg::LanemaskEq,
        "%lanemask_le" => Sreg::LanemaskLe,
        "%lanemask_lt" => Sreg::LanemaskLt,
        "%lanemask_ge" => Sreg::LanemaskGe,
        "%lanemask_gt" => Sreg::LanemaskGt,
        "%clock" => Sreg::Clock,
        "%clock_hi" => Sreg::ClockHi,
        "%clock64" => Sreg::Clock64,
        "%globaltimer" => Sreg::GlobalTimer,
        "%globaltimer_lo" => Sreg::GlobalTimerLo,
        "%globaltimer_hi" => Sreg::GlobalTimerHi,
        "%dynamic_smem_size" => Sreg::DynamicSmemSize,
        "%total_smem_size" => Sreg::TotalSmemSize,
        "%aggr_smem_size" => Sreg::AggrSmemSize,
        // The reserved region is [0, RESERVED_SMEM_BYTES) of the shared window (see
        // `RESERVED_SMEM_BYTES`); the decoder notes the use so the entry gets the region.
        "%reserved_smem_offset_begin" | "%reserved_smem_offset_0" => Sreg::Const(0),
        "%reserved_smem_offset_end" | "%reserved_smem_offset_cap" => Sreg::Const(RESERVED_SMEM_BYTES),
        "%reserved_smem_offset_1" => Sreg::Const(RESERVED_SMEM_OFFSET_1),
        // Not running inside a CUDA graph.
        "%current_graph_exec" => Sreg::Const(0),
        // `warpSize` in CUDA C.
        "WARP_SZ" => Sreg::Const(32),
        // Cooperative groups read the grid workspace's address from `%envreg1:%envreg2`.
        "%envreg1" => Sreg::GridWorkspace(true),
        "%envreg2" => Sreg::GridWorkspace(false),
        _ if numbered("%pm", "", 8) || numbered("%pm", "_64", 8) || numbered("%envreg", "", 32) => Sreg::Const(0),
        _ => return None,
    })
}

impl<'a> FnDecoder<'a> {
    pub fn new(syms: &'a ModuleSyms, f: &ast::FuncDecl, idx: u32, _pc: u32) -> FnDecoder<'a> {
        let mut top = HashMap::new();
        let (params, rets) = &syms.sigs[idx as usize];
        let mut param_frame = 0;
        for (d, s) in f.params.iter().zip(params) {
            top.insert(d.name.clone(), if f.kind == AstKind::Entry { Sym::KParam(s.offset) } else { Sym::FParam(s.offset, s.size) });
            param_frame = param_frame.max(s.offset + s.size);
        }
        for (d, s) in f.rets.iter().zip(rets) {
            top.insert(d.name.clone(), Sym::FParam(s.offset, s.size));
            param_frame = param_frame.max(s.offset + s.size);
        }
        if f.kind == AstKind::Entry {
            param_frame = 0;
        }
        FnDecoder {
            syms,
            fname: f.name.clone(),
            scopes: vec![top],
            reg_bits: Vec::new(),
            labels: HashMap::new(),
            protos: HashMap::new(),
            param_frame,
            local_frame: 0,
            local_align: 1,
            cc: None,
            shared_used: Default::default(),
            reserved_smem: Default::default(),
            line: f.line,
        }
    }

    pub fn run(mut self, f: &ast::FuncDecl, out: &mut Vec<Inst>) -> R<FnInfo> {
        let body = f.body.as_deref().unwrap_or(&[]);
        let mut pc = out.len() as u32;
        for s in body {
            match s {
                Stmt::Inst(_) => pc += 1,
                Stmt::Label(name, line)
                    if self.labels.insert(name.clone(), pc).is_some() => {
                        return err(*line, format!("label `{name}` defined twice"));
                    }
                _ => {}
            }
        }
        for s in body {
            match s {
                Stmt::Open => self.scopes.push(HashMap::new()),
                Stmt::Close => {
                    self.scopes.pop();
                }
                Stmt::Decl(d) => self.declare(d)?,
                Stmt::Label(..) => {}
                Stmt::Proto { name, line, rets, params } => {
                    let (p, end) = super::param_slots(params, 0)?;
                    let (r, _) = super::param_slots(rets, end)?;
                    let _ = line;
                    self.protos.insert(name.clone(), (p, r));
                }
                Stmt::Inst(i) => {
                    self.line = i.line;
                    let guard = match &i.guard {
                        None => None,
                        Some((neg, name)) => Some((self.pred_reg(name)?, *neg)),
                    };
                    let op = self.inst(i)?;
                    out.push(Inst { op, guard, line: i.line });
                }
            }
        }
        // A body that can fall off its end returns.
        out.push(Inst { op: Op::Ret, guard: None, line: f.body.as_ref().map_or(f.line, |_| self.line) });
        Ok(FnInfo {
            shared_vars: self.shared_used.borrow().iter().copied().collect(),
            reserved_smem: self.reserved_smem.get(),
            nregs: self.reg_bits.len() as u32,
            param_frame: self.param_frame,
            local_frame: self.local_frame,
            local_align: self.local_align,
        })
    }

    fn declare(&mut self, d: &ast::VarDecl) -> R<()> {
        let top = self.scopes.len() - 1;
        match d.space {
            Space::Reg => {
                let t = T::parse(&d.ty).ok_or_else(|| DecodeError { construct: Some(format!(".{}", d.ty)), line: d.line, message: format!("unknown type .{}", d.ty) })?;
                if d.vector != 1 || t == T::B128 || !d.dims.is_empty() {
                    return err(d.line, format!("register `{}`: vector, array and 128-bit registers are not supported", d.name));
                }
                let bits = t.bits();
                let names: Vec<String> = match d.range {
                    Some(n) => (0..n).map(|i| format!("{}{i}", d.name)).collect(),
                    None => vec![d.name.clone()],
                };
                for n in names {
                    let r = self.reg_bits.len() as Reg;
                    self.reg_bits.push(bits);
                    self.scopes[top].insert(n, Sym::Reg(r, bits));
                }
            }
            Space::Local => {
                let (size, align) = decl_size(d)?;
                let off = self.local_frame.div_ceil(align) * align;
                self.local_frame = off.checked_add(size as u32).ok_or_else(|| DecodeError { construct: None, line: d.line, message: "local frame too large".into() })?;
                self.local_align = self.local_align.max(align);
                self.scopes[top].insert(d.name.clone(), Sym::Local(off));
            }
            Space::Param => {
                let (size, align) = decl_size(d)?;
                let off = self.param_frame.div_ceil(align) * align;
                self.param_frame = off.checked_add(size as u32).ok_or_else(|| DecodeError { construct: None, line: d.line, message: "parameter frame too large".into() })?;
                self.scopes[top].insert(d.name.clone(), Sym::FParam(off, size as u32));
            }
            Space::Shared => {
                let v = *self.syms.fn_shared.get(&(self.fname.clone(), d.name.clone())).ok_or_else(|| DecodeError {
                    construct: None,
                    line: d.line,
                    message: format!("shared variable `{}` was not laid out", d.name),
                })?;
                self.scopes[top].insert(d.name.clone(), Sym::Shared(v));
            }
            Space::Global | Space::Const => {
                return err(d.line, format!("`{}`: .global/.const variables inside a function are not supported", d.name));
            }
        }
        Ok(())
    }

    pub(super) fn lookup(&self, name: &str) -> Option<Sym> {
        for s in self.scopes.iter().rev() {
            if let Some(x) = s.get(name) {
                return Some(*x);
            }
        }
        self.syms.globals.get(name).copied()
    }

    pub(super) fn error<X>(&self, msg: impl Into<String>) -> R<X> {
        err(self.line, msg)
    }

    pub(super) fn pred_reg(&self, name: &str) -> R<Reg> {
        match self.lookup(name) {
            Some(Sym::Reg(r, _)) => Ok(r),
            None if special(name).is_none() => {
                Err(DecodeError { construct: Some(name.to_owned()), line: self.line, message: format!("undefined name `{name}`") })
            }
            _ => self.error(format!("`{name}` is not a register")),
        }
    }

    pub(super) fn syms_name(&self, f: u32) -> String {
        self.syms.funcs.iter().find(|(_, &i)| i == f).map_or_else(String::new, |(n, _)| n.clone())
    }

    pub(super) fn cc_reg(&mut self) -> Reg {
        if let Some(r) = self.cc {
            return r;
        }
        let r = self.reg_bits.len() as Reg;
        self.reg_bits.push(1);
        self.cc = Some(r);
        r
    }

    /// A destination register (or `_`).
    pub(super) fn dst(&self, op: &Operand) -> R<Reg> {
        match op {
            Operand::Sink => Ok(NOREG),
            Operand::Name(n) => self.pred_reg(n),
            _ => self.error(format!("expected a destination register, found {op:?}")),
        }
    }

    pub(super) fn dst_bits(&self, r: Reg) -> u32 {
        self.reg_bits.get(r as usize).copied().unwrap_or(64)
    }

    /// The value of a symbol used as an operand (its address).
    pub(super) fn sym_value(&self, name: &str, offset: i64) -> R<Src> {
        let add = |a: u64| a.wrapping_add(offset as u64);
        Ok(match self.lookup(name) {
            Some(Sym::Reg(r, _)) if offset == 0 => Src::Reg(r),
            Some(Sym::Global(a)) | Some(Sym::Const(a)) => Src::Imm(add(a)),
            Some(Sym::Shared(v)) => {
                self.shared_used.borrow_mut().insert(v);
                Src::Shared(v, offset as u32)
            }
            Some(Sym::Local(o)) => Src::LocalAddr((o as i64 + offset) as u32),
            Some(Sym::FParam(o, _)) => Src::ParamAddr((o as i64 + offset) as u32),
            Some(Sym::KParam(o)) => Src::Imm(add(PARAM_WINDOW + o as u64)),
            Some(Sym::Func(i)) => Src::Imm(add(func_address(i))),
            _ => {
                if let Some(s) = special(name) {
                    if name.starts_with("%reserved_smem_offset") {
                        self.reserved_smem.set(true);
                    }
                    return Ok(Src::Special(s));
                }
                if let Some(&pc) = self.labels.get(name) {
                    return Ok(Src::Imm(pc as u64));
                }
                return Err(DecodeError { construct: Some(name.to_owned()), line: self.line, message: format!("undefined name `{name}`") });
            }
        })
    }

    /// A source operand of type `t` (immediates converted to `t`'s bits).
    pub(super) fn src(&self, op: &Operand, t: T) -> R<Src> {
        let bits = t.bits().min(64);
        let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        Ok(match op {
            Operand::Name(n) => self.sym_value(n, 0)?,
            Operand::NameOffset(n, o) => self.sym_value(n, *o)?,
            Operand::Int(v) => {
                if t.is_float() {
                    Src::Imm(float_bits(*v as f64, t))
                } else {
                    Src::Imm(*v as u64 & m)
                }
            }
            Operand::Float(v) => Src::Imm(float_bits(*v, t) & m),
            Operand::F32(b) => Src::Imm(match t {
                T::F64 => (f32::from_bits(*b) as f64).to_bits(),
                T::F16 | T::Bf16 => float_bits(f32::from_bits(*b) as f64, t),
                _ => *b as u64,
            }),
            Operand::F64(b) => Src::Imm(match t {
                T::F32 | T::F16 | T::Bf16 => float_bits(f64::from_bits(*b), t),
                _ => *b & m,
            }),
            Operand::Sink => Src::None,
            _ => return self.error(format!("unexpected operand {op:?}")),
        })
    }

    /// A predicate operand, possibly negated (`!p`).
    pub(super) fn pred_src(&self, op: &Operand) -> R<(Src, bool)> {
        match op {
            Operand::Not(x) => Ok((self.src(x, T::Pred)?, true)),
            _ => Ok((self.src(op, T::Pred)?, false)),
        }
    }

    /// An address operand: the address and the state space its base symbol lives in.
    pub(super) fn addr(&self, op: &Operand) -> R<(Addr, Option<Sym>)> {
        let Operand::Addr { base, offset } = op else { return self.error(format!("expected an address, found {op:?}")) };
        let Some(name) = base else { return Ok((Addr { base: Src::Imm(*offset as u64), offset: 0 }, None)) };
        let sym = self.lookup(name);
        let base = match sym {
            Some(Sym::Reg(r, _)) => Src::Reg(r),
            _ => self.sym_value(name, 0)?,
        };
        Ok((Addr { base, offset: *offset }, sym))
    }

    pub(super) fn args(&self, i: &ast::Inst, n: usize) -> R<()> {
        if i.args.len() != n {
            return self.error(format!("`{}` takes {n} operands, found {}", i.opcode, i.args.len()));
        }
        Ok(())
    }

    pub(super) fn alu(&self, f: AluFn, k: u32, i: &ast::Inst, t: T, ta: T) -> R<Op> {
        let n = i.args.len();
        if !(2..=4).contains(&n) {
            return self.error(format!("`{}`: wrong number of operands", i.opcode));
        }
        let d = self.dst(&i.args[0])?;
        let a = self.src(&i.args[1], ta)?;
        let b = if n > 2 { self.src(&i.args[2], ta)? } else { Src::None };
        let c = if n > 3 { self.src(&i.args[3], ta)? } else { Src::None };
        let _ = t;
        Ok(Op::Alu { f, k, d, d2: NOREG, a, b, c })
    }

    /// Decodes one instruction.
    fn inst(&mut self, i: &ast::Inst) -> R<Op> {
        let mut m = Mods::new(&i.opcode);
        m.hints();
        let op = self.inst_inner(i, &mut m)?;
        if let Op::Unsupported { .. } = op {
            return Ok(op);
        }
        if let Some(x) = m.leftover() {
            return unsupported(format!("{} (modifier .{x})", i.opcode));
        }
        Ok(op)
    }

    /// Routes an opcode to its family's decoder (`arith.rs`, `bits.rs`, `memory.rs`,
    /// `control.rs`).
    fn inst_inner(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        match m.base {
            "mov" | "add" | "sub" | "addc" | "subc" | "mul" | "mad" | "fma" | "madc" | "mul24" |
            "mad24" | "div" | "rem" | "abs" | "neg" | "min" | "max" | "copysign" | "testp" | "rcp" |
            "sqrt" | "rsqrt" | "sin" | "cos" | "ex2" | "lg2" | "tanh" | "setp" | "set" | "cvt" => self.arith(i, m),
            "and" | "or" | "xor" | "not" | "cnot" | "lop3" | "shl" | "shr" | "shf" | "popc" |
            "clz" | "brev" | "bfind" | "fns" | "bfe" | "bfi" | "prmt" | "sad" | "dp4a" | "dp2a" |
            "bmsk" | "szext" | "selp" | "slct" | "cvta" | "isspacep" => self.bits(i, m),
            "ld" | "ldu" | "st" | "atom" | "red" | "prefetch" | "prefetchu" | "pmevent" => self.memory(i, m),
            "bra" | "call" | "ret" | "exit" | "trap" | "brkpt" | "nanosleep" | "bar" | "barrier" |
            "membar" | "fence" | "activemask" | "shfl" | "vote" | "redux" | "match" => self.control(i, m),
            "mma" => self.mma(i, m),
            "tex" | "tld4" | "suld" | "sust" => self.texture(i, m),
            _ => unsupported(&i.opcode),
        }
    }

}
