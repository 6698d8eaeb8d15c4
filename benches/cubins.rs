//! Embedded cubins, measured over the corpus kernels (`tests/suite/corpus/`): each module's
//! PTX size, the size of the cubin `ptx_runtime::cubin::Builder` embeds for sm_80 and sm_90,
//! the time ptxas takes to assemble it (what a driver's JIT spends at a first launch and an
//! embedded cubin saves), and the time the CPU backend takes to load the PTX (parse and
//! decode; it always runs the PTX). `cargo xtask bench-cubins` runs it and writes
//! `target/bench/cubins.md` (docs/cubins.md quotes it).

use ptx_runtime::cubin::{find_ptxas, Arch, Builder};
use ptx_runtime::Kernel;
use std::path::Path;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../tests/suite/corpus/mod.rs"]
mod corpus;

const ARCHS: [Arch; 2] = [Arch::new(80), Arch::new(90)];
const LOADS: usize = 21;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(ptxas) = find_ptxas(Some(root)) else {
        eprintln!("cubins bench: SKIPPED (no ptxas; run `cargo xtask tools`)");
        return;
    };
    let work = root.join("target/bench/cubins-work");
    let cpu = ptx_cpu_device();
    let mut rows = String::from("| kernel | PTX bytes | cubin sm_80 bytes | cubin sm_90 bytes | ptxas sm_80 / sm_90 ms | CPU backend load ms |\n|---|---|---|---|---|---|\n");
    let (mut ptx_total, mut cubin_total, mut ptxas_total, mut load_total) = (0usize, [0usize; 2], [Duration::ZERO; 2], Duration::ZERO);
    for case in corpus::CASES {
        for &(name, ptx) in case.ptx {
            let kernel: &'static Kernel = Box::leak(Box::new(Kernel::new(ptx, name)));
            let mut sizes = [0usize; 2];
            let mut times = [Duration::ZERO; 2];
            for (i, arch) in ARCHS.iter().enumerate() {
                let mut b = Builder::new(&[*arch]).ptxas(&ptxas);
                b.kernel(kernel);
                let start = Instant::now();
                let (tables, _) = b.assemble(&work).unwrap_or_else(|e| panic!("{name}: {e}"));
                times[i] = start.elapsed();
                sizes[i] = tables[0].cubins.first().map_or(0, |(_, image)| image.len());
            }
            let loads = (0..LOADS)
                .map(|_| {
                    let start = Instant::now();
                    cpu.load_module(ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
                    start.elapsed()
                })
                .collect();
            let load = median(loads);
            rows += &format!(
                "| {name} | {} | {} | {} | {:.0} / {:.0} | {:.3} |\n",
                ptx.len(),
                sizes[0],
                sizes[1],
                ms(times[0]),
                ms(times[1]),
                ms(load)
            );
            ptx_total += ptx.len();
            for i in 0..2 {
                cubin_total[i] += sizes[i];
                ptxas_total[i] += times[i];
            }
            load_total += load;
        }
    }
    rows += &format!(
        "| total | {ptx_total} | {} | {} | {:.0} / {:.0} | {:.3} |\n",
        cubin_total[0],
        cubin_total[1],
        ms(ptxas_total[0]),
        ms(ptxas_total[1]),
        ms(load_total)
    );
    let profile = if cfg!(debug_assertions) { "dev" } else { "release" };
    let report = format!("Profile: {profile}; ptxas: {}; CPU backend load: median of {LOADS}.\n\n{rows}", ptxas.display());
    println!("{report}");
    let out = root.join("target/bench/cubins.md");
    if let Err(e) = std::fs::write(&out, report) {
        eprintln!("cubins bench: {}: {e}", out.display());
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn ptx_cpu_device() -> ptx_runtime::cpu::CpuDevice {
    ptx_runtime::cpu::CpuDevice::new()
}
