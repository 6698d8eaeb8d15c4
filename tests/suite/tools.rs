//! NVIDIA's tools, as the tests use them: every PTX module a test produces goes through
//! [`assemble`] (ptxas for sm_75 and sm_90), and the ABI oracle compiles CUDA C with [`nvcc_ptx`].
//!
//! Tools are found through `$PTXAS`/`$NVCC` (set by `cargo xtask test`), then PATH, then
//! `$CUDA_PATH/bin`, then `target/cuda-tools` (where `cargo xtask tools` installs them). When one
//! is missing, the test fails if `PTX_TOOLS_REQUIRED` is set (CI) and otherwise says loudly, on
//! the terminal, that it skipped.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The architectures every module is assembled for (raised to the module's own `.target` when
/// that is newer).
pub const ARCHS: [u32; 2] = [75, 90];

fn find(var: &str, name: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(PathBuf::from(p));
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        dirs.push(PathBuf::from(cuda).join("bin"));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("target/cuda-tools/nvidia/cu13/bin"));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// The tool, or `None` after announcing the skip (or panicking, under `PTX_TOOLS_REQUIRED`).
pub fn tool(var: &str, name: &str, what: &str) -> Option<PathBuf> {
    let found = find(var, name);
    if found.is_none() {
        if std::env::var_os("PTX_TOOLS_REQUIRED").is_some() {
            panic!("{name} is required (PTX_TOOLS_REQUIRED is set) but was not found; run `cargo xtask test`");
        }
        // Written straight to the terminal: the test harness captures only print!/eprint!.
        let _ = writeln!(std::io::stderr(), "SKIPPED ({name} not found; run `cargo xtask test` to install it): {what}");
    }
    found
}

