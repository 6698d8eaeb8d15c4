//! `cargo xtask fuzz`: runs the macro fuzzer, a `#[test]` of the proc-macro crate
//! (`ptx-macros/src/fuzz`, which can call the expanders directly), in the `fuzz` profile
//! (optimised, overflow checks on), passing the options as `PTX_FUZZ_*` variables.

use std::process::Command;

/// Inputs of the fresh-seed batch `cargo xtask test` runs (about 10 s in debug on 2 cores).
const CI_COUNT: &str = "20000";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut cmd = Command::new(crate::cargo());
    cmd.current_dir(crate::tools::workspace_root()).args(["test", "-p", "ptx-macros", "--lib"]);
    let mut it = args.iter();
    let mut seed = None;
    while let Some(a) = it.next() {
        let var = match a.as_str() {
            "--debug" => continue,
            "--count" => "PTX_FUZZ_COUNT",
            "--seed" => "PTX_FUZZ_SEED",
            "--only" => "PTX_FUZZ_ONLY",
            "--threads" => "PTX_FUZZ_THREADS",
            _ => return Err(format!("fuzz: unknown option `{a}` (--count N, --seed S, --only I, --threads T, --debug)")),
        };
        let value = it.next().ok_or(format!("fuzz: `{a}` needs a value"))?;
        if var == "PTX_FUZZ_SEED" {
            seed = Some(value.clone());
        }
        cmd.env(var, value);
    }
    if !args.iter().any(|a| a == "--debug") {
        cmd.args(["--profile", "fuzz"]);
    }
    // A fresh seed unless one was given, printed before the run so even a crash replays.
    let seed = seed.unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        (now.as_nanos() as u64).to_string()
    });
    eprintln!("xtask: fuzz seed {seed} (replay an input: cargo xtask fuzz --seed {seed} --only INDEX)");
    cmd.env("PTX_FUZZ_SEED", &seed);
    cmd.args(["fuzz::campaign", "--", "--ignored", "--exact", "--nocapture"]);
    let inflight = crate::tools::workspace_root().join("target/fuzz-inflight");
    let _ = std::fs::remove_dir_all(&inflight);
    cmd.env("PTX_FUZZ_INFLIGHT", &inflight);
    crate::run(&mut cmd).inspect_err(|_| report_crash(&inflight, &seed))
}

/// After a crash (an abort `catch_unwind` cannot catch), the inputs the workers were running.
fn report_crash(inflight: &std::path::Path, seed: &str) {
    let Ok(entries) = std::fs::read_dir(inflight) else { return };
    for e in entries.flatten() {
        let note = std::fs::read_to_string(e.path()).unwrap_or_default();
        let index = note.trim();
        if !index.is_empty() && index != "-" {
            eprintln!("xtask: fuzz: input {index} was running when the fuzzer died; replay: cargo xtask fuzz --seed {seed} --only {index}");
        }
    }
}

/// The CI form: a batch under a fresh seed each run (`cargo test` runs a fixed-seed one).
pub fn ci_fresh_seed() -> Result<(), String> {
    run(&["--debug".to_owned(), "--count".to_owned(), CI_COUNT.to_owned()])
}
