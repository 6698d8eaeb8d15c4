//! Inputs the fuzzer found failing, minimised (the fixes are in the commits that added them).

pub const FOUND: &[&str] = &[];
