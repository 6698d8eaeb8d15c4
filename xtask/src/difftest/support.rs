//! The runtime half of a difftest batch: copied verbatim into every generated crate (as
//! `src/support.rs`) and into `tests/suite/difftest_cases/`. It runs a kernel's body on the
//! host and its PTX on the CPU backend, and compares the two.
//!
//! - Values compare bit for bit, except that two NaNs are equal whatever their payloads and
//!   signs (Rust leaves them unspecified; PTX makes canonical NaNs), and math-library slots
//!   compare within their ulp bound.
//! - A trap must happen on both sides. When the host's panic is located in the kernel's own
//!   source (an index, `/`, `assert!`), the device's `Error::Assert` must name the same line;
//!   a panic inside `core` (say `div_euclid` by zero) has no line of ours to compare.

#![allow(dead_code)]

use ptx_runtime::{DeviceBuffer, Error, Stream};
use std::cell::{Cell, RefCell};

#[derive(Clone, Copy, Debug)]
pub enum Slot {
    Int,
    F32,
    F64,
    F32Ulp(u32),
    F64Ulp(u32),
}

#[derive(Debug)]
pub enum Outcome {
    Values(Vec<u64>),
    /// A panic (host) or `Error::Assert` (device): the file and line it names.
    Trap { file: String, line: u32, message: String },
    /// The launch failed for another reason (or the CPU backend panicked).
    Error(String),
}

thread_local! {
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    static PANIC: RefCell<Option<(String, u32, String)>> = const { RefCell::new(None) };
}

/// Records the location and message of a panic inside [`caught`] instead of printing it;
/// other panics go to the hook that was there before.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(Cell::get) {
                return prev(info);
            }
            let msg = info.payload().downcast_ref::<String>().cloned().or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
            let (file, line) = info.location().map_or((String::new(), 0), |l| (l.file().to_owned(), l.line()));
            PANIC.with(|p| *p.borrow_mut() = Some((file, line, msg)));
        }));
    });
}

fn caught<R>(f: impl FnOnce() -> R) -> Result<R, (String, u32, String)> {
    install_panic_hook();
    PANIC.with(|p| *p.borrow_mut() = None);
    CATCHING.with(|c| c.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(false));
    r.map_err(|_| PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default())
}

/// The body run as plain Rust: a grid of one thread, which is what a body sees outside
/// `host::run`.
pub fn on_host(n: usize, body: impl FnOnce(&mut [u64])) -> Outcome {
    let mut out = vec![0u64; n];
    match caught(|| body(&mut out)) {
        Ok(()) => Outcome::Values(out),
        Err((file, line, message)) => Outcome::Trap { file, line, message },
    }
}

/// The kernel launched on `stream` (one block of one thread).
pub fn on_device(stream: &Stream, n: usize, launch: impl FnOnce(&Stream, &mut DeviceBuffer<u64>) -> ptx_runtime::Result<()>) -> Outcome {
    let run = || -> ptx_runtime::Result<Vec<u64>> {
        let mut out = DeviceBuffer::<u64>::zeroed(stream, n)?;
        launch(stream, &mut out)?;
        out.to_vec()
    };
    match caught(run) {
        Ok(Ok(v)) => Outcome::Values(v),
        Ok(Err(Error::Assert { file, line, message, .. })) => Outcome::Trap { file, line, message },
        Ok(Err(e)) => Outcome::Error(e.to_string()),
        Err((file, line, message)) => Outcome::Error(format!("the CPU backend panicked at {file}:{line}: {message}")),
    }
}

/// Float bits mapped to integers that order as the floats do (`-0.0` and `+0.0` meet).
fn ordered(bits: u64, width: u32) -> i128 {
    let sign = 1u64 << (width - 1);
    let mag = (bits & (sign - 1)) as i128;
    if bits & sign != 0 { -mag } else { mag }
}

fn is_nan(bits: u64, width: u32) -> bool {
    if width == 32 { f32::from_bits(bits as u32).is_nan() } else { f64::from_bits(bits).is_nan() }
}

/// Whether slot values `h` (host) and `d` (device) agree.
pub fn same(slot: Slot, h: u64, d: u64) -> bool {
    let (width, ulps) = match slot {
        Slot::Int => return h == d,
        Slot::F32 => (32, 0),
        Slot::F64 => (64, 0),
        Slot::F32Ulp(n) => (32, n),
        Slot::F64Ulp(n) => (64, n),
    };
    let (h, d) = if width == 32 { (h & 0xffff_ffff, d & 0xffff_ffff) } else { (h, d) };
    if h == d || (is_nan(h, width) && is_nan(d, width)) {
        return true;
    }
    if is_nan(h, width) || is_nan(d, width) {
        return false;
    }
    (ordered(h, width) - ordered(d, width)).abs() <= ulps as i128
}

/// Whether the host's panic names a line of the generated source (not of `core`).
fn ours(file: &str) -> bool {
    file.starts_with("src/") || file.contains("difftest")
}

/// The host's outcome in a line: `values 0x1,0x2` or `trap <line> <file>` (what a
/// regression test expects from the device).
pub fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Values(v) => format!("values {}", v.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(",")),
        Outcome::Trap { file, line, .. } => format!("trap {line} {file}"),
        Outcome::Error(e) => format!("error {}", e.replace('\n', " ")),
    }
}

/// The verdict, one word first: `ok`, `ok-trap`, `mismatch`, `trap-mismatch`, `device-error`.
pub fn compare(host: &Outcome, dev: &Outcome, slots: &[Slot]) -> String {
    match (host, dev) {
        (_, Outcome::Error(e)) => format!("device-error {}", e.replace('\n', " | ")),
        (Outcome::Values(h), Outcome::Values(d)) => {
            for (k, s) in slots.iter().enumerate() {
                if !same(*s, h[k], d[k]) {
                    return format!("mismatch slot={k} kind={s:?} host={:#x} dev={:#x}", h[k], d[k]);
                }
            }
            "ok".into()
        }
        (Outcome::Trap { file, line, .. }, Outcome::Trap { line: dl, .. }) => {
            if ours(file) && line != dl {
                format!("trap-mismatch host=trap@{line} dev=trap@{dl}")
            } else {
                format!("ok-trap line={line}")
            }
        }
        (Outcome::Trap { line, message, .. }, Outcome::Values(_)) => format!("trap-mismatch host=trap@{line} ({}) dev=no-trap", message.lines().next().unwrap_or("")),
        (Outcome::Values(_), Outcome::Trap { line, message, .. }) => format!("trap-mismatch host=no-trap dev=trap@{line} ({message})"),
        (Outcome::Error(e), _) => format!("device-error host: {e}"),
    }
}
