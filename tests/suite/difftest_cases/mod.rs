//! Regression tests written by the differential tester (`cargo xtask difftest --minimize`):
//! each file is one minimised kernel that once failed, launched on the CPU backend and
//! compared with the outcome its body had on the host; its PTX goes through ptxas.
//! docs/testing.md, "The differential tester", says how they are made.

#[path = "../../../xtask/src/difftest/support.rs"]
pub mod support;

mod s12_k14;
mod s12_k0;
mod s20261125_k352;
mod s20261202_k27;
mod s20261204_k30;
