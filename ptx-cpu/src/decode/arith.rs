//! Arithmetic, comparison, conversion and moves: integer and float forms of one opcode share
//! a decoder, the type choosing the kernel.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use crate::exec::softfloat::Rnd;
use crate::exec::{cvt, fp, int};
use crate::parse::ast::{self, Operand};
use crate::program::*;

impl FnDecoder<'_> {
    pub(super) fn arith(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
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
            _ => unsupported(&i.opcode),
        }
    }

    pub(super) fn mov(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
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

    pub(super) fn mul_mad(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
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

    pub(super) fn setp(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
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
        let x2 = matches!(t, T::F16x2 | T::Bf16x2);
        let tv = match dt {
            T::Pred => 1,
            // `set` on a packed pair writes each lane (`SET_LANES`): 1.0 or all ones.
            T::F16x2 if x2 => SET_LANES | 0x3c00,
            T::Bf16x2 if x2 => SET_LANES | 0x3f80,
            _ if x2 && is_set => SET_LANES | 0xffff,
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
            x2,
            t: tv,
        })
    }

    pub(super) fn cvt(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
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
}
