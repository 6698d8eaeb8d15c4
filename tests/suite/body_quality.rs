//! PTX quality, measured against nvcc: for twelve corpus kernels and their CUDA C twins in
//! `benches/cuda/` (the same algorithm, Rust's bounds checks written as `assert`s, compiled
//! with `nvcc -O3 -fmad=false`, the float semantics Rust's `*` and `+` have), ptxas's register
//! count and the SASS instruction count of ours and theirs, for sm_80 and sm_90.
//! `cargo xtask bench-codegen` prints the full table (inner loops included).

use crate::tools::{scratch_dir, tool};
use std::path::Path;
use std::process::Command;

/// (function, registers, SASS instructions) of each entry of a module (NOP padding left out).
pub fn measure(name: &str, ptx: &str, sm: u32) -> Option<Vec<(String, u32, u32)>> {
    let ptxas = tool("PTXAS", "ptxas", name)?;
    let cuobjdump = tool("CUOBJDUMP", "cuobjdump", name)?;
    let dir = scratch_dir("quality");
    let (src, bin) = (dir.join(format!("{name}.ptx")), dir.join(format!("{name}.cubin")));
    std::fs::write(&src, ptx).expect("write");
    let out = Command::new(&ptxas).arg(format!("-arch=sm_{sm}")).arg("-v").arg(&src).arg("-o").arg(&bin).output().expect("ptxas");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let sass = Command::new(&cuobjdump).arg("-sass").arg(&bin).output().expect("cuobjdump");
    let sass = String::from_utf8_lossy(&sass.stdout).into_owned();
    let mut result = Vec::new();
    let mut current: Option<String> = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            current = rest.split('\'').next().map(str::to_owned);
        }
        if let (Some(f), Some(regs)) = (&current, line.split("Used ").nth(1).and_then(|r| r.split(' ').next()).and_then(|r| r.parse::<u32>().ok())) {
            let mut count = 0;
            let mut inside = false;
            for l in sass.lines() {
                if l.contains("Function : ") {
                    inside = l.trim().ends_with(f.as_str());
                } else if inside && l.trim_start().starts_with("/*") && !l.contains("NOP;") && l.split("*/").nth(1).is_some_and(|r| !r.trim().is_empty()) {
                    count += 1;
                }
            }
            result.push((f.clone(), regs, count));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Some(result)
}

/// nvcc's PTX for a twin in `benches/cuda/`.
fn nvcc_ptx(nvcc: &Path, file: &str, sm: u32) -> String {
    let cuda = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/cuda");
    let dir = scratch_dir("quality-nvcc");
    let out = dir.join("k.ptx");
    let o = Command::new(nvcc)
        .args(["-ptx", "-O3", "-fmad=false", &format!("-arch=sm_{sm}"), "-o"])
        .arg(&out)
        .arg(cuda.join(file))
        .output()
        .expect("nvcc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ptx = std::fs::read_to_string(&out).expect("read");
    let _ = std::fs::remove_dir_all(&dir);
    ptx
}

#[test]
fn corpus_kernels_are_as_lean_as_nvccs() {
    let Some(nvcc) = tool("NVCC", "nvcc", "quality") else { return };
    use crate::corpus::*;
    let cases = [
        ("saxpy", "saxpy.cu", saxpy::saxpy::PTX),
        ("dot", "dot.cu", dot::dot::PTX),
        ("matmul", "matmul.cu", matmul::matmul::PTX),
        ("stencil", "stencil.cu", stencil::stencil::PTX),
        ("transpose", "transpose.cu", transpose::transpose::PTX),
        ("softmax", "softmax.cu", softmax::softmax::PTX),
        ("nbody_step", "nbody.cu", nbody::nbody_step::PTX),
        ("warp_reduce", "warp_reduce.cu", warp_reduce::warp_reduce::PTX),
        ("shared_histogram", "shared_histogram.cu", shared_histogram::shared_histogram::PTX),
        ("conv1d", "conv1d.cu", conv1d::conv1d::PTX),
        ("layernorm", "layernorm.cu", layernorm::layernorm::PTX),
        ("tensor_gemm", "tensor_gemm.cu", tensor_gemm::tensor_gemm::PTX),
        // Methods and operators on a `Vec3`: as lean only with them inlined, as nvcc inlines
        // the twin's member functions (30 calls and 32 registers before).
        ("shade", "spheres.cu", spheres::shade::PTX),
    ];
    let mut table = String::from("kernel            arch    regs ours/nvcc   SASS ours/nvcc\n");
    let mut worse = Vec::new();
    for sm in [80, 90] {
        for (name, file, ptx) in cases {
            let Some(theirs) = measure(name, &nvcc_ptx(&nvcc, file, sm), sm) else { return };
            let Some(ours) = measure(name, ptx, sm) else { return };
            let (_, our_regs, our_sass) = ours[0].clone();
            let (_, their_regs, their_sass) = theirs.iter().find(|(f, ..)| f == name).cloned().expect("nvcc's kernel");
            table.push_str(&format!("{name:<16}  sm_{sm}   {our_regs:>4} / {their_regs:<4}      {our_sass:>4} / {their_sass:<4}\n"));
            // The targets of issue 7: at most 5% more instructions, no more registers. saxpy may
            // have 4 more: its grid-stride loop's check of `x[i]` folded into the loop's bound
            // (`ir/fold.rs`) costs a 64-bit minimum before the loop and a test after it (57 / 53
            // on sm_80, 62 / 59 on sm_90, from 53 and 61), and takes the hot loop from 19 to 16
            // instructions on sm_80 and from 21 to 18 on sm_90, where the checked twin's is 41
            // and 37.
            let allowance = if name == "saxpy" { 4.0 } else { 0.0 };
            if our_sass as f64 > their_sass as f64 * 1.05 + allowance || our_regs > their_regs {
                worse.push(format!("{name} sm_{sm}"));
            }
        }
    }
    println!("{table}");
    assert!(worse.is_empty(), "behind nvcc: {worse:?}\n{table}");
}
