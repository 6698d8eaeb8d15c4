//! Run-time checks: the one place that decides what a failed check does.
//!
//! Rust panics on an out-of-bounds index, a division by zero, `MIN / -1`, a `step_by(0)`; on
//! the device a failed check branches to a block that stops the kernel with `trap;` (the
//! launch then fails; CUDA reports `CUDA_ERROR_ILLEGAL_INSTRUCTION`, the CPU backend a
//! `Fault` of kind `Trap`). When device assertions arrive (`__assertfail`, PTX
//! Interoperability §3), [`Lowerer::check_fails_if`] is where the message and location go.

use super::Lowerer;
use crate::ir::{Reg, Term};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Check {
    /// `s[i]` with `i >= s.len()`.
    Bounds,
    /// `&s[a..b]` with `a > b` or `b > s.len()`.
    SliceRange,
    DivideByZero,
    /// `MIN / -1` or `MIN % -1`.
    DivideOverflow,
    /// `step_by(0)`.
    ZeroStep,
}

impl Check {
    /// The message Rust's panic would carry.
    pub fn message(self) -> &'static str {
        match self {
            Check::Bounds => "index out of bounds",
            Check::SliceRange => "slice index out of range",
            Check::DivideByZero => "attempt to divide by zero",
            Check::DivideOverflow => "attempt to divide with overflow",
            Check::ZeroStep => "assertion failed: step != 0",
        }
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    /// Stops the kernel when `pred` holds.
    pub fn check_fails_if(&mut self, pred: Reg, check: Check) {
        let fail = match self.panics.get(&check) {
            Some(b) => *b,
            None => {
                let cur = self.b.current();
                let b = self.b.new_block();
                self.b.continue_in(b);
                self.b.terminate(Term::Trap);
                self.b.continue_in(cur);
                self.panics.insert(check, b);
                b
            }
        };
        let _ = check.message();
        let cont = self.b.new_block();
        self.b.terminate(Term::Branch { pred, negate: false, if_true: fail, if_false: cont });
        self.b.continue_in(cont);
    }
}
