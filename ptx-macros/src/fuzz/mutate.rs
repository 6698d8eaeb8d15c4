//! Token-level mutations of an item.
//!
//! An item is a tree of tokens ([`Tok`]): leaves (identifiers, literals, punctuation) and
//! delimited groups. A mutation picks a node by its path in the tree and deletes, duplicates,
//! swaps, replaces, wraps, unwraps or splices it. Replacements come from pools of what the
//! compiler has rules about (types, methods, keywords, device API names, boundary literals,
//! operators) plus every identifier and literal of the seeds, so mutants stay close to code
//! someone could write.

use super::rng::Rng;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use std::str::FromStr;

/// A token tree that can be edited in place.
#[derive(Clone)]
pub enum Tok {
    Leaf(TokenTree),
    Group(Delimiter, Vec<Tok>),
}

pub fn tree(ts: TokenStream) -> Vec<Tok> {
    ts.into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => Tok::Group(g.delimiter(), tree(g.stream())),
            t => Tok::Leaf(t),
        })
        .collect()
}

pub fn stream(toks: &[Tok]) -> TokenStream {
    toks.iter()
        .map(|t| match t {
            Tok::Leaf(t) => t.clone(),
            Tok::Group(d, inner) => TokenTree::Group(Group::new(*d, stream(inner))),
        })
        .collect()
}

/// Tokens parsed from text (pool entries are all valid token streams).
pub fn toks(s: &str) -> Vec<Tok> {
    tree(TokenStream::from_str(s).expect("pool entries are valid tokens"))
}

/// Path of indices from the root list to a node.
type Path = Vec<usize>;

/// Every node's path, in pre-order.
fn paths(toks: &[Tok], prefix: &mut Path, out: &mut Vec<Path>) {
    for (i, t) in toks.iter().enumerate() {
        prefix.push(i);
        out.push(prefix.clone());
        if let Tok::Group(_, inner) = t {
            paths(inner, prefix, out);
        }
        prefix.pop();
    }
}

pub fn all_paths(toks: &[Tok]) -> Vec<Path> {
    let mut out = Vec::new();
    paths(toks, &mut Vec::new(), &mut out);
    out
}

/// The list that holds the node at `path`.
fn list_mut<'a>(root: &'a mut Vec<Tok>, path: &[usize]) -> &'a mut Vec<Tok> {
    let mut list = root;
    for &i in &path[..path.len() - 1] {
        list = match &mut list[i] {
            Tok::Group(_, inner) => inner,
            Tok::Leaf(_) => unreachable!("paths only descend into groups"),
        };
    }
    list
}

fn node<'a>(root: &'a [Tok], path: &[usize]) -> &'a Tok {
    let mut list = root;
    for &i in &path[..path.len() - 1] {
        list = match &list[i] {
            Tok::Group(_, inner) => inner,
            Tok::Leaf(_) => unreachable!("paths only descend into groups"),
        };
    }
    &list[path[path.len() - 1]]
}

/// Removes the node at `path` (with its subtree).
pub fn delete(root: &mut Vec<Tok>, path: &[usize]) {
    list_mut(root, path).remove(path[path.len() - 1]);
}

/// Replaces the node at `path` by its group's contents (nothing happens to a leaf).
pub fn unwrap(root: &mut Vec<Tok>, path: &[usize]) {
    let list = list_mut(root, path);
    let i = path[path.len() - 1];
    if let Tok::Group(_, inner) = list[i].clone() {
        list.splice(i..=i, inner);
    }
}

/// What the replacement pools hold.
pub struct Pools {
    pub idents: Vec<Vec<Tok>>,
    pub literals: Vec<Vec<Tok>>,
    pub puncts: Vec<Vec<Tok>>,
    pub fragments: Vec<Vec<Tok>>,
    /// Every node of every seed, for splicing.
    pub subtrees: Vec<Tok>,
}

