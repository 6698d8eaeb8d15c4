//! PTX text → tokens. Comments are dropped; every token keeps its 1-based line.

use super::ParseError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// An identifier, register, opcode with its modifiers (`ld.global.f32`), special register
    /// (`%tid.x`) or directive (`.reg`).
    Word(String),
    /// An integer literal's magnitude (a leading `-` is a separate token).
    Int(u64),
    /// A decimal floating-point literal (`1.5`, `1e-3`).
    Float(f64),
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an f64.
    F64(u64),
    Str(String),
    Punct(char),
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%'
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

pub fn lex(text: &str) -> Result<Vec<Token>, ParseError> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1u32;
    while i < s.len() {
        let c = s[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if s[i..].starts_with(b"//") {
            while i < s.len() && s[i] != b'\n' {
                i += 1;
            }
        } else if s[i..].starts_with(b"/*") {
            i += 2;
            while i < s.len() && !s[i..].starts_with(b"*/") {
                if s[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
        } else if c == b'"' {
            let start = i + 1;
            i += 1;
            while i < s.len() && s[i] != b'"' {
                if s[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            let text = String::from_utf8_lossy(&s[start..i.min(s.len())]).into_owned();
            i += 1;
            out.push(Token { tok: Tok::Str(text), line });
        } else if c == b'.' && i + 1 < s.len() && (s[i + 1].is_ascii_alphabetic() || s[i + 1] == b'_') {
            let start = i;
            i += 1;
            while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_' || (s[i] == b':' && s.get(i + 1) == Some(&b':'))) {
                i += if s[i] == b':' { 2 } else { 1 };
            }
            out.push(Token { tok: Tok::Word(text[start..i].to_owned()), line });
        } else if is_word_start(c) {
            let start = i;
            i += 1;
            // `::` continues a word (`.shared::cta`, `.L2::cache_hint`); a single `:` ends a label.
            while i < s.len() && (is_word_char(s[i]) || (s[i] == b':' && s.get(i + 1) == Some(&b':'))) {
                i += if s[i] == b':' { 2 } else { 1 };
            }
            out.push(Token { tok: Tok::Word(text[start..i].to_owned()), line });
        } else if c.is_ascii_digit() || (c == b'.' && i + 1 < s.len() && s[i + 1].is_ascii_digit()) {
            let (tok, len) = number(&s[i..]).ok_or_else(|| ParseError { line, message: "malformed number".into() })?;
            i += len;
            out.push(Token { tok, line });
        } else {
            out.push(Token { tok: Tok::Punct(c as char), line });
            i += 1;
        }
    }
    Ok(out)
}

/// One numeric literal at the start of `s`: the token and its length.
fn number(s: &[u8]) -> Option<(Tok, usize)> {
    let hex_run = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
    if s.len() > 2 && s[0] == b'0' && (s[1] == b'f' || s[1] == b'F') && hex_run(2) == 8 {
        let v = u32::from_str_radix(std::str::from_utf8(&s[2..10]).ok()?, 16).ok()?;
        return Some((Tok::F32(v), 10));
    }
    if s.len() > 2 && s[0] == b'0' && (s[1] == b'd' || s[1] == b'D') && hex_run(2) == 16 {
        let v = u64::from_str_radix(std::str::from_utf8(&s[2..18]).ok()?, 16).ok()?;
        return Some((Tok::F64(v), 18));
    }
    let suffix = |n: usize| if s.get(n) == Some(&b'U') || s.get(n) == Some(&b'u') { n + 1 } else { n };
    if s.len() > 2 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X') {
        let n = hex_run(2);
        let v = u64::from_str_radix(std::str::from_utf8(&s[2..2 + n]).ok()?, 16).ok()?;
        return Some((Tok::Int(v), suffix(2 + n)));
    }
    if s.len() > 2 && s[0] == b'0' && (s[1] == b'b' || s[1] == b'B') && matches!(s[2], b'0' | b'1') {
        let n = s[2..].iter().take_while(|c| matches!(c, b'0' | b'1')).count();
        let v = u64::from_str_radix(std::str::from_utf8(&s[2..2 + n]).ok()?, 2).ok()?;
        return Some((Tok::Int(v), suffix(2 + n)));
    }
    let digits = s.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = digits;
    let mut is_float = false;
    if s.get(end) == Some(&b'.') {
        is_float = true;
        end += 1;
        end += s[end..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    if matches!(s.get(end), Some(b'e') | Some(b'E')) {
        let mut e = end + 1;
        if matches!(s.get(e), Some(b'+') | Some(b'-')) {
            e += 1;
        }
        let n = s[e..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n > 0 {
            is_float = true;
            end = e + n;
        }
    }
    let text = std::str::from_utf8(&s[..end]).ok()?;
    if is_float {
        return Some((Tok::Float(text.parse().ok()?), end));
    }
    let v = if digits > 1 && s[0] == b'0' { u64::from_str_radix(&text[1..], 8).ok()? } else { text.parse().ok()? };
    Some((Tok::Int(v), suffix(end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let t: Vec<Tok> = lex("ld.global.f32 %f1, [%rd8+-4]; // c\n mov.f32 %f2, 0f3F800000; @!%p1 bra $L__BB0_2;")
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect();
        assert_eq!(t[0], Tok::Word("ld.global.f32".into()));
        assert_eq!(t[4], Tok::Word("%rd8".into()));
        assert_eq!(t[5], Tok::Punct('+'));
        assert_eq!(t[6], Tok::Punct('-'));
        assert_eq!(t[7], Tok::Int(4));
        assert!(t.contains(&Tok::F32(0x3f80_0000)));
        assert!(t.contains(&Tok::Word("$L__BB0_2".into())));
        let t: Vec<Tok> = lex("atom.shared::cta.add.u32 %r1, [x], 1; L: bra L;").unwrap().into_iter().map(|t| t.tok).collect();
        assert_eq!(t[0], Tok::Word("atom.shared::cta.add.u32".into()));
        assert_eq!(t[9], Tok::Word("L".into()));
        assert_eq!(t[10], Tok::Punct(':'));
        assert_eq!(lex("0x10 010 0b101 1.5 7U").unwrap().into_iter().map(|t| t.tok).collect::<Vec<_>>(), vec![
            Tok::Int(16),
            Tok::Int(8),
            Tok::Int(5),
            Tok::Float(1.5),
            Tok::Int(7)
        ]);
    }
}
