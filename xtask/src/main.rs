//! `cargo xtask <command>`: the project's own automation.
//!
//! - `test`: finds `ptxas`/`nvcc` (PATH, then `$CUDA_PATH/bin`, then `target/cuda-tools`),
//!   installs NVIDIA's PyPI wheels into `target/cuda-tools` when none is found, and runs the
//!   whole test suite with them, then every example (each verifies its own result), then the
//!   GPU timing harness on the CPU backend (ours against nvcc's builds, outputs compared).
//!   With `CI=true` a missing tool fails the run.
//! - `fuzz [--count N] [--seed S] [--only I] [--threads T] [--debug]`: the macro fuzzer
//!   (`ptx-macros/src/fuzz`), 100,000 inputs by default, optimised; see docs/testing.md.
//! - `difftest [--seed S] [--kernels N] ...`: the differential tester: random kernels of the
//!   subset, run on the CPU backend and on the host, compared (`xtask/src/difftest/`,
//!   docs/testing.md). `test` runs its short form: a fixed seed and a fresh one.
//! - `tools`: installs the tools if needed and prints where they are, as shell exports.
//! - `gpu-pack`: release test binaries and examples plus a `run.sh`, to carry to a GPU machine.
//! - `bench-cpu`: the CPU backend's benchmark (`benches/cpu_interp.rs`): thread-instructions
//!   per second, and saxpy over 2^20 elements, in the release profile and then in the dev
//!   profile (the emulator unoptimised, as a user's `cargo run` builds it by default).
//! - `test-cust`: builds `ptx-runtime`'s `cust` feature against the wheels' cuda.h and a stub
//!   libcuda, and runs its tests where a driver is installed (`test` does this last).
//! - `bench-cubins`: the cubins `ptx_runtime::cubin::Builder` embeds for the corpus kernels
//!   (sizes for sm_80 and sm_90, ptxas time) and the CPU backend's module load time
//!   (`benches/cubins.rs`); writes `target/bench/cubins.md` (see `docs/cubins.md`).
//! - `bench-codegen [--update-docs]`: our PTX against nvcc's on the CUDA C twins in
//!   `benches/cuda/` (registers, spills, SASS instructions, inner loops), for sm_80 and sm_90;
//!   writes `target/bench/codegen.md` (see `docs/performance.md`). No GPU needed.
//! - `bench-compile [--update-docs | --against REV]`: build time of 100 corpus kernels with and without `#[kernel]`, against
//!   `nvcc -ptx` on their CUDA C twins; writes `target/bench/compile.md`.
//! - `bench-gpu`: run time of the same kernels and of nvcc's builds on a GPU
//!   (`benches/gpu_timing.rs`), with bandwidth against a device-to-device copy; writes
//!   `target/bench/gpu.md`. Without a GPU it says it skipped (`PTX_DEVICE=cpu` runs the
//!   harness on the CPU backend as a smoke test).

