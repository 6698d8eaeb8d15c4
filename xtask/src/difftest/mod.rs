//! `cargo xtask difftest`: the differential tester (issue 12). Random well-typed kernels of
//! the documented subset ([`gen`]) are compiled by `#[kernel]`, run on the CPU backend, and
//! compared with the same Rust run on the host; every module also goes through ptxas
//! ([`batch`]). Failures are minimised into regression tests ([`minimize`]).
//!
//! ```text
//! cargo xtask difftest [--seed S] [--kernels N] [--batch B] [--jobs J] [--keep] [--minimize]
//! cargo xtask difftest --replay S:I      # kernel I of seed S alone, printed and run
//! ```
//!
//! Kernel `I` of seed `S` depends on `S` and `I` only, so a failure replays alone. See
//! docs/testing.md, "The differential tester".

pub mod batch;
pub mod gen;
pub mod minimize;
pub mod rng;

use crate::tools;
use batch::{Batch, Verdict};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

pub struct Options {
    pub seed: u64,
    pub kernels: u64,
    /// The first kernel index (a replay runs one kernel of a seed).
    pub first: u64,
    pub batch: u64,
    pub jobs: usize,
    pub keep: bool,
    pub minimize: bool,
    /// Print the kernels' source.
    pub show: bool,
    /// Constructs left out (their names in `gen::expr::EXPRS` and `gen::stmt::STMTS`).
    pub skip: Vec<String>,
}

impl Options {
    pub fn new(seed: u64, kernels: u64) -> Options {
        Options { seed, kernels, first: 0, batch: 150, jobs: 1, keep: false, minimize: false, show: false, skip: Vec::new() }
    }
}

/// A seed from the clock, for a fresh run.
pub fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    rng::Rng::new(t).next() % 1_000_000_000
}

const USAGE: &str = "usage: cargo xtask difftest [--seed S] [--kernels N] [--batch B] [--jobs J] [--keep] [--minimize] [--skip CONSTRUCT,...] | --replay SEED:INDEX [--skip ...]";

pub fn cli(args: &[String]) -> Result<(), String> {
    let mut o = Options::new(fresh_seed(), 1000);
    let mut it = args.iter();
    let num = |v: Option<&String>| -> Result<u64, String> { v.and_then(|s| s.parse().ok()).ok_or_else(|| USAGE.to_owned()) };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => o.seed = num(it.next())?,
            "--kernels" => o.kernels = num(it.next())?,
            "--batch" => o.batch = num(it.next())?.max(1),
            "--jobs" => o.jobs = num(it.next())?.max(1) as usize,
            "--keep" => o.keep = true,
            "--minimize" => o.minimize = true,
            "--skip" => {
                let names = it.next().ok_or(USAGE)?;
                for n in names.split(',') {
                    if !gen::construct_names().contains(&n) {
                        return Err(format!("--skip: no construct `{n}`; the constructs are {}", gen::construct_names().join(", ")));
                    }
                    o.skip.push(n.to_owned());
                }
            }
            "--replay" => {
                let v = it.next().ok_or(USAGE)?;
                let (s, i) = v.split_once(':').ok_or(USAGE)?;
                o.seed = s.parse().map_err(|_| USAGE)?;
                o.first = i.parse().map_err(|_| USAGE)?;
                o.kernels = 1;
                o.keep = true;
                o.show = true;
            }
            _ => return Err(USAGE.into()),
        }
    }
    let summary = run(&o)?;
    if summary.failures.is_empty() {
        Ok(())
    } else {
        Err(format!("difftest found {} failing kernel(s); replay one with `cargo xtask difftest --replay SEED:INDEX`", summary.failures.len()))
    }
}

pub struct Summary {
    pub failures: Vec<(u64, u64, Verdict)>,
}

/// ptxas, from `$PTXAS` or the tools xtask installs.
pub fn ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(p));
    }
    match tools::ensure() {
        Ok(t) => Some(t.ptxas),
        Err(e) => {
            eprintln!("difftest: WARNING: no ptxas ({e}): the PTX is not assembled");
            None
        }
    }
}

