//! The system calls (guide §3) as nvcc emits them: `vprintf` with the argument buffer laid out
//! by the ABI, `__assertfail`, and `malloc`/`free` on the device heap.

use crate::cpu_harness::{arg, nvcc, Harness};
use ptx_runtime::{Error, FaultKind};

const SRC: &str = include_str!("../cuda/syscalls.cu");

fn module() -> Option<Harness> {
    nvcc("cpu_syscalls", SRC).map(|p| Harness::new(&p))
}

/// What C's printf prints for the same arguments (the format is fixed, so Rust's `format!`
/// reproduces it exactly for these values).
fn expected_line(block: u32, t: i64, base: i64) -> String {
    let s = if t % 2 == 1 { "odd" } else { "even" };
    let c = (b'a' + t as u8) as char;
    let e = 1234.5678 * t as f64;
    let mant = format!("{:.3e}", e);
    let (m, x) = mant.split_once('e').unwrap();
    let x: i32 = x.parse().unwrap();
    let sci = format!("{m}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs());
    format!(
        "block {block} thread {t}: {} {:5.2} {s} {c} {} {:x} (nil)|{:<4}|{:0>8}\n",
        base + t,
        1.5 * t as f64,
        -5 * t,
        255 + t,
        t,
        sci
    )
}

#[test]
fn printf_from_many_threads_is_captured_in_order() {
    let Some(k) = module() else { return };
    k.launch("hello", [2, 1, 1], [8, 1, 1], 0, &[arg(40i32)])
        .unwrap();
    let want: String = (0..2)
        .flat_map(|b| (0..8).map(move |t| expected_line(b, t, 40)))
        .collect();
    assert_eq!(k.printf(), want);
}

#[test]
fn failing_assert_is_an_error_with_message_file_and_line() {
    let Some(mut k) = module() else { return };
    let v: Vec<i32> = (0..100).map(|i| if i == 77 { -1 } else { i }).collect();
    let dv = k.upload(&v);
    k.launch("check", [1, 1, 1], [64, 1, 1], 0, &[dv.ptr(), arg(64i32)])
        .unwrap();
    let err = k
        .launch("check", [2, 1, 1], [64, 1, 1], 0, &[dv.ptr(), arg(100i32)])
        .unwrap_err();
    let Error::Assert {
        message,
        file,
        line,
        function,
        ..
    } = err
    else {
        panic!("{err:?}")
    };
    assert_eq!(message, "v[i] >= 0");
    assert!(file.ends_with("cpu_syscalls.cu"), "{file}");
    let want_line = SRC
        .lines()
        .position(|l| l.contains("assert(v[i] >= 0)"))
        .unwrap()
        + 1;
    assert_eq!(line as usize, want_line);
    assert!(function.contains("check"), "{function}");
    // CUDA's own report of the failure is printed too.
    assert!(k
        .printf()
        .contains("block: [1,0,0], thread: [13,0,0] Assertion `v[i] >= 0` failed."));
}

#[test]
fn malloc_and_free_on_the_device_heap() {
    let Some(mut k) = module() else { return };
    let out = k.zeroed::<i32>(64);
    k.launch("lists", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(20i32)])
        .unwrap();
    let got: Vec<i32> = k.download(out);
    for (t, got) in got.iter().enumerate() {
        assert_eq!(
            *got,
            (0..20).map(|k| t as i32 * 100 + k).sum::<i32>(),
            "thread {t}"
        );
    }
    // A heap too small for 64 × 20 nodes: malloc returns NULL, which the kernel reports.
    k.dev.set_heap_size(4096).unwrap();
    k.launch("lists", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(20i32)])
        .unwrap();
    assert!(k.download::<i32>(out).contains(&-1));
}

#[test]
fn heap_blocks_outlive_the_launch() {
    let Some(mut k) = module() else { return };
    let out = k.zeroed::<i32>(1);
    k.launch("keep", [1, 1, 1], [1, 1, 1], 0, &[arg(1234i32)])
        .unwrap();
    assert!(
        k.dev.set_heap_size(1 << 20).is_err(),
        "resizing with a live block must fail"
    );
    k.launch("take", [1, 1, 1], [1, 1, 1], 0, &[out.ptr()])
        .unwrap();
    assert_eq!(k.download::<i32>(out), [1234]);
    // Freed: a second `take` reads freed heap memory.
    let f = crate::cpu_harness::fault(k.launch("take", [1, 1, 1], [1, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::OutOfBounds, "{f}");
    assert!(f.detail.contains("heap"), "{f}");
}
