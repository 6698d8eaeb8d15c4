//! `cargo xtask bench-codegen [--update-docs | --only twin,twin...]`: our PTX against nvcc's,
//! kernel by kernel. `--only` measures the named twins (`benches/cuda/<twin>.cu`) and skips the
//! `fmad` table (whose generated crate takes minutes to build): for iterating on one kernel.
//!
//! For each CUDA C twin in `benches/cuda/` (the same algorithm as a corpus kernel, with Rust's
//! bounds checks written out as `assert`s) and each architecture in [`ARCHS`]:
//! - ours: the corpus kernel's PTX (dumped by `benches/corpus_ptx.rs`), assembled by `ptxas`;
//! - theirs: `nvcc -ptx -O3 -fmad=false`, assembled by the same `ptxas` with the same flags;
//!
//! then `ptxas -v`'s registers and spills and `cuobjdump -sass`'s instructions, for the whole
//! kernel and for its hot inner loop (see [`crate::sass`]). A second table compares ours with
//! nvcc's build of the twins without their checks (`-DNDEBUG`), the CUDA most people write; a
//! third compares our kernels with contraction on (`#[kernel(fmad)]`, see [`crate::fmad_corpus`])
//! with that build under nvcc's default `-fmad=true`. The tables go to stdout and to
//! `target/bench/codegen.md`; `--update-docs` also replaces it in `docs/performance.md` and
//! `README.md`, between the `<!-- bench-codegen -->` markers. No GPU is needed.

use crate::sass::{self, Instr, Resources};
use crate::tools::{self, Tools};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Ampere and Hopper: the data-centre GPUs the numbers are most often asked for.
pub const ARCHS: [&str; 2] = ["sm_80", "sm_90"];

/// nvcc's flags. `-fmad=false`: Rust's `a * b + c` is a multiply and an add, each rounded, and
/// ours emits exactly that; nvcc would otherwise contract it into one `fma`.
pub const NVCC_FLAGS: [&str; 3] = ["-ptx", "-O3", "-fmad=false"];


/// What one build of one kernel measures.
struct Measured {
    resources: Resources,
    instructions: usize,
    /// Fused multiply-adds (`FFMA`, `DFMA`; not `HFMA2.MMA`, which ptxas uses to load
    /// constants).
    fmas: usize,
    /// The hot inner loop's instructions and the global/shared bytes one trip moves.
    inner_loop: Option<(usize, u32)>,
}

struct Row {
    kernel: String,
    arch: &'static str,
    ours: Measured,
    nvcc: Measured,
    /// nvcc with `-DNDEBUG`: the twin without its bounds checks.
    unchecked: Measured,
    /// Ours with `#[kernel(fmad)]`, and nvcc with `-DNDEBUG -fmad=true`.
    fmad: Option<(Measured, Measured)>,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let (update_docs, only): (bool, Option<Vec<String>>) = match args {
        [] => (false, None),
        [a] if a == "--update-docs" => (true, None),
        [a, list] if a == "--only" => (false, Some(list.split(',').map(str::to_owned).collect())),
        _ => return Err("usage: cargo xtask bench-codegen [--update-docs | --only twin,twin...]".into()),
    };
    let tools = tools::ensure()?;
    let root = tools::workspace_root();
    let out = root.join("target/bench/codegen");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;

    let ours_dir = out.join("ours");
    eprintln!("xtask: dumping the corpus kernels' PTX");
    crate::run(Command::new(crate::cargo()).current_dir(&root).args(["bench", "--quiet", "-p", "ptx-suite", "--bench", "corpus_ptx", "--profile", "dev", "--"]).arg(&ours_dir))?;
    let fmad_dir = out.join("ours-fmad");
    if only.is_none() {
        eprintln!("xtask: dumping the corpus kernels' PTX with `#[kernel(fmad)]`");
        crate::fmad_corpus::dump(&root, &root.join("target/bench/corpus-fmad"), &fmad_dir)?;
    }

