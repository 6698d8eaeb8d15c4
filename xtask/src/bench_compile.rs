//! `cargo xtask bench-compile`: what `#[kernel]` costs at build time, against `nvcc -ptx`.
//!
//! Generates a crate of [`KERNELS`] corpus kernels under `target/bench/compile/` (copies of the
//! corpus files that have a CUDA C twin in `benches/cuda/`, each copy in a module of its own)
//! and times a rebuild of it after its source changes, three ways:
//! - `empty`: no items, rustc's fixed cost;
//! - `plain`: the same functions without `#[kernel]` (they compile as host Rust against the
//!   device API's host definitions), so that rustc's own work on the bodies is subtracted;
//! - `kernels`: with `#[kernel]`: expansion, PTX generation and the launchers.
//!
//! `(kernels - plain) / KERNELS` is the macros' cost per kernel. The crate has cargo's default
//! dev profile, what a user of the crates gets: the macros are compiled unoptimized, as cargo
//! compiles every proc macro by default. It builds in the workspace's target directory
//! (`CARGO_TARGET_DIR` when set), so its dependencies are built once, by the first run, and
//! reused after. Incremental compilation is on, as in any dev build (macro expansion is not
//! cached by it). nvcc gets the CUDA C twins, renamed the same number of times, and
//! `nvcc -ptx` is timed against an empty `.cu`. Each time is the median of [`RUNS`] runs.
//! `--update-docs` replaces the table in `docs/performance.md` and `README.md`, between the
//! `<!-- bench-compile -->` markers. `--against REV` compares the same crate's rebuild with the
//! macros of another revision instead ([`crate::compile_against`]).

use crate::tools::{self, Tools};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub const KERNELS: usize = 100;
const USAGE: &str = "usage: cargo xtask bench-compile [--update-docs | --against REV [--rounds N]]";
const RUNS: usize = 3;

/// One template: a corpus file's kernel items (Rust) and its CUDA C twin.
pub(crate) struct Template {
    pub(crate) name: String,
    rust: String,
    cuda: String,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let update_docs = match args {
        [] => false,
        [a] if a == "--update-docs" => true,
        [a, rev, rest @ ..] if a == "--against" => return crate::compile_against::run(rev, rest),
        _ => return Err(USAGE.into()),
    };
    let tools = tools::ensure()?;
    let root = tools::workspace_root();
    let dir = root.join("target/bench/compile");
    let crate_dir = dir.join("kernels");
    std::fs::create_dir_all(crate_dir.join("src")).map_err(|e| e.to_string())?;
    let templates = templates(&root)?;
    eprintln!("xtask: {KERNELS} kernels from {}", templates.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", "));

    // The crate, built once empty so that its dependencies are in place before timing.
    write(&crate_dir.join("Cargo.toml"), &manifest("ptx-bench-compile", &root.join("ptx-runtime")))?;
    std::fs::copy(root.join("Cargo.lock"), crate_dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
    let lib = crate_dir.join("src/lib.rs");
    write(&lib, "")?;
    cargo_build(&root, &crate_dir)?;

    let mut rust_times = Vec::new();
    for (variant, source) in [("empty", String::new()), ("plain", rust_crate(&templates, false)), ("kernels", rust_crate(&templates, true))] {
        let t = median(|| {
            // New contents (a comment with the time) change the file as an edit would.
            write(&lib, &format!("// {:?}\n{source}", Instant::now()))?;
            let start = Instant::now();
            cargo_build(&root, &crate_dir)?;
            Ok(start.elapsed())
        })?;
        eprintln!("xtask: cargo build ({variant}): {}", ms(t));
        rust_times.push((variant, t));
    }

    let nvcc = tools.nvcc.as_ref().ok_or("nvcc not found")?;
    let (empty_cu, full_cu) = (dir.join("empty.cu"), dir.join("kernels.cu"));
    write(&empty_cu, "")?;
    write(&full_cu, &cuda_file(&root, &templates))?;
    let mut nvcc_times = Vec::new();
    for (variant, cu) in [("empty", &empty_cu), ("kernels", &full_cu)] {
        let t = median(|| {
            let start = Instant::now();
            let o = Command::new(nvcc)
                .args(crate::bench_codegen::NVCC_FLAGS)
                .arg("-arch=sm_80")
                .arg("-o")
                .arg(cu.with_extension("ptx"))
                .arg(cu)
                .env("PATH", tools.path_with_bin_dir())
                .output()
                .map_err(|e| format!("cannot run nvcc: {e}"))?;
            if !o.status.success() {
                return Err(format!("nvcc {} failed:\n{}", cu.display(), String::from_utf8_lossy(&o.stderr)));
            }
            Ok(start.elapsed())
        })?;
        eprintln!("xtask: nvcc -ptx ({variant}): {}", ms(t));
        nvcc_times.push((variant, t));
    }

    let report = report(&tools, &templates, &rust_times, &nvcc_times);
    println!("{report}");
    let md = root.join("target/bench/compile.md");
    write(&md, &format!("# Compile time: `#[kernel]` against `nvcc -ptx`\n\n{report}"))?;
    eprintln!("xtask: wrote {}", md.display());
    if update_docs {
        for doc in ["docs/performance.md", "README.md"] {
            crate::bench_codegen::replace_between_markers(&root.join(doc), "bench-compile", &report)?;
            eprintln!("xtask: updated {doc}");
        }
    }
    Ok(())
}

