//! C++ spellings for headers that declare Rust device functions to CUDA C++
//! (`ptx_runtime::cpp_header!`), written in const evaluation like the PTX text.

use crate::text::Sink;

/// The guide's fundamental types (§1.1) by their Rust name, as C++ spells them (nvcc on a 64-bit
/// host) and as the Itanium C++ ABI encodes them in mangled names (`""`: no builtin code, the
/// type is a struct of CUDA's headers). One table for headers and for mangled names alike.
pub const FUNDAMENTAL: [(&str, &str, &str); 15] = [
    ("bool", "bool", "b"),
    ("i8", "signed char", "a"),
    ("u8", "unsigned char", "h"),
    ("i16", "short", "s"),
    ("u16", "unsigned short", "t"),
    ("i32", "int", "i"),
    ("u32", "unsigned int", "j"),
    ("i64", "long long", "x"),
    ("u64", "unsigned long long", "y"),
    ("isize", "ptrdiff_t", "l"),
    ("usize", "size_t", "m"),
    ("f32", "float", "f"),
    ("f64", "double", "d"),
    ("f16", "__half", ""),
    ("bf16", "__nv_bfloat16", ""),
];

/// The C++ spelling and Itanium code of a Rust fundamental type, by its Rust name.
pub fn fundamental(rust: &str) -> Option<(&'static str, &'static str)> {
    FUNDAMENTAL.iter().find(|(r, _, _)| *r == rust).map(|(_, c, i)| (*c, *i))
}

/// For a symbol of the Itanium nested form our device functions get (`_ZN5krate1m1fE`): an
/// inline wrapper under the C++ namespaces it spells, calling the `extern "C"` declaration of
/// the symbol itself —
/// `namespace krate { namespace m { __device__ inline RET f(PARAMS) { return ::SYMBOL(ARGS); } } }`.
/// Other symbols (`#[no_mangle]` names) write nothing: their declaration is their name.
pub const fn write_wrapper(symbol: &str, ret: &str, params: &str, args: &str, sink: &mut Sink) {
    let b = symbol.as_bytes();
    if b.len() < 4 || b[0] != b'_' || b[1] != b'Z' || b[2] != b'N' || b[b.len() - 1] != b'E' {
        return;
    }
    // The segments: (start, end) of each `<len><ident>`.
    let mut i = 3;
    let mut count = 0usize;
    let mut starts = [0usize; 32];
    let mut ends = [0usize; 32];
    while i < b.len() - 1 {
        let mut len = 0usize;
        while i < b.len() && b[i].is_ascii_digit() {
            len = len * 10 + (b[i] - b'0') as usize;
            i += 1;
        }
        if len == 0 || i + len > b.len() - 1 || count == 32 {
            return;
        }
        starts[count] = i;
        ends[count] = i + len;
        count += 1;
        i += len;
    }
    if count < 2 {
        return;
    }
    let mut k = 0;
    while k + 1 < count {
        sink.str("namespace ");
        write_range(b, starts[k], ends[k], sink);
        sink.str(" { ");
        k += 1;
    }
    sink.str("__device__ inline ");
    sink.str(ret);
    sink.byte(b' ');
    write_range(b, starts[count - 1], ends[count - 1], sink);
    sink.byte(b'(');
    sink.str(params);
    sink.str(") { return ::");
    sink.str(symbol);
    sink.byte(b'(');
    sink.str(args);
    sink.str("); }");
    k = 0;
    while k + 1 < count {
        sink.str(" }");
        k += 1;
    }
    sink.byte(b'\n');
}

const fn write_range(b: &[u8], start: usize, end: usize, sink: &mut Sink) {
    let mut j = start;
    while j < end {
        sink.byte(b[j]);
        j += 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::text::tests::render;
    use crate::text::Piece;

    #[test]
    fn wrapper_under_the_namespaces() {
        let w = |s| render(&[Piece::CppWrapper { symbol: s, ret: "float", params: "float p0, int p1", args: "p0, p1" }]);
        assert_eq!(w("_ZN5krate4geom4lerpE"), "namespace krate { namespace geom { __device__ inline float lerp(float p0, int p1) { return ::_ZN5krate4geom4lerpE(p0, p1); } } }\n");
        assert_eq!(w("rust_square"), "");
        assert_eq!(w("_ZN3bad"), "");
    }
}
