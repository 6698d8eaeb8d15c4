//! C++ spellings for headers that declare Rust device functions to CUDA C++
//! (`ptx_runtime::cpp_header!`), written in const evaluation like the PTX text.

use crate::text::Sink;

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
