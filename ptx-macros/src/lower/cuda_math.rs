//! `f32::exp` and `f32::exp2` inline, as nvcc 13.5 emits CUDA's `expf` and `exp2f` (`-O3`,
//! read from its PTX), within CUDA's documented bound (2 ulp each):
//!
//! - `exp2f(x)`: `ex2.approx.f32 x` (the instruction keeps subnormal operands and results).
//! - `expf(x)`: `x·log₂e = n + f` with `n` an integer kept in −126..126 and
//!   `e^x = 2^f · 2^n`:
//!   1. `t = sat(x · (log₂e / 256) + 0.5)` (`fma.rn`, `cvt.sat` clamps to [0, 1], NaN to 0);
//!   2. `j = fma.rm(t, 252, 1.5·2^23 + 1)`: the low bits of `j` are `1 + ⌊252·t⌋`, in 1..253,
//!      the biased exponent of `2^n`, `n = ⌊252·t⌋ − 126`;
//!   3. `f = x·log₂e − n`, with `log₂e` in two parts (`fma.rn` twice: the product's rounding
//!      error is carried by the second part), `|f| < 3` while `2^n` is in range;
//!   4. `2^n` is `j`'s bits shifted left by 23 (the exponent field), `2^f` is
//!      `ex2.approx.ftz.f32 f`, and `mul.rn` their product: exact for a normal result, rounded
//!      once into the subnormals. Past the range of `n`, `f` carries the rest: `ex2` overflows
//!      to +∞ (`x ≥ 88.8`) or flushes to 0 (`x ≤ −175`).
//!
//!   NaN gives `t = 0` and `f = NaN`, so NaN; +∞ gives `f = +∞` and +∞; −∞ gives 0.
//!
//! The CPU backend executes `ex2.approx` as `2^x` rounded to nearest (a result the PTX ISA's
//! bound allows, not the hardware's own bits); `tests/suite/body_cuda_math.rs` measures the
//! sequence against `f64` over the whole range and bounds the hardware's `ex2` error.
//! The host run of the same body calls `std`'s `exp` (correctly rounded or nearly).
//! `device::math::exp_f32` (1 ulp) stays callable by name.

use super::value::Val;
use super::Lowerer;
use crate::front::intrinsic::CudaOp;
use crate::ir::{Arg, Arith, Imm, Mode, Opcode, RegClass, Type};

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn cuda_math(&mut self, op: CudaOp, v: &[Val]) -> Val {
        let x = v[0].arg();
        let r = match op {
            CudaOp::Exp2 => self.b.op1(Opcode::Arith(Arith::Ex2, Mode::Approx, Type::F32), RegClass::F32, vec![x]),
            CudaOp::Exp => self.cuda_expf(x),
        };
        Val::S(Arg::Reg(r))
    }

    fn cuda_expf(&mut self, x: Arg) -> crate::ir::Reg {
        let f = RegClass::F32;
        let k = |bits: u32| Arg::Imm(Imm::F32(bits));
        let fma = |m: Mode| Opcode::Arith(Arith::Fma, m, Type::F32);
        let t = self.b.op1(fma(Mode::Rn), f, vec![x.clone(), k(0x3BBB_989D), k(0x3F00_0000)]);
        let t = self.b.op1(Opcode::Cvt(Mode::Sat, Type::F32, Type::F32), f, vec![Arg::Reg(t)]);
        let j = self.b.op1(fma(Mode::Rm), f, vec![Arg::Reg(t), k(0x437C_0000), k(0x4B40_0001)]);
        let n = self.b.op1(Opcode::Arith(Arith::Add, Mode::Rn, Type::F32), f, vec![Arg::Reg(j), k(0xCB40_007F)]);
        let neg_n = self.b.op1(Opcode::arith(Arith::Neg, Type::F32), f, vec![Arg::Reg(n)]);
        let hi = self.b.op1(fma(Mode::Rn), f, vec![x.clone(), k(0x3FB8_AA3B), Arg::Reg(neg_n)]);
        let fr = self.b.op1(fma(Mode::Rn), f, vec![x, k(0x32A5_7060), Arg::Reg(hi)]);
        let bits = self.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![Arg::Reg(j)]);
        let exp = self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(bits), Arg::imm(23)]);
        let scale = self.b.op1(Opcode::Mov(Type::B32), f, vec![Arg::Reg(exp)]);
        let e = self.b.op1(Opcode::Arith(Arith::Ex2, Mode::ApproxFtz, Type::F32), f, vec![Arg::Reg(fr)]);
        self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, Type::F32), f, vec![Arg::Reg(e), Arg::Reg(scale)])
    }
}
