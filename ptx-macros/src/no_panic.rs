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
    let r = catch_unwind(AssertUnwindSafe(|| expand::bitfields(attr.clone(), item.clone())));
    assert!(r.is_ok(), "bitfields panicked on #[bitfields({attr})] {item}");
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
        for bits in ["0", "1", "8", "63", "64", "65", "4294967295", "99999999999", "x", "-1", ""] {
            expand_all("", &format!("#[repr(C)] struct S {{ c: u8, #[bits({bits})] a: {ty}, #[bits({bits})] _b: {ty}, d: {ty} }}"));
            expand_all("", &format!("#[repr(C)] union U {{ #[bits({bits})] a: {ty}, c: {ty} }}"));
            // The derive written above `#[bitfields]` sees this.
            expand_all("", &format!("#[ptx_runtime::bitfields] #[repr(C, align(2))] struct S {{ #[bits({bits})] a: {ty}, d: {ty} }}"));
        }
        expand_all("", &format!("#[repr(C)] struct S {{ #[bits(3)] r#type: u8, a: [{ty}; 18446744073709551615] }}"));
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

/// Statements of every kind the body compiler meets, well-formed or not.
const STATEMENTS: &[&str] = &[
    // `matches!` of a struct literal with `..` for a pattern: desugared to a `match` that did not
    // parse, a panic (fuzz seed 1795980482129614270).
    "let m = matches!(c {}, ..);",
    "let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;",
    "let mut acc = 0.0f32;",
    "let v: u8 = 300;",
    "let w = -1i64 as u32;",
    "let x;",
    "x = 5;",
    "let (a, b) = (1u32, 2.0f32);",
    "let [p, q] = [1u8, 2];",
    "let S { a, .. } = s;",
    "acc += 1.0;",
    "acc = acc * 2.0 + 1.0;",
    "if acc > 3.0 { acc = 0.0; } else if acc < -1.0 { return; }",
    "while acc < 10.0 { acc += 1.5; if acc == 4.5 { break; } }",
    "'outer: loop { loop { break 'outer; } }",
    "let r = loop { break 7u32; };",
    "for k in (0..10).rev().step_by(3) { acc += k as f32; }",
    "for k in 0..=255u8 { let _ = k; }",
    "for _ in 0..4 { continue; }",
    "let m = match i { 0 => 1, 1..=5 => 2, n if n > 100 => 3, _ => 4 };",
    "let t = unsafe { shared_array::<f32, 32>() };",
    "let mut t = unsafe { shared_array::<f32, { N * 2 }>() };",
    "let d = unsafe { dynamic_shared::<u64>() };",
    "sync_threads();",
    "let s = shfl_down_sync(u32::MAX, acc, 1);",
    "let b = ballot_sync(0xffffffff, acc > 0.0);",
    "out[i] = acc;",
    "out[i] = x[i].sqrt().mul_add(2.0, 1.0).exp();",
    "let sub = &x[1..i];",
    "let p = x.as_ptr();",
    "unsafe { *out.get_unchecked_mut(0) = *p.add(1); }",
    "let h = f16::from_f32(acc);",
    "let z = x[i] as i8 as f64 as u16;",
    "let c = 'c';",
    "let s = \"str\";",
    "let f = |a: u32| a;",
    "let v = vec![1];",
    "println!(\"{}\", 1);",
    "ptx_asm!(\"mov.u32 {0}, 1;\", out(u32) r);",
    "ptx_asm!(\"bad {9}\");",
    "ptx_asm!(in(u32) 1);",
    "helper(1, 2);",
    "let q = m::f(acc);",
    "let y = Foo { a: 1, b: [2; 3] };",
    "let t = Tuple(1, 2.0);",
    "let n = N as u32;",
    "let k = N + 1;",
    "let e = i32::MAX.wrapping_add(1).pow(3).leading_zeros();",
    "let g = f32::consts::PI.sin();",
    "let u = (1, (2, 3)).1 .0;",
    "return;",
    "break;",
    "continue;",
    "let _ = async {};",
    "x?;",
    "if let Some(v) = o {}",
    "let a: [f32; 4] = [0.0; 4]; let j = a[i];",
    "let a = [0u32; 100000];",
    "out[i] = out[i] / 0;",
    "let w = 1u32 << 40;",
    "let q = &mut acc;",
    "fn nested() {}",
    "use core::mem;",
    "const K: u32 = 3; let kk = [0u8; K];",
    "let big: u128 = 1;",
    "match acc { _ => {} }",
    "let o = x.iter().sum::<f32>();",
    "let bad = 1 + ;",
    "printf!(\"%d %f %s %p %lu\\n\", o, acc, \"s\", p, i);",
    "printf!(\"%d\\n\");",
    "printf!(\"%Lf %n %\", acc);",
    "printf!(fmt, 1);",
    "printf!();",
    "assert!(acc > 0.0);",
    "assert!(acc > 0.0, \"msg {{}}\");",
    "assert!(acc > 0.0, \"x = {}\", acc);",
    "assert_eq!(o, 3, \"same\");",
    "assert_ne!(x.as_ptr(), p);",
    "assert_eq!(s, s);",
    "debug_assert!(o < 2);",
    "panic!();",
    "unreachable!(\"never\");",
    "todo!(1);",
    "let pm = malloc::<f32>(4); unsafe { free(pm) };",
    "let pm = malloc::<S>(o as usize);",
    "let pm = malloc(4);",
    "unsafe { atomic::fetch_add(&mut out[0], 1.0, Ordering::Relaxed, Scope::Device) };",
    "let old = unsafe { atomic::compare_exchange(&mut out[0], 0.0, 1.0, Ordering::AcqRel, Ordering::Release, Scope::Block) };",
    "let pb = malloc::<i16>(4); let v16 = unsafe { atomic::fetch_max(pb, 3, Ordering::SeqCst, Scope::System) };",
    "atomic::fence(Ordering::Relaxed, Scope::Device);",
    "atomic::fence(order, Scope::Device);",
    "let ld = unsafe { atomic::load(x.as_ptr(), Ordering::Release, Scope::Block) };",
    "unsafe { atomic::store(&mut out[1], acc, Ordering::SeqCst) };",
];

