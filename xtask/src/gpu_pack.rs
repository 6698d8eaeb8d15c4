//! `cargo xtask gpu-pack`: everything a GPU machine without Rust needs to run the suite.
//!
//! Builds the release test binaries (the `cust` feature's among them), examples and the
//! run-time benchmark (`benches/gpu_timing.rs`), copies them (stripped) into `target/gpu-pack/`, with nvcc's PTX
//! of the benchmark's CUDA C twins in `target/gpu-pack/nvcc-ptx/`, and writes `run.sh`, which
//! runs each with `PTX_DEVICE=cuda` and writes the logs under `$OUT` (or `./gpu-logs`); the
//! benchmark's table goes to `gpu-timing.md` there. Carry `target/gpu-pack` to the machine and
//! run `target/gpu-pack/run.sh` from the repository root.

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
    match crate::tools::ensure().and_then(|t| crate::bench_codegen::twins_for_gpu(&t, &out.join("nvcc-ptx"))) {
        Ok(()) => {}
        Err(e) => eprintln!("xtask: WARNING: no nvcc PTX in the pack ({e}); the benchmark will compile the twins with the GPU machine's nvcc, or time only ours"),
    }
    let mut names = Vec::new();
    for (name, path) in binaries {
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

/// `(name, path)` of every executable cargo reported: test binaries and examples.
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
        found.push((format!("{kind}-{file}"), PathBuf::from(exe)));
    }
    found.sort();
    found.dedup();
    found
}

/// The string value after `key` in a JSON line (cargo's messages escape no quotes in paths).
fn field(line: &str, key: &str) -> Option<String> {
    let start = line.find(key)? + key.len();
    let end = line[start..].find('"')? + start;
    Some(line[start..end].to_owned())
}

fn run_script(names: &[String]) -> String {
    let mut s = String::from(
        "#!/usr/bin/env bash\n# Runs the packed tests and examples on the CUDA backend.\nset -u\ncd \"$(dirname \"$0\")/../..\"\nlogs=${OUT:-gpu-logs}\nmkdir -p \"$logs\"\nexport PTX_DEVICE=cuda PTX_REQUIRE_GPU=1 PTX_TOOLS_REQUIRED=\nnvidia-smi > \"$logs/nvidia-smi.txt\" 2>&1\nstatus=0\n",
    );
    for n in names {
        let args = if n.starts_with("test-") {
            " --test-threads=4"
        } else if n.starts_with("bench-") {
            " --nvcc-ptx target/gpu-pack/nvcc-ptx --out \"$logs/gpu-timing.md\""
        } else {
            ""
        };
        s.push_str(&format!(
            "echo \"== {n}\"; target/gpu-pack/bin/{n}{args} > \"$logs/{n}.log\" 2>&1; rc=$?; echo \"{n}: rc=$rc\" | tee -a \"$logs/summary.txt\"; [ $rc = 0 ] || status=1\n"
        ));
    }
    s.push_str("exit $status\n");
    s
}
