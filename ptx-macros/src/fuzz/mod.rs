//! The macro fuzzer: token mutations of every `#[kernel]`, `#[device_fn]` and
//! `#[derive(DeviceRepr)]` item in the workspace, kept when they still parse as an item, run
//! through the macros and their fetch chains; a panic or an `internal` error is a failure.
//!
//! It lives in the proc-macro crate's tests because a proc-macro crate can export nothing but
//! macros, and the fuzzer calls the expanders directly (no rustc per input: thousands of
//! inputs a second). `cargo xtask fuzz` runs [`campaign`] in release mode; `cargo test`
//! runs [`short`] (a fixed seed) and [`regressions`] (every failure found so far).
//!
//! Input `i` of seed `s` is a function of `(s, i)` only, so a failure replays with
//! `cargo xtask fuzz --seed s --only i`. See docs/testing.md.

mod minimise;
mod mutate;
pub(crate) mod oracle;
mod regressions;
mod rng;
mod seeds;

use mutate::{stream, tree, Pools, Tok};
use oracle::Failure;
use rng::Rng;
use seeds::World;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The seeds, the replacement pools and the world the fetch chains resolve against.
pub struct Fuzzer {
    seeds: Vec<Vec<Tok>>,
    /// The seeds that compile to PTX: half the inputs start from one, so mutants reach the
    /// lowering and the writer more often than from a rejected `tests/ui` input.
    compiling: Vec<usize>,
    pools: Pools,
    world: World,
}

/// Mutants tried for one input before falling back to its unmutated seed.
const ATTEMPTS: u64 = 64;

impl Fuzzer {
    pub fn new() -> Fuzzer {
        let items = seeds::seeds();
        let world = seeds::world(&items);
        let seeds: Vec<Vec<Tok>> = items.into_iter().map(tree).collect();
        assert!(seeds.len() > 50, "found only {} seed items under {}", seeds.len(), seeds::workspace_root().display());
        let compiling = (0..seeds.len()).filter(|&i| oracle::run(&stream(&seeds[i]), &world).is_ok_and(|r| r.ptx)).collect();
        Fuzzer { pools: Pools::new(&seeds), seeds, compiling, world }
    }

    /// Input `index` of `seed`: a seed item under one to four mutations, the first such
    /// mutant that parses as an item; with how many mutants were made to find it.
    pub fn input(&self, seed: u64, index: u64) -> (Vec<Tok>, u64) {
        let mut rng = Rng::for_input(seed, index);
        let base = match rng.below(2) {
            0 if !self.compiling.is_empty() => &self.seeds[self.compiling[rng.below(self.compiling.len())]],
            _ => &self.seeds[rng.below(self.seeds.len())],
        };
        for attempt in 1..=ATTEMPTS {
            let mut item = base.clone();
            let mut applied = 0;
            // One mutation half the time: a small change to valid code goes deepest.
            let want = [1, 1, 1, 2, 3, 4][rng.below(6)];
            for _ in 0..want * 4 {
                applied += mutate::mutate(&mut item, &self.pools, &mut rng) as usize;
                if applied == want {
                    break;
                }
            }
            if syn::parse2::<syn::Item>(stream(&item)).is_ok() {
                return (item, attempt);
            }
        }
        (base.clone(), ATTEMPTS)
    }

    pub fn check(&self, item: &[Tok]) -> Option<Failure> {
        oracle::check(&stream(item), &self.world)
    }

    pub fn run(&self, item: &[Tok]) -> Result<oracle::Reached, Failure> {
        oracle::run(&stream(item), &self.world)
    }

    /// `item` shrunk while it fails as `failure` does.
    pub fn minimise(&self, item: &[Tok], failure: &Failure) -> String {
        let min = minimise::minimise(item, |ts| oracle::check(ts, &self.world).is_some_and(|f| f.key() == failure.key()));
        stream(&min).to_string()
    }
}

/// One failing input (regenerated from its index where needed: token trees stay on their thread).
pub struct Found {
    pub index: u64,
    pub failure: Failure,
}

/// What a run did.
pub struct Report {
    pub seed: u64,
    pub inputs: u64,
    /// Mutants made; `inputs` of them parsed (the rest were thrown away).
    pub generated: u64,
    /// Inputs whose body reached a round after a fetch (the device API or a struct found).
    pub fetched: u64,
    /// Inputs that compiled to PTX (the rest stopped at an error, as most mutants should).
    pub compiled: u64,
    pub failures: Vec<Found>,
    pub elapsed: Duration,
    /// The slowest input and its time.
    pub slowest: (u64, Duration),
}

/// Where a worker notes the input it runs, so that a crash no `catch_unwind` can catch (an
/// allocation failure, a stack overflow) still names its input: `cargo xtask fuzz` sets
/// `PTX_FUZZ_INFLIGHT` to a directory and reads the notes back when the process dies.
struct Inflight(Option<std::fs::File>);

