//! The atomics table (`ptx_abi::atomic`, the guide's chapter 4) against nvcc: for every
//! access × memory order × scope Rust allows, nvcc lowers the same operation written with the
//! `__nv_atomic_*` builtins, and the fence/ld/st/atom sequence — semantics and scope of each
//! instruction — must equal ours.

use crate::tools::nvcc_ptx;
use ptx_runtime::abi::atomic::{fence_sem, lower, Access, Order, Scope, Step};
use ptx_runtime::abi::Target;

const ORDERS: [(Order, &str); 5] = [
    (Order::Relaxed, "__NV_ATOMIC_RELAXED"),
    (Order::Acquire, "__NV_ATOMIC_ACQUIRE"),
    (Order::Release, "__NV_ATOMIC_RELEASE"),
    (Order::AcqRel, "__NV_ATOMIC_ACQ_REL"),
    (Order::SeqCst, "__NV_ATOMIC_SEQ_CST"),
];
const SCOPES: [(Scope, &str); 3] = [
    (Scope::Block, "__NV_THREAD_SCOPE_BLOCK"),
    (Scope::Device, "__NV_THREAD_SCOPE_DEVICE"),
    (Scope::System, "__NV_THREAD_SCOPE_SYSTEM"),
];
const ACCESSES: [(Access, &str, &str); 4] = [
    (Access::Fence, "fence", "__nv_atomic_thread_fence(ORDER, SCOPE);"),
    (Access::Load, "ld", "*out = __nv_atomic_load_n(p, ORDER, SCOPE);"),
    (Access::Store, "st", "__nv_atomic_store_n(p, 7, ORDER, SCOPE);"),
    (Access::Rmw, "atom", "*out = __nv_atomic_fetch_add(p, 1, ORDER, SCOPE);"),
];

/// `fence.sc.gpu` / `ld.acquire.cta` …: the opcode, semantics and scope of an instruction,
/// whatever order nvcc writes its qualifiers in.
fn signature(op: &str, line: &str) -> Option<(String, String, String)> {
    let word = line.trim().split([' ', '\t', ';']).next()?;
    let mut parts = word.split('.');
    if parts.next()? != op && !(op != "fence" && word.starts_with("fence")) {
        return None;
    }
    let op = word.split('.').next()?.to_owned();
    let quals: Vec<&str> = word.split('.').skip(1).collect();
    let sem = quals.iter().find(|q| ["sc", "acquire", "release", "acq_rel", "relaxed"].contains(q))?.to_string();
    let scope = quals.iter().find(|q| ["cta", "gpu", "sys"].contains(q))?.to_string();
    Some((op, sem, scope))
}

#[test]
fn every_row_for_every_scope_matches_nvcc() {
    let mut source = String::new();
    let mut expected = Vec::new();
    for (access, op, template) in ACCESSES {
        for (order, c_order) in ORDERS {
            let Ok(steps) = lower(access, order) else { continue };
            for (scope, c_scope) in SCOPES {
                let name = format!("k_{op}_{order:?}_{scope:?}");
                let body = template.replace("ORDER", c_order).replace("SCOPE", c_scope);
                source.push_str(&format!("extern \"C\" __global__ void {name}(int *p, int *out) {{ {body} }}\n"));
                let target = Target::DEFAULT;
                let ours: Vec<(String, String, String)> = steps
                    .iter()
                    .map(|s| match *s {
                        Step::Fence(sem) => ("fence".into(), fence_sem(sem, target, target.min_isa()).ptx()[1..].into(), scope.ptx()[1..].into()),
                        Step::Access(sem) => (op.into(), sem.ptx()[1..].into(), scope.ptx()[1..].into()),
                    })
                    .collect();
                expected.push((name, op, ours));
            }
        }
    }
    assert_eq!(expected.len(), 3 * (4 + 3 + 3 + 5), "every allowed row, every scope");
    let Some(ptx) = nvcc_ptx("atomics_oracle", &source) else { return };
    let mut mismatches = Vec::new();
    for (name, op, ours) in &expected {
        let start = ptx.find(&format!(".entry {name}(")).expect("kernel in nvcc output");
        let body = &ptx[start..];
        let body = &body[..body.find("\n}").unwrap_or(body.len())];
        let theirs: Vec<_> = body.lines().filter_map(|l| signature(op, l)).collect();
        assert!(!ours.is_empty() && !theirs.is_empty(), "{name}: nothing to compare");
        if !crate::nvcc_releases::same_model_ops(ours, &theirs, &ptx) {
            mismatches.push(format!("{name}: ours {ours:?}, nvcc {theirs:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // Spot check of what was compared: a SeqCst load at device scope is `fence.sc; ld.acquire`.
    let seq_cst_load = &expected.iter().find(|(n, ..)| n == "k_ld_SeqCst_Device").expect("row").2;
    assert_eq!(seq_cst_load, &[("fence".into(), "sc".into(), "gpu".into()), ("ld".into(), "acquire".into(), "gpu".into())]);
}