/// The manifest of a crate `name`: a dependency on the `ptx-runtime` at `runtime`, as a user's
/// crate has. Crates that share a target directory need names of their own: cargo keys a
/// path package's build state by its name and version, not by where it is.
pub(crate) fn manifest(name: &str, runtime: &Path) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nptx-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.display().to_string()
    )
}

/// The corpus files with a CUDA C twin and exactly one kernel, in name order.
pub(crate) fn templates(root: &Path) -> Result<Vec<Template>, String> {
    let mut out = Vec::new();
    let mut twins: Vec<PathBuf> = std::fs::read_dir(root.join("benches/cuda")).map_err(|e| e.to_string())?.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.extension().is_some_and(|x| x == "cu")).collect();
    twins.sort();
    for cu in twins {
        let name = cu.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        let rs = root.join("tests/suite/corpus").join(format!("{name}.rs"));
        let corpus = std::fs::read_to_string(&rs).map_err(|e| format!("{}: {e}", rs.display()))?;
        let rust = kernel_items(&corpus);
        if rust.matches("#[kernel]").count() != 1 {
            continue;
        }
        let cuda = std::fs::read_to_string(&cu).map_err(|e| format!("{}: {e}", cu.display()))?;
        out.push(Template { name, rust, cuda });
    }
    if out.is_empty() {
        return Err("no corpus kernel with a CUDA C twin in benches/cuda".into());
    }
    Ok(out)
}

/// A corpus file's kernel and the items it uses: its `use` lines but the suite's helpers
/// (`use super::…`), then everything after them and before the `PTX` table that starts the
/// host-side checks.
fn kernel_items(corpus: &str) -> String {
    let lines: Vec<&str> = corpus.lines().collect();
    let start = lines.iter().rposition(|l| l.starts_with("use ")).map_or(0, |i| i + 1);
    let end = lines.iter().position(|l| l.starts_with("pub const PTX")).unwrap_or(lines.len());
    let uses = lines[..start].iter().filter(|l| l.starts_with("use ") && !l.starts_with("use super::"));
    uses.chain(&lines[start..end.max(start)]).copied().collect::<Vec<_>>().join("\n")
}

