//! Back ends. PTX is the only one.

pub mod ptx;
