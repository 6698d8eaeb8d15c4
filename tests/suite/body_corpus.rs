//! The corpus (see `corpus/`): every kernel's PTX through ptxas; every body run on the host
//! against an independent reference; every kernel run on the CPU backend against the body run
//! on the host.

use crate::corpus::CASES;
use crate::tools::assemble;

#[test]
fn at_least_fifteen_kernels() {
    assert!(CASES.len() >= 15, "{}", CASES.len());
}

#[test]
fn every_module_assembles() {
    for case in CASES {
        for (name, ptx) in case.ptx {
            assemble(&format!("corpus_{}_{name}", case.name), ptx);
        }
    }
}

#[test]
fn every_body_matches_its_reference_on_the_host() {
    for case in CASES {
        (case.check_host)();
    }
}

#[test]
fn every_kernel_matches_the_host_on_the_cpu_backend() {
    let stream = crate::body_exec::cpu_stream();
    let mut failures = Vec::new();
    for case in CASES {
        if let Err(e) = (case.check_device)(&stream) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
