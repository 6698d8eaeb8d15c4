//! Value ranges of integer registers, for comparisons they decide (`ir::bce`): `a[lane_id()]`
//! of a 32-element array, `a[threadIdx.x % 8]`, need no bounds check.
//!
//! A range is an inclusive interval `lo..=hi` of the register's bits read as an unsigned
//! number. Only registers written exactly once get one (Rust's definite initialisation puts
//! that write before every read, so the range holds wherever the register is read). Ranges
//! start from immediates and from the special registers, whose bounds the PTX ISA states
//! (`%tid.x < %ntid.x <= 1024`, `%laneid < 32`, grid dimensions below 2^31 in x and 2^16 in y
//! and z), and go through the instructions whose result interval is exact: widening and
//! narrowing (an unknown source still gives the narrower type's range), `and`, `rem`/`div`/`shr` by a constant, `min`, `selp`, and `add`, `sub`,
//! `mul`, `shl` when no value of the operands' ranges wraps. Anything else has no range.
//!
//! A loop counter is written more than once and has no range; what `ir::bce` knows of it
//! comes from `Func::entry_facts` (`k < end` at a `for` loop's header) combined with these
//! ranges. A kernel's declared launch bounds narrow `%tid` and `%ntid` (`Func::launch`):
//! under `#[kernel(block = (16, 16))]`, `%tid.x < 16`, so `ty * 16 + tx` indexes a tile of 256.

use super::{Arg, Arith, Cmp, Func, Imm, InstKind, LaunchFacts, Mode, Opcode, Reg, Sym, Type};
use super::fast_hash::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Range {
    pub lo: u64,
    pub hi: u64,
}

/// The known ranges, by register number: registers are numbered densely from 0, and a table
/// costs one index where a hash map hashed and probed (the macro runs unoptimized in users'
/// builds, and the optimiser asks for ranges many times per instruction).
#[derive(Default, Clone)]
pub struct Ranges {
    by_reg: Vec<Option<Range>>,
    known: usize,
}

impl Ranges {
    pub fn compute(func: &Func) -> Ranges {
        Ranges::compute_from(func, HashMap::default())
    }

    /// The ranges with `seeds` taken as known first (narrower ranges that hold at some point of
    /// the function, `ir::path_range`), and what follows from them.
    pub fn compute_from(func: &Func, seeds: HashMap<Reg, Range>) -> Ranges {
        Ranges::compute_at(func, seeds, &|_, _, _| None)
    }

    /// As [`Ranges::compute_from`], with `at(r, b, i)` the range of register `r` where
    /// instruction `i` of block `b` reads it, where that is narrower than `r`'s own (a loop
    /// counter on the loop's trips, `ir::narrow_reg`): a register written once holds what its
    /// one write made of the values it read there.
    pub fn compute_at(func: &Func, seeds: HashMap<Reg, Range>, at: &dyn Fn(Reg, usize, usize) -> Option<Range>) -> Ranges {
        let defs = def_counts(func);
        let mut ranges = Ranges::default();
        for (r, range) in seeds {
            ranges.set(r, range);
        }
        // Blocks are not in dominance order: repeat until no register gains a range (each
        // gains one at most once).
        loop {
            let before = ranges.known;
            for (b, block) in func.blocks.iter().enumerate() {
                for (i, inst) in block.insts.iter().enumerate() {
                    let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { continue };
                    let Some(Arg::Reg(d)) = args.first() else { continue };
                    if inst.guard.is_some() || defs.get(d.0 as usize) != Some(&1) || ranges.get(*d).is_some() {
                        continue;
                    }
                    if let Some(r) = ranges.of_op_at(*opcode, &args[1..], &func.launch, |r| at(r, b, i)) {
                        ranges.set(*d, r);
                    }
                }
            }
            if ranges.known == before {
                return ranges;
            }
        }
    }

