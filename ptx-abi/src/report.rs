//! How a failed check reports its location without a call: the contract between the code
//! `ptx-macros` emits and the runtime that loads it.
//!
//! A function whose checks can fail declares one slot, a module-scope `.const` pointer named
//! `<symbol>$report`, and, on comment lines before it, the sites its failures are numbered by:
//!
//! ```text
//! //@report <symbol>$report 1 13 20 "src/saxpy.rs" "my_crate::saxpy" "index out of bounds"
//! .global .align 4 .u32 <symbol>$report_word;
//! .const .align 8 .u64 <symbol>$report = <symbol>$report_word;
//! ```
//!
//! (slot, site number from 1, line, column (1-based; 0: unknown), then file, function and message as [`quoted`] strings).
//! A failure stores its site's number, a `u32`, where the slot points, makes the store visible
//! to the host (`membar.sys`), and `trap`s. The slot starts out pointing at a word of the
//! module's own (`<symbol>$report_word`), so a module loaded by another runtime stores there,
//! harmlessly, and traps: the store needs no test of the slot. Our runtime points each slot at
//! a word of host-mapped memory of its own before the first launch, and after a launch fails
//! reads the words: the first non-zero one names the function (its slot) and the site. Host memory
//! survives the trap, which leaves the device's context unusable, so the location reaches the
//! error on a GPU as on the CPU backend.
//!
//! nvcc's `assert` calls `__assertfail` (chapter 3) instead, as our `debug` kernels and
//! exported (`#[no_mangle]`) functions still do; that call is an ABI call sequence (about twenty
//! SASS instructions, and ptxas's register floor for calls) in every function that can fail.

extern crate alloc;
use alloc::string::String;
use alloc::vec::Vec;

/// The suffix of a function's slot: `<symbol>$report`.
pub const SLOT_SUFFIX: &str = "$report";

/// The suffix of the word a slot points at until the runtime arms it: `<symbol>$report_word`.
pub const WORD_SUFFIX: &str = "$report_word";

/// What starts the comment line that describes one site.
pub const SITE_PREFIX: &str = "//@report ";

/// One place a function's failure can report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The slot's symbol (`<symbol>$report`).
    pub slot: String,
    /// What the failure stores: 1 for the function's first site.
    pub number: u32,
    pub line: u32,
    /// 1-based, as `column!()`; 0 where the producer knew none.
    pub column: u32,
    pub file: String,
    pub function: String,
    pub message: String,
}

/// Every site a module's text describes, in order.
pub fn sites(ptx: &str) -> Vec<Site> {
    ptx.lines().filter_map(|l| l.trim_start().strip_prefix(SITE_PREFIX)).filter_map(site).collect()
}

/// The slots a module's text declares sites for, each once, in order of first mention.
pub fn slots(sites: &[Site]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for s in sites {
        if !out.contains(&s.slot.as_str()) {
            out.push(&s.slot);
        }
    }
    out
}

/// The site a slot's stored `number` names.
pub fn find<'a>(sites: &'a [Site], slot: &str, number: u32) -> Option<&'a Site> {
    sites.iter().find(|s| s.slot == slot && s.number == number)
}

fn site(rest: &str) -> Option<Site> {
    let mut words = rest.splitn(5, ' ');
    let slot = String::from(words.next()?);
    let number = words.next()?.parse().ok()?;
    let line = words.next()?.parse().ok()?;
    let column = words.next()?.parse().ok()?;
    let mut rest = words.next()?;
    let mut strings = Vec::new();
    for _ in 0..3 {
        let (s, after) = unquote(rest.trim_start())?;
        strings.push(s);
        rest = after;
    }
    let [file, function, message]: [String; 3] = strings.try_into().ok()?;
    Some(Site { slot, number, line, column, file, function, message })
}

/// `"..."` as [`quoted`] writes it, and what follows it.
fn unquote(s: &str) -> Option<(String, &str)> {
    let b = s.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), &s[i + 1..])),
            b'\\' => {
                let hex = s.get(i + 2..i + 4)?;
                if b.get(i + 1) != Some(&b'x') {
                    return None;
                }
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 4;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

/// Whether `b` is written as itself inside a quoted string (printable ASCII but `"` and `\`).
pub const fn plain(b: u8) -> bool {
    b >= 0x20 && b < 0x7f && b != b'"' && b != b'\\'
}

/// `s` between double quotes, every byte that is not [`plain`] as `\xHH`: one line of ASCII
/// whatever the string holds. (The text renderer writes the same, `text::Piece::Quoted`.)
pub fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for &b in s.as_bytes() {
        if plain(b) {
            out.push(b as char);
        } else {
            out.push_str(&alloc::format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{tests::render, Piece};

    #[test]
    fn a_site_line_reads_back() {
        let text = render(&[
            Piece::Str("  //@report f$report 2 13 7 "),
            Piece::Quoted("src/a b.rs"),
            Piece::Str(" "),
            Piece::Quoted("c::f"),
            Piece::Str(" "),
            Piece::Quoted("say \"hi\"\\\n\u{e9}"),
            Piece::Str("\n.const .align 8 .u64 f$report;\n"),
        ]);
        let s = sites(&text);
        assert_eq!(
            s,
            [Site { slot: "f$report".into(), number: 2, line: 13, column: 7, file: "src/a b.rs".into(), function: "c::f".into(), message: "say \"hi\"\\\n\u{e9}".into() }]
        );
        assert_eq!(slots(&s), ["f$report"]);
        assert_eq!(find(&s, "f$report", 2).map(|s| s.line), Some(13));
        assert_eq!(find(&s, "f$report", 1), None);
    }

    #[test]
    fn the_renderer_quotes_as_quoted_does() {
        for s in ["", "plain", "a\"b\\c", "tab\tnew\nline", "é ü 中"] {
            assert_eq!(render(&[Piece::Quoted(s)]), quoted(s));
            assert_eq!(unquote(&quoted(s)).map(|(s, rest)| (s, rest.len())), Some((s.into(), 0)));
        }
    }

    #[test]
    fn malformed_lines_are_not_sites() {
        for l in ["//@report f$report x 1 1 \"a\" \"b\" \"c\"", "//@report f$report 1 1 1 \"a\" \"b\"", "//@report f$report 1 1 1 \"a\" \"b\" \"c\\x4\"", "//@report f$report 1 1 \"a\" \"b\" \"c\""] {
            assert_eq!(sites(l), [], "{l}");
        }
    }
}