    let mut rows = Vec::new();
    let mut sources = cuda_sources(&root.join("benches/cuda"))?;
    if let Some(only) = &only {
        sources.retain(|cu| cu.file_stem().and_then(|s| s.to_str()).is_some_and(|s| only.iter().any(|o| o == s)));
        if sources.len() != only.len() {
            return Err(format!("--only: not every one of {only:?} is a twin in benches/cuda"));
        }
    }
    for cu in sources {
        for arch in ARCHS {
            let stem = cu.file_stem().and_then(|s| s.to_str()).unwrap_or("kernel");
            let dir = out.join(arch);
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let theirs_ptx = dir.join(format!("{stem}.nvcc.ptx"));
            compile_twin(&tools, &cu, arch, &[], &theirs_ptx)?;
            let unchecked_ptx = dir.join(format!("{stem}.nvcc-unchecked.ptx"));
            compile_twin(&tools, &cu, arch, &["-DNDEBUG"], &unchecked_ptx)?;
            let mut unchecked = assemble(&tools, &unchecked_ptx, arch)?;
            let contracted_ptx = dir.join(format!("{stem}.nvcc-fmad.ptx"));
            compile_twin(&tools, &cu, arch, &["-DNDEBUG", "-fmad=true"], &contracted_ptx)?;
            let mut contracted = assemble(&tools, &contracted_ptx, arch)?;
            for (kernel, nvcc) in assemble(&tools, &theirs_ptx, arch)? {
                let ptx = ours_dir.join(format!("{kernel}.ptx"));
                if !ptx.is_file() {
                    return Err(format!("{}: no corpus kernel is named `{kernel}`", cu.display()));
                }
                let copy = dir.join(format!("{kernel}.ours.ptx"));
                std::fs::copy(&ptx, &copy).map_err(|e| e.to_string())?;
                let mut ours = assemble(&tools, &copy, arch)?;
                if ours.len() != 1 {
                    return Err(format!("{}: expected one entry function, found {}", ptx.display(), ours.len()));
                }
                let i = unchecked.iter().position(|(k, _)| *k == kernel).ok_or(format!("{}: `{kernel}` missing with -DNDEBUG", cu.display()))?;
                let j = contracted.iter().position(|(k, _)| *k == kernel).ok_or(format!("{}: `{kernel}` missing with -fmad=true", cu.display()))?;
                let fmad = if only.is_none() {
                    let fmad_copy = dir.join(format!("{kernel}.ours-fmad.ptx"));
                    std::fs::copy(fmad_dir.join(format!("{kernel}.ptx")), &fmad_copy).map_err(|e| e.to_string())?;
                    Some((assemble(&tools, &fmad_copy, arch)?.remove(0).1, contracted.remove(j).1))
                } else {
                    None
                };
                rows.push(Row { kernel, arch, ours: ours.remove(0).1, nvcc, unchecked: unchecked.remove(i).1, fmad });
            }
        }
    }

    let mut table = format!(
        "{}\nAgainst nvcc's build of the same CUDA C without its checks (`-DNDEBUG`):\n\n{}",
        table(&rows),
        unchecked_table(&rows),
    );
    if only.is_none() {
        table += &format!("\nWith contraction on both sides: ours `#[kernel(fmad)]`, nvcc's default `-fmad=true` (and `-DNDEBUG`):\n\n{}", fmad_table(&rows));
    }
    let report = format!("{}\n\n{table}", provenance(&tools));
    println!("{report}");
    let md = root.join("target/bench/codegen.md");
    std::fs::write(&md, format!("# Codegen: ours against nvcc\n\n{report}")).map_err(|e| e.to_string())?;
    eprintln!("xtask: wrote {}", md.display());
    if update_docs {
        for doc in ["docs/performance.md", "README.md"] {
            replace_between_markers(&root.join(doc), "bench-codegen", &report)?;
            eprintln!("xtask: updated {doc}");
        }
    }
    Ok(())
}

/// `nvcc -ptx` of one CUDA C twin, with the benchmark's flags.
pub fn compile_twin(tools: &Tools, cu: &Path, arch: &str, extra: &[&str], ptx: &Path) -> Result<(), String> {
    let nvcc = tools.nvcc.as_ref().ok_or("nvcc not found")?;
    let mut cmd = Command::new(nvcc);
    // An `-fmad=` of the caller's replaces ours.
    let overridden = |f: &&&str| f.starts_with("-fmad=") && extra.iter().any(|e| e.starts_with("-fmad="));
    cmd.args(NVCC_FLAGS.iter().filter(|f| !overridden(f))).args(extra).arg(format!("-arch={arch}")).arg("-o").arg(ptx).arg(cu).env("PATH", tools.path_with_bin_dir());
    output(&mut cmd).map(drop)
}

/// The `.cu` files of `dir`, sorted.
pub fn cuda_sources(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    v.sort();
    Ok(v)
}

