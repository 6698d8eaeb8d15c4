//! The expansion contract: what `#[kernel]` and `#[device_fn]` give the code around them.

use crate::tools::assemble;
use ptx_runtime::{device_fn, kernel};

#[kernel]
pub fn empty() {}

mod a {
    #[ptx_runtime::kernel]
    pub fn same_name() {}
}
mod b {
    #[ptx_runtime::kernel]
    pub fn same_name() {}
}

#[kernel]
#[no_mangle]
pub fn plain_name() {}

#[kernel(sm = 90)]
pub fn hopper() {}

#[device_fn]
pub fn echo(x: u32) -> u32 {
    x
}

#[test]
fn kernel_module_is_complete() {
    let ptx = empty::PTX;
    assert!(ptx.starts_with(".version 6.3\n.target sm_75\n.address_size 64\n"), "{ptx}");
    assert!(ptx.contains(&format!(".visible .entry {}()", empty::ENTRY)));
    assemble("empty", ptx);
}

#[test]
fn same_names_in_different_modules_get_different_symbols() {
    assert_ne!(a::same_name::ENTRY, b::same_name::ENTRY);
    assert_eq!(a::same_name::ENTRY, "_ZN5suite9expansion1a9same_nameE");
    assemble("a::same_name", a::same_name::PTX);
    assemble("b::same_name", b::same_name::PTX);
}

#[test]
fn no_mangle_keeps_the_plain_name() {
    assert_eq!(plain_name::ENTRY, "plain_name");
    assert!(plain_name::PTX.contains(".visible .entry plain_name()"));
    assemble("plain_name", plain_name::PTX);
}

#[test]
fn target_selects_the_lowest_isa_that_has_it() {
    assert!(hopper::PTX.starts_with(".version 7.8\n.target sm_90\n"), "{}", hopper::PTX);
    assemble("hopper", hopper::PTX);
}

#[test]
fn device_fn_stays_callable_on_the_host_and_has_a_module() {
    assert_eq!(echo(7), 7);
    assert!(echo::PTX.contains(&format!(".visible .func (.param .b32 func_retval0) {}(", echo::SYMBOL)));
    assemble("echo", echo::PTX);
}