/// What the fetch chain would have found for the names the statements use: the device API,
/// device functions and structs.
const FOUND: &str = "([thread_idx_x] { @api thread_idx_x }) ([block_idx_x] { @api block_idx_x }) \
    ([block_dim_x] { @api block_dim_x }) ([shared_array] { @api shared_array }) \
    ([dynamic_shared] { @api dynamic_shared }) ([sync_threads] { @api sync_threads }) \
    ([shfl_down_sync] { @api shfl_down_sync }) ([ballot_sync] { @api ballot_sync }) \
    ([helper] { @fn helper ([u32] [u32]) [] }) ([m::f] { @fn f ([f32]) [S] }) \
    ([Foo] { @struct Foo named 0 { a [u32] b [[u8; 3]] } }) ([Tuple] { @struct Tuple tuple 0 { 0 [u8] 1 [f64] } }) \
    ([S] { @struct S named 16 { a [f32] inner [Foo] p [*mut S] } }) \
    ([malloc] { @api malloc }) ([free] { @api free }) ([atomic::fetch_add] { @api atomic_fetch_add }) \
    ([atomic::compare_exchange] { @api atomic_compare_exchange }) ([atomic::fetch_max] { @api atomic_fetch_max }) \
    ([atomic::fence] { @api atomic_fence }) ([atomic::load] { @api atomic_load }) ([atomic::store] { @api atomic_store })";

