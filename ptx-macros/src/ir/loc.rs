//! Source locations: every instruction carries the Rust location it was lowered from, which
//! the PTX writer emits as `.loc` (line info, as nvcc `-lineinfo`; see `back::ptx::lineinfo`).
//!
//! The lowering sets the builder's current location from the span of each expression and `let`
//! it lowers ([`Builder::set_loc`](super::Builder::set_loc)); every instruction and terminator
//! pushed takes it. Passes keep an instruction's `loc` when they rewrite it, and give one they
//! create in place of another that one's `loc` ([`Inst::at`](super::Inst::at)). An
//! instruction without a location (a pass forgot, or its span had none) inherits the previous
//! `.loc` in the text, as in PTX.

use proc_macro2::Span;
use std::cell::RefCell;

/// A Rust source location: `file` numbers the function's [`Files`] from 1; `line` and `col`
/// are 1-based, as rustc's `line!()` and `column!()`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Loc {
    pub file: u16,
    pub line: u32,
    pub col: u32,
}

/// The source files a function's locations name, as rustc names them (`file!()`), in order of
/// first use.
#[derive(Default, Debug, Clone)]
pub struct Files {
    pub names: Vec<String>,
}

impl Files {
    /// The location of `span`'s start, or `None` where there is none to give: spans made
    /// outside a compiler (the macros' unit tests: `<parsed string>`, `<unspecified>`) and
    /// compilers older than 1.88, which report line 0.
    pub fn loc(&mut self, span: Span) -> Option<Loc> {
        let start = span.start();
        if start.line == 0 {
            return None;
        }
        let name = span.file();
        if name.is_empty() || name.starts_with('<') {
            return None;
        }
        let file = match self.names.iter().position(|n| *n == name) {
            Some(i) => i + 1,
            None => {
                if self.names.len() >= ptx_abi::lineinfo::MAX_FN_FILES {
                    return None;
                }
                self.names.push(name);
                self.names.len()
            }
        };
        // proc-macro2's columns are 0-based; rustc's `column!()` and nvcc's `.loc` 1-based.
        Some(Loc { file: file as u16, line: start.line as u32, col: start.column as u32 + 1 })
    }

    /// A file's name as a PTX string's contents (`\` and `"` escaped).
    pub fn ptx_string(name: &str) -> String {
        name.replace('\\', "\\\\").replace('"', "\\\"")
    }
}

/// A Rust block that binds variables, for full debug information's lexical blocks: the
/// source range its statements cover. An instruction belongs to it when its location lies in
/// the range (`back::ptx::writer` labels the first and last such instruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The enclosing scope (`None`: the function's body).
    pub parent: Option<usize>,
    pub file: u16,
    /// (line, column) of the first statement's start and of the last one's end.
    pub start: (u32, u32),
    pub end: (u32, u32),
}

impl Scope {
    pub fn contains(&self, l: &Loc) -> bool {
        l.file == self.file && (l.line, l.col) >= self.start && (l.line, l.col) <= self.end
    }
}

thread_local! {
    /// The source ranges (file, first and last line) of the bodies replayed into the item
    /// being compiled: inlined device functions (see [`note_replayed`]).
    static REPLAYED: RefCell<Vec<Replayed>> = const { RefCell::new(Vec::new()) };
}

/// A replayed body's source range, and the path of the function it is the body of.
#[derive(Clone)]
pub struct Replayed {
    pub file: String,
    lines: std::ops::RangeInclusive<usize>,
    /// An expression rustc evaluates to the function's path (`f::__PATH`), where there is one:
    /// kept as text, since a token handle must not outlive the macro call that made it (the
    /// list is cleared by the next one).
    pub function: Option<String>,
}

/// Notes that the tokens of `block` (an inlined function's body, spans and all) came through a
/// replay macro. rustc's `file!()` and `line!()` at such a token name where the expansion began
/// (the kernel's attribute), not the token: a failed check there reports the token's own
/// file and line instead ([`replayed`]), which is where Rust reports it.
pub fn note_replayed(block: Span, function: Option<proc_macro2::TokenStream>) {
    let (start, end, file) = (block.start().line, block.end().line, block.file());
    if start == 0 || file.is_empty() || file.starts_with('<') {
        return;
    }
    let function = function.map(|f| f.to_string());
    REPLAYED.with(|r| r.borrow_mut().push(Replayed { file, lines: start..=end, function }));
}

/// Forgets the replayed ranges: a new item (or round) is being compiled.
pub fn forget_replayed() {
    REPLAYED.with(|r| r.borrow_mut().clear());
}

/// The replayed body `span` lies in ([`note_replayed`]), and the span's line.
pub fn replayed(span: Span) -> Option<(Replayed, u32)> {
    let (file, line) = (span.file(), span.start().line);
    let found = REPLAYED.with(|r| r.borrow().iter().find(|b| b.file == file && b.lines.contains(&line)).cloned());
    found.map(|b| (b, line as u32))
}