impl Inflight {
    fn new(seed: u64) -> Inflight {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let file = std::env::var_os("PTX_FUZZ_INFLIGHT").and_then(|dir| {
            let name = format!("seed-{seed}-worker-{}", NEXT.fetch_add(1, Ordering::Relaxed));
            std::fs::create_dir_all(&dir).ok()?;
            std::fs::File::create(std::path::Path::new(&dir).join(name)).ok()
        });
        Inflight(file)
    }

    fn set(&mut self, what: &str) {
        use std::os::unix::fs::FileExt;
        if let Some(f) = &self.0 {
            let _ = f.write_all_at(format!("{what:<24}").as_bytes(), 0);
        }
    }
}

/// An input still running after this long is reported as a hang (the run stops).
fn hang_limit() -> Duration {
    Duration::from_secs(std::env::var("PTX_FUZZ_HANG_S").ok().and_then(|s| s.parse().ok()).unwrap_or(120))
}

/// Runs inputs `indices` of `seed` on `threads` threads, each with its own [`Fuzzer`] (token
/// trees cannot cross threads) and a deep stack, as rustc's. `fuzzer` is this thread's.
pub fn run(fuzzer: &Fuzzer, seed: u64, indices: std::ops::Range<u64>, threads: usize, progress: bool) -> Report {
    let start = Instant::now();
    let next = AtomicU64::new(indices.start);
    let generated = AtomicU64::new(0);
    let done = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let slowest = Mutex::new((0, Duration::ZERO));
    let running: Vec<Mutex<Option<(u64, Instant)>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    let total = indices.end - indices.start;
    let (fetched, compiled) = (AtomicU64::new(0), AtomicU64::new(0));
    let (next, generated, done, failures_ref, slowest_ref, fetched, compiled) = (&next, &generated, &done, &failures, &slowest, &fetched, &compiled);
    std::thread::scope(|scope| {
        for slot in &running {
            let work = move || {
                let fuzzer = Fuzzer::new();
                let mut inflight = Inflight::new(seed);
                loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= indices.end {
                    inflight.set("-");
                    done.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                inflight.set(&index.to_string());
                let t0 = Instant::now();
                *slot.lock().unwrap() = Some((index, t0));
                let (input, made) = fuzzer.input(seed, index);
                generated.fetch_add(made, Ordering::Relaxed);
                match fuzzer.run(&input) {
                    Ok(r) => {
                        fetched.fetch_add(r.fetched as u64, Ordering::Relaxed);
                        compiled.fetch_add(r.ptx as u64, Ordering::Relaxed);
                    }
                    Err(failure) => failures_ref.lock().unwrap().push(Found { index, failure }),
                }
                let took = t0.elapsed();
                let mut s = slowest_ref.lock().unwrap();
                if took > s.1 {
                    *s = (index, took);
                }
                drop(s);
                let n = index - indices.start + 1;
                if progress && n.is_multiple_of((total / 10).max(1)) {
                    eprintln!("fuzz: {n}/{total} inputs, {} failures, {:.0?}", failures_ref.lock().unwrap().len(), start.elapsed());
                }
                }
            };
            std::thread::Builder::new().stack_size(64 << 20).spawn_scoped(scope, work).expect("spawn a fuzz thread");
        }
        // The watchdog: a compiler that loops forever on some input is a failure too.
        while done.load(Ordering::Relaxed) < threads {
            std::thread::sleep(Duration::from_millis(200));
            for slot in &running {
                if let Some((index, t0)) = *slot.lock().unwrap() {
                    if t0.elapsed() > hang_limit() {
                        let (input, _) = fuzzer.input(seed, index);
                        eprintln!("fuzz: HANG: input {index} of seed {seed} still running after {:?}\n  replay: cargo xtask fuzz --seed {seed} --only {index}\n  input: {}", t0.elapsed(), stream(&input));
                        std::process::exit(1);
                    }
                }
            }
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by_key(|f| f.index);
    Report {
        seed,
        inputs: total,
        generated: generated.load(Ordering::Relaxed),
        fetched: fetched.load(Ordering::Relaxed),
        compiled: compiled.load(Ordering::Relaxed),
        failures,
        elapsed: start.elapsed(),
        slowest: slowest.into_inner().unwrap(),
    }
}

impl Report {
    /// The counts, then each distinct failure (by panic location or message) with its first
    /// input minimised and the command that replays it.
    pub fn describe(&self, fuzzer: &Fuzzer) -> String {
        let panics = self.failures.iter().filter(|f| matches!(f.failure, Failure::Panic { .. })).count();
        let mut s = format!(
            "fuzz: seed {}: {} inputs ({} mutants generated, {} kept: {:.0}% parsed as an item; {} reached a round after a fetch, {} compiled to PTX), {} panics, {} internal errors, in {:.1?} (slowest: input {} in {:.0?})\n",
            self.seed,
            self.inputs,
            self.generated,
            self.inputs,
            100.0 * self.inputs as f64 / self.generated.max(1) as f64,
            self.fetched,
            self.compiled,
            panics,
            self.failures.len() - panics,
            self.elapsed,
            self.slowest.0,
            self.slowest.1,
        );
        let mut seen = std::collections::HashSet::new();
        for f in &self.failures {
            if !seen.insert(f.failure.key().to_owned()) {
                continue;
            }
            let same = self.failures.iter().filter(|g| g.failure.key() == f.failure.key()).count();
            s += &format!(
                "\nFAILURE ({same} inputs): {}\n  replay: cargo xtask fuzz --seed {} --only {}\n  minimised: {}\n",
                f.failure,
                self.seed,
                f.index,
                fuzzer.minimise(&fuzzer.input(self.seed, f.index).0, &f.failure)
            );
        }
        s
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

/// The seed `cargo test` uses.
const SHORT_SEED: u64 = 0x5eed_0012;

/// A fixed-seed batch small enough for every `cargo test` (`PTX_FUZZ_SHORT` inputs, default 500).
#[test]
fn short() {
    let fuzzer = Fuzzer::new();
    let count = env_u64("PTX_FUZZ_SHORT").unwrap_or(500);
    let report = run(&fuzzer, SHORT_SEED, 0..count, 1, false);
    assert!(report.failures.is_empty(), "{}", report.describe(&fuzzer));
}

/// `cargo xtask fuzz`: `PTX_FUZZ_SEED` (default: from the clock, printed), `PTX_FUZZ_COUNT`
/// inputs (default 100,000), or only input `PTX_FUZZ_ONLY` (printed in full), on
/// `PTX_FUZZ_THREADS` threads (default: all cores).
#[test]
#[ignore = "long; run by `cargo xtask fuzz`"]
fn campaign() {
    let fuzzer = Fuzzer::new();
    let seed = env_u64("PTX_FUZZ_SEED").unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64);
    let threads = env_u64("PTX_FUZZ_THREADS").map(|t| t as usize).unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let indices = match env_u64("PTX_FUZZ_ONLY") {
        Some(i) => {
            eprintln!("fuzz: input {i} of seed {seed}:\n{}", stream(&fuzzer.input(seed, i).0));
            i..i + 1
        }
        None => 0..env_u64("PTX_FUZZ_COUNT").unwrap_or(100_000),
    };
    eprintln!("fuzz: seed {seed} ({} seed items, {} names in the world), {} inputs on {threads} threads", fuzzer.seeds.len(), fuzzer.world.names().count(), indices.end - indices.start);
    let report = run(&fuzzer, seed, indices, threads, true);
    let text = report.describe(&fuzzer);
    eprintln!("{text}");
    assert!(report.failures.is_empty(), "fuzz: failures above; replay each with the command shown");
}

/// Every seed compiles to PTX or is a `tests/ui` input, and the world resolves their fetches.
#[test]
fn seeds_reach_the_compiler() {
    let fuzzer = Fuzzer::new();
    // Only non-generic functions have a module of their own: a derive's type has none, and
    // `#[device_fn]` impls, traits and generic functions are compiled where they are called.
    let own_module = |s: &&Vec<Tok>| match syn::parse2::<syn::Item>(stream(s)) {
        Ok(syn::Item::Fn(f)) => !crate::front::generic::is_generic(&f.sig),
        Ok(_) => false,
        Err(_) => true,
    };
    let seeds: Vec<&Vec<Tok>> = fuzzer.seeds.iter().filter(own_module).collect();
    let compiled = seeds.iter().filter(|s| fuzzer.run(s).is_ok_and(|r| r.ptx)).count();
    eprintln!("{compiled} of {} seeds compile", seeds.len());
    assert!(compiled * 2 > seeds.len(), "{compiled} of {} seeds compile", seeds.len());
}

/// `PTX_FUZZ_INPUT`: runs that one item (text) and shows each round's expansion.
#[test]
#[ignore = "a debugging aid"]
fn one() {
    std::env::set_var("PTX_FUZZ_SHOW", "1");
    let input = std::env::var("PTX_FUZZ_INPUT").unwrap_or_default();
    let r = Fuzzer::new().run(&mutate::toks(&input));
    eprintln!("fuzz: {}", r.err().map_or("no failure".to_owned(), |f| f.to_string()));
}

/// Every failure the fuzzer has found, minimised, stays fixed.
#[test]
fn regressions() {
    let fuzzer = Fuzzer::new();
    for (i, input) in regressions::FOUND.iter().enumerate() {
        let item = mutate::toks(input);
        assert!(syn::parse2::<syn::Item>(stream(&item)).is_ok(), "regression {i} is not an item: {input}");
        if let Some(f) = fuzzer.check(&item) {
            panic!("regression {i}: {f}\n  {input}");
        }
    }
}