    /// [`Ranges::of_op`] with the registers `at` gives a range for read as that range.
    pub fn of_op_at(&mut self, opcode: Opcode, src: &[Arg], launch: &LaunchFacts, at: impl Fn(Reg) -> Option<Range>) -> Option<Range> {
        let over: Vec<(Reg, Range)> = src.iter().filter_map(|a| if let Arg::Reg(r) = a { at(*r).map(|g| (*r, g)) } else { None }).collect();
        if over.is_empty() {
            return self.of_op(opcode, src, launch);
        }
        let saved: Vec<(Reg, Option<Range>)> = over.iter().map(|(r, _)| (*r, self.get(*r))).collect();
        // In place of what is known of the register (in `ir::narrow_reg`'s iteration, an
        // estimate still growing).
        for &(r, g) in &over {
            self.set(r, g);
        }
        let out = self.of_op(opcode, src, launch);
        // Saved before any was set: a register read twice has both saves hold what it was.
        for &(r, old) in saved.iter().rev() {
            match old {
                Some(g) => self.set(r, g),
                None => self.forget(r),
            }
        }
        out
    }

    fn get(&self, r: Reg) -> Option<Range> {
        self.by_reg.get(r.0 as usize).copied().flatten()
    }

    /// A comparison `a <cmp> b` of type `ty` that the operands' ranges decide.
    pub fn decide(&self, cmp: Cmp, ty: Type, a: &Arg, b: &Arg) -> Option<bool> {
        let bits = ty.bits();
        let (a, b) = (self.of(a, bits)?, self.of(b, bits)?);
        // Signed comparisons agree with unsigned ones on non-negative values.
        if ty.is_signed() && (a.hi | b.hi) >> (bits - 1) != 0 {
            return None;
        }
        let lt = |a: Range, b: Range| if a.hi < b.lo { Some(true) } else if a.lo >= b.hi { Some(false) } else { None };
        let le = |a: Range, b: Range| if a.hi <= b.lo { Some(true) } else if a.lo > b.hi { Some(false) } else { None };
        let eq = if a.hi < b.lo || b.hi < a.lo { Some(false) } else if a.lo == a.hi && a == b { Some(true) } else { None };
        match cmp {
            Cmp::Lt => lt(a, b),
            Cmp::Le => le(a, b),
            Cmp::Gt => lt(b, a),
            Cmp::Ge => le(b, a),
            Cmp::Eq => eq,
            Cmp::Ne => eq.map(|v| !v),
            Cmp::Neu => None,
        }
    }

    /// The range of an operand: a register's, or an integer immediate of `bits` bits.
    pub fn of(&self, a: &Arg, bits: u32) -> Option<Range> {
        match a {
            Arg::Reg(r) => self.get(*r),
            Arg::Imm(Imm::Int(v)) => {
                let v = *v as u64 & mask(bits);
                Some(Range { lo: v, hi: v })
            }
            _ => None,
        }
    }

    /// Takes `r` as the range of `reg` (a loop counter's over the loop's trips, for `ir::hoist`).
    pub fn set(&mut self, reg: Reg, r: Range) {
        let i = reg.0 as usize;
        if i >= self.by_reg.len() {
            self.by_reg.resize(i + 1, None);
        }
        if self.by_reg[i].replace(r).is_none() {
            self.known += 1;
        }
    }

    /// Forgets what is known of `reg`.
    pub fn forget(&mut self, reg: Reg) {
        if self.by_reg.get_mut(reg.0 as usize).and_then(Option::take).is_some() {
            self.known -= 1;
        }
    }

