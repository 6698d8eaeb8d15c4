//! Source locations from the PTX's line information: `.file N "name"` and `.loc F L C`
//! (with `, inlined_at F L C` for inlined code), as nvcc `-lineinfo`/`-G` and `#[kernel]`
//! write them. A `.loc` holds for the instructions after it, up to the next `.loc` or the end
//! of its function.
//!
//! The table is built once per module from the text, apart from the parser, and consulted
//! only when a report is written (by the PTX line the report already names), so the
//! interpreter's loop never looks at it.

use crate::error::SourceLoc;
use std::collections::HashMap;

/// A `.loc` as written: file number, line, column, and where it was inlined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RawLoc {
    file: u32,
    line: u32,
    col: u32,
    inlined_at: Option<(u32, u32, u32)>,
}

/// Every `.file` and `.loc` of a module.
#[derive(Debug, Clone, Default)]
pub struct LineInfo {
    files: HashMap<u32, String>,
    /// (PTX line of a `.loc` or of a function's end, the location from there on), ascending.
    marks: Vec<(u32, Option<RawLoc>)>,
}

impl LineInfo {
    /// Reads the line information of a module's text; what it cannot read it leaves out (the
    /// parser reports malformed directives).
    pub fn scan(ptx: &str) -> LineInfo {
        let mut info = LineInfo::default();
        let mut depth = 0i32;
        let mut in_comment = false;
        for (i, raw) in ptx.lines().enumerate() {
            let n = i as u32 + 1;
            let line = strip_comments(raw, &mut in_comment);
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix(".file") {
                if let Some((id, name)) = parse_file(rest) {
                    info.files.insert(id, name);
                }
                continue;
            }
            if let Some(rest) = t.strip_prefix(".loc") {
                if rest.starts_with(char::is_whitespace) {
                    info.marks.push((n, parse_loc(rest)));
                }
                continue;
            }
            for c in braces(&line) {
                depth += if c == '{' { 1 } else { -1 };
                if depth == 0 && c == '}' && info.marks.last().is_some_and(|m| m.1.is_some()) {
                    // The function ends: the next one starts with no location.
                    info.marks.push((n, None));
                }
            }
        }
        info
    }

    /// The source location of the instruction on 1-based PTX line `ptx_line`.
    pub fn at(&self, ptx_line: usize) -> Option<SourceLoc> {
        let i = self.marks.partition_point(|m| (m.0 as usize) < ptx_line);
        let raw = self.marks.get(i.checked_sub(1)?)?.1?;
        if raw.line == 0 {
            return None;
        }
        let mut loc = self.loc(raw.file, raw.line, raw.col);
        if let Some((f, l, c)) = raw.inlined_at.filter(|x| x.1 != 0) {
            loc.inlined_at = Some(Box::new(self.loc(f, l, c)));
        }
        Some(loc)
    }

    fn loc(&self, file: u32, line: u32, column: u32) -> SourceLoc {
        let file = self.files.get(&file).cloned().unwrap_or_else(|| format!("<file {file}>"));
        SourceLoc { file, line, column, inlined_at: None }
    }
}

/// The line without comments (`//` to the end, `/* … */` possibly spanning lines), strings kept.
fn strip_comments(line: &str, in_comment: &mut bool) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if *in_comment {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                *in_comment = false;
            }
            continue;
        }
        if in_str {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => break,
            ('/', Some('*')) => {
                chars.next();
                *in_comment = true;
            }
            ('"', _) => {
                in_str = true;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The braces of a comment-free line outside strings.
fn braces(line: &str) -> impl Iterator<Item = char> + '_ {
    let mut in_str = false;
    line.chars().filter(move |&c| {
        if c == '"' {
            in_str = !in_str;
        }
        !in_str && (c == '{' || c == '}')
    })
}

/// `1 "name"` or `1 "name", timestamp, size`.
fn parse_file(rest: &str) -> Option<(u32, String)> {
    let rest = rest.trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    let id = rest[..end].parse().ok()?;
    let q = rest[end..].trim_start().strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = q.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some((id, name)),
            '\\' => name.push(chars.next()?),
            c => name.push(c),
        }
    }
    None
}

/// `F L C` and the options after it: `, function_name label, inlined_at F L C`.
fn parse_loc(rest: &str) -> Option<RawLoc> {
    let mut parts = rest.split(',');
    let [file, line, col] = three(parts.next()?)?;
    let mut inlined_at = None;
    for opt in parts {
        if let Some(at) = opt.trim().strip_prefix("inlined_at") {
            inlined_at = three(at).map(|[f, l, c]| (f, l, c));
        }
    }
    Some(RawLoc { file, line, col, inlined_at })
}

fn three(s: &str) -> Option<[u32; 3]> {
    let v: Vec<u32> = s.split_whitespace().map(str::parse).collect::<Result<_, _>>().ok()?;
    match v[..] {
        [f, l, c] => Some([f, l, c]),
        [f, l] => Some([f, l, 0]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#".version 7.8
.target sm_75
.address_size 64
.file 1 "/src/k.cu", 1700000000, 321
.file	2 "/src/inc \"q\".h"
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<3>; // { not a brace
    ld.param.u64 %rd1, [p];
    .loc 1 12 5
    mov.u32 %r1, %tid.x; /* } nor this */
    .loc	2 7 3, function_name $L__info_string0, inlined_at 1 14 9
    add.u32 %r2, %r1, 1;
    .loc 1 0 0
    ret;
}
.visible .entry j()
{
    ret;
}
"#;

    #[test]
    fn locations_follow_loc_directives() {
        let li = LineInfo::scan(PTX);
        assert_eq!(li.at(9), None, "before the first .loc");
        let at11 = li.at(11).unwrap();
        assert_eq!((at11.file.as_str(), at11.line, at11.column), ("/src/k.cu", 12, 5));
        assert_eq!(at11.to_string(), "/src/k.cu:12:5");
        let at13 = li.at(13).unwrap();
        assert_eq!(at13.to_string(), "/src/inc \"q\".h:7:3 (inlined at /src/k.cu:14:9)");
        assert_eq!(li.at(15), None, "line 0 is no line");
        assert_eq!(li.at(19), None, "the next function starts without a location");
        assert!(LineInfo::scan(".version 7.0\n").marks.is_empty());
    }
}
