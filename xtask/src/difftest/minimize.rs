//! Delta debugging over a failing kernel's statements: statements are removed while the
//! kernel still fails the same way, several candidates per build (each candidate is a copy
//! of the kernel under another index in one batch). The result is written as a regression
//! test in `tests/suite/difftest_cases/`, which launches the kernel on the CPU backend,
//! assembles its PTX, and compares with the outcome the host had in the batch (overflow
//! checks off, as the device computes; the suite's own profile checks overflow, so the test
//! cannot rerun the body on the host).
//!
//! Lines marked `keep` (loop counters) are never removed, so every candidate terminates.
//! A candidate that rustc rejects (a removed `let` still used) just does not reproduce.

use super::batch::{Batch, Output, Verdict};
use super::gen::{self, render, Kernel, Stmt};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Candidates are renamed from this index up, clear of any real kernel's.
const CANDIDATES: u64 = 900_000;
const MAX_ROUNDS: usize = 16;
const PER_BUILD: usize = 64;

/// Minimises kernel `index` of `seed`, which failed with `v`; the path of the test written.
pub fn minimize(root: &Path, ptxas: Option<&Path>, seed: u64, index: u64, skip: &[String], v: &Verdict) -> Result<PathBuf, String> {
    if matches!(v, Verdict::Hang | Verdict::GeneratorBug(_)) {
        return Err(format!("{} is not minimised", v.word()));
    }
    let original = gen::kernel(seed, index, skip);
    // Its own target directory: not blocked by a long run building in the shared one.
    let batch = Batch::new(root, &format!("min-s{seed}-{index}"), 99);
    let mut removed: BTreeSet<usize> = BTreeSet::new();
    let mut promising: BTreeSet<usize> = BTreeSet::new();
    for _round in 0..MAX_ROUNDS {
        let live = live_ids(&original.body, &removed);
        let mut sets: Vec<BTreeSet<usize>> = Vec::new();
        if promising.len() > 1 {
            sets.push(removed.union(&promising).cloned().collect());
        }
        for id in live.iter().take(PER_BUILD) {
            let mut s = removed.clone();
            s.insert(*id);
            sets.push(s);
        }
        if sets.is_empty() {
            break;
        }
        let kernels: Vec<Kernel> = sets.iter().enumerate().map(|(j, s)| variant(&original, s, CANDIDATES + j as u64)).collect();
        let verdicts = if let Verdict::Rejected(_) = v { batch.rejections(root, &kernels)? } else { batch.run(root, &kernels, ptxas)?.verdicts };
        let fails = |j: usize| verdicts.get(&(CANDIDATES + j as u64)).is_some_and(|c| same_failure(v, c));
        let good: Vec<usize> = (0..sets.len()).filter(|&j| fails(j)).collect();
        if good.is_empty() {
            break;
        }
        // The candidate that removes the most, and what the single removals that kept the
        // failure suggest for the next round.
        let best = *good.iter().max_by_key(|&&j| sets[j].len()).expect("non-empty");
        promising = good.iter().flat_map(|&j| sets[j].difference(&removed).cloned().collect::<Vec<_>>()).collect();
        removed = sets[best].clone();
        promising.retain(|x| !removed.contains(x));
    }
    // The final kernel, run once more under its own index for the test's expectations.
    let last = variant(&original, &removed, index);
    let out = batch.run(root, std::slice::from_ref(&last), ptxas)?;
    let got = out.verdicts.get(&index).cloned().unwrap_or(Verdict::Ok);
    if !same_failure(v, &got) {
        return Err(format!("the minimised kernel no longer fails ({})", got.word()));
    }
    let path = root.join("tests/suite/difftest_cases").join(format!("s{seed}_k{index}.rs"));
    std::fs::write(&path, regression_test(&last, seed, &got, &out)).map_err(|e| e.to_string())?;
    // A kernel our macro rejects would stop the whole suite from building: its test waits,
    // commented out, for the fix.
    register(root, &format!("s{seed}_k{index}"), matches!(got, Verdict::Rejected(_)))?;
    batch.remove();
    Ok(path)
}

/// Whether candidate verdict `c` is still the failure `v`. A rejection must be the same
/// message: removing a `let` makes the macro reject the use of the name, a different error.
fn same_failure(v: &Verdict, c: &Verdict) -> bool {
    let first = |s: &str| s.lines().next().unwrap_or("").to_owned();
    match (v, c) {
        (Verdict::Rejected(a), Verdict::Rejected(b)) => first(a) == first(b),
        _ => v.word() == c.word(),
    }
}

