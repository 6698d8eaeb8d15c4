//! Line info (`.file`/`.loc`, as nvcc `-lineinfo`): checked with NVIDIA's tools, not against our
//! own emitter. `ptxas -lineinfo` builds each module's `.debug_line`, `nvdisasm -g` prints the
//! file and line beside each machine instruction, and the lines are compared with this file's
//! own text; `.loc` must change no machine code.

use crate::corpus::CASES;
use crate::tools::{scratch_dir, tool};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A call under test: not inlined (`body_inline.rs`).
#[device_fn]
#[inline(never)]
fn twice(x: f32) -> f32 {
    x * 2.0 // LINE: twice
}

#[kernel]
pub fn marked(x: &[f32], y: &mut [f32]) {
    let i = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut k = 0usize;
    while k < x.len() { // LINE: loop
        acc += x[k];
        k += 1;
    }
    let t = twice(acc); // LINE: call
    y[i] = t; // LINE: store
}

/// The 1-based line of this file that carries `// LINE: <what>`.
fn line_of(what: &str) -> u32 {
    let marker = format!("// LINE: {what}");
    let src = include_str!("lineinfo.rs");
    let i = src.lines().position(|l| l.trim_end().ends_with(&marker)).expect("marker in this file");
    i as u32 + 1
}

/// One machine instruction of `nvdisasm -g`: its function, address, text, and the source file
/// and line annotated for it (`None` where the function has no annotation yet).
struct Sass {
    func: String,
    addr: u32,
    text: String,
    at: Option<(String, u32)>,
}

