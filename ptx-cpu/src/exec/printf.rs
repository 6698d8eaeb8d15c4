//! `vprintf`'s formatting: C `printf` semantics over the argument buffer the ABI defines.
//!
//! The buffer holds the arguments after C's default promotions (small integers as 32-bit
//! ints, `float` as `double`), each at the next offset aligned to its own size. A conversion
//! takes 8 bytes for `%f %e %g %a %s %p` and for the `l`/`ll`/`z`/`j`/`t` length modifiers
//! (a 64-bit host's `long` and `size_t`), 4 bytes otherwise. Text follows the C standard as
//! glibc renders it (`(nil)` for a null `%p`, `(null)` for a null `%s`).

/// One argument fetch: `(size, offset) → bits`, or an error message.
pub trait Args {
    fn arg(&mut self, size: u32) -> Result<u64, String>;
    /// A NUL-terminated string at a device address.
    fn string(&mut self, addr: u64) -> Result<Vec<u8>, String>;
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

/// Formats `fmt`; returns the text and the number of arguments consumed.
pub fn format(fmt: &[u8], args: &mut dyn Args) -> Result<(Vec<u8>, u32), String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut count = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if i < fmt.len() && fmt[i] == b'%' {
            out.push(b'%');
            i += 1;
            continue;
        }
        let mut s = Spec::default();
        while i < fmt.len() {
            match fmt[i] {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        if i < fmt.len() && fmt[i] == b'*' {
            i += 1;
            let w = args.arg(4)? as u32 as i32;
            count += 1;
            if w < 0 {
                s.left = true;
            }
            s.width = Some(w.unsigned_abs() as usize);
        } else {
            let n = fmt[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n > 0 {
                s.width = std::str::from_utf8(&fmt[i..i + n]).ok().and_then(|t| t.parse().ok());
                i += n;
            }
        }
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if i < fmt.len() && fmt[i] == b'*' {
                i += 1;
                let p = args.arg(4)? as u32 as i32;
                count += 1;
                s.prec = if p < 0 { None } else { Some(p as usize) };
            } else {
                let n = fmt[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                s.prec = Some(std::str::from_utf8(&fmt[i..i + n]).ok().and_then(|t| t.parse().ok()).unwrap_or(0));
                i += n;
            }
        }
        let mut long = false;
        let mut short = 0;
        while i < fmt.len() {
            match fmt[i] {
                b'l' | b'z' | b'j' | b't' | b'q' | b'L' => long = true,
                b'h' => short += 1,
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.push(b'%');
            break;
        };
        i += 1;
        let text: Vec<u8> = match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => {
                let raw = args.arg(if long { 8 } else { 4 })?;
                count += 1;
                let signed_v: i64 = if long {
                    raw as i64
                } else {
                    match short {
                        0 => raw as u32 as i32 as i64,
                        1 => raw as u16 as i16 as i64,
                        _ => raw as u8 as i8 as i64,
                    }
                };
                let unsigned_v: u64 = if long {
                    raw
                } else {
                    match short {
                        0 => raw as u32 as u64,
                        1 => raw as u16 as u64,
                        _ => raw as u8 as u64,
                    }
                };
                if conv == b'c' {
                    pad(&s, vec![raw as u8], false)
                } else {
                    integer(&s, conv, signed_v, unsigned_v)
                }
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = f64::from_bits(args.arg(8)?);
                count += 1;
                float(&s, conv, v)
            }
            b's' => {
                let p = args.arg(8)?;
                count += 1;
                let mut st = if p == 0 { b"(null)".to_vec() } else { args.string(p)? };
                if let Some(pr) = s.prec {
                    st.truncate(pr);
                }
                pad(&s, st, false)
            }
            b'p' => {
                let p = args.arg(8)?;
                count += 1;
                let t = if p == 0 { "(nil)".to_owned() } else { format!("{p:#x}") };
                pad(&Spec { zero: false, ..s }, t.into_bytes(), false)
            }
            b'n' => {
                args.arg(8)?;
                count += 1;
                Vec::new()
            }
            other => {
                // Unknown conversion: printed as written, like glibc.
                let mut t = b"%".to_vec();
                t.push(other);
                t
            }
        };
        out.extend(text);
    }
    Ok((out, count))
}

/// Pads to the field width (zeros go after a sign or `0x` prefix when `numeric`).
fn pad(s: &Spec, body: Vec<u8>, numeric: bool) -> Vec<u8> {
    let w = s.width.unwrap_or(0);
    if body.len() >= w {
        return body;
    }
    let fill = w - body.len();
    if s.left {
        let mut v = body;
        v.extend(std::iter::repeat_n(b' ', fill));
        v
    } else if s.zero && numeric {
        let prefix = body.iter().take_while(|c| matches!(c, b'-' | b'+' | b' ')).count();
        let prefix = if body[prefix..].starts_with(b"0x") || body[prefix..].starts_with(b"0X") { prefix + 2 } else { prefix };
        let mut v = body[..prefix].to_vec();
        v.extend(std::iter::repeat_n(b'0', fill));
        v.extend(&body[prefix..]);
        v
    } else {
        let mut v = vec![b' '; fill];
        v.extend(body);
        v
    }
}

fn integer(s: &Spec, conv: u8, sv: i64, uv: u64) -> Vec<u8> {
    let (neg, digits) = match conv {
        b'd' | b'i' => (sv < 0, sv.unsigned_abs().to_string()),
        b'u' => (false, uv.to_string()),
        b'x' => (false, format!("{uv:x}")),
        b'X' => (false, format!("{uv:X}")),
        _ => (false, format!("{uv:o}")),
    };
    let mut digits = digits.into_bytes();
    if s.prec == Some(0) && (if matches!(conv, b'd' | b'i') { sv == 0 } else { uv == 0 }) {
        digits.clear();
    }
    if let Some(p) = s.prec {
        while digits.len() < p {
            digits.insert(0, b'0');
        }
    }
    if conv == b'o' && s.alt && digits.first() != Some(&b'0') {
        digits.insert(0, b'0');
    }
    let mut body = Vec::new();
    if neg {
        body.push(b'-');
    } else if matches!(conv, b'd' | b'i') && s.plus {
        body.push(b'+');
    } else if matches!(conv, b'd' | b'i') && s.space {
        body.push(b' ');
    }
    if s.alt && uv != 0 && conv == b'x' {
        body.extend(b"0x");
    } else if s.alt && uv != 0 && conv == b'X' {
        body.extend(b"0X");
    }
    body.extend(digits);
    pad(&Spec { zero: s.zero && s.prec.is_none(), ..*s }, body, true)
}

/// `%e` digits: mantissa with `p` decimals and the decimal exponent.
fn exp_form(v: f64, p: usize) -> (String, i32) {
    let t = format!("{:.*e}", p, v);
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    (m.to_owned(), e.parse().unwrap_or(0))
}

fn float(s: &Spec, conv: u8, v: f64) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let neg = v.is_sign_negative();
    let sign: &[u8] = if neg {
        b"-"
    } else if s.plus {
        b"+"
    } else if s.space {
        b" "
    } else {
        b""
    };
    let mut body = sign.to_vec();
    if !v.is_finite() {
        let t = if v.is_nan() { "nan" } else { "inf" };
        body.extend(if upper { t.to_uppercase() } else { t.to_owned() }.bytes());
        return pad(&Spec { zero: false, ..*s }, body, false);
    }
    let a = v.abs();
    let text = match conv.to_ascii_lowercase() {
        b'f' => {
            let p = s.prec.unwrap_or(6);
            let mut t = format!("{:.*}", p, a);
            if s.alt && p == 0 {
                t.push('.');
            }
            t
        }
        b'e' => {
            let p = s.prec.unwrap_or(6);
            let (mut m, e) = exp_form(a, p);
            if s.alt && p == 0 {
                m.push('.');
            }
            format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.unsigned_abs())
        }
        b'g' => {
            let p = match s.prec {
                Some(0) => 1,
                Some(p) => p,
                None => 6,
            };
            let (_, x) = exp_form(a, p - 1);
            let mut t = if x < p as i32 && x >= -4 {
                format!("{:.*}", (p as i32 - 1 - x) as usize, a)
            } else {
                let (m, e) = exp_form(a, p - 1);
                format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.unsigned_abs())
            };
            if !s.alt {
                let (mant, exp) = match t.find('e') {
                    Some(k) => (t[..k].to_owned(), t[k..].to_owned()),
                    None => (t.clone(), String::new()),
                };
                let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.').to_owned() } else { mant };
                t = mant + &exp;
            } else if !t.contains('.') {
                match t.find('e') {
                    Some(k) => t.insert(k, '.'),
                    None => t.push('.'),
                }
            }
            t
        }
        _ => hex_float(a, s.prec, s.alt),
    };
    body.extend(if upper { text.to_uppercase() } else { text }.bytes());
    pad(s, body, true)
}

