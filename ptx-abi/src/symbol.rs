//! Symbol names.
//!
//! Chapter 7: device code follows the Itanium C++ ABI. A Rust item `krate::a::b::f` gets the
//! Itanium nested name `_ZN5krate1a1b1fE`, which `c++filt` shows as `krate::a::b::f`. The module
//! path makes two items of the same name in different modules distinct; `#[no_mangle]` keeps the
//! plain name (like `extern "C"`).
//!
//! The path comes from `module_path!()` in the user's crate, so mangling runs in const context.

use crate::text::{Piece, Sink};

/// Writes the mangled form of a Rust path (`a::b::c`) into `sink`.
pub const fn write_mangled(path: &str, sink: &mut Sink) {
    let b = path.as_bytes();
    sink.str("_ZN");
    let mut start = 0;
    let mut i = 0;
    while i <= b.len() {
        if i == b.len() || b[i] == b':' {
            if i > start {
                sink.dec((i - start) as u64);
                let mut j = start;
                while j < i {
                    assert!(is_ident_byte(b[j]), "PTX identifiers are ASCII: rename the module or item to use ASCII letters, digits and `_`");
                    sink.byte(b[j]);
                    j += 1;
                }
            }
            start = i + 1;
        }
        i += 1;
    }
    sink.str("E");
}

/// Writes the mangled symbol of a method of type `ty` defined in the module at `path`: the
/// Itanium nested name `path::ty::name` (`name` an operator code such as `pl` for `operator+`
/// when `operator`; `K` after `N` when `konst`: a `self`/`&self` receiver is C++'s `const`
/// member function), then `params`: the parameter types' encoding as nvcc writes it (`f` for
/// `float`), with `$` standing for the class itself, written as its substitution (`S1_` for
/// `krate::m::Vec3`: `krate` is `S_`, `krate::m` is `S0_`) and `#` for the innermost
/// namespace (`S0_`; an operator with a scalar on the left is a free function of the
/// namespace, `ty` empty: `krate::m::operator*(float, krate::m::Vec3)` is
/// `_ZN5krate1m`..`mlEfNS0_4Vec3E`). An empty `params` writes none,
/// as for free functions (one Rust method per name); operators carry theirs because one type
/// can have several (`Mul<f32>` and `Mul<Vec3>`).
pub const fn write_member(path: &str, ty: &str, name: &str, operator: bool, konst: bool, params: &str, sink: &mut Sink) {
    let b = path.as_bytes();
    sink.str(if konst { "_ZNK" } else { "_ZN" });
    let mut segments = 0u64;
    let mut start = 0;
    let mut i = 0;
    while i <= b.len() {
        if i == b.len() || b[i] == b':' {
            if i > start {
                source_name(b, start, i, sink);
                segments += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    if !ty.is_empty() {
        source_name(ty.as_bytes(), 0, ty.len(), sink);
    }
    if operator {
        sink.str(name);
    } else {
        source_name(name.as_bytes(), 0, name.len(), sink);
    }
    sink.str("E");
    let p = params.as_bytes();
    let mut j = 0;
    while j < p.len() {
        if p[j] == b'$' || p[j] == b'#' {
            // Candidate `k` (0-based) is written `S_`, then `S<k-1 in base 36>_`: the class is
            // candidate `segments`, the innermost namespace candidate `segments - 1`.
            let k = if p[j] == b'$' { segments } else { segments.saturating_sub(1) };
            sink.byte(b'S');
            if k > 0 {
                write_base36(k - 1, sink);
            }
            sink.byte(b'_');
        } else {
            sink.byte(p[j]);
        }
        j += 1;
    }
}

/// `<length><identifier>`.
const fn source_name(b: &[u8], start: usize, end: usize, sink: &mut Sink) {
    sink.dec((end - start) as u64);
    let mut j = start;
    while j < end {
        assert!(is_ident_byte(b[j]), "PTX identifiers are ASCII: rename the module or item to use ASCII letters, digits and `_`");
        sink.byte(b[j]);
        j += 1;
    }
}

const fn write_base36(n: u64, sink: &mut Sink) {
    if n >= 36 {
        write_base36(n / 36, sink);
    }
    let d = (n % 36) as u8;
    sink.byte(if d < 10 { b'0' + d } else { b'A' + d - 10 });
}

const fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Pieces spelling the symbol of the item at `path` (from `module_path!()`), mangled unless
/// `plain` is given.
pub const fn symbol(path: &'static str, plain: Option<&'static str>) -> Piece<'static> {
    match plain {
        Some(name) => Piece::Str(name),
        None => Piece::Mangled(path),
    }
}

#[cfg(test)]
mod tests {
    use crate::text::{render_len, render_to};
    use crate::text::Piece;

    fn mangle(p: &'static str) -> std::string::String {
        let pieces = [Piece::Mangled(p)];
        let mut buf = std::vec![0u8; render_len(&pieces)];
        render_to(&pieces, &mut buf);
        std::string::String::from_utf8(buf).unwrap()
    }

    extern crate std;

    #[test]
    fn nested_names() {
        assert_eq!(mangle("my_crate::kernels::saxpy"), "_ZN8my_crate7kernels5saxpyE");
        assert_eq!(mangle("k"), "_ZN1kE");
    }

    fn member(path: &'static str, ty: &'static str, name: &'static str, operator: bool, params: &'static str) -> std::string::String {
        let konst = !name.ends_with('L') && name != "dot_mut";
        let pieces = [Piece::Member { path, ty, name, operator, konst, params }];
        let mut buf = std::vec![0u8; render_len(&pieces)];
        render_to(&pieces, &mut buf);
        std::string::String::from_utf8(buf).unwrap()
    }

    /// The operators are the symbols nvcc 13 gives `namespace krate { namespace m { struct Vec3
    /// { Vec3 operator+(Vec3) const; Vec3 operator*(float) const; Vec3 operator-() const; void
    /// operator+=(Vec3); }; } }`; `c++filt` shows `krate::m::Vec3::dot const`.
    #[test]
    fn member_names() {
        assert_eq!(member("krate::m", "Vec3", "dot", false, ""), "_ZNK5krate1m4Vec33dotE");
        assert_eq!(member("krate::m", "Vec3", "dot_mut", false, ""), "_ZN5krate1m4Vec37dot_mutE");
        assert_eq!(member("krate::m", "Vec3", "ml", true, "f"), "_ZNK5krate1m4Vec3mlEf");
        assert_eq!(member("krate::m", "Vec3", "pl", true, "$"), "_ZNK5krate1m4Vec3plES1_");
        assert_eq!(member("krate::m", "Vec3", "pL", true, "$"), "_ZN5krate1m4Vec3pLES1_");
        assert_eq!(member("krate::m", "Vec3", "ng", true, "v"), "_ZNK5krate1m4Vec3ngEv");
        assert_eq!(member("k", "Vec3", "ng", true, "v"), "_ZNK1k4Vec3ngEv");
        // Free operators, as nvcc names `krate::geo::operator*(float, krate::geo::Vec3)` and
        // `k1::operator*(float, k1::V)`.
        let free = |path: &'static str, params: &'static str| {
            let pieces = [Piece::Member { path, ty: "", name: "ml", operator: true, konst: false, params }];
            let mut buf = std::vec![0u8; render_len(&pieces)];
            render_to(&pieces, &mut buf);
            std::string::String::from_utf8(buf).unwrap()
        };
        assert_eq!(free("krate::geo", "fN#4Vec3E"), "_ZN5krate3geomlEfNS0_4Vec3E");
        assert_eq!(free("k1", "fN#1VE"), "_ZN2k1mlEfNS_1VE");
    }
}