/// Assembles `ptx` for sm_75, or its own target where that is newer (the tensor-core GEMM's
/// sm_80), with `-lineinfo` when asked, and disassembles the cubin (with line annotations
/// when `lines`). `None` where ptxas or nvdisasm is missing (announced).
fn disassemble(name: &str, ptx: &str, lineinfo: bool, lines: bool) -> Option<String> {
    let ptxas = tool("PTXAS", "ptxas", name)?;
    let nvdisasm = tool("NVDISASM", "nvdisasm", name)?;
    let dir = scratch_dir("lineinfo");
    let file = dir.join("m.ptx");
    let cubin = dir.join("m.cubin");
    std::fs::write(&file, ptx).unwrap();
    let mut cmd = Command::new(ptxas);
    cmd.arg(format!("-arch=sm_{}", crate::tools::target_sm(ptx).max(75))).arg(&file).arg("-o").arg(&cubin);
    if lineinfo {
        cmd.arg("-lineinfo");
    }
    let out = cmd.output().expect("run ptxas");
    assert!(out.status.success(), "ptxas rejected {name}: {}\n{ptx}", String::from_utf8_lossy(&out.stderr));
    let mut cmd = Command::new(nvdisasm);
    if lines {
        cmd.arg("-g");
    }
    let out = cmd.arg(&cubin).output().expect("run nvdisasm");
    assert!(out.status.success(), "nvdisasm failed on {name} ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
    Some(String::from_utf8(out.stdout).unwrap())
}

/// The instructions of a disassembly, with the annotation in force for each.
fn instructions(sass: &str) -> Vec<Sass> {
    let mut out = Vec::new();
    let (mut func, mut at) = (String::new(), None);
    for l in sass.lines() {
        let t = l.trim();
        if let Some(s) = t.strip_prefix(".section\t.text.").or_else(|| t.strip_prefix(".section .text.")) {
            func = s.split(',').next().unwrap_or("").to_owned();
            at = None;
        } else if let Some(rest) = t.strip_prefix("//## File \"") {
            let (file, rest) = rest.split_once('"').expect("quoted file");
            let line = rest.trim_start_matches(", line ").split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
            at = Some((file.to_owned(), line));
        } else if let Some(rest) = t.strip_prefix("/*") {
            let Some((addr, text)) = rest.split_once("*/") else { continue };
            let Ok(addr) = u32::from_str_radix(addr, 16) else { continue };
            let text = text.trim();
            if func.is_empty() || text.is_empty() || text.starts_with('.') {
                continue;
            }
            out.push(Sass { func: func.clone(), addr, text: text.to_owned(), at: at.clone() });
        }
    }
    out
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn every_corpus_kernel_shows_rust_lines_in_nvdisasm() {
    let (mut total, mut annotated) = (0usize, 0usize);
    let mut report = Vec::new();
    for case in CASES {
        for (name, ptx) in case.ptx {
            let Some(sass) = disassemble(name, ptx, true, true) else { return };
            let insts = instructions(&sass);
            let with = insts.iter().filter(|i| i.at.as_ref().is_some_and(|(f, line)| f.ends_with(".rs") && *line > 0)).count();
            // Every file named is a real Rust file, named as rustc names it (relative to the
            // workspace, where cargo runs rustc).
            for i in &insts {
                if let Some((f, _)) = &i.at {
                    assert!(workspace().join(f).is_file() || Path::new(f).is_file(), "{name}: {f} is not a file");
                }
            }
            total += insts.len();
            annotated += with;
            report.push(format!("{}::{name}: {with}/{}", case.name, insts.len()));
        }
    }
    eprintln!("line info: {annotated}/{total} instructions annotated\n{}", report.join("\n"));
    assert!(total > 1000, "too few instructions disassembled: {total}");
    assert!(annotated * 100 >= total * 95, "only {annotated} of {total} instructions show a Rust line:\n{}", report.join("\n"));
}

#[test]
fn a_store_a_call_and_a_loop_back_edge_show_their_own_lines() {
    let Some(sass) = disassemble("marked", marked::PTX, true, true) else { return };
    let insts = instructions(&sass);
    let kernel: Vec<&Sass> = insts.iter().filter(|i| i.func == marked::ENTRY).collect();
    assert!(!kernel.is_empty(), "{sass}");
    let file = |i: &Sass| i.at.clone().unwrap_or_else(|| panic!("no line for `{}`:\n{sass}", i.text));
    let this = "tests/suite/lineinfo.rs";

    // The body's stores; not the report block's system-scope one (`ptx_abi::report`).
    let store: Vec<_> = kernel.iter().filter(|i| i.text.starts_with("STG") && !i.text.contains(".STRONG.SYS")).collect();
    assert!(!store.is_empty(), "{sass}");
    for s in store {
        assert_eq!(file(s), (this.to_owned(), line_of("store")), "`{}`", s.text);
    }
    let call = kernel.iter().find(|i| i.text.starts_with("CALL.REL")).unwrap_or_else(|| panic!("no call:\n{sass}"));
    assert_eq!(file(call), (this.to_owned(), line_of("call")));
    // The back edge: a branch to an earlier address (not the branch to itself that ptxas
    // places after the last instruction).
    let labels: std::collections::HashMap<String, u32> = {
        let mut m = std::collections::HashMap::new();
        let mut pending = Vec::new();
        for l in sass.lines() {
            let t = l.trim();
            if t.starts_with(".L_") && t.ends_with(':') {
                pending.push(t.trim_end_matches(':').to_owned());
            } else if let Some(i) = insts.iter().find(|i| t.starts_with(&format!("/*{:04x}*/", i.addr)) && t.contains(&i.text)) {
                for p in pending.drain(..) {
                    m.insert(p, i.addr);
                }
            }
        }
        m
    };
    let back: Vec<_> = kernel
        .iter()
        .filter(|i| i.text.contains("BRA") && labels.iter().any(|(l, &a)| i.text.contains(&format!("({l})")) && a < i.addr))
        .collect();
    assert!(!back.is_empty(), "no back edge:\n{sass}");
    for b in back {
        assert_eq!(file(b), (this.to_owned(), line_of("loop")), "`{}`", b.text);
    }
    // The device function's instructions are at its own lines.
    let fx = insts.iter().find(|i| i.func.contains("twice") && i.text.starts_with("FMUL")).or_else(|| insts.iter().find(|i| i.text.contains("FADD") && i.func.contains("twice")));
    if let Some(i) = fx {
        assert_eq!(file(i), (this.to_owned(), line_of("twice")));
    }
}

/// The PTX less its `.loc` and `.file` directives.
fn without_lines(ptx: &str) -> String {
    ptx.lines().filter(|l| !matches!(l.trim_start().split_whitespace().next(), Some(".loc" | ".file"))).map(|l| format!("{l}\n")).collect()
}

#[test]
fn line_info_changes_no_machine_code() {
    let mut modules: Vec<(&str, &str)> = CASES.iter().flat_map(|c| c.ptx.iter().copied()).collect();
    modules.push(("marked", marked::PTX));
    let mut compared = 0;
    for (name, ptx) in modules {
        let bare = without_lines(ptx);
        assert_ne!(bare, ptx, "{name} has no line info");
        assert!(!bare.contains("\t.loc\t"), "{name}");
        let Some(with) = disassemble(name, ptx, true, false) else { return };
        let Some(without) = disassemble(name, &bare, false, false) else { return };
        let code = |s: &str| instructions(s).into_iter().map(|i| format!("{} {:04x} {}", i.func, i.addr, i.text)).collect::<Vec<_>>();
        assert_eq!(code(&with), code(&without), "{name}: SASS differs with line info");
        compared += 1;
    }
    assert!(compared > 20);
}

/// A kernel calling `ptx_runtime`'s math library (`sin_f32`, in another file).
#[kernel]
pub fn sine(x: &mut [f32]) {
    let i = thread_idx_x() as usize;
    if i < x.len() {
        x[i] = x[i].sin();
    }
}

#[test]
fn device_functions_from_other_files_share_one_dense_table() {
    // A kernel calling `ptx_runtime`'s math library: two files, numbered 1 and 2.
    let ptx = sine::PTX;
    assert!(ptx.contains("device/math/"), "{ptx}");
    let files: Vec<&str> = ptx.lines().filter(|l| l.trim_start().starts_with(".file")).collect();
    assert!(files.len() >= 2, "{files:?}");
    for (i, f) in files.iter().enumerate() {
        assert!(f.trim_start().starts_with(&format!(".file\t{} \"", i + 1)), "{files:?}");
    }
    // Every `.loc` names a declared file.
    for l in ptx.lines().filter(|l| l.split_whitespace().next() == Some(".loc")) {
        let n: usize = l.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!((1..=files.len()).contains(&n), "{l}");
    }
}