/// The crate's source: copy `i` of template `i % n` in `mod k{i}`, with or without `#[kernel]`.
pub(crate) fn rust_crate(templates: &[Template], kernels: bool) -> String {
    let mut s = String::from("#![allow(clippy::all, dead_code, unused_mut, unused_imports)]\n");
    for i in 0..KERNELS {
        let t = &templates[i % templates.len()];
        let items = if kernels { t.rust.clone() } else { t.rust.replace("#[kernel]\n", "") };
        let _ = writeln!(s, "pub mod k{i} {{\n{items}\n}}");
    }
    s
}

/// The equivalent `.cu`: the shared header once, then copy `i` of each twin with its kernel
/// renamed `<name>_<i>` and its types in `namespace k<i>`.
fn cuda_file(root: &Path, templates: &[Template]) -> String {
    let header = std::fs::read_to_string(root.join("benches/cuda/common.cuh")).unwrap_or_default();
    let mut s = header;
    for i in 0..KERNELS {
        let t = &templates[i % templates.len()];
        let body = t.cuda.replace("#include \"common.cuh\"", "").replace("__global__ void ", &format!("__global__ void k{i}_"));
        let _ = writeln!(s, "namespace k{i} {{\n{body}\n}}");
    }
    s
}

fn cargo_build(root: &Path, crate_dir: &Path) -> Result<(), String> {
    build_in(crate_dir, &target_dir(root))
}

/// The workspace's target directory (`CARGO_TARGET_DIR` when set).
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from)
}

/// `cargo build --lib` of the crate at `crate_dir` into `target`.
pub(crate) fn build_in(crate_dir: &Path, target: &Path) -> Result<(), String> {
    let o = Command::new(crate::cargo())
        .args(["build", "--quiet", "--lib"])
        .current_dir(crate_dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!("cargo build in {} failed:\n{}", crate_dir.display(), String::from_utf8_lossy(&o.stderr)))
    }
}

fn median(mut f: impl FnMut() -> Result<Duration, String>) -> Result<Duration, String> {
    let mut v = (0..RUNS).map(|_| f()).collect::<Result<Vec<_>, _>>()?;
    v.sort();
    Ok(v[RUNS / 2])
}

pub(crate) fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}

fn report(tools: &Tools, templates: &[Template], rust: &[(&str, Duration)], nvcc: &[(&str, Duration)]) -> String {
    let get = |v: &[(&str, Duration)], k: &str| v.iter().find(|(n, _)| *n == k).map_or(0.0, |(_, d)| d.as_secs_f64() * 1e3);
    let per = |total: f64, base: f64| (total - base) / KERNELS as f64;
    let (empty, plain, kernels) = (get(rust, "empty"), get(rust, "plain"), get(rust, "kernels"));
    let (nvcc_empty, nvcc_full) = (get(nvcc, "empty"), get(nvcc, "kernels"));
    let versions = tools.nvcc.as_deref().map(crate::bench_codegen::version_line).unwrap_or_default();
    let rustc = Command::new("rustc").arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
    format!(
        "{KERNELS} kernels ({} in turn), median of {RUNS} rebuilds each after an edit, on {} hardware threads; \
         cargo's default dev profile (the macros unoptimized, as cargo builds proc macros by default); {rustc}; nvcc: {versions}.\n\n\
         | build | total | per kernel |\n|---|---|---|\n\
         | `cargo build`, empty crate | {empty:.0} ms | |\n\
         | `cargo build`, the functions without `#[kernel]` | {plain:.0} ms | {:.1} ms (rustc alone) |\n\
         | `cargo build`, with `#[kernel]` | {kernels:.0} ms | {:.1} ms (over the plain functions) |\n\
         | `nvcc -ptx -O3 -fmad=false -arch=sm_80`, empty `.cu` | {nvcc_empty:.0} ms | |\n\
         | `nvcc -ptx -O3 -fmad=false -arch=sm_80`, the CUDA C twins | {nvcc_full:.0} ms | {:.1} ms (over the empty file) |\n",
        templates.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", "),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        per(plain, empty),
        per(kernels, plain),
        per(nvcc_full, nvcc_empty),
    )
}