/// Runs kernels `first..first + kernels` of `seed`, in batches, and prints the report.
pub fn run(o: &Options) -> Result<Summary, String> {
    let root = tools::workspace_root();
    let ptxas = ptxas();
    let start = Instant::now();
    let skip = if o.skip.is_empty() { String::new() } else { format!(" --skip {}", o.skip.join(",")) };
    eprintln!("difftest: seed {} kernels {}..{} (replay one: cargo xtask difftest --replay {}:INDEX{skip})", o.seed, o.first, o.first + o.kernels, o.seed);
    let batches: Vec<(u64, u64)> = (0..o.kernels.div_ceil(o.batch)).map(|b| (o.first + b * o.batch, (o.first + (b + 1) * o.batch).min(o.first + o.kernels))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(BTreeMap::new());
    let error = std::sync::Mutex::new(None);
    std::thread::scope(|s| {
        for job in 0..o.jobs.min(batches.len()) {
            let (root, ptxas, batches, next, results, error) = (&root, &ptxas, &batches, &next, &results, &error);
            s.spawn(move || loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(lo, hi)) = batches.get(n) else { break };
                let t = Instant::now();
                let kernels: Vec<gen::Kernel> = (lo..hi).map(|i| gen::kernel(o.seed, i, &o.skip)).collect();
                if o.show {
                    for k in &kernels {
                        println!("{}", gen::render::kernel_module(k).join("\n"));
                    }
                }
                let b = Batch::new(root, &format!("s{}-{lo}", o.seed), job);
                match b.run(root, &kernels, ptxas.as_deref()) {
                    Ok(out) => {
                        let v = out.verdicts;
                        report_batch(o.seed, lo, hi, &v, t.elapsed().as_secs_f64(), out.times);
                        if !o.keep && !v.values().any(|v| v.is_failure()) {
                            b.remove();
                        }
                        results.lock().unwrap_or_else(|e| e.into_inner()).extend(v);
                    }
                    Err(e) => {
                        *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        break;
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let count = |w: &str| results.values().filter(|v| v.word() == w).count();
    let failures: Vec<(u64, u64, Verdict)> = results.iter().filter(|(_, v)| v.is_failure()).map(|(i, v)| (o.seed, *i, v.clone())).collect();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "difftest: {} kernels, {} mismatches, {} rejected, {} ptxas failures, {} trap mismatches, {} device errors, {} hangs, {} generator bugs; {} trapped on both sides; seed {}; {:.0} s ({:.0} s per 1000 kernels)",
        results.len(),
        count("mismatch"),
        count("rejected"),
        count("ptxas"),
        count("trap-mismatch"),
        count("device-error"),
        count("hang"),
        count("generator-bug"),
        count("ok-trap"),
        o.seed,
        secs,
        secs * 1000.0 / results.len().max(1) as f64
    );
    if o.minimize {
        // One failure of each kind: minimising costs a build per round.
        let mut seen = std::collections::BTreeSet::new();
        for (seed, index, v) in failures.iter().filter(|f| seen.insert(f.2.word())) {
            match minimize::minimize(&root, ptxas.as_deref(), *seed, *index, &o.skip, v) {
                Ok(path) => eprintln!("difftest: kernel {seed}:{index} minimised into {}", path.display()),
                Err(e) => eprintln!("difftest: kernel {seed}:{index} not minimised: {e}"),
            }
        }
    }
    Ok(Summary { failures })
}

fn report_batch(seed: u64, lo: u64, hi: u64, v: &BTreeMap<u64, Verdict>, secs: f64, times: [f64; 3]) {
    let bad: Vec<(&u64, &Verdict)> = v.iter().filter(|(_, v)| v.is_failure()).collect();
    let traps = v.values().filter(|v| **v == Verdict::OkTrap).count();
    eprintln!("difftest: batch {seed}:{lo}..{hi}: {} ok ({traps} trapped on both sides), {} failing, {secs:.0} s (build {:.0}, run {:.0}, ptxas {:.0})", v.len() - bad.len(), bad.len(), times[0], times[1], times[2]);
    for (i, v) in bad {
        let d: String = v.detail().chars().take(600).collect();
        println!("FAIL {seed}:{i} {} {}", v.word(), d.replace('\n', "\n    "));
    }
}

/// The short form `cargo xtask test` runs: `kernels` kernels of a fixed seed, then as many
/// of a fresh one (printed, so that a failure can be replayed).
pub fn ci(kernels: u64) -> Result<(), String> {
    let mut bad = 0;
    for seed in [12, fresh_seed()] {
        let mut o = Options::new(seed, kernels);
        o.batch = kernels;
        bad += run(&o)?.failures.len();
    }
    if bad > 0 {
        return Err(format!("difftest: {bad} failing kernel(s); replay with `cargo xtask difftest --replay SEED:INDEX`"));
    }
    Ok(())
}

