//! Source locations in the CPU backend's reports: with line information in the PTX (`.file`
//! and `.loc`, here from nvcc `-lineinfo`), every fault and failed assertion names the CUDA
//! source `file:line:column` first. The expected lines and columns are found in the `.cu` text
//! itself, not in the PTX.

use crate::cpu_harness::{arg, fault, Harness};
use crate::tools::{assemble, nvcc_ptx_with};
use ptx_runtime::{Error, FaultKind, SourceLoc};

const MEMCHECK: &str = include_str!("../cuda/memcheck.cu");
const SYSCALLS: &str = include_str!("../cuda/syscalls.cu");

fn module(name: &str, src: &str) -> Option<Harness> {
    let ptx = nvcc_ptx_with(name, src, &["-lineinfo"])?;
    assert!(has_loc(&ptx), "nvcc -lineinfo wrote no .loc");
    assemble(name, &ptx);
    Some(Harness::new(&ptx))
}

fn has_loc(ptx: &str) -> bool {
    ptx.lines().any(|l| l.trim_start().strip_prefix(".loc").is_some_and(|r| r.starts_with(char::is_whitespace)))
}

/// (1-based line, 1-based column of its first non-blank character) of the only line of `src`
/// containing `needle`.
fn src_line(src: &str, needle: &str) -> (u32, u32) {
    let hits: Vec<(usize, &str)> = src.lines().enumerate().filter(|(_, l)| l.contains(needle)).collect();
    assert_eq!(hits.len(), 1, "`{needle}` must name one line");
    let (i, l) = hits[0];
    (i as u32 + 1, (l.len() - l.trim_start().len()) as u32 + 1)
}

/// The source location is in the named file, at the line (and column) of `needle`.
fn assert_at(src_loc: Option<&SourceLoc>, file: &str, src: &str, needle: &str, column: bool) {
    let loc = src_loc.unwrap_or_else(|| panic!("no source location (looking for `{needle}`)"));
    let (line, col) = src_line(src, needle);
    assert!(loc.file.ends_with(file), "{loc}");
    assert_eq!(loc.line, line, "{loc}: `{needle}`");
    if column {
        assert_eq!(loc.column, col, "{loc}: `{needle}`");
    }
}

