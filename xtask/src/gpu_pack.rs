//! `cargo xtask gpu-pack`: everything a GPU machine without Rust needs to run the suite.
//!
//! Builds the release test binaries (the `cust` feature's among them), examples and the
//! run-time benchmark (`benches/gpu_timing.rs`), copies them (stripped) into `target/gpu-pack/`, with nvcc's PTX
//! of the benchmark's CUDA C twins (`-DNDEBUG` and checked, at a `.version` older drivers load:
//! `gpu_twins.rs`) in `target/gpu-pack/nvcc-ptx/`, and writes `run.sh`, which runs each with
//! `PTX_DEVICE=cuda`. It leaves five files in `$OUT` (or `./gpu-logs`): `summary.txt` (one
//! line per binary), `failures.txt` (the end of each failing log), `nvidia-smi.txt`,
//! `gpu-timing.md` (the benchmark's two tables) and `logs.tar.gz` (every log). Tests whose
//! kernel traps re-run themselves in a process of their own (`tests/suite/isolate.rs`), which
//! works from the packed binary as from cargo. Carry `target/gpu-pack` to the machine and run
//! `target/gpu-pack/run.sh` from the repository root.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn pack() -> Result<(), String> {
    let root = crate::tools::workspace_root();
    let out = root.join("target/gpu-pack");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(out.join("bin")).map_err(|e| e.to_string())?;

    let mut binaries = Vec::new();
    let builds = [
        &["test", "--release", "--workspace", "--no-run"][..],
        &["build", "--release", "--examples"][..],
        &["bench", "-p", "ptx-suite", "--bench", "gpu_timing", "--no-run"][..],
    ];
    for args in builds {
        let output = Command::new(crate::cargo())
            .args(args)
            .arg("--message-format=json")
            .current_dir(&root)
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !output.status.success() {
            return Err(format!("cargo {} failed:\n{}", args.join(" "), String::from_utf8_lossy(&output.stderr)));
        }
        binaries.extend(executables(&String::from_utf8_lossy(&output.stdout)));
    }
    // The `cust` feature's tests, linked against the stub libcuda; the GPU machine's driver
    // serves them (docs/cust.md).
    match crate::cust::build_env(crate::tools::ensure().ok().as_ref()) {
        Ok(env) => {
            let args = ["test", "--release", "-p", "ptx-runtime", "--features", "cust", "--test", "cust", "--no-run", "--message-format=json"];
            let output = Command::new(crate::cargo()).args(args).envs(env).current_dir(&root).output().map_err(|e| format!("cannot run cargo: {e}"))?;
            if !output.status.success() {
                return Err(format!("cargo {} failed:\n{}", args.join(" "), String::from_utf8_lossy(&output.stderr)));
            }
            binaries.extend(executables(&String::from_utf8_lossy(&output.stdout)));
        }
        Err(e) => eprintln!("xtask: WARNING: no cust tests in the pack ({e})"),
    }
    // nvcc's builds of the twins, which the benchmark times beside ours.
    match crate::tools::ensure().and_then(|t| crate::gpu_twins::write(&t, &out.join("nvcc-ptx"))) {
        Ok(()) => {}
        Err(e) => eprintln!("xtask: WARNING: no nvcc PTX in the pack ({e}); the benchmark will compile the twins with the GPU machine's nvcc, or time only ours"),
    }
    // `test --no-run` and `build --examples` both report each example: run it once.
    binaries.sort_by(|a, b| a.0.cmp(&b.0));
    binaries.dedup_by(|a, b| a.0 == b.0);
    let mut names = Vec::new();
    for (name, path) in binaries {
        if let Some((_, why)) = NOT_PACKED.iter().find(|(prefix, _)| name.starts_with(prefix)) {
            eprintln!("xtask: {name} not packed: {why}");
            continue;
        }
        let dest = out.join("bin").join(&name);
        std::fs::copy(&path, &dest).map_err(|e| format!("copy {}: {e}", path.display()))?;
        let _ = Command::new("strip").arg(&dest).status();
        names.push(name);
    }
    let script = run_script(&names);
    let run = out.join("run.sh");
    std::fs::write(&run, script).map_err(|e| e.to_string())?;
    let _ = Command::new("chmod").arg("+x").arg(&run).status();
    eprintln!("xtask: {} binaries in {}; carry `target/gpu-pack` and run `target/gpu-pack/run.sh`", names.len(), out.display());
    Ok(())
}

/// `(name, path)` of every executable cargo reported: test binaries and examples, each once.
/// An example is named by its target (`example-saxpy`): `cargo test --no-run` builds the
/// examples too, as `examples/saxpy-<hash>`, the same program as `build --examples`' `saxpy`.
fn executables(json: &str) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for line in json.lines().filter(|l| l.contains("\"reason\":\"compiler-artifact\"")) {
        let Some(exe) = field(line, "\"executable\":\"") else { continue };
        let Some(name) = field(line, "\"name\":\"") else { continue };
        let kind = if line.contains("\"kind\":[\"example\"]") {
            "example"
        } else if line.contains("\"kind\":[\"bench\"]") {
            "bench"
        } else {
            "test"
        };
        let file = Path::new(&exe).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or(name.clone());
        let id = if kind == "example" { name } else { file };
        found.push((format!("{kind}-{id}"), PathBuf::from(exe)));
    }
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    found
}

/// The string value after `key` in a JSON line (cargo's messages escape no quotes in paths).
fn field(line: &str, key: &str) -> Option<String> {
    let start = line.find(key)? + key.len();
    let end = line[start..].find('"')? + start;
    Some(line[start..end].to_owned())
}