/// `%a`: `0x1.hhhp±d` (glibc's form: normalized, subnormals as `0x0.hhh…p-1022`).
fn hex_float(a: f64, prec: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    let mut m = bits & ((1 << 52) - 1);
    if a == 0.0 {
        let frac = prec.map_or(String::new(), |p| "0".repeat(p));
        return format!("0x0{}{}p+0", if !frac.is_empty() || alt { "." } else { "" }, frac);
    }
    let (mut lead, exp) = if e == 0 { (0u64, -1022) } else { (1u64, e - 1023) };
    let mut digits = 13;
    if let Some(p) = prec.filter(|&p| p < 13) {
        let drop = (13 - p) * 4;
        let rem = m & ((1 << drop) - 1);
        let half = 1u64 << (drop - 1);
        m >>= drop;
        let odd = if p == 0 { lead & 1 == 1 } else { m & 1 == 1 };
        if rem > half || (rem == half && odd) {
            m += 1;
            if m >> (p * 4) != 0 {
                m &= (1 << (p * 4)) - 1;
                lead += 1;
            }
        }
        digits = p;
    }
    let mut frac = if digits == 0 { String::new() } else { format!("{:0width$x}", m, width = digits) };
    if prec.is_none() {
        frac = frac.trim_end_matches('0').to_owned();
    } else if let Some(p) = prec {
        while frac.len() < p {
            frac.push('0');
        }
    }
    let dot = if !frac.is_empty() || alt { "." } else { "" };
    format!("0x{lead}{dot}{frac}p{}{}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{c_char, c_int};

    extern "C" {
        fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
    }

    struct Buf(Vec<u8>, usize);
    impl Args for Buf {
        fn arg(&mut self, size: u32) -> Result<u64, String> {
            let at = self.1.div_ceil(size as usize) * size as usize;
            self.1 = at + size as usize;
            let mut b = [0u8; 8];
            b[..size as usize].copy_from_slice(&self.0[at..at + size as usize]);
            Ok(u64::from_le_bytes(b))
        }
        fn string(&mut self, _: u64) -> Result<Vec<u8>, String> {
            Ok(b"hello".to_vec())
        }
    }

    fn ours(fmt: &str, args: &[(u32, u64)]) -> String {
        let mut buf = Vec::new();
        for &(size, v) in args {
            while buf.len() % size as usize != 0 {
                buf.push(0);
            }
            buf.extend(&v.to_le_bytes()[..size as usize]);
        }
        let (out, _) = format(fmt.as_bytes(), &mut Buf(buf, 0)).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn c_f64(fmt: &str, v: f64) -> String {
        let mut b = vec![0u8; 512];
        let f = std::ffi::CString::new(fmt).unwrap();
        let n = unsafe { snprintf(b.as_mut_ptr() as *mut c_char, b.len(), f.as_ptr(), v) };
        b.truncate(n as usize);
        String::from_utf8(b).unwrap()
    }

    fn c_i64(fmt: &str, v: i64) -> String {
        let mut b = vec![0u8; 512];
        let f = std::ffi::CString::new(fmt).unwrap();
        let n = unsafe { snprintf(b.as_mut_ptr() as *mut c_char, b.len(), f.as_ptr(), v) };
        b.truncate(n as usize);
        String::from_utf8(b).unwrap()
    }

    fn c_i32(fmt: &str, v: i32) -> String {
        let mut b = vec![0u8; 512];
        let f = std::ffi::CString::new(fmt).unwrap();
        let n = unsafe { snprintf(b.as_mut_ptr() as *mut c_char, b.len(), f.as_ptr(), v) };
        b.truncate(n as usize);
        String::from_utf8(b).unwrap()
    }

    /// The host C library is the oracle for every conversion and flag combination.
    #[test]
    fn matches_the_c_library() {
        let floats = [
            0.0, -0.0, 1.0, -1.5, 0.1, 123456.789, 1e-5, 1e-4, 9.9999e-5, 1e15, 1e16, 1e300, 5e-324, 2.5, 0.5, 1.0 / 3.0,
            f64::INFINITY, f64::NEG_INFINITY, 999999.5, 0.000123456, 65536.0,
        ];
        let fconv = ["%f", "%e", "%g", "%a", "%E", "%G", "%A", "%F"];
        let flags = ["", "+", " ", "#", "-", "0", "-#"];
        let widths = ["", "12", "1"];
        let precs = ["", ".0", ".3", ".10", ".1"];
        for &v in &floats {
            for c in fconv {
                for fl in flags {
                    for w in widths {
                        for p in precs {
                            let f = format!("%{fl}{w}{p}{}", &c[1..]);
                            if v == 999999.5 && fl.contains('#') && p.is_empty() && c.ends_with(['g', 'G']) {
                                // glibc 2.36 prints "1.e+06" here, dropping the zeros `#`
                                // must keep when rounding carries into a new exponent; C11
                                // 7.21.6.1 requires "1.00000e+06", which is what we print.
                                assert!(ours(&f, &[(8, v.to_bits())]).to_lowercase().contains("1.00000e+06"));
                                continue;
                            }
                            assert_eq!(ours(&f, &[(8, v.to_bits())]), c_f64(&f, v), "format {f} value {v:e}");
                        }
                    }
                }
            }
        }
        let ints: [i64; 8] = [0, 1, -1, 42, -123456, i32::MAX as i64, i32::MIN as i64, 255];
        for &v in &ints {
            for c in ["d", "i", "u", "x", "X", "o"] {
                for fl in flags {
                    for w in widths {
                        for p in precs {
                            let f = format!("%{fl}{w}{p}{c}");
                            assert_eq!(ours(&f, &[(4, v as u32 as u64)]), c_i32(&f, v as i32), "format {f} value {v}");
                            let f = format!("%{fl}{w}{p}ll{c}");
                            let big = v.wrapping_mul(1 << 33);
                            assert_eq!(ours(&f, &[(8, big as u64)]), c_i64(&f, big), "format {f} value {big}");
                        }
                    }
                }
            }
        }
        assert_eq!(ours("%c|%5c|%-3c|", &[(4, 65), (4, 66), (4, 67)]), "A|    B|C  |");
        assert_eq!(ours("%s|%.3s|%8s|", &[(8, 1), (8, 1), (8, 1)]), "hello|hel|   hello|");
        assert_eq!(ours("%p %p", &[(8, 0), (8, 0x7f00_0000_0010)]), "(nil) 0x7f0000000010");
        assert_eq!(ours("%d %f", &[(4, 7), (8, 2.5f64.to_bits())]), "7 2.500000");
        assert_eq!(ours("100%%", &[]), "100%");
        assert_eq!(ours("%hhd %hd", &[(4, 0x1ff), (4, 0x18000)]), "-1 -32768");
    }
}