/// Pre-order ids of the statements that may be removed (not `keep`, not inside a removed one).
fn live_ids(body: &[Stmt], removed: &BTreeSet<usize>) -> Vec<usize> {
    fn walk(body: &[Stmt], removed: &BTreeSet<usize>, next: &mut usize, out: &mut Vec<usize>, dead: bool) {
        for s in body {
            let id = *next;
            *next += 1;
            let gone = dead || removed.contains(&id);
            let keep = matches!(s, Stmt::Line { keep: true, .. } | Stmt::Block { keep: true, .. });
            if !gone && !keep {
                out.push(id);
            }
            if let Stmt::Block { parts, .. } = s {
                for (b, _) in parts {
                    walk(b, removed, next, out, gone);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(body, removed, &mut 0, &mut out, false);
    // Larger statements first: removing a block removes most.
    out
}

/// The kernel without the statements in `removed`, under index `index`.
fn variant(k: &Kernel, removed: &BTreeSet<usize>, index: u64) -> Kernel {
    fn filter(body: &[Stmt], removed: &BTreeSet<usize>, next: &mut usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in body {
            let id = *next;
            *next += 1;
            let s2 = match s {
                Stmt::Line { .. } => s.clone(),
                Stmt::Block { head, parts, keep } => Stmt::Block { head: head.clone(), parts: parts.iter().map(|(b, c)| (filter(b, removed, next), c.clone())).collect(), keep: *keep },
            };
            if !removed.contains(&id) {
                out.push(s2);
            }
        }
        out
    }
    let mut v = k.clone();
    v.index = index;
    v.body = filter(&k.body, removed, &mut 0);
    // Helpers no statement calls any more go too (a helper calls no other helper).
    let mut text = Vec::new();
    render::stmts(&v.body, 0, &mut text);
    let text = text.join("\n");
    v.helpers.retain(|h| text.contains(&format!("{}(", h.name)));
    v
}

/// The test file: the kernel's module, the device half of its runner, and the host's
/// outcome from the batch as the expectation.
fn regression_test(k: &Kernel, seed: u64, v: &Verdict, out: &Output) -> String {
    let i = k.index;
    let host = out.host.get(&i).cloned().unwrap_or_default();
    let module = render::kernel_module(k);
    let expected = match host.split_once(' ') {
        Some(("values", vals)) => format!("Outcome::Values(vec![{}])", vals.split(',').map(|x| format!("{x}u64")).collect::<Vec<_>>().join(", ")),
        Some(("trap", rest)) => {
            let (line, file) = rest.split_once(' ').unwrap_or((rest, ""));
            let line: u32 = line.parse().unwrap_or(0);
            let start = out.starts.get(&i).copied().unwrap_or(0);
            if file.starts_with("src/") {
                format!("Outcome::Trap {{ file: file!().to_owned(), line: line_of(\"pub mod m{i} {{\") + {}, message: String::new() }}", line - start)
            } else {
                format!("Outcome::Trap {{ file: {file:?}.to_owned(), line: {line}, message: String::new() }}")
            }
        }
        // A rejected kernel never ran on the host: its test checks that it compiles, assembles
        // and runs; the tester compares its values.
        _ => "Outcome::Error(\"not recorded: #[kernel] rejected this kernel when it was found\".into())".into(),
    };
    let pass = if host.is_empty() { "verdict.starts_with(\"ok\") || verdict.starts_with(\"device-error host: not recorded\")" } else { "verdict.starts_with(\"ok\")" };
    let mut runner = render::runner(k, &format!("m{i}"));
    // Keep the inputs and the launch; the host's outcome is the expectation.
    runner.retain(|l| !l.contains("let host = on_host"));
    let mut s = format!(
        "//! Found by `cargo xtask difftest --replay {seed}:{i}` ({}: {}), minimised.\n\
         {}\n\n\
         #![allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]\n\n\
         use super::support::*;\nuse ptx_runtime::{{DeviceBuffer, LaunchConfig, Stream}};\n\n",
        v.word(),
        v.detail().lines().next().unwrap_or("").chars().take(200).collect::<String>(),
        if host.is_empty() {
            "//! It was rejected, so it never ran on the host: the test checks that it compiles, assembles\n//! and runs; `cargo xtask difftest --replay` compares its values."
        } else {
            "//! The expectation is the host's outcome for the same body built with overflow checks off\n//! (as the device computes), recorded by the tester."
        }
    );
    for l in module {
        s += &l;
        s.push('\n');
    }
    s.push('\n');
    for l in runner {
        let l = l.replace("compare(&host,", "compare(&expected(),").replace("describe(&host)", "String::new()");
        s += &l;
        s.push('\n');
    }
    s += &format!(
        "\nfn expected() -> Outcome {{\n    {expected}\n}}\n\n\
         fn line_of(marker: &str) -> u32 {{\n    include_str!(\"s{seed}_k{i}.rs\").lines().position(|l| l.starts_with(marker)).expect(\"marker\") as u32 + 1\n}}\n\n\
         #[test]\nfn difftest_s{seed}_k{i}() {{\n    crate::tools::assemble(\"difftest s{seed} k{i}\", m{i}::k{i}::PTX);\n    let (verdict, _, _) = run_{i}(&crate::body_exec::cpu_stream());\n    assert!({pass}, \"{{verdict}}\");\n}}\n"
    );
    s
}

/// Adds `mod <name>;` to `tests/suite/difftest_cases/mod.rs` (commented out when `pending`).
fn register(root: &Path, name: &str, pending: bool) -> Result<(), String> {
    let p = root.join("tests/suite/difftest_cases/mod.rs");
    let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    let line = if pending { format!("// mod {name}; // rejected by #[kernel] when found: enable once fixed") } else { format!("mod {name};") };
    if !text.lines().any(|l| l == line) {
        std::fs::write(&p, format!("{text}{line}\n")).map_err(|e| e.to_string())?;
    }
    Ok(())
}