/// A compile round with `FOUND` known, so bodies reach the lowering and the writer. Returns
/// how many of the two kinds compiled to PTX.
fn compile_all(item: &str) -> usize {
    let (Ok(item), Ok(found)) = (TokenStream::from_str(item), TokenStream::from_str(FOUND)) else { return 0 };
    let mut compiled = 0;
    for kind in ["kernel", "device_fn"] {
        let kind = proc_macro2::Ident::new(kind, proc_macro2::Span::call_site());
        let input = quote::quote!({ @#kind () #item } { #found });
        let r = catch_unwind(AssertUnwindSafe(|| expand::compile(input.clone())));
        match r {
            Ok(out) => {
                if std::env::var_os("PTX_NO_PANIC_DEBUG").is_some() {
                    eprintln!("{out}");
                }
                compiled += out.to_string().contains("ptx_text") as usize
            }
            Err(_) => panic!("panicked compiling {item}"),
        }
    }
    compiled
}

/// Bodies made of those statements never panic the compiler (in any order, any number), with
/// and without what fetches would find.
#[test]
fn odd_bodies() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut compiled = 0;
    for s in STATEMENTS {
        let item = format!("pub fn k(x: &[f32], out: &mut [f32], o: u32, s: S) {{ {s} }}");
        expand_all("", &item);
        compiled += compile_all(&item);
    }
    // Most single statements are in the subset: the lowering and the writer ran on them.
    assert!(compiled > STATEMENTS.len() / 2, "{compiled}");
    for _ in 0..600 {
        let n = (next() % 6) as usize + 1;
        let body: Vec<&str> = (0..n).map(|_| STATEMENTS[(next() % STATEMENTS.len() as u64) as usize]).collect();
        let sig = ["pub fn k(x: &[f32], out: &mut [f32], s: S)", "fn f(a: u32, b: f64) -> u32", "fn g(p: *mut f32, n: usize) -> S"][(next() % 3) as usize];
        let item = format!("{sig} {{ {} }}", body.join(" "));
        expand_all("", &item);
        compile_all(&item);
    }
}

/// Every prefix and many shuffles of the tokens of a real kernel never panic the compiler.
#[test]
fn mangled_kernel_bodies() {
    let kernel = "pub fn dot(x: &[f32], y: &[f32], partial: &mut [f32]) { let mut cache = unsafe { shared_array::<f32, 256>() }; \
        let tid = thread_idx_x() as usize; let mut i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize; let mut sum = 0.0f32; \
        while i < x.len() { sum += x[i] * y[i]; i += 256; } cache[tid] = sum; sync_threads(); let mut s = 128; \
        while s > 0 { if tid < s { cache[tid] = cache[tid] + cache[tid + s]; } sync_threads(); s /= 2; } \
        if tid == 0 { partial[block_idx_x() as usize] = cache[0]; } for k in (0..4).rev() { let _ = k; } \
        let t = match tid { 0 => 1, 1..=3 => 2, _ => 3 }; let (a, b) = (t, 2u8); }";
    let tokens = TokenStream::from_str(kernel).map(flatten).unwrap_or_default();
    assert!(tokens.len() > 200);
    assert_eq!(compile_all(&join(&tokens)), 2, "the kernel itself compiles");
    for end in 0..tokens.len() {
        compile_all(&join(&tokens[..end]));
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut t = tokens.clone();
        for _ in 0..3 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (a, b) = ((seed % t.len() as u64) as usize, ((seed >> 20) % t.len() as u64) as usize);
            t.swap(a, b);
        }
        let item = join(&t);
        expand_all("", &item);
        compile_all(&item);
    }
}

/// The tokens as text, delimiters as separate tokens (so prefixes and shuffles unbalance them).
fn flatten(ts: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for t in ts {
        match t {
            proc_macro2::TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push(open.to_owned());
                out.extend(flatten(g.stream()));
                out.push(close.to_owned());
            }
            // A joint punctuation mark glues to the next one (`::`, `+=`, `..=`).
            proc_macro2::TokenTree::Punct(p) if p.spacing() == proc_macro2::Spacing::Joint => out.push(format!("{}\u{0}", p.as_char())),
            t => out.push(t.to_string()),
        }
    }
    out
}

/// Joins flattened tokens, gluing joint punctuation.
fn join(tokens: &[String]) -> String {
    let mut s = String::new();
    for t in tokens {
        match t.strip_suffix('\u{0}') {
            Some(glued) => s.push_str(glued),
            None => {
                s.push_str(t);
                s.push(' ');
            }
        }
    }
    s
}