const IDENTS: &[&str] = &[
    // Types.
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f16", "bf16", "f32",
    "f64", "bool", "char", "str", "Self", "S", "T", "Option", "Vec", "Box", "PhantomData",
    // Keywords and near-keywords.
    "self", "super", "crate", "let", "mut", "fn", "if", "else", "match", "loop", "while", "for", "in", "break",
    "continue", "return", "as", "unsafe", "ref", "move", "const", "static", "pub", "struct", "union", "enum",
    "impl", "where", "dyn", "async", "await", "true", "false", "_", "r#type", "kernel", "device_fn",
    "DeviceRepr", "repr", "align", "packed", "transparent", "C", "no_mangle", "sm", "derive", "inline",
    // Methods.
    "wrapping_add", "wrapping_sub", "wrapping_mul", "wrapping_neg", "wrapping_shl", "checked_add", "checked_div",
    "saturating_sub", "saturating_mul", "overflowing_add", "pow", "abs", "unsigned_abs", "min", "max", "clamp",
    "sqrt", "mul_add", "exp", "ln", "sin", "powi", "powf", "floor", "leading_zeros", "trailing_zeros",
    "count_ones", "rotate_left", "swap_bytes", "reverse_bits", "div_euclid", "rem_euclid", "to_bits",
    "from_bits", "is_nan", "is_multiple_of", "signum", "len", "iter", "rev", "step_by", "get_unchecked",
    "get_unchecked_mut", "as_ptr", "as_mut_ptr", "add", "offset", "read", "write", "is_null", "unwrap",
    "from_f32", "to_f32", "into", "from", "cast", "MAX", "MIN", "BITS", "EPSILON", "NAN", "INFINITY",
    "peekable", "peek", "next", "next_if", "next_if_eq", "max_by", "From",
    // Device API.
    "thread_idx_x", "block_idx_y", "block_dim_x", "grid_dim_z", "lane_id", "warp_size", "sync_threads",
    "sync_threads_count", "sync_warp", "shfl_down_sync", "shfl_xor_sync", "ballot_sync", "all_sync",
    "active_mask", "thread_fence", "nanosleep", "trap", "shared_array", "dynamic_shared", "malloc", "free",
    "atomic", "fetch_add", "fetch_max", "compare_exchange", "load", "store", "fence", "Ordering", "Relaxed",
    "SeqCst", "AcqRel", "Scope", "Block", "Device", "System", "fast", "clock64", "printf", "ptx_asm",
    "assert", "assert_eq", "panic", "unreachable", "WARP_SIZE",
];

const LITERALS: &[&str] = &[
    "0", "1", "2", "3", "7", "8", "31", "32", "33", "63", "64", "65", "-1", "127i8", "-128i8", "128i8", "-129i8",
    "255u8", "256u8", "0u8", "1u8", "-1u8", "32767i16", "-32768i16", "65535u16", "65536u16", "2147483647i32",
    "-2147483648i32", "2147483648i32", "4294967295u32", "4294967296u32", "9223372036854775807i64",
    "-9223372036854775808i64", "18446744073709551615u64", "18446744073709551616",
    "340282366920938463463374607431768211455u128", "-170141183460469231731687303715884105728i128", "1u128",
    "1i128", "1usize", "1isize", "0x7f", "0xffu8", "0b1010", "0o17", "1_000", "1u7", "1i256", "1e39f32",
    "3.4028235e38f32", "1e-45f32", "1e308", "1e309", "1e-400f64", "1.0", "0.0", "-0.0", "1f32", "1f64",
    "1.5f16", "2.5", "0.1", "1.0e10", "1_f32", "0e0", "'a'", "'\\u{10ffff}'", "'\\0'", "\"s\"", "\"%d\\n\"",
    "\"%s %f %lu\\n\"", "\"\"", "\"{}\"", "b'a'", "b\"bytes\"", "true", "false", "1.0f32", "100000",
    "1000000000",
];

const PUNCTS: &[&str] = &[
    "+", "-", "*", "/", "%", "^", "!", "&", "|", "&&", "||", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "^=",
    "&=", "|=", "<<=", ">>=", "=", "==", "!=", ">", "<", ">=", "<=", "@", ".", "..", "...", "..=", ",", ";",
    ":", "::", "->", "=>", "#", "$", "?", "~", "'a",
];

const FRAGMENTS: &[&str] = &[
    "as u8", "as i8", "as i64", "as f32", "as usize", "as bool", ".wrapping_add(1)", ".pow(3)", ".abs()",
    ".sqrt()", ".len()", "-", "!", "&", "*", "&mut", "unsafe", "mut", "return", "break", "continue", ";",
    ",", "..", "?", ".0", ".1", "[0]", "[i]", "[1..]", "(1)", "()", "{}", "[]", "let x = 1;", "let mut y = 0u32;",
    "loop {}", "loop { break; }", "if true {} else {}", "'a:", "break 'a", "where T: Copy", "<T>", "::<u8>",
    "::<f32, 4>", "u32::MAX", "i8::MIN", "f32::NAN", "f64::INFINITY", "(1, 2.0)", "[0u8; 4]", "[1, 2, 3]",
    "S { a: 1 }", "match 0 { _ => {} }", "while false {}", "for k in 0..4 {}", "return 1;", "sync_threads();",
    "thread_idx_x()", "unsafe { shared_array::<f32, 32>() }", "x = x;", "#[inline]", "#[repr(C)]",
    "#[repr(align(8))]", "#[kernel]", "#[device_fn]", "#[derive(DeviceRepr)]", "pub", "const N: u32 = 3;",
    "|a| a", "&x[..]", "*p", "p.add(1)", "x as *const u8", "core::ptr::null_mut()", "true && false",
];

