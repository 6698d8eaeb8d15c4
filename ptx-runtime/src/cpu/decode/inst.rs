//! One function body: names resolved through nested scopes, each instruction decoded to an
//! [`Op`].

use super::mods::Mods;
use super::types::T;
use super::{decl_size, err, float_bits, DecodeError, ModuleSyms, Sym};
use crate::cpu::exec::softfloat::Rnd;
use crate::cpu::exec::{cvt, fp, int};
use crate::cpu::parse::ast::{self, FuncKind as AstKind, Operand, Space, Stmt};
use crate::cpu::program::*;
use std::collections::HashMap;

type R<T> = Result<T, DecodeError>;

pub struct FnInfo {
    pub nregs: u32,
    pub param_frame: u32,
    pub local_frame: u32,
    pub local_align: u32,
}

pub struct FnDecoder<'a> {
    syms: &'a ModuleSyms,
    fname: String,
    scopes: Vec<HashMap<String, Sym>>,
    reg_bits: Vec<u32>,
    labels: HashMap<String, u32>,
    protos: HashMap<String, (Vec<ParamSlot>, Vec<ParamSlot>)>,
    param_frame: u32,
    local_frame: u32,
    local_align: u32,
    cc: Option<Reg>,
    line: u32,
}

/// An instruction the executor does not implement.
fn unsupported(what: impl Into<String>) -> R<Op> {
    Ok(Op::Unsupported { what: what.into() })
}