/// `ptxas -v` and `cuobjdump -sass` on one module: each entry function's measurements.
fn assemble(tools: &Tools, ptx: &Path, arch: &str) -> Result<Vec<(String, Measured)>, String> {
    let cubin = ptx.with_extension("cubin");
    let log = output(Command::new(&tools.ptxas).arg(format!("-arch={arch}")).arg("-O3").arg("-v").arg(ptx).arg("-o").arg(&cubin))?;
    let cuobjdump = tools.cuobjdump.as_ref().ok_or("cuobjdump not found")?;
    let listing = output(Command::new(cuobjdump).arg("-sass").arg(&cubin))?;
    std::fs::write(ptx.with_extension("sass"), &listing).map_err(|e| e.to_string())?;
    let functions = sass::functions(&listing);
    let mut measured = Vec::new();
    for (name, resources) in sass::ptxas_entries(&log) {
        let instrs: &[Instr] = functions.iter().find(|(f, _)| *f == name).map(|(_, i)| i.as_slice()).ok_or(format!("{}: no SASS for `{name}`", cubin.display()))?;
        let inner_loop = sass::hot_inner_loop(instrs).map(|l| {
            let body = sass::with_callees(instrs, l);
            (body.len(), sass::memory_bytes(&body))
        });
        // Ours are Rust paths (`_ZN...6saxpy5saxpyE`); the table names kernels as written.
        let short = demangled_last(&name).unwrap_or(name);
        let fmas = instrs.iter().filter(|i| i.text.split_whitespace().any(|w| w.starts_with("FFMA") || w.starts_with("DFMA"))).count();
        measured.push((short, Measured { resources, instructions: instrs.len(), fmas, inner_loop }));
    }
    Ok(measured)
}

/// The last segment of an Itanium-mangled path (`_ZN3foo5saxpyE` -> `saxpy`); `None` for a
/// name that is not one (nvcc's `extern "C"` kernels).
fn demangled_last(name: &str) -> Option<String> {
    let mut rest = name.strip_prefix("_ZN")?.strip_suffix('E')?;
    let mut last = None;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = rest[..digits].parse().ok()?;
        last = Some(rest.get(digits..digits + len)?.to_owned());
        rest = &rest[digits + len..];
    }
    last
}

/// Stdout and stderr of a command that must succeed (ptxas writes `-v` to stderr).
fn output(cmd: &mut Command) -> Result<String, String> {
    let o = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        Ok(text)
    } else {
        Err(format!("{cmd:?} failed ({}):\n{text}", o.status))
    }
}

pub fn version_line(tool: &Path) -> String {
    output(Command::new(tool).arg("--version")).ok().and_then(|v| v.lines().find(|l| l.contains("release")).map(|l| l.trim().to_owned())).unwrap_or_else(|| "unknown version".into())
}

/// Date, tool versions and flags: what a reader needs to trust or reproduce the table.
fn provenance(tools: &Tools) -> String {
    let date = output(Command::new("date").args(["-u", "+%Y-%m-%d"])).map(|d| d.trim().to_owned()).unwrap_or_else(|_| "unknown date".into());
    let commit = output(Command::new("git").args(["rev-parse", "--short", "HEAD"]).current_dir(tools::workspace_root())).map(|c| c.trim().to_owned()).unwrap_or_else(|_| "unknown".into());
    let nvcc = tools.nvcc.as_deref().map(version_line).unwrap_or_default();
    format!(
        "Measured {date} at commit `{commit}` by `cargo xtask bench-codegen`; ptxas: {}; nvcc: {nvcc}. \
         nvcc flags: `{} -arch=<arch>`; both PTX modules assembled by `ptxas -O3 -v -arch=<arch>`.",
        version_line(&tools.ptxas),
        NVCC_FLAGS.join(" "),
    )
}

fn ratio(ours: usize, theirs: usize) -> String {
    if theirs == 0 {
        "–".into()
    } else {
        format!("{:.2}", ours as f64 / theirs as f64)
    }
}

/// The markdown table of every row.
fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| kernel | arch | regs ours / nvcc | spill bytes ours / nvcc | SASS ours / nvcc | ratio | inner loop ours / nvcc | ratio | loop bytes ours / nvcc | ratio per byte |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let spills = |m: &Measured| m.resources.spill_stores + m.resources.spill_loads;
        let (loop_counts, per_byte) = loop_columns(r.ours.inner_loop, r.nvcc.inner_loop);
        let (loop_ratio, loop_bytes) = match (r.ours.inner_loop, r.nvcc.inner_loop) {
            (Some((oi, ob)), Some((ni, nb))) => (ratio(oi, ni), format!("{ob} / {nb}")),
            _ => ("–".into(), "–".into()),
        };
        s.push_str(&format!(
            "| {} | {} | {} / {} | {} / {} | {} / {} | {} | {loop_counts} | {loop_ratio} | {loop_bytes} | {per_byte} |\n",
            r.kernel,
            r.arch,
            r.ours.resources.registers,
            r.nvcc.resources.registers,
            spills(&r.ours),
            spills(&r.nvcc),
            r.ours.instructions,
            r.nvcc.instructions,
            ratio(r.ours.instructions, r.nvcc.instructions),
        ));
    }
    s
}