/// Binaries the pack leaves out, by name prefix, and why: they test no device code and would
/// not run there (the macro crate's unit tests, 10 MB of the 64 MiB a device call carries).
const NOT_PACKED: [(&str, &str); 1] = [("test-ptx_macros-", "the macro crate's unit tests link libstd as a shared object the GPU machine lacks (exit 127); they test no device code")];

/// Binaries the pack carries but the script does not run, by name prefix, and why: running
/// them on the GPU machine shows nothing about the GPU.
const NOT_RUN: [(&str, &str); 2] = [
    ("example-run_ptx", "a command-line tool: without arguments it prints its usage and exits 1"),
    ("test-ui-", "trybuild runs cargo, which the GPU machine lacks; the ui tests check compile errors, not device code"),
];

/// The most seconds one binary may run (the suite takes about 70 s on an H200 machine): one
/// that hangs is stopped and reported (exit 124) and the others still run.
const DEADLINE_S: u32 = 300;

/// The script that runs the pack: the binaries one after another, each one's log kept in a
/// scratch directory and packed into one archive at the end, so that `$OUT` holds five files.
fn run_script(names: &[String]) -> String {
    let mut s = String::from(
        "#!/usr/bin/env bash\n# Runs the packed tests and examples on the CUDA backend (cargo xtask gpu-pack).\nset -u\ncd \"$(dirname \"$0\")/../..\"\nout=${OUT:-gpu-logs}\nmkdir -p \"$out\"\nlogs=$(mktemp -d)\nexport PTX_DEVICE=cuda PTX_REQUIRE_GPU=1 PTX_TOOLS_REQUIRED=\nnvidia-smi > \"$out/nvidia-smi.txt\" 2>&1\n: > \"$out/summary.txt\"; : > \"$out/failures.txt\"\nstatus=0\n",
    );
    for n in names {
        if let Some((_, why)) = NOT_RUN.iter().find(|(prefix, _)| n.starts_with(prefix)) {
            s.push_str(&format!("# {n} is not run: {why}\n"));
            continue;
        }
        let args = if n.starts_with("test-") {
            " --test-threads=4"
        } else if n.starts_with("bench-") {
            " --nvcc-ptx target/gpu-pack/nvcc-ptx --out \"$out/gpu-timing.md\""
        } else {
            ""
        };
        s.push_str(&format!(
            "echo \"== {n}\"; timeout -k 10 {DEADLINE_S} target/gpu-pack/bin/{n}{args} > \"$logs/{n}.log\" 2>&1; rc=$?; echo \"{n}: rc=$rc\" | tee -a \"$out/summary.txt\"; if [ $rc != 0 ]; then status=1; {{ echo \"== {n} (rc=$rc)\"; grep -E '^test .* FAILED$|^failures:$' \"$logs/{n}.log\" | head -50; tail -40 \"$logs/{n}.log\"; }} >> \"$out/failures.txt\"; fi\n"
        ));
    }
    s.push_str("tar czf \"$out/logs.tar.gz\" -C \"$logs\" .\nrm -rf \"$logs\"\nexit $status\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_listed_once_and_named_by_their_target() {
        let line = |name: &str, kind: &str, exe: &str| format!("{{\"reason\":\"compiler-artifact\",\"target\":{{\"kind\":[\"{kind}\"],\"name\":\"{name}\"}},\"executable\":\"{exe}\"}}");
        let json = [
            line("saxpy", "example", "/t/release/examples/saxpy-0123abcd"),
            line("saxpy", "example", "/t/release/examples/saxpy"),
            line("suite", "test", "/t/release/deps/suite-99"),
        ]
        .join("\n");
        let names: Vec<String> = executables(&json).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["example-saxpy", "test-suite-99"]);
    }

    #[test]
    fn the_script_leaves_at_most_six_files_in_out() {
        let script = run_script(&["example-saxpy".into(), "test-suite-99".into(), "bench-gpu_timing-1".into()]);
        let mut files: Vec<&str> = script.match_indices("\"$out/").map(|(i, _)| script[i + 6..].split('"').next().unwrap()).collect();
        files.sort();
        files.dedup();
        assert_eq!(files, ["failures.txt", "gpu-timing.md", "logs.tar.gz", "nvidia-smi.txt", "summary.txt"]);
        assert!(script.contains("test-suite-99 --test-threads=4 > \"$logs/"), "{script}");
        assert_eq!(script.matches("== example-saxpy\"").count(), 1);
        // bash parses it.
        let file = std::env::temp_dir().join(format!("gpu-pack-run-{}.sh", std::process::id()));
        std::fs::write(&file, &script).unwrap();
        let parsed = Command::new("bash").arg("-n").arg(&file).status();
        let _ = std::fs::remove_file(&file);
        if let Ok(status) = parsed {
            assert!(status.success(), "bash -n refuses the script:\n{script}");
        }
    }

    #[test]
    fn tools_and_host_only_binaries_are_packed_but_not_run() {
        let script = run_script(&["example-run_ptx".into(), "test-ui-77".into(), "example-saxpy".into()]);
        assert!(!script.contains("bin/example-run_ptx"), "{script}");
        assert!(!script.contains("bin/test-ui-77"), "{script}");
        assert!(script.contains("# example-run_ptx is not run: a command-line tool"), "{script}");
        assert!(script.contains("timeout -k 10 300 target/gpu-pack/bin/example-saxpy > "), "{script}");
        assert!(NOT_PACKED.iter().any(|(p, _)| "test-ptx_macros-77".starts_with(p)));
    }
}
