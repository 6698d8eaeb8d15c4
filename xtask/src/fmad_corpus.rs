//! The corpus kernels' PTX with contraction on (`#[kernel(fmad)]`), for bench-codegen's
//! comparison with nvcc's default `-fmad=true`.
//!
//! The corpus (`tests/suite/corpus/`) is copied into a generated crate with every `#[kernel]`
//! and `#[device_fn]` given the `fmad` argument, and built and run with `benches/corpus_ptx.rs`
//! as its `main`, as the difftest builds its batches: the library keeps no switch for it.

use std::path::Path;
use std::process::Command;

/// Writes `<out>/<kernel>.ptx` for every corpus kernel, compiled with `fmad`.
pub fn dump(root: &Path, crate_dir: &Path, out: &Path) -> Result<(), String> {
    let src = crate_dir.join("src");
    let corpus = src.join("corpus");
    std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let manifest = format!(
        "[package]\nname = \"corpus-fmad\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nptx-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        root.join("ptx-runtime").display().to_string()
    );
    std::fs::write(crate_dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::copy(root.join("Cargo.lock"), crate_dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
    let main = read(&root.join("benches/corpus_ptx.rs"))?.replace("#[path = \"../tests/suite/corpus/mod.rs\"]", "#[path = \"corpus/mod.rs\"]");
    std::fs::write(src.join("main.rs"), main).map_err(|e| e.to_string())?;
    let dir = root.join("tests/suite/corpus");
    for e in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = e.map_err(|e| e.to_string())?.path();
        let Some(name) = path.file_name() else { continue };
        // `#[kernel(sm = 80)]` keeps its arguments: `#[kernel(fmad, sm = 80)]`.
        let text = read(&path)?.replace("#[kernel(", "#[kernel(fmad, ").replace("#[kernel]", "#[kernel(fmad)]").replace("#[device_fn]", "#[device_fn(fmad)]");
        std::fs::write(corpus.join(name), text).map_err(|e| e.to_string())?;
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), std::path::PathBuf::from);
    crate::run(Command::new(crate::cargo()).args(["run", "--quiet", "--"]).arg(out).current_dir(crate_dir).env("CARGO_TARGET_DIR", target))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}
