//! `cargo xtask bench-compile --against REV [--rounds N]`: the macros' build cost against
//! another revision's, on the crate `bench-compile` times (its 100 corpus kernels).
//!
//! The issues bound the cost of `#[kernel]` relative to an earlier revision (+25 % over the
//! pre-generics macros, 6ab99de). Two single runs on a shared machine differ by more than
//! that bound's margin, so the two builds are interleaved: each round edits and rebuilds the
//! crate against this tree's `ptx-runtime`, then against REV's, and the report compares the
//! medians. REV is checked out once, as a detached worktree under `target/bench/compile/`,
//! with its own target directory; the crate's source is this tree's corpus, which REV's macros
//! must accept (the report says so when they do not).

use crate::bench_compile::{build_in, manifest, rust_crate, target_dir, templates, write};
use crate::tools;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Rounds by default: each is one rebuild of each crate.
const ROUNDS: usize = 10;

/// The bound the issues set on the macros' build cost against the base revision.
const BOUND: f64 = 1.25;

pub fn run(rev: &str, rest: &[String]) -> Result<(), String> {
    let rounds = match rest {
        [] => ROUNDS,
        [a, n] if a == "--rounds" => n.parse().ok().filter(|&n| n > 0).ok_or(format!("--rounds {n}: not a number of rounds"))?,
        _ => return Err("usage: cargo xtask bench-compile --against REV [--rounds N]".into()),
    };
    let root = tools::workspace_root();
    let sha = git(&root, &["rev-parse", "--short=12", &format!("{rev}^{{commit}}")])?;
    let dir = root.join("target/bench/compile");
    let base_tree = dir.join(format!("at-{sha}"));
    if !base_tree.join("ptx-runtime").is_dir() {
        // `-f`: a worktree registered before and deleted since (a `cargo clean`) is reused.
        git(&root, &["worktree", "add", "-f", "--detach", &base_tree.to_string_lossy(), &sha])?;
    }
    let source = rust_crate(&templates(&root)?, true);
    let trees = [("this tree", root.clone(), dir.join("against-current"), target_dir(&root)), (rev, base_tree.clone(), dir.join(format!("against-{sha}")), dir.join(format!("at-{sha}-target")))];
    for (name, tree, crate_dir, target) in &trees {
        make_crate(tree, crate_dir)?;
        write(&crate_dir.join("src/lib.rs"), &source)?;
        eprintln!("xtask: building the crate against {name} once (dependencies, and whether its macros accept the corpus)");
        build_in(crate_dir, target).map_err(|e| format!("{name}: {e}"))?;
        // The first rebuild after an edit is slower than the next ones (measured: 9 s, then
        // 2.5 s): one untimed round.
        write(&crate_dir.join("src/lib.rs"), &format!("// warm-up\n{source}"))?;
        build_in(crate_dir, target)?;
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); trees.len()];
    for round in 0..rounds {
        for ((name, _, crate_dir, target), t) in trees.iter().zip(&mut times) {
            write(&crate_dir.join("src/lib.rs"), &format!("// {:?}\n{source}", Instant::now()))?;
            let start = Instant::now();
            build_in(crate_dir, target)?;
            t.push(start.elapsed());
            eprintln!("xtask: round {} of {rounds}, {name}: {:.0} ms", round + 1, start.elapsed().as_secs_f64() * 1e3);
        }
    }
    let [ours, base] = [median(&mut times[0]), median(&mut times[1])];
    let ratio = ours / base;
    println!(
        "rebuild of {} kernels after an edit, median of {rounds} interleaved rounds: this tree {ours:.0} ms, {rev} ({sha}) {base:.0} ms: {ratio:.2}x ({:+.0} %); the bound, {BOUND:.2}x, is {}",
        crate::bench_compile::KERNELS,
        (ratio - 1.0) * 100.0,
        if ratio <= BOUND { "met" } else { "NOT met" }
    );
    Ok(())
}

/// A crate depending on `tree`'s `ptx-runtime`, with `tree`'s lock file.
fn make_crate(tree: &Path, crate_dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(crate_dir.join("src")).map_err(|e| e.to_string())?;
    // Not `bench-compile`'s crate name: this tree's copy shares the workspace's target dir.
    write(&crate_dir.join("Cargo.toml"), &manifest("ptx-bench-compile-against", &tree.join("ptx-runtime")))?;
    std::fs::copy(tree.join("Cargo.lock"), crate_dir.join("Cargo.lock")).map_err(|e| format!("{}: {e}", tree.join("Cargo.lock").display()))?;
    Ok(())
}

fn median(v: &mut [Duration]) -> f64 {
    v.sort();
    v.get(v.len() / 2).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let o = Command::new("git").args(args).current_dir(root).output().map_err(|e| format!("cannot run git: {e}"))?;
    if !o.status.success() {
        return Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_owned())
}