fn special(name: &str) -> Option<Sreg> {
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
    Some(match base {
        "%tid" => Sreg::Tid(dim(comp)?),
        "%ntid" => Sreg::Ntid(dim(comp)?),
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
        "%total_smem_size" | "%aggr_smem_size" => Sreg::TotalSmemSize,
        b if b.starts_with("%envreg") || b.starts_with("%pm") => Sreg::Const(0),
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
                let t = T::parse(&d.ty).ok_or_else(|| DecodeError { line: d.line, message: format!("unknown type .{}", d.ty) })?;
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
                self.local_frame = off + size as u32;
                self.local_align = self.local_align.max(align);
                self.scopes[top].insert(d.name.clone(), Sym::Local(off));
            }
            Space::Param => {
                let (size, align) = decl_size(d)?;
                let off = self.param_frame.div_ceil(align) * align;
                self.param_frame = off + size as u32;
                self.scopes[top].insert(d.name.clone(), Sym::FParam(off, size as u32));
            }
            Space::Shared => {
                let off = if d.linkage == ast::Linkage::Extern {
                    self.syms.dyn_shared
                } else {
                    *self.syms.fn_shared.get(&(self.fname.clone(), d.name.clone())).ok_or_else(|| DecodeError {
                        line: d.line,
                        message: format!("shared variable `{}` was not laid out", d.name),
                    })?
                };
                self.scopes[top].insert(d.name.clone(), Sym::Shared(off));
            }
            Space::Global | Space::Const => {
                return err(d.line, format!("`{}`: .global/.const variables inside a function are not supported", d.name));
            }
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<Sym> {
        for s in self.scopes.iter().rev() {
            if let Some(x) = s.get(name) {
                return Some(*x);
            }
        }
        self.syms.globals.get(name).copied()
    }

    fn error<X>(&self, msg: impl Into<String>) -> R<X> {
        err(self.line, msg)
    }

    fn pred_reg(&self, name: &str) -> R<Reg> {
        match self.lookup(name) {
            Some(Sym::Reg(r, _)) => Ok(r),
            _ => self.error(format!("`{name}` is not a register")),
        }
    }

    fn syms_name(&self, f: u32) -> String {
        self.syms.funcs.iter().find(|(_, &i)| i == f).map_or_else(String::new, |(n, _)| n.clone())
    }

    fn cc_reg(&mut self) -> Reg {
        if let Some(r) = self.cc {
            return r;
        }
        let r = self.reg_bits.len() as Reg;
        self.reg_bits.push(1);
        self.cc = Some(r);
        r
    }

    /// A destination register (or `_`).
    fn dst(&self, op: &Operand) -> R<Reg> {
        match op {
            Operand::Sink => Ok(NOREG),
            Operand::Name(n) => self.pred_reg(n),
            _ => self.error(format!("expected a destination register, found {op:?}")),
        }
    }

    fn dst_bits(&self, r: Reg) -> u32 {
        self.reg_bits.get(r as usize).copied().unwrap_or(64)
    }

    /// The value of a symbol used as an operand (its address).
    fn sym_value(&self, name: &str, offset: i64) -> R<Src> {
        let add = |a: u64| a.wrapping_add(offset as u64);
        Ok(match self.lookup(name) {
            Some(Sym::Reg(r, _)) if offset == 0 => Src::Reg(r),
            Some(Sym::Global(a)) | Some(Sym::Const(a)) => Src::Imm(add(a)),
            Some(Sym::Shared(o)) => Src::Imm(add(o as u64)),
            Some(Sym::Local(o)) => Src::LocalAddr((o as i64 + offset) as u32),
            Some(Sym::FParam(o, _)) => Src::ParamAddr((o as i64 + offset) as u32),
            Some(Sym::KParam(o)) => Src::Imm(add(PARAM_WINDOW + o as u64)),
            Some(Sym::Func(i)) => Src::Imm(add(func_address(i))),
            _ => {
                if let Some(s) = special(name) {
                    return Ok(Src::Special(s));
                }
                if let Some(&pc) = self.labels.get(name) {
                    return Ok(Src::Imm(pc as u64));
                }
                return self.error(format!("undefined name `{name}`"));
            }
        })
    }

    /// A source operand of type `t` (immediates converted to `t`'s bits).
    fn src(&self, op: &Operand, t: T) -> R<Src> {
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
    fn pred_src(&self, op: &Operand) -> R<(Src, bool)> {
        match op {
            Operand::Not(x) => Ok((self.src(x, T::Pred)?, true)),
            _ => Ok((self.src(op, T::Pred)?, false)),
        }
    }

    /// An address operand: the address and the state space its base symbol lives in.
    fn addr(&self, op: &Operand) -> R<(Addr, Option<Sym>)> {
        let Operand::Addr { base, offset } = op else { return self.error(format!("expected an address, found {op:?}")) };
        let Some(name) = base else { return Ok((Addr { base: Src::Imm(*offset as u64), offset: 0 }, None)) };
        let sym = self.lookup(name);
        let base = match sym {
            Some(Sym::Reg(r, _)) => Src::Reg(r),
            _ => self.sym_value(name, 0)?,
        };
        Ok((Addr { base, offset: *offset }, sym))
    }

    fn args(&self, i: &ast::Inst, n: usize) -> R<()> {
        if i.args.len() != n {
            return self.error(format!("`{}` takes {n} operands, found {}", i.opcode, i.args.len()));
        }
        Ok(())
    }

    fn alu(&self, f: AluFn, k: u32, i: &ast::Inst, t: T, ta: T) -> R<Op> {
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

    fn inst_inner(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let a = &i.args;
        match m.base {
            "mov" => self.mov(i, m),
            "add" | "sub" => {
                let sub = m.base == "sub";
                let cc = m.take("cc");
                let sat = m.take("sat");
                let ftz = m.take("ftz");
                let rnd = m.rnd();
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                if t.is_float() {
                    let k = t.fp_k() | rnd.unwrap_or(Rnd::Rn).index() | if ftz { fp::FTZ } else { 0 } | if sat { fp::SAT } else { 0 };
                    return self.alu(if sub { fp::sub } else { fp::add }, k, i, t, t);
                }
                let mut k = t.bits() | if t.signed() { int::SIGNED } else { 0 } | if sat { int::SAT } else { 0 };
                if matches!(t, T::U16x2 | T::S16x2) {
                    k = 16 | int::X2;
                }
                if cc {
                    self.args(i, 3)?;
                    let cf = self.cc_reg();
                    let f = if sub { int::sub_cc } else { int::add_cc };
                    return Ok(Op::Alu { f, k, d: self.dst(&a[0])?, d2: cf, a: self.src(&a[1], t)?, b: self.src(&a[2], t)?, c: Src::None });
                }
                self.alu(if sub { int::sub } else { int::add }, k, i, t, t)
            }
            "addc" | "subc" => {
                let cc = m.take("cc");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 3)?;
                let cf = self.cc_reg();
                let f = if m.base == "subc" { int::sub_cc } else { int::add_cc };
                Ok(Op::Alu {
                    f,
                    k: t.bits() | int::CARRY_IN,
                    d: self.dst(&a[0])?,
                    d2: if cc { cf } else { NOREG },
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], t)?,
                    c: Src::Reg(cf),
                })
            }
            "mul" | "mad" | "fma" => self.mul_mad(i, m),
            "madc" => {
                let cc = m.take("cc");
                let hi = m.take("hi");
                m.take("lo");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 4)?;
                let cf = self.cc_reg();
                let k = t.bits() | int::CARRY_IN | if hi { int::HI } else { 0 } | if t.signed() { int::SIGNED } else { 0 };
                Ok(Op::Alu4 {
                    f: int::mad_cc,
                    k,
                    d: self.dst(&a[0])?,
                    d2: if cc { cf } else { NOREG },
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], t)?,
                    c: self.src(&a[3], t)?,
                    e: Src::Reg(cf),
                })
            }
            "mul24" | "mad24" => {
                let hi = m.take("hi");
                m.take("lo");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let k = if t.signed() { int::SIGNED } else { 0 } | if hi { int::HI } else { 0 };
                self.alu(int::mul24, k, i, t, t)
            }
            "div" => {
                let ftz = if m.take("ftz") { fp::FTZ } else { 0 };
                let approx = m.take("approx");
                let full = m.take("full");
                let rnd = m.rnd();
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                if t.is_float() {
                    if approx || full {
                        return self.alu(fp::div_approx, ftz | if full { fp::NAN } else { 0 }, i, t, t);
                    }
                    return self.alu(fp::div, t.fp_k() | ftz | rnd.unwrap_or(Rnd::Rn).index(), i, t, t);
                }
                self.alu(int::div, t.bits() | if t.signed() { int::SIGNED } else { 0 }, i, t, t)
            }
            "rem" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(int::rem, t.bits() | if t.signed() { int::SIGNED } else { 0 }, i, t, t)
            }
            "abs" | "neg" => {
                let ftz = if m.take("ftz") { fp::FTZ } else { 0 };
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                if t.is_float() {
                    return self.alu(if m.base == "abs" { fp::abs } else { fp::neg }, t.fp_k() | ftz, i, t, t);
                }
                self.alu(if m.base == "abs" { int::abs } else { int::neg }, t.bits(), i, t, t)
            }
            "min" | "max" => {
                let ftz = if m.take("ftz") { fp::FTZ } else { 0 };
                let nan = if m.take("NaN") { fp::NAN } else { 0 };
                let relu = m.take("relu");
                let xs = if m.take("xorsign") && m.take("abs") { fp::XORSIGN } else { 0 };
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let max = m.base == "max";
                if t.is_float() {
                    let k = t.fp_k() | ftz | nan | xs | if relu { fp::RELU } else { 0 };
                    return self.alu(if max { fp::max } else { fp::min }, k, i, t, t);
                }
                let k = match t {
                    T::U16x2 => 16 | int::X2,
                    T::S16x2 => 16 | int::X2 | int::SIGNED,
                    _ => t.bits() | if t.signed() { int::SIGNED } else { 0 },
                } | if relu { int::SAT } else { 0 };
                self.alu(if max { int::max } else { int::min }, k, i, t, t)
            }
            "and" | "or" | "xor" | "not" | "cnot" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let f: AluFn = match m.base {
                    "and" => int::and,
                    "or" => int::or,
                    "xor" => int::xor,
                    "not" => int::not,
                    _ => int::cnot,
                };
                // `and.pred p, !q, r` is not PTX; predicates are plain 0/1 registers here.
                self.alu(f, t.bits(), i, t, t)
            }
            "lop3" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 5)?;
                let Operand::Int(lut) = a[4] else { return self.error("lop3: immLut must be a constant") };
                Ok(Op::Alu {
                    f: int::lop3,
                    k: lut as u32 & 0xff,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], t)?,
                    c: self.src(&a[3], t)?,
                })
            }
            "shl" | "shr" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 3)?;
                let k = t.bits() | if t.signed() && m.base == "shr" { int::SIGNED } else { 0 };
                Ok(Op::Alu {
                    f: if m.base == "shl" { int::shl } else { int::shr },
                    k,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], T::U32)?,
                    c: Src::None,
                })
            }
            "shf" => {
                let right = m.take("r");
                m.take("l");
                let clamp = m.take("clamp");
                m.take("wrap");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let k = if right { int::ALT } else { 0 } | if clamp { int::SAT } else { 0 };
                self.alu(int::shf, k, i, t, T::B32)
            }
            "popc" | "clz" | "brev" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let f: AluFn = match m.base {
                    "popc" => int::popc,
                    "clz" => int::clz,
                    _ => int::brev,
                };
                self.alu(f, t.bits(), i, t, t)
            }
            "bfind" => {
                let sa = m.take("shiftamt");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(int::bfind, t.bits() | if t.signed() { int::SIGNED } else { 0 } | if sa { int::ALT } else { 0 }, i, t, t)
            }
            "fns" => {
                m.take("b32");
                self.args(i, 4)?;
                Ok(Op::Alu {
                    f: int::fns,
                    k: 0,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], T::B32)?,
                    b: self.src(&a[2], T::U32)?,
                    c: self.src(&a[3], T::S32)?,
                })
            }
            "bfe" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 4)?;
                Ok(Op::Alu {
                    f: int::bfe,
                    k: t.bits() | if t.signed() { int::SIGNED } else { 0 },
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], T::U32)?,
                    c: self.src(&a[3], T::U32)?,
                })
            }
            "bfi" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 5)?;
                Ok(Op::Alu4 {
                    f: int::bfi,
                    k: t.bits(),
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], t)?,
                    c: self.src(&a[3], T::U32)?,
                    e: self.src(&a[4], T::U32)?,
                })
            }
            "prmt" => {
                let mode = match m.take_any(&["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]) {
                    None => 0,
                    Some("f4e") => 1,
                    Some("b4e") => 2,
                    Some("rc8") => 3,
                    Some("ecl") => 4,
                    Some("ecr") => 5,
                    _ => 6,
                };
                m.take("b32");
                self.alu(int::prmt, mode, i, T::B32, T::B32)
            }
            "sad" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(int::sad, t.bits() | if t.signed() { int::SIGNED } else { 0 }, i, t, t)
            }
            "dp4a" | "dp2a" => {
                let hi = m.take("hi");
                m.take("lo");
                let ts = m.types();
                if ts.len() != 2 {
                    return unsupported(&i.opcode);
                }
                let k = ts[0].signed() as u32
                    | (ts[1].signed() as u32) << 1
                    | if m.base == "dp2a" { int::X2 } else { 0 }
                    | if hi { int::ALT } else { 0 };
                self.alu(int::dp, k, i, T::B32, T::B32)
            }
            "bmsk" | "szext" => {
                let clamp = m.take("clamp");
                m.take("wrap");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let k = if clamp { int::SAT } else { 0 } | if t.signed() { int::SIGNED } else { 0 };
                self.alu(if m.base == "bmsk" { int::bmsk } else { int::szext }, k, i, t, T::U32)
            }
            "selp" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 4)?;
                let (c, neg) = self.pred_src(&a[3])?;
                if neg {
                    return self.error("selp: the predicate cannot be negated");
                }
                Ok(Op::Alu { f: int::selp, k: 0, d: self.dst(&a[0])?, d2: NOREG, a: self.src(&a[1], t)?, b: self.src(&a[2], t)?, c })
            }
            "slct" => {
                let ftz = m.take("ftz");
                let ts = m.types();
                if ts.len() != 2 {
                    return unsupported(&i.opcode);
                }
                self.args(i, 4)?;
                let k = if ts[1] == T::F32 { int::ALT } else { 0 } | if ftz { int::SAT } else { 0 };
                Ok(Op::Alu {
                    f: int::slct,
                    k,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], ts[0])?,
                    b: self.src(&a[2], ts[0])?,
                    c: self.src(&a[3], ts[1])?,
                })
            }
            "copysign" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(fp::copysign, t.fp_k(), i, t, t)
            }
            "testp" => {
                let op = match m.take_any(&["finite", "infinite", "number", "notanumber", "normal", "subnormal"]) {
                    Some("finite") => 0,
                    Some("infinite") => 1,
                    Some("number") => 2,
                    Some("notanumber") => 3,
                    Some("normal") => 4,
                    Some(_) => 5,
                    None => return unsupported(&i.opcode),
                };
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(fp::testp, t.fp_k() | op << 16, i, T::Pred, t)
            }
            "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "ex2" | "lg2" | "tanh" => {
                let approx = m.take("approx");
                let ftz = if m.take("ftz") { fp::FTZ } else { 0 };
                let rnd = m.rnd();
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                if !t.is_float() {
                    return unsupported(&i.opcode);
                }
                let func = match m.base {
                    "rcp" if !approx => return self.alu(fp::rcp, t.fp_k() | ftz | rnd.unwrap_or(Rnd::Rn).index(), i, t, t),
                    "sqrt" if !approx => return self.alu(fp::sqrt, t.fp_k() | ftz | rnd.unwrap_or(Rnd::Rn).index(), i, t, t),
                    "rcp" => fp::RCP,
                    "sqrt" => fp::SQRT,
                    "rsqrt" => fp::RSQRT,
                    "sin" => fp::SIN,
                    "cos" => fp::COS,
                    "ex2" => fp::EX2,
                    "lg2" => fp::LG2,
                    _ => fp::TANH,
                };
                self.alu(fp::approx, t.fp_k() | ftz | func << 16, i, t, t)
            }
            "setp" | "set" => self.setp(i, m),
            "cvt" => self.cvt(i, m),
            "cvta" => {
                let to = m.take("to");
                let w = match m.space() {
                    Some(MemSpace::Global) | Some(MemSpace::Const) => 0,
                    Some(MemSpace::Shared) => 1,
                    Some(MemSpace::Local) => 2,
                    Some(MemSpace::KernelParam) => 3,
                    _ => return unsupported(&i.opcode),
                };
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(int::cvta, w | if to { 4 } else { 0 } | t.bits() << 8, i, t, t)
            }
            "isspacep" => {
                let w = match m.space() {
                    Some(MemSpace::Global) => 0,
                    Some(MemSpace::Shared) => 1,
                    Some(MemSpace::Local) => 2,
                    Some(MemSpace::KernelParam) => 3,
                    _ => return unsupported(&i.opcode),
                };
                self.alu(int::isspacep, w, i, T::Pred, T::U64)
            }
            "ld" | "ldu" => self.ld(i, m),
            "st" => self.st(i, m),
            "atom" | "red" => self.atom(i, m),
            "prefetch" | "prefetchu" | "pmevent" => {
                m.space();
                m.take_any(&["L1", "L2", "tensormap"]);
                Ok(Op::Nop)
            }
            "bra" => {
                m.take("uni");
                self.args(i, 1)?;
                let Operand::Name(l) = &a[0] else { return self.error("bra: expected a label") };
                let target = *self.labels.get(l).ok_or_else(|| DecodeError { line: i.line, message: format!("undefined label `{l}`") })?;
                Ok(Op::Bra { target })
            }
            "call" => self.call(i, m),
            "ret" => {
                m.take("uni");
                Ok(Op::Ret)
            }
            "exit" => Ok(Op::Exit),
            "trap" => Ok(Op::Trap),
            "brkpt" => Ok(Op::Brkpt),
            "nanosleep" => {
                m.take("u32");
                Ok(Op::Yield)
            }
            "bar" | "barrier" => self.bar(i, m),
            "membar" => {
                m.take_any(&["cta", "gl", "sys"]);
                if m.take("proxy") {
                    m.take_any(&["alias", "async"]);
                    return Ok(Op::Nop);
                }
                Ok(Op::Fence { order: Order::SeqCst })
            }
            "fence" => {
                if m.take("proxy") {
                    m.take_any(&["alias", "async", "async.global"]);
                    return Ok(Op::Nop);
                }
                let order = match m.take_any(&["sc", "acq_rel", "acquire", "release"]) {
                    Some("sc") => Order::SeqCst,
                    Some("acquire") => Order::Acquire,
                    Some("release") => Order::Release,
                    _ => Order::AcqRel,
                };
                m.take_any(&["cta", "cluster", "gpu", "sys"]);
                Ok(Op::Fence { order })
            }
            "activemask" => {
                m.take("b32");
                self.args(i, 1)?;
                Ok(Op::Activemask { d: self.dst(&a[0])? })
            }
            "shfl" => {
                if !m.take("sync") {
                    return unsupported(format!("{} (shfl without .sync does not exist on sm_70 and later)", i.opcode));
                }
                let mode = match m.take_any(&["up", "down", "bfly", "idx"]) {
                    Some("up") => ShflMode::Up,
                    Some("down") => ShflMode::Down,
                    Some("bfly") => ShflMode::Bfly,
                    Some(_) => ShflMode::Idx,
                    None => return unsupported(&i.opcode),
                };
                m.take("b32");
                self.args(i, 5)?;
                let (d, p) = match &a[0] {
                    Operand::Pair(x, y) => (self.dst(x)?, self.dst(y)?),
                    x => (self.dst(x)?, NOREG),
                };
                Ok(Op::Shfl {
                    mode,
                    d,
                    p,
                    a: self.src(&a[1], T::B32)?,
                    b: self.src(&a[2], T::B32)?,
                    c: self.src(&a[3], T::B32)?,
                    mask: self.src(&a[4], T::B32)?,
                })
            }
            "vote" => {
                if !m.take("sync") {
                    return unsupported(format!("{} (vote without .sync does not exist on sm_70 and later)", i.opcode));
                }
                let mode = match m.take_any(&["all", "any", "uni", "ballot"]) {
                    Some("all") => VoteMode::All,
                    Some("any") => VoteMode::Any,
                    Some("uni") => VoteMode::Uni,
                    Some(_) => VoteMode::Ballot,
                    None => return unsupported(&i.opcode),
                };
                m.take_any(&["pred", "b32"]);
                self.args(i, 3)?;
                let (src, neg) = self.pred_src(&a[1])?;
                Ok(Op::Vote { mode, d: self.dst(&a[0])?, a: src, neg, mask: self.src(&a[2], T::B32)? })
            }
            "redux" => {
                if !m.take("sync") {
                    return unsupported(&i.opcode);
                }
                let op = m.take_any(&["add", "min", "max", "and", "or", "xor"]);
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                if t == T::F32 {
                    return unsupported(format!("{} (f32 redux)", i.opcode));
                }
                let op = match (op, t.signed()) {
                    (Some("add"), _) => ReduxOp::Add,
                    (Some("min"), true) => ReduxOp::Min,
                    (Some("min"), false) => ReduxOp::UMin,
                    (Some("max"), true) => ReduxOp::Max,
                    (Some("max"), false) => ReduxOp::UMax,
                    (Some("and"), _) => ReduxOp::And,
                    (Some("or"), _) => ReduxOp::Or,
                    (Some("xor"), _) => ReduxOp::Xor,
                    _ => return unsupported(&i.opcode),
                };
                self.args(i, 3)?;
                Ok(Op::Redux { op, d: self.dst(&a[0])?, a: self.src(&a[1], T::B32)?, mask: self.src(&a[2], T::B32)? })
            }
            "match" => {
                let all = match m.take_any(&["any", "all"]) {
                    Some("all") => true,
                    Some(_) => false,
                    None => return unsupported(&i.opcode),
                };
                if !m.take("sync") {
                    return unsupported(&i.opcode);
                }
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 3)?;
                let (d, p) = match &a[0] {
                    Operand::Pair(x, y) => (self.dst(x)?, self.dst(y)?),
                    x => (self.dst(x)?, NOREG),
                };
                Ok(Op::Match { all, wide: t.bits() == 64, d, p, a: self.src(&a[1], t)?, mask: self.src(&a[2], T::B32)? })
            }
            _ => unsupported(&i.opcode),
        }
    }

    fn mov(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        self.args(i, 2)?;
        let a = &i.args;
        match (&a[0], &a[1]) {
            (d, Operand::Vector(parts)) => {
                let n = parts.len();
                if !matches!(n, 2 | 4) || t.bits() % n as u32 != 0 {
                    return self.error("mov: bad vector operand");
                }
                let bits = t.bits() / n as u32;
                let pt = match bits {
                    8 => T::B8,
                    16 => T::B16,
                    32 => T::B32,
                    _ => T::B64,
                };
                let mut ps = [Src::None; 4];
                for (k, p) in parts.iter().enumerate() {
                    ps[k] = self.src(p, pt)?;
                }
                Ok(Op::Pack { d: self.dst(d)?, parts: ps, n: n as u8, bits: bits as u8 })
            }
            (Operand::Vector(parts), s) => {
                let n = parts.len();
                if !matches!(n, 2 | 4) || t.bits() % n as u32 != 0 {
                    return self.error("mov: bad vector operand");
                }
                let mut ds = [NOREG; 4];
                for (k, p) in parts.iter().enumerate() {
                    ds[k] = self.dst(p)?;
                }
                Ok(Op::Unpack { ds, a: self.src(s, t)?, n: n as u8, bits: (t.bits() / n as u32) as u8 })
            }
            _ => {
                let bits = if t.bits() > 64 { return unsupported(&i.opcode) } else { t.bits() };
                self.alu(int::mov, bits, i, t, t)
            }
        }
    }

    fn mul_mad(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let base = m.base;
        let hi = m.take("hi");
        let lo = m.take("lo");
        let wide = m.take("wide");
        let cc = m.take("cc");
        let sat = m.take("sat");
        let ftz = if m.take("ftz") { fp::FTZ } else { 0 };
        let relu = if m.take("relu") { fp::RELU } else { 0 };
        let rnd = m.rnd();
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        let a = &i.args;
        if t.is_float() {
            let k = t.fp_k() | ftz | relu | if sat { fp::SAT } else { 0 } | rnd.unwrap_or(Rnd::Rn).index();
            return self.alu(if base == "mul" { fp::mul } else { fp::fma }, k, i, t, t);
        }
        if base == "fma" {
            return unsupported(&i.opcode);
        }
        let _ = lo;
        let k = t.bits()
            | if t.signed() { int::SIGNED } else { 0 }
            | if hi { int::HI } else { 0 }
            | if wide { int::WIDE } else { 0 }
            | if sat { int::SAT } else { 0 };
        if base == "mul" {
            return self.alu(int::mul, k, i, t, t);
        }
        self.args(i, 4)?;
        let wt = if wide {
            match t {
                T::U16 => T::U32,
                T::S16 => T::S32,
                T::U32 => T::U64,
                T::S32 => T::S64,
                _ => return unsupported(&i.opcode),
            }
        } else {
            t
        };
        if cc {
            let cf = self.cc_reg();
            return Ok(Op::Alu4 {
                f: int::mad_cc,
                k,
                d: self.dst(&a[0])?,
                d2: cf,
                a: self.src(&a[1], t)?,
                b: self.src(&a[2], t)?,
                c: self.src(&a[3], t)?,
                e: Src::None,
            });
        }
        Ok(Op::Alu { f: int::mad, k, d: self.dst(&a[0])?, d2: NOREG, a: self.src(&a[1], t)?, b: self.src(&a[2], t)?, c: self.src(&a[3], wt)? })
    }

    fn setp(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let is_set = m.base == "set";
        let cmp = m.take_any(&[
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
        ]);
        let comb = match m.take_any(&["and", "or", "xor"]) {
            Some("and") => Comb::And,
            Some("or") => Comb::Or,
            Some("xor") => Comb::Xor,
            _ => Comb::None,
        };
        let ftz = m.take("ftz");
        let ts = m.types();
        let (dt, t) = match (is_set, ts.as_slice()) {
            (false, [t]) => (T::Pred, *t),
            (true, [d, s]) => (*d, *s),
            _ => return unsupported(&i.opcode),
        };
        let Some(cmp) = cmp else { return unsupported(&i.opcode) };
        let (f, k): (AluFn, u32) = if t.is_float() {
            let op = match cmp {
                "eq" => fp::EQ,
                "ne" => fp::NE,
                "lt" => fp::LT,
                "le" => fp::LE,
                "gt" => fp::GT,
                "ge" => fp::GE,
                "equ" => fp::EQU,
                "neu" => fp::NEU,
                "ltu" => fp::LTU,
                "leu" => fp::LEU,
                "gtu" => fp::GTU,
                "geu" => fp::GEU,
                "num" => fp::NUM,
                "nan" => fp::ISNAN,
                _ => return unsupported(&i.opcode),
            };
            (fp::cmp, t.fp_k() | if ftz { fp::FTZ } else { 0 } | op << 16)
        } else {
            let signed = t.signed();
            let op = match cmp {
                "eq" => int::CMP_EQ,
                "ne" => int::CMP_NE,
                "lt" | "lo" => int::CMP_LT,
                "le" | "ls" => int::CMP_LE,
                "gt" | "hi" => int::CMP_GT,
                "ge" | "hs" => int::CMP_GE,
                _ => return unsupported(&i.opcode),
            };
            let signed = signed && !matches!(cmp, "lo" | "ls" | "hi" | "hs");
            (int::cmp, t.bits() | if signed { int::SIGNED } else { 0 } | op << 16)
        };
        let a = &i.args;
        let n = if comb == Comb::None { 3 } else { 4 };
        self.args(i, n)?;
        let (d, d2) = match &a[0] {
            Operand::Pair(x, y) if !is_set => (self.dst(x)?, self.dst(y)?),
            x => (self.dst(x)?, NOREG),
        };
        let (c, cneg) = if n == 4 { self.pred_src(&a[3])? } else { (Src::None, false) };
        let tv = match dt {
            T::Pred => 1,
            T::F32 => 0x3f80_0000,
            _ => 0xffff_ffff,
        };
        Ok(Op::Setp {
            f,
            k,
            d,
            d2,
            a: self.src(&a[1], t)?,
            b: self.src(&a[2], t)?,
            comb,
            c,
            cneg,
            x2: matches!(t, T::F16x2 | T::Bf16x2),
            t: tv,
        })
    }

    fn cvt(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let ftz = m.take("ftz");
        let sat = m.take("sat");
        let relu = m.take("relu");
        let satf = m.take("satfinite");
        let rnd = m.rnd();
        let irnd = m.irnd();
        let ts = m.types();
        let [dt, st] = ts.as_slice() else { return unsupported(&i.opcode) };
        let (Some(dc), Some(sc)) = (dt.cvt_ty(), st.cvt_ty()) else { return unsupported(&i.opcode) };
        self.args(i, 2)?;
        let d = self.dst(&i.args[0])?;
        let mut k = cvt::key(dc, sc, self.dst_bits(d).min(64));
        if let Some(r) = irnd {
            k |= r.index() | cvt::IRND;
        } else if let Some(r) = rnd {
            k |= r.index();
        }
        k |= if ftz { cvt::FTZ } else { 0 } | if sat { cvt::SAT } else { 0 } | if relu { cvt::RELU } else { 0 } | if satf { cvt::SATFINITE } else { 0 };
        Ok(Op::Alu { f: cvt::cvt, k, d, d2: NOREG, a: self.src(&i.args[1], *st)?, b: Src::None, c: Src::None })
    }

    /// The space an access names, refined by the symbol its address starts from.
    fn access_space(&self, named: Option<MemSpace>, sym: Option<Sym>) -> R<MemSpace> {
        Ok(match (named, sym) {
            (Some(MemSpace::KernelParam), Some(Sym::FParam(..))) => MemSpace::FrameParam,
            (Some(s), _) => s,
            (None, Some(Sym::Shared(_))) | (None, Some(Sym::Local(_))) | (None, Some(Sym::FParam(..))) | (None, Some(Sym::KParam(_))) => {
                return self.error("a generic access cannot start from a shared, local or parameter variable's name here");
            }
            (None, _) => MemSpace::Generic,
        })
    }

    fn ld(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let order = m.order(Order::Weak);
        let space = m.space();
        let vec = m.vec();
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        if t.bits() > 64 {
            return unsupported(format!("{} (128-bit access)", i.opcode));
        }
        if i.args.len() < 2 {
            return self.error("ld: expected a destination and an address");
        }
        let mut ds = [NOREG; 8];
        match &i.args[0] {
            Operand::Vector(v) => {
                if v.len() != vec as usize {
                    return self.error("ld: vector size does not match the destination");
                }
                for (k, x) in v.iter().enumerate() {
                    ds[k] = self.dst(x)?;
                }
            }
            x => ds[0] = self.dst(x)?,
        }
        let (addr, sym) = self.addr(&i.args[1])?;
        let space = self.access_space(space, sym)?;
        let dbits = ds.iter().find(|&&r| r != NOREG).map_or(64, |&r| self.dst_bits(r));
        Ok(Op::Ld { space, size: t.bytes() as u8, sext: t.signed(), vec, ds, dbits: dbits as u8, addr, order })
    }

    fn st(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let order = m.order(Order::Weak);
        let space = m.space();
        let vec = m.vec();
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        if t.bits() > 64 {
            return unsupported(format!("{} (128-bit access)", i.opcode));
        }
        self.args(i, 2)?;
        let (addr, sym) = self.addr(&i.args[0])?;
        let space = self.access_space(space, sym)?;
        if space == MemSpace::KernelParam || space == MemSpace::Const {
            return self.error("st: kernel parameters and constant memory are read-only");
        }
        let mut srcs = [Src::None; 8];
        match &i.args[1] {
            Operand::Vector(v) => {
                if v.len() != vec as usize {
                    return self.error("st: vector size does not match the source");
                }
                for (k, x) in v.iter().enumerate() {
                    srcs[k] = self.src(x, t)?;
                }
            }
            x => srcs[0] = self.src(x, t)?,
        }
        Ok(Op::St { space, size: t.bytes() as u8, vec, srcs, addr, order })
    }

    fn atom(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let red = m.base == "red";
        let order = m.order(Order::Relaxed);
        let space = m.space();
        let op = match m.take_any(&["and", "or", "xor", "exch", "cas", "add", "inc", "dec", "min", "max"]) {
            Some("and") => AtomOp::And,
            Some("or") => AtomOp::Or,
            Some("xor") => AtomOp::Xor,
            Some("exch") => AtomOp::Exch,
            Some("cas") => AtomOp::Cas,
            Some("add") => AtomOp::Add,
            Some("inc") => AtomOp::Inc,
            Some("dec") => AtomOp::Dec,
            Some("min") => AtomOp::Min,
            Some("max") => AtomOp::Max,
            _ => return unsupported(&i.opcode),
        };
        if m.take_any(&["v2", "v4", "v8"]).is_some() {
            return unsupported(format!("{} (vector atomics)", i.opcode));
        }
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        let ty = match t {
            T::B16 | T::U16 | T::S16 => AtomTy::B16,
            T::B32 | T::U32 => AtomTy::U32,
            T::S32 => AtomTy::S32,
            T::B64 | T::U64 => AtomTy::U64,
            T::S64 => AtomTy::S64,
            T::F32 => AtomTy::F32,
            T::F64 => AtomTy::F64,
            T::F16 => AtomTy::F16,
            T::Bf16 => AtomTy::Bf16,
            T::F16x2 => AtomTy::F16x2,
            T::Bf16x2 => AtomTy::Bf16x2,
            _ => return unsupported(&i.opcode),
        };
        let a = &i.args;
        let (d, rest) = if red { (NOREG, &a[..]) } else { (self.dst(&a[0])?, &a[1.min(a.len())..]) };
        let need = if op == AtomOp::Cas { 3 } else { 2 };
        if rest.len() != need {
            return self.error(format!("`{}`: wrong number of operands", i.opcode));
        }
        let (addr, sym) = self.addr(&rest[0])?;
        let space = self.access_space(space, sym)?;
        if !matches!(space, MemSpace::Global | MemSpace::Shared | MemSpace::Generic) {
            return self.error("atomics work on global or shared memory only");
        }
        let b = self.src(&rest[1], t)?;
        let c = if op == AtomOp::Cas { self.src(&rest[2], t)? } else { Src::None };
        Ok(Op::Atom { space, op, ty, d, addr, b, c, order, ftz: ty == AtomTy::F32 })
    }

    fn bar(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        m.take("cta");
        if m.base == "bar" && m.take("warp") {
            if !m.take("sync") {
                return unsupported(&i.opcode);
            }
            self.args(i, 1)?;
            return Ok(Op::BarWarp { mask: self.src(&i.args[0], T::B32)? });
        }
        let aligned = m.base == "bar" || m.take("aligned");
        let kind = if m.take("sync") {
            BarKind::Sync
        } else if m.take("arrive") {
            BarKind::Arrive
        } else if m.take("red") {
            match m.take_any(&["popc", "and", "or"]) {
                Some("popc") => BarKind::RedPopc,
                Some("and") => BarKind::RedAnd,
                Some("or") => BarKind::RedOr,
                _ => return unsupported(&i.opcode),
            }
        } else if m.leftover().is_none() {
            BarKind::Sync // plain `bar 0` is bar.sync
        } else {
            return unsupported(&i.opcode);
        };
        m.take_any(&["u32", "pred"]);
        let a = &i.args;
        Ok(match kind {
            BarKind::Sync | BarKind::Arrive => {
                if a.is_empty() || a.len() > 2 {
                    return self.error("bar: expected a barrier and an optional thread count");
                }
                let count = if a.len() == 2 { self.src(&a[1], T::U32)? } else { Src::None };
                Op::Bar { kind, id: self.src(&a[0], T::U32)?, count, aligned, d: NOREG, p: Src::None, pneg: false }
            }
            _ => {
                if !(3..=4).contains(&a.len()) {
                    return self.error("bar.red: expected a destination, barrier, optional count and predicate");
                }
                let (p, pneg) = self.pred_src(&a[a.len() - 1])?;
                let count = if a.len() == 4 { self.src(&a[2], T::U32)? } else { Src::None };
                Op::Bar { kind, id: self.src(&a[1], T::U32)?, count, aligned, d: self.dst(&a[0])?, p, pneg }
            }
        })
    }

    fn call(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        m.take("uni");
        let mut it = i.args.iter().peekable();
        let rets: Vec<&Operand> = match it.peek() {
            Some(Operand::List(v)) => {
                it.next();
                v.iter().collect()
            }
            _ => Vec::new(),
        };
        let Some(target) = it.next() else { return self.error("call: missing target") };
        let args: Vec<&Operand> = match it.peek() {
            Some(Operand::List(v)) => {
                it.next();
                v.iter().collect()
            }
            _ => Vec::new(),
        };
        let proto = it.next();
        let frame_slot = |op: &Operand| -> R<(u32, u32)> {
            match op {
                Operand::Name(n) => match self.lookup(n) {
                    Some(Sym::FParam(o, s)) => Ok((o, s)),
                    _ => self.error(format!("call: `{n}` is not a .param variable of a call scope")),
                },
                _ => self.error("call: arguments must be .param variables"),
            }
        };
        let ret_slots: Vec<(u32, u32)> = rets.iter().map(|o| frame_slot(o)).collect::<R<_>>()?;
        let arg_slots: Vec<(u32, u32)> = args.iter().map(|o| frame_slot(o)).collect::<R<_>>()?;
        let (ct, sig) = match target {
            Operand::Name(n) => match self.lookup(n) {
                Some(Sym::Func(f)) => (CallTarget::Direct(f), self.syms.sigs[f as usize].clone()),
                Some(Sym::Reg(r, _)) => {
                    let Some(Operand::Name(p)) = proto else { return self.error("indirect call without a prototype") };
                    let sig = self.protos.get(p).cloned().ok_or_else(|| DecodeError { line: i.line, message: format!("undefined prototype `{p}`") })?;
                    (CallTarget::Indirect(Src::Reg(r)), sig)
                }
                _ => return self.error(format!("call: `{n}` is not a function")),
            },
            _ => return self.error("call: bad target"),
        };
        let (params, ret_decl) = sig;
        if params.len() != arg_slots.len() || ret_decl.len() != ret_slots.len() {
            return self.error(format!(
                "call passes {} argument(s) and {} return value(s), the callee declares {} and {}",
                arg_slots.len(),
                ret_slots.len(),
                params.len(),
                ret_decl.len()
            ));
        }
        for (k, (&(_, size), p)) in arg_slots.iter().zip(&params).enumerate() {
            if size != p.size {
                return self.error(format!("call: argument {k} has {size} bytes, the callee's parameter {}", p.size));
            }
        }
        let args: Box<[u32]> = arg_slots.iter().map(|s| s.0).collect();
        let rets: Box<[u32]> = ret_slots.iter().map(|s| s.0).collect();
        if let CallTarget::Direct(f) = ct {
            if let FuncKind::Syscall(which) = self.syms.kinds[f as usize] {
                // The prototypes of the guide's chapter 3 (64-bit addresses).
                let (want_args, want_rets): (&[u32], &[u32]) = match which {
                    Syscall::Vprintf => (&[8, 8], &[4]),
                    Syscall::Malloc => (&[8], &[8]),
                    Syscall::Free => (&[8], &[]),
                    Syscall::AssertFail => (&[8, 8, 4, 8, 8], &[]),
                };
                let sizes = |v: &[ParamSlot]| v.iter().map(|p| p.size).collect::<Vec<u32>>();
                if sizes(&params) != want_args || (sizes(&ret_decl) != want_rets && !(ret_decl.is_empty() && which == Syscall::Vprintf)) {
                    return self.error(format!(
                        "`{}` is declared with parameter sizes {:?} and return sizes {:?}; the system call takes {want_args:?} and returns {want_rets:?} (PTX Interoperability chapter 3)",
                        self.syms_name(f),
                        sizes(&params),
                        sizes(&ret_decl)
                    ));
                }
                return Ok(Op::Syscall { which, args, rets });
            }
        }
        Ok(Op::Call { target: ct, args, rets })
    }
}
