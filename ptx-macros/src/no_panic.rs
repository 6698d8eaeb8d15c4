//! No input makes a macro panic: odd signatures, odd attribute arguments and mangled token
//! streams all come back as tokens (usually `compile_error!`s).

use crate::expand;
use proc_macro2::TokenStream;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;

const TYPES: &[&str] = &[
    "u8", "i64", "f16", "half::bf16", "char", "u128", "bool", "()", "!", "_", "(u8,)", "(f32, f32)",
    "[f32]", "[f32; 4]", "[f32; N]", "[[u8; 2]; 3]", "&str", "&&u8", "&mut [u8]", "&'a [f32]",
    "*const [u8]", "*mut *const u8", "Vec<u8>", "Option<u32>", "Box<dyn Fn()>", "dyn Send",
    "impl Fn(u8) -> u8", "fn(u8) -> u8", "<T as Tr>::X", "self::S", "super::super::S", "Self",
    "crate::m::S<u8, 3>", "S<'a>", "u32::Assoc", "f16::X", "core::primitive::u32", "r#type",
];

const ATTRS: &[&str] = &[
    "", "sm = 90", "sm = \"90a\"", "sm = 70", "sm = \"abc\"", "sm = 1.5", "sm", "sm = ", "arch = 3",
    "sm = 90, sm = 80", "sm = -1", "= 90", "(", ")", "sm = 99999999999999999999999",
];

fn expand_all(attr: &str, item: &str) {
    let (Ok(attr), Ok(item)) = (TokenStream::from_str(attr), TokenStream::from_str(item)) else {
        return;
    };
    for f in [expand::kernel, expand::device_fn] {
        let r = catch_unwind(AssertUnwindSafe(|| f(attr.clone(), item.clone())));
        assert!(r.is_ok(), "panicked on #[..({attr})] {item}");
    }
    let r = catch_unwind(AssertUnwindSafe(|| expand::derive_device_repr(item.clone())));
    assert!(r.is_ok(), "derive panicked on {item}");
}

#[test]
fn odd_signatures_and_arguments() {
    for ty in TYPES {
        for attr in ATTRS.iter().take(4) {
            expand_all(attr, &format!("pub fn k(x: {ty}) {{}}"));
            expand_all(attr, &format!("fn f(x: u8) -> {ty} {{ x }}"));
        }
        expand_all("", &format!("#[repr(C)] struct S {{ a: {ty} }}"));
        expand_all("", &format!("#[repr(C, align(3))] union U {{ a: {ty} }}"));
    }
    for attr in ATTRS {
        expand_all(attr, "fn k() {}");
    }
    for item in [
        "", "fn", "struct", "fn k(", "impl S { fn k(&self) {} }", "async unsafe extern \"C\" fn k<T>(x: T, ...) where T: Copy {}",
        "fn k((a, b): (u8, u8), S { x }: S, ref y: u8, mut z: u8, _: u8) {}", "enum E { A }",
        "#[repr(C)] struct S;", "#[repr(C)] struct S(u8, f32);", "#[repr(packed(2))] struct S { a: u8 }",
        "#[repr(align(x))] struct S { a: u8 }", "#[repr] struct S { a: u8 }", "#[repr(C, C, transparent)] struct S { a: u8 }",
        "#[no_mangle] #[unsafe(no_mangle)] fn k() {}", "fn é() {}", "fn k() { return; return }", "fn f(x: u8) -> u8 { return x }",
    ] {
        expand_all("", item);
    }
}

/// Deterministic token soup: every prefix of, and a shuffle of, valid inputs.
#[test]
fn mangled_token_streams() {
    let inputs = [
        "#[repr(C, align(16))] pub struct P<T> { pub a: [T; 3], b: *const f32 }",
        "pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) -> () { return; }",
        "pub(crate) fn f(s: super::S) -> super::S { s }",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for input in inputs {
        let words: Vec<&str> = input.split_inclusive(|c: char| " ,:;()<>[]{}".contains(c)).collect();
        for end in 0..=words.len() {
            expand_all("", &words[..end].concat());
        }
        for _ in 0..200 {
            let mut w = words.clone();
            for i in (1..w.len()).rev() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                w.swap(i, (seed % (i as u64 + 1)) as usize);
            }
            expand_all("sm = 90", &w.concat());
        }
    }
}