/// The comparison with the unchecked twins: what Rust's bounds checks cost against CUDA
/// without any.
fn unchecked_table(rows: &[Row]) -> String {
    let mut s = String::from("| kernel | arch | regs ours / nvcc | SASS ours / nvcc | ratio | inner loop ours / nvcc | ratio per byte |\n|---|---|---|---|---|---|---|\n");
    for r in rows {
        let (o, u) = (&r.ours, &r.unchecked);
        let (loop_counts, per_byte) = loop_columns(o.inner_loop, u.inner_loop);
        s.push_str(&format!(
            "| {} | {} | {} / {} | {} / {} | {} | {loop_counts} | {per_byte} |\n",
            r.kernel,
            r.arch,
            o.resources.registers,
            u.resources.registers,
            o.instructions,
            u.instructions,
            ratio(o.instructions, u.instructions),
        ));
    }
    for arch in ARCHS {
        let ratios: Vec<f64> = rows.iter().filter(|r| r.arch == arch).map(|r| r.ours.instructions as f64 / r.unchecked.instructions as f64).collect();
        if !ratios.is_empty() {
            let geomean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
            s.push_str(&format!("| geometric mean | {arch} | | | {geomean:.2} | | |\n"));
        }
    }
    s
}

/// The comparison with contraction on both sides, and the fused multiply-adds each made.
fn fmad_table(rows: &[Row]) -> String {
    let mut s = String::from("| kernel | arch | regs ours / nvcc | SASS ours / nvcc | ratio | FMA ours / nvcc | inner loop ours / nvcc | ratio per byte |\n|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let Some((o, n)) = &r.fmad else { continue };
        let (loop_counts, per_byte) = loop_columns(o.inner_loop, n.inner_loop);
        s.push_str(&format!(
            "| {} | {} | {} / {} | {} / {} | {} | {} / {} | {loop_counts} | {per_byte} |\n",
            r.kernel,
            r.arch,
            o.resources.registers,
            n.resources.registers,
            o.instructions,
            n.instructions,
            ratio(o.instructions, n.instructions),
            o.fmas,
            n.fmas,
        ));
    }
    s
}

/// The inner-loop instruction counts, and the ratio of instructions per byte moved.
fn loop_columns(ours: Option<(usize, u32)>, theirs: Option<(usize, u32)>) -> (String, String) {
    let show = |l: Option<(usize, u32)>| l.map_or("none".to_owned(), |(i, _)| i.to_string());
    let per_byte = match (ours, theirs) {
        (Some((oi, ob)), Some((ni, nb))) if ob > 0 && nb > 0 => format!("{:.2}", (oi as f64 / ob as f64) / (ni as f64 / nb as f64)),
        _ => "–".into(),
    };
    (format!("{} / {}", show(ours), show(theirs)), per_byte)
}

/// Replaces the text between `<!-- {name}:begin -->` and `<!-- {name}:end -->` in `path` with
/// `body`, so that a re-run updates the docs in place.
pub fn replace_between_markers(path: &Path, name: &str, body: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, with_section(&text, name, body).map_err(|e| format!("{}: {e}", path.display()))?).map_err(|e| format!("{}: {e}", path.display()))
}

fn with_section(text: &str, name: &str, body: &str) -> Result<String, String> {
    let (begin, end) = (format!("<!-- {name}:begin -->"), format!("<!-- {name}:end -->"));
    let (Some(b), Some(e)) = (text.find(&begin), text.find(&end)) else {
        return Err(format!("no `{begin}` … `{end}` markers"));
    };
    if e < b {
        return Err("the markers are out of order".into());
    }
    Ok(format!("{}{begin}\n{body}\n{}", &text[..b], &text[e..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_between_markers_is_replaced_and_the_rest_kept() {
        let doc = "a\n<!-- t:begin -->\nold\n<!-- t:end -->\nb\n";
        assert_eq!(with_section(doc, "t", "new").unwrap(), "a\n<!-- t:begin -->\nnew\n<!-- t:end -->\nb\n");
        assert!(with_section("a", "t", "new").is_err());
        assert!(with_section("<!-- t:end --><!-- t:begin -->", "t", "new").is_err());
    }

    #[test]
    fn mangled_rust_paths_give_their_last_segment() {
        assert_eq!(demangled_last("_ZN10corpus_ptx6corpus5saxpy5saxpyE").as_deref(), Some("saxpy"));
        assert_eq!(demangled_last("_ZN10corpus_ptx6corpus5nbody10nbody_stepE").as_deref(), Some("nbody_step"));
        assert_eq!(demangled_last("saxpy"), None);
        assert_eq!(demangled_last("_ZN99xE"), None);
    }
}
