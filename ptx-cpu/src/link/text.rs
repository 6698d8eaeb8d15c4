//! The text edits the linker makes to a module: where a declaration ends, renaming symbols
//! token by token, and renumbering `.file`/`.loc` so each module keeps its own source files.

use std::collections::{HashMap, HashSet};

/// Byte offset of the start of 1-based line `line`.
pub fn line_start(text: &str, line: u32) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n').nth(line as usize - 2).map_or(text.len(), |(i, _)| i + 1)
}

/// The byte range of the module-level statement that starts on `line`: up to the `;` that
/// ends it at brace depth 0 (a prototype, a variable with its initializer) or, for a function
/// body, the `}` that closes it.
pub fn statement_span(text: &str, line: u32, body: bool) -> (usize, usize) {
    let start = line_start(text, line);
    let b = text.as_bytes();
    let mut i = start;
    let mut depth = 0i32;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            b'"' => {
                i = text[i + 1..].find('"').map_or(b.len(), |e| i + 1 + e + 1);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 && body {
                    return (start, i + 1);
                }
            }
            b';' if depth == 0 => return (start, i + 1),
            _ => {}
        }
        i += 1;
    }
    (start, b.len())
}

/// Every identifier-like token of the text (for picking names nothing uses).
pub fn identifiers(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    scan(text, |_, name| {
        out.insert(name.to_owned());
        None
    });
    out
}

/// The text with every symbol token in `map` replaced; opcodes' and directives' modifiers
/// (after a `.`), registers (`%`), numbers, comments and strings are left alone.
pub fn rename(text: &str, map: &HashMap<String, String>) -> String {
    if map.is_empty() {
        return text.to_owned();
    }
    scan(text, |_, name| map.get(name).cloned())
}

/// Calls `f` on each symbol-like token; where it returns a replacement, the token is replaced.
fn scan(text: &str, mut f: impl FnMut(usize, &str) -> Option<String>) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        let c = b[i];
        if text[i..].starts_with(ptx_abi::report::SITE_PREFIX) {
            // A failure site's line names its function's slot: renamed with it (the rest of
            // the line is numbers and quoted strings).
            i += ptx_abi::report::SITE_PREFIX.len();
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            i = text[i..].find('\n').map_or(b.len(), |e| i + e);
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
        } else if c == b'"' {
            i = text[i + 1..].find('"').map_or(b.len(), |e| i + 1 + e + 1);
        } else if c.is_ascii_digit() || c == b'.' || c == b'%' {
            // A number (`0f3F800000`), a directive or modifier (`.global`, `ld.global`), a
            // register: never a symbol.
            i += 1;
            while i < b.len() && (word(b[i]) || b[i] == b'.') {
                i += 1;
            }
        } else if word(c) {
            let s = i;
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            if let Some(new) = f(s, &text[s..i]) {
                out.push_str(&text[copied..s]);
                out.push_str(&new);
                copied = i;
            }
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The module's text without its `.version`/`.target`/`.address_size` header, with its
/// `.file` numbers (and those its `.loc`s name) raised by `offset`; also the highest file
/// number it uses.
pub fn strip_header_and_renumber(text: &str, offset: u32) -> (String, u32) {
    let mut out = String::with_capacity(text.len());
    let mut max = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let directive = |d: &str| t.strip_prefix(d).is_some_and(|r| r.starts_with(char::is_whitespace));
        if directive(".version") || directive(".target") || directive(".address_size") {
            out.push('\n');
            continue;
        }
        if directive(".file") || directive(".loc") {
            let (l, m) = renumber_files(line, offset);
            max = max.max(m);
            out.push_str(&l);
            continue;
        }
        out.push_str(line);
    }
    (out, max)
}

/// `.file N …` / `.loc N L C[, … inlined_at N L C]` with each file number N raised by
/// `offset`; and the highest N of the line (before raising).
fn renumber_files(line: &str, offset: u32) -> (String, u32) {
    let mut out = String::with_capacity(line.len() + 4);
    let mut max = 0;
    let mut rest = line;
    // The file number follows the directive and each `inlined_at`.
    let mut expect_file = false;
    while !rest.is_empty() {
        let ws = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..ws]);
        rest = &rest[ws..];
        if rest.is_empty() {
            break;
        }
        let end = rest.find(|c: char| c.is_whitespace() || c == ',').unwrap_or(rest.len()).max(1);
        let tok = &rest[..end];
        match tok.parse::<u32>() {
            Ok(n) if expect_file => {
                max = max.max(n);
                out.push_str(&(n + offset).to_string());
                expect_file = false;
            }
            _ => {
                expect_file = matches!(tok, ".file" | ".loc" | "inlined_at");
                out.push_str(tok);
            }
        }
        rest = &rest[end..];
    }
    (out, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_symbols_only() {
        let map: HashMap<String, String> = [("f".to_string(), "f$1".to_string()), ("global".to_string(), "g2".to_string())].into();
        let t = "ld.global.f32 %f, [f+4]; // f\n call (r), f, (a); mov.b32 %r, 0f3F800000; .file 1 \"f\"";
        assert_eq!(rename(t, &map), "ld.global.f32 %f, [f$1+4]; // f\n call (r), f$1, (a); mov.b32 %r, 0f3F800000; .file 1 \"f\"");
    }

    #[test]
    fn spans_and_files() {
        let t = ".version 7.0\n.global .u32 a[2] = {1, 2};\n.func f(.param .b32 x)\n{\n { ret; }\n}\n";
        let (s, e) = statement_span(t, 2, false);
        assert_eq!(&t[s..e], ".global .u32 a[2] = {1, 2};");
        let (s, e) = statement_span(t, 3, true);
        assert!(t[s..e].starts_with(".func") && t[s..e].ends_with("}\n}"));
        let (l, m) = renumber_files("\t.loc\t2 10 5, function_name $L__x, inlined_at 1 4 2\n", 3);
        assert_eq!((l.as_str(), m), ("\t.loc\t5 10 5, function_name $L__x, inlined_at 4 4 2\n", 2));
        let (h, m) = strip_header_and_renumber(".version 7.0\n.target sm_75\n.file 1 \"a.rs\"\n", 1);
        assert_eq!((h.as_str(), m), ("\n\n.file 2 \"a.rs\"\n", 1));
    }
}