    /// The range of `opcode`'s result from its sources' ranges, where it is exact.
    pub fn of_op(&self, opcode: Opcode, src: &[Arg], launch: &LaunchFacts) -> Option<Range> {
        let within = |bits: u32, lo: u128, hi: u128| (hi <= mask(bits) as u128).then_some(Range { lo: lo as u64, hi: hi as u64 });
        let constant = |a: &Arg, bits: u32| self.of(a, bits).filter(|r| r.lo == r.hi).map(|r| r.lo);
        match opcode {
            Opcode::Mov(t) => match src {
                [Arg::Sym(Sym::Named(n))] => special(n, launch),
                [a] => self.of(a, t.bits()),
                _ => None,
            },
            // Zero extension, and narrowing that loses no bits (`cvt` reads the source as
            // `from`: a 16-bit register holding more than 8 bits is cut by `cvt.u16.u8`).
            Opcode::Cvt(Mode::None, to, from) if !from.is_float() && !to.is_float() && !from.is_signed() => {
                // Whatever the source holds, the result fits the narrower of the two types
                // (`cvt.u64.u32` of an unknown `u32` is below 2^32).
                let any = Range { lo: 0, hi: mask(from.bits().min(to.bits())) };
                match self.of(&src[0], from.bits()).filter(|r| r.hi <= mask(from.bits())) {
                    Some(r) => within(to.bits(), r.lo as u128, r.hi as u128).or(Some(any)),
                    None => Some(any),
                }
            }
            Opcode::Arith(op, mode, t) if !t.is_float() && t != Type::Pred => {
                let bits = t.bits();
                let a = self.of(&src[0], bits);
                let b = src.get(1).and_then(|s| self.of(s, bits));
                match (op, mode) {
                    (Arith::Add, Mode::None) => {
                        let (a, b) = (a?, b?);
                        within(bits, a.lo as u128 + b.lo as u128, a.hi as u128 + b.hi as u128)
                    }
                    (Arith::Sub, Mode::None) => {
                        let (a, b) = (a?, b?);
                        (a.lo >= b.hi).then(|| Range { lo: a.lo - b.hi, hi: a.hi - b.lo })
                    }
                    (Arith::Mul, Mode::Lo | Mode::Wide) => {
                        let (a, b) = (a?, b?);
                        // `mul.wide.s32` sign-extends: exact as unsigned only below 2^31.
                        if mode == Mode::Wide && t.is_signed() && (a.hi | b.hi) >> (bits - 1) != 0 {
                            return None;
                        }
                        let out = if mode == Mode::Wide { bits * 2 } else { bits };
                        within(out, a.lo as u128 * b.lo as u128, a.hi as u128 * b.hi as u128)
                    }
                    (Arith::Shl, Mode::None) => {
                        let (a, k) = (a?, constant(&src[1], 32)?);
                        (k < 64).then_some(())?;
                        within(bits, (a.lo as u128) << k, (a.hi as u128) << k)
                    }
                    (Arith::Shr, Mode::None) if !t.is_signed() => {
                        let (a, k) = (a?, constant(&src[1], 32)?.min(63));
                        Some(Range { lo: a.lo >> k, hi: a.hi >> k })
                    }
                    // `and` with anything is at most either operand.
                    (Arith::And, Mode::None) => {
                        let hi = match (a, b) {
                            (Some(a), Some(b)) => a.hi.min(b.hi),
                            (Some(x), None) | (None, Some(x)) => x.hi,
                            (None, None) => return None,
                        };
                        Some(Range { lo: 0, hi })
                    }
                    (Arith::Rem, Mode::None) if !t.is_signed() => {
                        let m = constant(&src[1], bits).filter(|m| *m > 0)?;
                        Some(Range { lo: 0, hi: a.map_or(m - 1, |a| a.hi.min(m - 1)) })
                    }
                    (Arith::Div, Mode::None) if !t.is_signed() => {
                        let (a, m) = (a?, constant(&src[1], bits).filter(|m| *m > 0)?);
                        Some(Range { lo: a.lo / m, hi: a.hi / m })
                    }
                    (Arith::Min, Mode::None) if !t.is_signed() => match (a, b) {
                        (Some(a), Some(b)) => Some(Range { lo: a.lo.min(b.lo), hi: a.hi.min(b.hi) }),
                        (Some(x), None) | (None, Some(x)) => Some(Range { lo: 0, hi: x.hi }),
                        (None, None) => None,
                    },
                    _ => None,
                }
            }
            Opcode::Selp(t) if !t.is_float() => {
                let (a, b) = (self.of(&src[0], t.bits())?, self.of(&src[1], t.bits())?);
                Some(Range { lo: a.lo.min(b.lo), hi: a.hi.max(b.hi) })
            }
            _ => None,
        }
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The special registers' ranges (PTX ISA, "Special Registers"; CUDA's limits: at most 1024
/// threads per block, 64 in z, or what the kernel's launch bounds declare; grid x below 2^31,
/// y and z below 2^16).
fn special(name: &str, launch: &LaunchFacts) -> Option<Range> {
    let r = |lo, hi| Some(Range { lo, hi });
    let axis = |n: &str| ["x", "y", "z"].iter().position(|a| n.ends_with(a)).unwrap_or(0);
    match name {
        "%tid.x" | "%tid.y" | "%tid.z" => r(0, launch.tid_bound(axis(name)) - 1),
        "%ntid.x" | "%ntid.y" | "%ntid.z" => match launch.block {
            Some(b) => r(b[axis(name)] as u64, b[axis(name)] as u64),
            None => r(1, launch.tid_bound(axis(name))),
        },
        "%laneid" => r(0, 31),
        "%ctaid.x" => r(0, (1 << 31) - 2),
        "%ctaid.y" | "%ctaid.z" => r(0, 65534),
        "%nctaid.x" => r(1, (1 << 31) - 1),
        "%nctaid.y" | "%nctaid.z" => r(1, 65535),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Builder, RegClass};

    #[test]
    fn ranges_flow_from_special_registers_through_exact_arithmetic() {
        let mut b = Builder::new();
        let lane = b.op1(Opcode::Mov(Type::U32), RegClass::B32, vec![Arg::named("%laneid")]);
        let wide = b.op1(Opcode::Cvt(Mode::None, Type::U64, Type::U32), RegClass::B64, vec![Arg::Reg(lane)]);
        let tid = b.op1(Opcode::Mov(Type::U32), RegClass::B32, vec![Arg::named("%tid.x")]);
        let low = b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(tid), Arg::imm(7)]);
        let sum = b.op1(Opcode::arith(Arith::Add, Type::S32), RegClass::B32, vec![Arg::Reg(lane), Arg::Reg(low)]);
        let scaled = b.op1(Opcode::Arith(Arith::Mul, Mode::Wide, Type::U32), RegClass::B64, vec![Arg::Reg(tid), Arg::imm(4)]);
        let under = b.op1(Opcode::arith(Arith::Sub, Type::S32), RegClass::B32, vec![Arg::Reg(low), Arg::Reg(lane)]);
        let big = b.op1(Opcode::Mov(Type::U16), RegClass::B16, vec![Arg::imm(300)]);
        let cut = b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U8), RegClass::B16, vec![Arg::Reg(big)]);
        let r = Ranges::compute(&b.finish());
        let get = |x: Reg| r.of(&Arg::Reg(x), 64);
        assert_eq!(get(wide), Some(Range { lo: 0, hi: 31 }));
        assert_eq!(get(low), Some(Range { lo: 0, hi: 7 }));
        assert_eq!(get(sum), Some(Range { lo: 0, hi: 38 }));
        assert_eq!(get(scaled), Some(Range { lo: 0, hi: 4092 }));
        // `low - lane` may wrap: no range.
        assert_eq!(get(under), None);
        // `cvt.u16.u8` keeps 8 of 300's bits: not 300, but below 256.
        assert_eq!(get(cut), Some(Range { lo: 0, hi: 255 }));
    }
}

/// How many instructions write each register, by register number.
pub(super) fn def_counts(func: &Func) -> Vec<u32> {
    let mut defs = vec![0u32; func.regs.len()];
    for r in func.blocks.iter().flat_map(|b| &b.insts).flat_map(|i| i.defs()) {
        if let Some(n) = defs.get_mut(r.0 as usize) {
            *n += 1;
        }
    }
    defs
}
