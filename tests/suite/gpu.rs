//! The corpus on a real GPU: every kernel launched through the CUDA backend and compared with
//! the same body run on the host. Without a GPU (no driver, or no device) the test says so on
//! the terminal and passes; `PTX_REQUIRE_GPU=1` makes a missing GPU a failure, for runs on a
//! machine that has one (`cargo xtask gpu-pack`'s `run.sh` sets it).

use crate::corpus::CASES;
use ptx_runtime::{BackendKind, Device};
use std::io::Write;

#[test]
fn every_corpus_kernel_matches_the_host_on_the_gpu() {
    let device = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            assert!(std::env::var_os("PTX_REQUIRE_GPU").is_none(), "PTX_REQUIRE_GPU is set but there is no GPU: {e}");
            let _ = writeln!(std::io::stderr(), "SKIPPED (no GPU: {e}): the corpus on the CUDA backend");
            return;
        }
    };
    assert_eq!(device.kind(), BackendKind::Cuda);
    let _ = writeln!(std::io::stderr(), "running the corpus on {}", device.name());
    let stream = device.stream();
    let mut failures = Vec::new();
    for case in CASES {
        if let Err(e) = (case.check_device)(&stream).and_then(|()| stream.synchronize()) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(failures.is_empty(), "{} of {} corpus cases failed on {}:\n{}", failures.len(), CASES.len(), device.name(), failures.join("\n"));
}
