//! nvcc's PTX of the benchmark's CUDA C twins (`benches/cuda/`) for a GPU machine: what
//! `benches/gpu_timing.rs` launches beside ours, written by `cargo xtask bench-gpu` and packed
//! by `cargo xtask gpu-pack`.

use crate::bench_codegen::{compile_twin, cuda_sources};
use crate::tools::{self, Tools};
use std::path::Path;
use std::process::Command;

/// The builds, each in a subdirectory: (name, nvcc flags beyond `NVCC_FLAGS` and the arch).
/// `ndebug` is CUDA as people write it (`assert`s compiled out); `checked` keeps them, as our
/// kernels keep their bounds checks. `benches/gpu_timing.rs` reads the same names.
pub const VARIANTS: [(&str, &[&str]); 2] = [("ndebug", &["-DNDEBUG"]), ("checked", &[])];

/// The PTX ISA version the packed PTX declares. nvcc writes its own release's (13.5 writes
/// `.version 9.5`), and a driver refuses PTX newer than it knows: driver 580 (CUDA 13.0) loads
/// up to 9.0, and PTX ISA 8.0 is CUDA 12.0's, loaded by every driver from 525 on. The twins
/// use nothing newer than 8.0 for sm_80 (no instruction of a later ISA), which ptxas checks
/// on the rewritten text below.
pub const GPU_PTX_VERSION: (u32, u32) = (8, 0);

/// The target the twins are built for; the driver JIT-compiles it for the GPU at hand.
const ARCH: &str = "sm_80";

/// Writes `dir/<variant>/<twin>.ptx` for every twin and variant.
pub fn write(tools: &Tools, dir: &Path) -> Result<(), String> {
    for cu in cuda_sources(&tools::workspace_root().join("benches/cuda"))? {
        let stem = cu.file_stem().and_then(|s| s.to_str()).unwrap_or("kernel");
        for (variant, flags) in VARIANTS {
            let sub = dir.join(variant);
            std::fs::create_dir_all(&sub).map_err(|e| format!("{}: {e}", sub.display()))?;
            let ptx = sub.join(format!("{stem}.ptx"));
            compile_twin(tools, &cu, ARCH, flags, &ptx)?;
            let text = std::fs::read_to_string(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
            let lowered = lower_version(&text, GPU_PTX_VERSION).ok_or_else(|| format!("{}: no `.version` line", ptx.display()))?;
            std::fs::write(&ptx, lowered).map_err(|e| format!("{}: {e}", ptx.display()))?;
            // ptxas refuses an instruction the declared version does not have.
            let status = Command::new(&tools.ptxas).arg(format!("-arch={ARCH}")).arg(&ptx).arg("-o").arg(ptx.with_extension("cubin")).status();
            let _ = std::fs::remove_file(ptx.with_extension("cubin"));
            match status {
                Ok(s) if s.success() => {}
                _ => return Err(format!("{}: ptxas refuses it at .version {}.{}", ptx.display(), GPU_PTX_VERSION.0, GPU_PTX_VERSION.1)),
            }
        }
    }
    Ok(())
}

/// `ptx` with its `.version` line at most `max`; `None` without one.
pub fn lower_version(ptx: &str, max: (u32, u32)) -> Option<String> {
    let mut found = false;
    let lines: Vec<String> = ptx
        .lines()
        .map(|l| {
            let Some(v) = l.trim().strip_prefix(".version ") else { return l.to_owned() };
            found = true;
            let parsed = v.trim().split_once('.').and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
            match parsed {
                Some(have) if have > max => format!(".version {}.{}", max.0, max.1),
                _ => l.to_owned(),
            }
        })
        .collect();
    found.then(|| lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_newer_version_is_lowered() {
        let ptx = "//\n.version 9.5\n.target sm_80\n";
        assert_eq!(lower_version(ptx, (8, 0)).unwrap(), "//\n.version 8.0\n.target sm_80\n");
        assert_eq!(lower_version(".version 7.8\n", (8, 0)).unwrap(), ".version 7.8\n");
        assert_eq!(lower_version(".version 8.10\n", (8, 5)).unwrap(), ".version 8.5\n", "minor versions compare as numbers");
        assert!(lower_version(".target sm_80\n", (8, 0)).is_none());
    }
}
