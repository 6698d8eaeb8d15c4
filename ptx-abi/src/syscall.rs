//! Chapter 3: system calls. Their prototypes, declared in a module that calls them; the driver
//! provides the definitions. Parameter types are `.b64` for pointers and `size_t` (64-bit
//! addresses), spelled as nvcc declares them.
//!
//! Each prototype comes twice: as a declaration (`VPRINTF`, text ending in `;`) and as a
//! [`FnNode`] with an empty body (`VPRINTF_NODE`), which a function that makes the call lists
//! among its callees, so every module that reaches the call declares it exactly once.

use crate::target::Isa;
use crate::text::FnNode;

macro_rules! syscall {
    ($(#[$doc:meta])* $decl:ident, $node:ident, $name:literal, $prototype:literal) => {
        $(#[$doc])*
        pub const $decl: &str = concat!($prototype, ";\n");
        $(#[$doc])*
        ///
        /// As a node of the call graph: declared once by every module that reaches it.
        pub static $node: FnNode = FnNode { symbol: $name, prototype: $prototype, body: "", callees: &[], isa: Isa::ABI_CALLS, files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[] };
    };
}

syscall!(
    /// `vprintf(format, valist) -> status`: `format` points to the format string in global
    /// memory, `valist` to the arguments packed in local memory, both as generic addresses.
    VPRINTF, VPRINTF_NODE, "vprintf",
    ".extern .func (.param .b32 func_retval0) vprintf(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)"
);

syscall!(
    /// `malloc(size) -> ptr` on the device heap.
    MALLOC, MALLOC_NODE, "malloc",
    ".extern .func (.param .b64 func_retval0) malloc(\n\t.param .b64 malloc_param_0\n)"
);

syscall!(
    /// `free(ptr)`.
    FREE, FREE_NODE, "free",
    ".extern .func free(\n\t.param .b64 free_param_0\n)"
);

syscall!(
    /// `__assertfail(message, file, line, function, charSize)`; `charSize` is 1.
    ASSERTFAIL, ASSERTFAIL_NODE, "__assertfail",
    ".extern .func __assertfail(\n\t.param .b64 __assertfail_param_0,\n\t.param .b64 __assertfail_param_1,\n\t.param .b32 __assertfail_param_2,\n\t.param .b64 __assertfail_param_3,\n\t.param .b64 __assertfail_param_4\n)"
);

/// How `vprintf` finds its arguments: each at the next offset aligned to its own size in the
/// local buffer, after C's default argument promotions (`float` → `double`, integers narrower
/// than 32 bits → 32 bits).
pub mod valist {
    use crate::layout::align_to;
    use crate::scalar::Scalar;

    /// The type an argument of type `s` is passed as.
    pub const fn promoted(s: Scalar) -> Scalar {
        match s {
            Scalar::F16 | Scalar::BF16 | Scalar::F32 => Scalar::F64,
            other => other.widened(),
        }
    }

    /// The offset of the next argument of `size` bytes after `end` bytes are used.
    pub const fn place(end: usize, size: usize) -> usize {
        align_to(end, size)
    }
}