#[test]
fn memcheck_faults_name_the_cuda_line_first() {
    let Some(mut k) = module("lineinfo_memcheck", MEMCHECK) else { return };
    let file = "lineinfo_memcheck.cu";
    let out = k.zeroed::<i32>(100);
    let f = fault(k.launch("past_the_end", [4, 1, 1], [32, 1, 1], 0, &[out.ptr(), arg(100i32)]));
    assert_eq!(f.kind, FaultKind::OutOfBounds);
    assert_at(f.source.as_deref(), file, MEMCHECK, "out[i] = n;", true);
    let (line, col) = src_line(MEMCHECK, "out[i] = n;");
    let text = f.to_string();
    let prefix = format!("{file}:{line}:{col}: out-of-bounds access in kernel `past_the_end`, block (3, 0, 0), thread (4, 0, 0), address");
    assert!(text.contains(&prefix) && text.contains(", PTX line "), "{text}");
    assert!(!text.starts_with("out-of-bounds"), "the source location comes first: {text}");

    let out = k.zeroed::<i32>(64);
    let f = fault(k.launch("shared_overflow", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(1i32)]));
    assert_at(f.source.as_deref(), file, MEMCHECK, "out[threadIdx.x] = s[threadIdx.x + k];", true);

    let bytes = k.zeroed::<u8>(256);
    let f = fault(k.launch("misaligned", [1, 1, 1], [32, 1, 1], 0, &[bytes.ptr(), out.ptr()]));
    assert_eq!(f.kind, FaultKind::Misaligned);
    assert_at(f.source.as_deref(), file, MEMCHECK, "*(int*)(p + 1 + 4 * threadIdx.x)", true);

    let f = fault(k.launch("traps", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::Trap);
    assert_at(f.source.as_deref(), file, MEMCHECK, "__trap();", false);

    let f = fault(k.launch("double_free", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::InvalidFree);
    assert_at(f.source.as_deref(), file, MEMCHECK, "if (threadIdx.x == 3) free(p);", false);
}

#[test]
fn barrier_and_deadlock_reports_name_both_places() {
    let Some(mut k) = module("lineinfo_barriers", MEMCHECK) else { return };
    let file = "lineinfo_barriers.cu";
    let out = k.zeroed::<i32>(64);
    // The two halves of a warp wait at the two __syncthreads() of split_barrier.
    let f = fault(k.launch("split_barrier", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::BarrierDivergence);
    let start = src_line(MEMCHECK, "void split_barrier(").0 as usize;
    let bars: Vec<u32> =
        MEMCHECK.lines().enumerate().skip(start).take(8).filter(|(_, l)| l.contains("__syncthreads();")).map(|(i, _)| i as u32 + 1).collect();
    assert_eq!(bars.len(), 2);
    let at = f.source.as_ref().expect("source").line;
    assert!(bars.contains(&at), "{f}");
    let other = bars.iter().find(|&&b| b != at).unwrap();
    assert!(f.detail.contains(&format!("{file}:{other}:")), "the other barrier's source line is named: {f}");

    // Each half waits in its own __shfl_sync: the location is the intrinsic's, inlined at
    // the kernel's line.
    let f = fault(k.launch("shuffle_deadlock", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::Deadlock);
    let src = f.source.as_ref().expect("source");
    let call = src.inlined_at.as_ref().expect("inlined at the kernel's call");
    let lines = [src_line(MEMCHECK, "if (threadIdx.x < 16) v = __shfl_sync").0, src_line(MEMCHECK, "else v = __shfl_sync").0];
    assert!(call.file.ends_with(file) && lines.contains(&call.line), "{f}");
    assert!(f.to_string().contains(&format!("(inlined at {call})")), "{f}");

    let flag = k.zeroed::<i32>(1);
    let f = fault(k.launch("spin", [1, 1, 1], [1, 1, 1], 0, &[flag.ptr()]));
    assert_eq!(f.kind, FaultKind::Deadlock);
    assert_at(f.source.as_deref(), file, MEMCHECK, "while (*flag == 0) {}", false);
}

#[test]
fn failed_assertions_name_the_cuda_line_column_and_thread() {
    let Some(mut k) = module("lineinfo_syscalls", SYSCALLS) else { return };
    let v: Vec<i32> = (0..100).map(|i| if i == 77 { -1 } else { i }).collect();
    let dv = k.upload(&v);
    let err = k.launch("check", [2, 1, 1], [64, 1, 1], 0, &[dv.ptr(), arg(100i32)]).unwrap_err();
    let Error::Assert { site: Some(site), .. } = &err else { panic!("{err:?}") };
    assert_at(site.source.as_ref(), "lineinfo_syscalls.cu", SYSCALLS, "assert(v[i] >= 0)", false);
    assert_eq!((site.block, site.thread, site.kernel.as_str()), ([1, 0, 0], [13, 0, 0], "check"));
    let loc = site.source.as_ref().unwrap();
    let text = err.to_string();
    assert!(text.starts_with(&format!("{loc}: device assertion failed")), "{text}");
    assert!(text.contains("kernel `check`, block (1, 0, 0), thread (13, 0, 0), PTX line"), "{text}");
}

#[test]
fn without_line_information_reports_are_as_before() {
    let Some(ptx) = crate::cpu_harness::nvcc("lineinfo_none", MEMCHECK) else { return };
    assert!(!has_loc(&ptx));
    let mut k = Harness::new(&ptx);
    let out = k.zeroed::<i32>(100);
    let f = fault(k.launch("past_the_end", [4, 1, 1], [32, 1, 1], 0, &[out.ptr(), arg(100i32)]));
    assert_eq!(f.source, None);
    assert!(f.to_string().starts_with("out-of-bounds access in kernel `past_the_end`"), "{f}");
}

/// Hand-written line information, as `#[kernel]` writes it: a `.file` before the code, `.loc`
/// with columns, a `.loc` in a called function, and a function after the last `.loc`.
#[test]
fn hand_written_file_and_loc() {
    const PTX: &str = r#".version 7.8
.target sm_75
.address_size 64
.file 1 "src/kernels.rs"
.file 2 "src/helpers.rs"

.func (.param .b64 r) at(.param .b64 p, .param .b32 i)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    .loc 2 3 17
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [i];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.param.b64 [r], %rd3;
    ret;
}

.visible .entry fill(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    .loc 1 10 5
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b32 p1;
    st.param.b32 [p1], %r2;
    .param .b64 r0;
    call.uni (r0), at, (p0, p1);
    ld.param.b64 %rd2, [r0];
    }
    .loc 1 12 9
    st.global.u32 [%rd2], %r1;
    .loc 1 13 1
    ret;
}

.visible .entry bare(.param .u64 out)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1+4096], 1;
    ret;
}
"#;
    assemble("hand_lineinfo", PTX);
    let mut k = Harness::new(PTX);
    let out = k.zeroed::<u32>(8);
    let f = fault(k.launch("fill", [1, 1, 1], [32, 1, 1], 0, &[out.ptr(), arg(7u32)]));
    assert_eq!((f.kind, f.thread), (FaultKind::OutOfBounds, [8, 0, 0]));
    let st = PTX.lines().position(|l| l.contains("st.global.u32 [%rd2]")).unwrap() + 1;
    assert_eq!(f.line, Some(st));
    assert!(f.to_string().starts_with("src/kernels.rs:12:9: out-of-bounds access in kernel `fill`, block (0, 0, 0), thread (8, 0, 0)"), "{f}");
    let f = fault(k.launch("bare", [1, 1, 1], [1, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.source, None, "a function without .loc has no location: {f}");
}