/// Whether `nvcc` has CUDA's C++ library headers (CCCL, which cooperative groups include:
/// `<nv/target>`), a wheel of their own that `cargo xtask test` installs next to nvcc. When
/// they are missing: `false` after announcing the skip, or a panic under `PTX_TOOLS_REQUIRED`.
pub fn has_cccl(nvcc: &Path, what: &str) -> bool {
    let include = nvcc.parent().and_then(Path::parent).map(|d| d.join("include"));
    if include.is_some_and(|i| i.join("cccl/nv/target").is_file() || i.join("nv/target").is_file()) {
        return true;
    }
    if std::env::var_os("PTX_TOOLS_REQUIRED").is_some() {
        panic!("CUDA's C++ library headers (<nv/target>) are required (PTX_TOOLS_REQUIRED is set) but {} has none; run `cargo xtask test`", nvcc.display());
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED (nvcc has no CCCL headers; run `cargo xtask test` to install them): {what}");
    false
}

static SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// A fresh scratch directory under `target/`.
pub fn scratch_dir(tag: &str) -> PathBuf {
    let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-scratch")
        .join(format!("{tag}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// The `sm_NN` number of a module's `.target`.
pub fn target_sm(ptx: &str) -> u32 {
    ptx.lines()
        .find_map(|l| l.trim().strip_prefix(".target sm_"))
        .map(|t| t.chars().take_while(char::is_ascii_digit).collect::<String>())
        .and_then(|d| d.parse().ok())
        .expect("PTX module without `.target sm_NN`")
}

/// Assembles `ptx` with ptxas for each of [`ARCHS`] and panics with ptxas's log if it is
/// rejected. Returns `false` when ptxas is unavailable (and the skip was announced).
pub fn assemble(name: &str, ptx: &str) -> bool {
    dump(name, ptx);
    let above = blocks_above_all_predecessors(ptx);
    assert!(above.is_empty(), "`{name}`: blocks {above:?} laid out above every block that goes to them:\n{}", numbered(ptx));
    let Some(ptxas) = tool("PTXAS", "ptxas", name) else { return false };
    let dir = scratch_dir("ptxas");
    let file = dir.join(format!("{}.ptx", sanitize(name)));
    std::fs::write(&file, ptx).expect("write ptx");
    let own = target_sm(ptx);
    let mut archs: Vec<u32> = ARCHS.iter().map(|&a| a.max(own)).collect();
    archs.dedup();
    for sm in archs {
        let out = Command::new(&ptxas)
            .arg(format!("-arch=sm_{sm}"))
            .arg(&file)
            .arg("-o")
            .arg(dir.join(format!("{}.sm_{sm}.cubin", sanitize(name))))
            .output()
            .expect("run ptxas");
        assert!(
            out.status.success(),
            "ptxas -arch=sm_{sm} rejected `{name}`:\n{}{}\n--- PTX ---\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            numbered(ptx)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    true
}

/// One block of a PTX function (its label to the next label) and where it can go.
struct Block<'a> {
    label: Option<&'a str>,
    targets: Vec<&'a str>,
    falls_through: bool,
    traps: bool,
}

/// The blocks of each function body of `ptx` (the lines between a `{` and a `}` at the start of
/// a line; a call's braces are indented).
fn function_blocks(ptx: &str) -> Vec<Vec<Block<'_>>> {
    let mut funcs = Vec::new();
    let mut current: Option<Vec<Block>> = None;
    for raw in ptx.lines() {
        match raw {
            "{" => current = Some(vec![Block { label: None, targets: Vec::new(), falls_through: true, traps: false }]),
            "}" => funcs.extend(current.take()),
            _ => {}
        }
        let Some(blocks) = current.as_mut() else { continue };
        let line = raw.trim();
        if let Some(label) = line.strip_suffix(':') {
            blocks.push(Block { label: Some(label), targets: Vec::new(), falls_through: true, traps: false });
            continue;
        }
        let Some(b) = blocks.last_mut() else { continue };
        // `@%p bra L;` or `bra.uni L;`
        let (unguarded, op) = match line.strip_prefix('@') {
            Some(guarded) => (false, guarded.split_once(char::is_whitespace).map_or("", |(_, op)| op.trim())),
            None => (true, line),
        };
        if op.starts_with("bra") {
            b.targets.push(op.rsplit(char::is_whitespace).next().unwrap_or("").trim_end_matches(';'));
            b.falls_through &= !unguarded;
        } else if unguarded && ["ret", "trap", "exit"].iter().any(|t| op.starts_with(t)) {
            b.falls_through = false;
            b.traps |= op.starts_with("trap");
        }
    }
    funcs
}

/// The labels of blocks laid out above every block that goes to them (reached only by backward
/// jumps), up to each function's cold blocks at the end (a failed check's report, laid out
/// above the stubs that jump to it). The PTX writer lays every block out after one of its
/// predecessors: ptxas 13.5 crashed on a kernel whose loop was laid out above the code leading
/// to it.
pub fn blocks_above_all_predecessors(ptx: &str) -> Vec<String> {
    let mut out = Vec::new();
    for bs in function_blocks(ptx) {
        for (i, b) in bs.iter().enumerate().skip(1) {
            if b.traps {
                break;
            }
            let Some(label) = b.label else { continue };
            let mut preds: Vec<usize> = bs.iter().enumerate().filter(|(_, p)| p.targets.contains(&label)).map(|(j, _)| j).collect();
            if bs[i - 1].falls_through {
                preds.push(i - 1);
            }
            if !preds.is_empty() && preds.iter().all(|&j| j > i) {
                out.push(label.to_owned());
            }
        }
    }
    out
}

/// Under `PTX_DUMP_DIR`, writes the module there as `<name>.<hash of the text>.ptx`: two runs'
/// dumps compare as directories (a compiler refactor that must not change the output).
fn dump(name: &str, ptx: &str) {
    let Some(dir) = std::env::var_os("PTX_DUMP_DIR") else { return };
    // FNV-1a: stable across runs and toolchains, unlike `DefaultHasher`.
    let hash = ptx.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(Path::new(&dir).join(format!("{}.{hash:016x}.ptx", sanitize(name))), ptx);
}

/// Compiles CUDA C to PTX with `nvcc -ptx -rdc=true` for sm_75. `None` when nvcc is missing.
pub fn nvcc_ptx(name: &str, cuda: &str) -> Option<String> {
    nvcc_ptx_with(name, cuda, &[])
}

/// [`nvcc_ptx`] with extra nvcc flags (`-lineinfo`, `-G`).
pub fn nvcc_ptx_with(name: &str, cuda: &str, flags: &[&str]) -> Option<String> {
    let nvcc = tool("NVCC", "nvcc", name)?;
    let dir = scratch_dir("nvcc");
    let src = dir.join(format!("{}.cu", sanitize(name)));
    let out_file = dir.join(format!("{}.ptx", sanitize(name)));
    std::fs::write(&src, cuda).expect("write .cu");
    let out = Command::new(&nvcc)
        .args(["-ptx", "-rdc=true", "-arch=sm_75"])
        .args(flags)
        .arg("-o")
        .arg(&out_file)
        .arg(&src)
        .output()
        .expect("run nvcc");
    assert!(out.status.success(), "nvcc failed on `{name}`:\n{}\n--- source ---\n{cuda}", String::from_utf8_lossy(&out.stderr));
    let ptx = std::fs::read_to_string(&out_file).expect("read nvcc output");
    let _ = std::fs::remove_dir_all(&dir);
    Some(ptx)
}

fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

fn numbered(text: &str) -> String {
    text.lines().enumerate().map(|(i, l)| format!("{:4} {l}\n", i + 1)).collect()
}

/// Checks that relocatable modules link as a whole program with NVIDIA's own tools: each is
/// assembled with `ptxas -c` and the cubins joined by `nvlink`, for each of [`ARCHS`];
/// panics with the tools' log when one refuses. `false` when the tools are missing.
pub fn nvlink(name: &str, modules: &[&str]) -> bool {
    for (i, m) in modules.iter().enumerate() {
        dump(&format!("{name}.{i}"), m);
    }
    let Some(ptxas) = tool("PTXAS", "ptxas", name) else { return false };
    let Some(nvlink) = tool("NVLINK", "nvlink", name) else { return false };
    let dir = scratch_dir("nvlink");
    let own = modules.iter().map(|m| target_sm(m)).max().unwrap_or(75);
    let mut archs: Vec<u32> = ARCHS.iter().map(|&a| a.max(own)).collect();
    archs.dedup();
    for sm in archs {
        let mut cubins = Vec::new();
        for (i, m) in modules.iter().enumerate() {
            let file = dir.join(format!("{}_{i}.ptx", sanitize(name)));
            std::fs::write(&file, m).expect("write ptx");
            let cubin = dir.join(format!("{}_{i}.sm_{sm}.cubin", sanitize(name)));
            let out = Command::new(&ptxas).args(["-c", &format!("-arch=sm_{sm}")]).arg(&file).arg("-o").arg(&cubin).output().expect("run ptxas");
            assert!(out.status.success(), "ptxas -c -arch=sm_{sm} rejected module {i} of `{name}`:\n{}\n--- PTX ---\n{}", String::from_utf8_lossy(&out.stderr), numbered(m));
            cubins.push(cubin);
        }
        let out = Command::new(&nvlink).arg(format!("-arch=sm_{sm}")).args(&cubins).arg("-o").arg(dir.join(format!("{}.sm_{sm}.linked.cubin", sanitize(name)))).output().expect("run nvlink");
        assert!(out.status.success(), "nvlink -arch=sm_{sm} refused `{name}`:\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
    true
}

/// `ptx` without its functions' report blocks (the slot's load, the store and the fence before
/// `trap`, `ptx_abi::report`): what tests that count a kernel's compares or loads measure.
pub fn without_report_blocks(ptx: &str) -> String {
    report_lines(ptx, false)
}

/// The lines of `ptx`'s report blocks only (see [`without_report_blocks`]).
pub fn report_block(ptx: &str) -> String {
    report_lines(ptx, true)
}

fn report_lines(ptx: &str, inside: bool) -> String {
    let mut out = String::new();
    let mut in_block = false;
    for l in ptx.lines() {
        let t = l.trim_start();
        in_block |= t.starts_with("ld.const.u64") && t.contains("$report]");
        if in_block == inside {
            out.push_str(l);
            out.push('\n');
        }
        in_block &= !t.starts_with("trap;");
    }
    out
}

/// The SASS instructions of `ptx` assembled by `ptxas -O3` for `sm`, one string per
/// instruction without its address (`None` without the tools).
pub fn sass(name: &str, ptx: &str, sm: u32) -> Option<Vec<String>> {
    let ptxas = tool("PTXAS", "ptxas", name)?;
    let cuobjdump = tool("CUOBJDUMP", "cuobjdump", name)?;
    let dir = scratch_dir("sass");
    let (src, bin) = (dir.join(format!("{name}.ptx")), dir.join(format!("{name}.cubin")));
    std::fs::write(&src, ptx).expect("write");
    let out = Command::new(&ptxas).args(["-O3", &format!("-arch=sm_{sm}")]).arg(&src).arg("-o").arg(&bin).output().expect("ptxas");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listing = Command::new(&cuobjdump).arg("-sass").arg(&bin).output().expect("cuobjdump");
    let _ = std::fs::remove_dir_all(&dir);
    Some(String::from_utf8_lossy(&listing.stdout).lines().filter_map(|l| l.trim_start().strip_prefix("/*")?.split_once("*/").map(|(_, i)| i.trim().to_owned())).filter(|i| !i.is_empty()).collect())
}

/// The loops of a SASS listing (a backward branch and its target), as index ranges.
pub fn sass_loops(sass: &[String]) -> Vec<std::ops::RangeInclusive<usize>> {
    let mut out = Vec::new();
    for (i, ins) in sass.iter().enumerate() {
        let text = ins.split(';').next().unwrap_or("");
        let Some(target) = text.split_whitespace().last().and_then(|t| u64::from_str_radix(t.strip_prefix("0x")?, 16).ok()) else { continue };
        // Every instruction is 16 bytes from sm_70 on.
        let first = (target / 16) as usize;
        if text.contains("BRA") && first <= i {
            out.push(first..=i);
        }
    }
    out
}

/// The lines of each loop of a PTX function (a label and the last branch back to it), trimmed.
pub fn ptx_loops(ptx: &str) -> Vec<Vec<&str>> {
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(label) = l.strip_suffix(':') else { continue };
        if let Some(end) = lines[i..].iter().rposition(|b| b.contains("bra") && b.ends_with(&format!("{label};"))) {
            // A branch back, not the jump of a failure's stub to the shared call block.
            let body = lines[i..=i + end].to_vec();
            if !body.iter().any(|l| *l == "trap;" || *l == "ret;") {
                out.push(body);
            }
        }
    }
    out
}
