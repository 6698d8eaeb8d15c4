//! Writes the PTX of every corpus kernel (`tests/suite/corpus/`) to `<dir>/<kernel>.ptx`, for
//! `cargo xtask bench-codegen`, which assembles them beside nvcc's build of the CUDA C twins in
//! `benches/cuda/`. The PTX is a constant that `#[kernel]` computes while this target compiles,
//! so the build profile does not matter; the xtask builds it with the dev profile the tests
//! already use.

// Only the kernels' `PTX` constants are used here; the checks are the test suite's.
#[allow(dead_code)]
#[path = "../tests/suite/corpus/mod.rs"]
mod corpus;

fn main() {
    // `cargo bench` appends `--bench`; the directory is the one other argument.
    let Some(dir) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: corpus_ptx <output directory>");
        std::process::exit(2);
    };
    let dir = std::path::Path::new(&dir);
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("corpus_ptx: {}: {e}", dir.display());
        std::process::exit(1);
    }
    for case in corpus::CASES {
        for (kernel, ptx) in case.ptx {
            let path = dir.join(format!("{kernel}.ptx"));
            if let Err(e) = std::fs::write(&path, ptx) {
                eprintln!("corpus_ptx: {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    }
}
