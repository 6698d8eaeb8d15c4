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
}