impl Pools {
    /// The fixed pools plus the identifiers, literals and nodes of `seeds`.
    pub fn new(seeds: &[Vec<Tok>]) -> Pools {
        let parse = |list: &[&str]| list.iter().map(|s| toks(s)).collect::<Vec<_>>();
        let mut pools = Pools {
            idents: parse(IDENTS),
            literals: parse(LITERALS),
            puncts: parse(PUNCTS),
            fragments: parse(FRAGMENTS),
            subtrees: Vec::new(),
        };
        let mut seen = std::collections::HashSet::new();
        for seed in seeds {
            for p in all_paths(seed) {
                let n = node(seed, &p);
                if let Tok::Leaf(leaf) = n {
                    let text = leaf.to_string();
                    if seen.insert(text) {
                        match leaf {
                            TokenTree::Ident(_) => pools.idents.push(vec![n.clone()]),
                            TokenTree::Literal(_) => pools.literals.push(vec![n.clone()]),
                            _ => {}
                        }
                    }
                }
                pools.subtrees.push(n.clone());
            }
        }
        pools
    }
}

fn pick<'a, T>(rng: &mut Rng, v: &'a [T]) -> &'a T {
    &v[rng.below(v.len())]
}

fn is_leaf(t: &Tok, f: fn(&TokenTree) -> bool) -> bool {
    matches!(t, Tok::Leaf(l) if f(l))
}

/// Applies one random mutation to `root`. Returns `false` when the chosen one did not apply
/// (no node of the kind it needs).
pub fn mutate(root: &mut Vec<Tok>, pools: &Pools, rng: &mut Rng) -> bool {
    let all = all_paths(root);
    if all.is_empty() {
        root.push(pick(rng, &pools.subtrees).clone());
        return true;
    }
    let some = |rng: &mut Rng, f: &dyn Fn(&Tok) -> bool| -> Option<Path> {
        let matching: Vec<&Path> = all.iter().filter(|p| f(node(root, p))).collect();
        (!matching.is_empty()).then(|| pick(rng, &matching).to_vec())
    };
    let any = pick(rng, &all).clone();
    let i = any[any.len() - 1];
    match rng.below(12) {
        0 => delete(root, &any),
        1 => {
            let n = node(root, &any).clone();
            list_mut(root, &any).insert(i, n);
        }
        2 => {
            // Swap with a sibling.
            let list = list_mut(root, &any);
            let j = rng.below(list.len());
            list.swap(i, j);
        }
        3 => {
            // Swap two nodes anywhere (neither inside the other).
            let other = pick(rng, &all).clone();
            if any.starts_with(&other) || other.starts_with(&any) {
                return false;
            }
            let (a, b) = (node(root, &any).clone(), node(root, &other).clone());
            list_mut(root, &any)[i] = b;
            list_mut(root, &other)[other[other.len() - 1]] = a;
        }
        4 | 5 => {
            let Some(p) = some(rng, &|t| is_leaf(t, |l| matches!(l, TokenTree::Ident(_)))) else { return false };
            let with = pick(rng, &pools.idents).clone();
            replace(root, &p, with);
        }
        6 => {
            let Some(p) = some(rng, &|t| is_leaf(t, |l| matches!(l, TokenTree::Literal(_)))) else { return false };
            let with = pick(rng, &pools.literals).clone();
            replace(root, &p, with);
        }
        7 => {
            let Some(p) = some(rng, &|t| is_leaf(t, |l| matches!(l, TokenTree::Punct(_)))) else { return false };
            let with = pick(rng, &pools.puncts).clone();
            replace(root, &p, with);
        }
        8 => {
            // Wrap one to three siblings in a group, or unwrap or re-delimit a group.
            match rng.below(3) {
                0 => {
                    let list = list_mut(root, &any);
                    let end = (i + 1 + rng.below(3)).min(list.len());
                    let inner: Vec<Tok> = list.drain(i..end).collect();
                    list.insert(i, Tok::Group(delimiter(rng), inner));
                }
                1 => {
                    let Some(p) = some(rng, &|t| matches!(t, Tok::Group(..))) else { return false };
                    unwrap(root, &p);
                }
                _ => {
                    let Some(p) = some(rng, &|t| matches!(t, Tok::Group(..))) else { return false };
                    let d = delimiter(rng);
                    if let Tok::Group(old, _) = &mut list_mut(root, &p)[p[p.len() - 1]] {
                        *old = d;
                    }
                }
            }
        }
        9 | 10 => {
            // Splice a node of another seed in place of this one, or before it.
            let n = pick(rng, &pools.subtrees).clone();
            let list = list_mut(root, &any);
            if rng.below(2) == 0 {
                list[i] = n;
            } else {
                list.insert(i, n);
            }
        }
        _ => {
            let frag = pick(rng, &pools.fragments).clone();
            let list = list_mut(root, &any);
            let at = i + rng.below(2);
            list.splice(at..at, frag);
        }
    }
    true
}

fn replace(root: &mut Vec<Tok>, path: &[usize], with: Vec<Tok>) {
    let i = path[path.len() - 1];
    list_mut(root, path).splice(i..=i, with);
}

fn delimiter(rng: &mut Rng) -> Delimiter {
    // Not `Delimiter::None`: it prints as nothing, and a failure's text must replay it.
    [Delimiter::Parenthesis, Delimiter::Brace, Delimiter::Bracket][rng.below(3)]
}
