//! Integer methods called before their receiver's type is known (`method::deferred_int_method`),
//! in bodies rustc itself rejects (E0689: it looks methods up in order) but whose types this
//! compiler must still find consistently: the type a later use fixes, else `i32`.

use crate::expand;
use proc_macro2::TokenStream;
use std::str::FromStr;

/// The expansion of `#[kernel]` on `body` as text.
fn expand(body: &str) -> String {
    let item = TokenStream::from_str(&format!("pub fn k(out: &mut [u64]) {{ {body} }}")).expect("tokens");
    expand::kernel(TokenStream::new(), item).to_string()
}

fn errors(text: &str) -> Vec<String> {
    text.split("compile_error").skip(1).map(|e| e.chars().take(160).collect()).collect()
}

/// A value the optimiser cannot fold: 5 or 7 by the output's length.
const X: &str = "let mut x = 5; if out.len() > 9 { x = 7; }";

#[test]
fn a_later_index_fixes_the_receiver() {
    let t = expand(&format!("{X} let y = x.wrapping_mul(x); out[x] = y as u64;"));
    assert!(errors(&t).is_empty(), "{:?}", errors(&t));
    // `x` is a `usize`: the multiplication is 64-bit.
    assert!(t.contains("mul.lo.s64") || t.contains("mul.lo.u64"), "{t}");
    assert!(!t.contains("mul.lo.s32") && !t.contains("mul.lo.u32"), "{t}");
}

#[test]
fn nothing_fixes_the_receiver_so_it_is_i32() {
    let t = expand(&format!("{X} let y = x.wrapping_mul(x); out[0] = y as u64;"));
    assert!(errors(&t).is_empty(), "{:?}", errors(&t));
    assert!(t.contains("mul.lo.s32") || t.contains("mul.lo.u32"), "{t}");
    assert!(!t.contains("mul.lo.s64") && !t.contains("mul.lo.u64"), "{t}");
}

#[test]
fn the_method_is_checked_against_the_type_found() {
    // `abs` exists only on signed types; `x` turns out a `usize`.
    let t = expand("let x = 5; let y = x.abs(); out[x] = y as u64;");
    assert!(errors(&t).iter().any(|e| e.contains("no method `abs`")), "{:?}", errors(&t));
    // The fallback `i32` has no `is_power_of_two`.
    let t = expand("let x = 5; let y = x.is_power_of_two(); out[0] = y as u64;");
    assert!(errors(&t).iter().any(|e| e.contains("no method `is_power_of_two` on `i32`")), "{:?}", errors(&t));
    // Not an integer method at all.
    let t = expand("let x = 5; let y = x.frobnicate(); out[x] = y as u64;");
    assert!(errors(&t).iter().any(|e| e.contains("no method `frobnicate` on `{integer}`")), "{:?}", errors(&t));
}

#[test]
fn unsigned_results_follow_the_receiver() {
    // `unsigned_abs` of what becomes an `i64` is a `u64`: its later `pow` is 64-bit unsigned.
    let t = expand("let x = -5; let u = x.unsigned_abs(); let v = u.pow(3); let w: i64 = x; out[0] = v ^ (w as u64);");
    assert!(errors(&t).is_empty(), "{:?}", errors(&t));
    // Nothing fixes `x`: `i32`, so `unsigned_abs` is a `u32`, which `out[0] = v` rejects.
    let t = expand("let x = -5; let v = x.unsigned_abs(); out[0] = v;");
    assert!(errors(&t).iter().any(|e| e.contains("mismatched types: `unsigned_abs` of `i32` is `u32`")), "{:?}", errors(&t));
}