mod bench_codegen;
mod bench_compile;
mod compile_against;
mod cust;
mod fuzz;
mod difftest;
mod fmad_corpus;
mod gpu_pack;
mod gpu_twins;
mod sass;
mod tools;

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("gpu-pack") => gpu_pack::pack(),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("difftest") => difftest::cli(&args[1..]),
        Some("bench-codegen") => bench_codegen::run(&args[1..]),
        Some("bench-compile") => bench_compile::run(&args[1..]),
        Some("bench-gpu") => bench_gpu(),
        Some("bench-cpu") => bench_cpu(&args[1..]),
        Some("bench-cubins") => bench_cubins(),
        Some("test-cust") => tools::ensure().and_then(|t| cust::test(Some(&t), ci())),
        Some("tools") => tools::ensure().map(|t| {
            for (var, path) in t.env() {
                println!("export {var}={}", path.display());
            }
        }),
        _ => Err("usage: cargo xtask <test [cargo test args] | difftest [--seed S] [--kernels N] [--replay S:I] ... | fuzz [--count N] [--seed S] [--only I] [--threads T] [--debug] | tools | gpu-pack | bench-cpu | bench-cubins | test-cust | bench-codegen [--update-docs] | bench-compile [--update-docs | --against REV [--rounds N]] | bench-gpu>".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// nvcc's PTX of the twins (when nvcc can be had), then `benches/gpu_timing.rs` in release.
/// `cargo bench` of the CPU backend, in the release profile and then in the dev profile.
fn bench_cpu(args: &[String]) -> Result<(), String> {
    for profile in ["bench", "dev"] {
        println!("== profile {profile}");
        run(Command::new(cargo()).args(["bench", "-p", "ptx-suite", "--bench", "cpu_interp", "--profile", profile]).args(args))?;
    }
    Ok(())
}

/// Cubin sizes and CPU-backend module loads over the corpus (`benches/cubins.rs`), in the dev
/// profile the tests use (the corpus is already built there); writes `target/bench/cubins.md`.
fn bench_cubins() -> Result<(), String> {
    let tools = tools::ensure()?;
    run(Command::new(cargo()).args(["bench", "-p", "ptx-suite", "--bench", "cubins", "--profile", "dev"]).envs(tools.env()))
}

fn bench_gpu() -> Result<(), String> {
    let root = tools::workspace_root();
    let dir = root.join("target/bench/nvcc-ptx");
    let _ = std::fs::remove_dir_all(&dir);
    match tools::ensure().and_then(|t| gpu_twins::write(&t, &dir)) {
        Ok(()) => {}
        Err(e) => eprintln!("xtask: WARNING: no nvcc PTX ({e}); only our kernels will be timed"),
    }
    run(Command::new(cargo())
        .current_dir(&root)
        .args(["bench", "-p", "ptx-suite", "--bench", "gpu_timing", "--", "--nvcc-ptx"])
        .arg(&dir)
        .arg("--out")
        .arg(root.join("target/bench/gpu.md")))
}

fn ci() -> bool {
    std::env::var("CI").map(|v| v == "true" || v == "1").unwrap_or(false)
}

/// `cargo test` over the workspace with the tools in the environment.
fn test(extra: &[String]) -> Result<(), String> {
    let tools = match tools::ensure() {
        Ok(t) => Some(t),
        Err(e) if !ci() => {
            eprintln!("xtask: WARNING: {e}\nxtask: WARNING: tests that need ptxas/nvcc will say that they skipped");
            None
        }
        Err(e) => return Err(e),
    };
    let mut cmd = Command::new(cargo());
    cmd.args(["test", "--workspace"]).args(extra);
    if let Some(t) = &tools {
        eprintln!("xtask: ptxas {}", t.ptxas.display());
    }
    with_tools(&mut cmd, tools.as_ref());
    if ci() {
        // Tests fail rather than skip when a tool they need is missing.
        cmd.env("PTX_TOOLS_REQUIRED", "1");
    }
    run(&mut cmd)?;
    if extra.is_empty() {
        fuzz::ci_fresh_seed()?;
        // The differential tester's short form (docs/testing.md).
        difftest::ci(60)?;
        run_examples()?;
        gpu_timing_smoke(tools.as_ref())?;
        // Its own cargo invocation: the default build never depends on cust.
        cust::test(tools.as_ref(), ci())?;
    }
    Ok(())
}

/// The GPU timing harness, run on the CPU backend at small sizes: it launches ours and nvcc's
/// build of each twin and fails if their outputs differ, so the harness that only a GPU
/// machine times stays correct where there is none.
fn gpu_timing_smoke(tools: Option<&tools::Tools>) -> Result<(), String> {
    eprintln!("xtask: bench-gpu harness on the CPU backend (smoke test)");
    let out = tools::workspace_root().join("target/bench/gpu-smoke.md");
    let mut cmd = Command::new(cargo());
    cmd.args(["bench", "--quiet", "-p", "ptx-suite", "--bench", "gpu_timing", "--profile", "dev", "--", "--out"]).arg(out);
    cmd.env("PTX_DEVICE", "cpu");
    with_tools(&mut cmd, tools);
    run(&mut cmd)
}

/// The tools' variables (`PTXAS`, `NVCC`, `CUOBJDUMP`) and their directory first on `PATH`.
fn with_tools(cmd: &mut Command, tools: Option<&tools::Tools>) {
    if let Some(t) = tools {
        for (var, path) in t.env() {
            cmd.env(var, path);
        }
        cmd.env("PATH", t.path_with_bin_dir());
    }
}

/// Every example runs and verifies its own result (on the CPU backend where there is no GPU).
fn run_examples() -> Result<(), String> {
    let dir = tools::workspace_root().join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".rs").map(str::to_owned))
        .collect();
    names.sort();
    for name in names {
        eprintln!("xtask: example {name}");
        run(Command::new(cargo()).args(["run", "--quiet", "--example", &name]))?;
    }
    // The emulator's command-line runner, on nvcc's saxpy.
    eprintln!("xtask: example ptx-cpu/run_ptx");
    run(Command::new(cargo()).current_dir(tools::workspace_root()).args([
        "run", "--quiet", "-p", "ptx-cpu", "--example", "run_ptx", "--", "benches/cpu_interp.ptx", "saxpy", "--grid", "4", "--block", "256",
        "u32:1024", "f32:2.5", "buf:f32:1024=1.5", "buf:f32:1024=1",
    ]))

}

pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

pub fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed: {status}"))
    }
}
