//! The PTX writer: [`ir::Func`](crate::ir::Func) and the signature to PTX [`Text`](crate::text::Text).

pub mod dwarf;
mod divide;
mod lineinfo;
pub mod regs;
mod signature;
mod spell;
mod writer;

pub use signature::{extern_prototype, launch_directives, prototype, SigTypes};
pub use writer::{body_with_locs, labelled_scopes};
