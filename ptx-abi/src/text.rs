//! PTX text assembled at compile time.
//!
//! `#[kernel]` and `#[device_fn]` expand to a list of [`Piece`]s: literal text the macro wrote,
//! plus parts only rustc can supply — the module path of the item (its symbol), the ABI of a
//! parameter type resolved through aliases and other crates, the device functions a kernel
//! reaches. [`ptx_text!`](crate::ptx_text) renders the pieces into a `&'static str` during
//! constant evaluation, so every `PTX` constant is complete text in the binary with no work at
//! run time.

use crate::layout::Layout;
use crate::param::{Decl, ParamAbi, Site};
use crate::scalar::bit_type;
use crate::symbol::write_mangled;
use crate::lineinfo::{FileRef, FileTable};
use crate::target::{Isa, Target};

/// One part of a PTX text.
#[derive(Clone, Copy, Debug)]
pub enum Piece<'a> {
    /// Literal text.
    Str(&'a str),
    /// A decimal number.
    Dec(u64),
    /// The mangled symbol of the item at this path (a `module_path!()`).
    Mangled(&'a str),
    /// A C++ header's inline wrapper for a Rust device function (see `cpp::write_wrapper`).
    CppWrapper { symbol: &'a str, ret: &'a str, params: &'a str, args: &'a str },
    /// The mangled symbol of a method: `path::ty::name` (`name` an Itanium operator code such
    /// as `pl` when `operator`; `konst`: a `const` member), then `params`, the parameter types' encoding, where `$` stands
    /// for the class itself (see `symbol::write_member`).
    Member { path: &'a str, ty: &'a str, name: &'a str, operator: bool, konst: bool, params: &'a str },
    /// The symbol of an instantiation of the generic device function at `path` (the
    /// `module_path!()` of its scope module, `a::b::f`) with these template arguments (see
    /// `template`).
    Template { path: &'a str, args: &'a [crate::template::TemplateArg<'a>] },
    /// The symbol of the method `name` of the generic `DeviceRepr` type `path::class`
    /// instantiated with `args` (see `template::write_member_template`); an operator (`name` its
    /// Itanium code) is followed by its parameter types `params`.
    /// `margs`: a generic method's own arguments (`Vec3::get<2ul>`); `args` empty: the class is
    /// not a template.
    MemberTemplate { path: &'a str, class: &'a str, args: &'a [crate::template::TemplateArg<'a>], name: &'a str, margs: &'a [crate::template::TemplateArg<'a>], konst: bool, operator: bool, params: &'a [crate::template::TemplateArg<'a>] },
    /// The `.version` / `.target` / `.address_size` header: the version is the lowest that has
    /// the target, `isa` (what the code itself uses) and everything `funcs` reaches.
    /// `debug`: `.target sm_XX, debug`, the module carries full debug information.
    Header { target: Target, isa: Isa, funcs: &'a [&'a FnNode], debug: bool },
    /// One parameter declaration, `.param <type> <name>`, per §2.3. `symbol` names the function
    /// (`<symbol>_param_<index>`); a [`Site::Return`] is always `func_retval0`.
    Param { abi: ParamAbi, site: Site, symbol: &'a str, index: usize },
    /// The name of a parameter, `<symbol>_param_<index>`.
    ParamName { symbol: &'a str, index: usize },
    /// Copies an aggregate between two `.param` locations in chunks of its alignment (at most 8
    /// bytes), inside its own `{ }` scope with its own registers.
    Copy { layout: Layout, from: &'a [Piece<'a>], to: &'a [Piece<'a>] },
    /// Prototypes, then definitions, of every device function reachable from `roots`, each
    /// exactly once; their `.loc` file numbers renumbered into the module's table, which starts
    /// with `files`, the module's own (see [`lineinfo`](crate::lineinfo)).
    Funcs { files: &'a [&'a str], roots: &'a [&'a FnNode] },
    /// The module's `.file` table: `files`, then those of every function reachable from
    /// `roots`, each once, numbered from 1 (as nvcc, at the end of the module).
    Files { files: &'a [&'a str], roots: &'a [&'a FnNode] },
    /// The DWARF compile units of every function reachable from `roots` that has one
    /// ([`FnNode::dwarf`]), each once, their file numbers renumbered into the module's table
    /// (which starts with `files`, as for [`Piece::Funcs`]); written inside the module's one
    /// `.section .debug_info` after the kernel's own unit.
    DebugUnits { files: &'a [&'a str], roots: &'a [&'a FnNode] },
    /// The file number of a `.loc`: `n`, the function-local number (1-based, into the
    /// function's own files). [`file_refs`] records where each was written.
    FileRef(u16),
    /// Several pieces.
    Seq(&'a [Piece<'a>]),
    /// The bytes of a string and a terminating NUL, as the size and initializer of a `.b8`
    /// array: `[3] = {104, 105, 0}` for `"hi"` (C string constants: `printf` formats,
    /// assertion messages and locations).
    CString(&'a str),
    /// Bytes as the size and initializer of a `.b8` array: `[2] = {1, 255}` (the data of a
    /// `const`/`static` table read by device code, as nvcc writes a `__constant__` array).
    Bytes(&'a [u8]),
    /// A string between double quotes, each byte that is not printable ASCII (and `"`, `\\`)
    /// as `\\xHH`: one line whatever it holds (a failure site's file, function and message:
    /// see [`report`](crate::report)).
    Quoted(&'a str),
}

/// A device function as a node of the static call graph. Every `#[device_fn]` defines one as a
/// `static`, so recursive and mutually recursive functions can name each other.
///
/// A node with an empty `body` is a module-scope declaration a function needs, not a function
/// definition: a system call's `.extern .func` prototype (`syscall::VPRINTF_NODE`, ...) or a
/// string constant (`.global .align 1 .b8 name[N] = {...}`). [`Piece::Funcs`] declares it once
/// with the prototypes and defines nothing for it.
#[derive(Debug)]
pub struct FnNode {
    /// The function's symbol; two nodes with the same symbol are the same function.
    pub symbol: &'static str,
    /// `.visible .func (...) name(...)`, without a body or semicolon.
    pub prototype: &'static str,
    /// `{ ... }`
    pub body: &'static str,
    /// Functions this one calls.
    pub callees: &'static [&'static FnNode],
    /// The lowest ISA the body needs.
    pub isa: Isa,
    /// The source files the body's `.loc`s name, as rustc names them, escaped for a PTX string
    /// (`file_refs` number them from 1).
    pub files: &'static [&'static str],
    /// Where the body wrote a file number (see [`lineinfo`](crate::lineinfo)).
    pub file_refs: &'static [FileRef],
    /// Under full debug information, the function's own DWARF compile unit (the contents of a
    /// `.debug_info` section: `.b8`/`.b32`/`.b64` lines) that [`Piece::DebugUnits`] copies
    /// into the module; empty otherwise.
    pub dwarf: &'static str,
    /// Where the unit wrote a file number (`DW_AT_decl_file`), renumbered like the body's.
    pub dwarf_refs: &'static [FileRef],
}

/// Most device functions one kernel can reach.
pub const MAX_REACHABLE: usize = 512;

/// The set of functions reachable from `roots`, in depth-first pre-order, each once.
struct Reachable<'a> {
    nodes: [Option<&'a FnNode>; MAX_REACHABLE],
    len: usize,
}

impl<'a> Reachable<'a> {
    const fn of(roots: &'a [&'a FnNode]) -> Reachable<'a> {
        let mut r = Reachable { nodes: [None; MAX_REACHABLE], len: 0 };
        // Iterative DFS: an explicit stack of (node, next callee index).
        let mut stack: [(Option<&'a FnNode>, usize); MAX_REACHABLE] = [(None, 0); MAX_REACHABLE];
        let mut i = 0;
        while i < roots.len() {
            if !r.contains(roots[i]) {
                r.push(roots[i]);
                let mut sp = 1;
                stack[0] = (Some(roots[i]), 0);
                while sp > 0 {
                    let (node, next) = stack[sp - 1];
                    let node = match node {
                        Some(n) => n,
                        None => panic!(),
                    };
                    if next < node.callees.len() {
                        stack[sp - 1].1 = next + 1;
                        let callee = node.callees[next];
                        if !r.contains(callee) {
                            r.push(callee);
                            stack[sp] = (Some(callee), 0);
                            sp += 1;
                        }
                    } else {
                        sp -= 1;
                    }
                }
            }
            i += 1;
        }
        r
    }

    const fn contains(&self, n: &FnNode) -> bool {
        let mut i = 0;
        while i < self.len {
            if let Some(m) = self.nodes[i] {
                if str_eq(m.symbol, n.symbol) {
                    return true;
                }
            }
            i += 1;
        }
        false
    }

    const fn push(&mut self, n: &'a FnNode) {
        assert!(self.len < MAX_REACHABLE, "a kernel reaches more than 512 device functions");
        self.nodes[self.len] = Some(n);
        self.len += 1;
    }

    const fn get(&self, i: usize) -> &'a FnNode {
        match self.nodes[i] {
            Some(n) => n,
            None => panic!(),
        }
    }
}

pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Where rendered text goes: counts only when the buffer is empty, writes otherwise.
pub struct Sink<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl<'b> Sink<'b> {
    pub const fn byte(&mut self, b: u8) {
        if self.pos < self.buf.len() {
            self.buf[self.pos] = b;
        }
        self.pos += 1;
    }

    /// One copy per string, not a loop per byte: rendering runs in rustc's const evaluator,
    /// where each interpreted step costs far more than a native one (a crate of 150 kernels
    /// spent half its build here).
    pub const fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes())
    }

    /// Raw bytes of a rendered text (a part of a body between file numbers).
    const fn bytes(&mut self, b: &[u8]) {
        if self.pos + b.len() > self.buf.len() {
            // Counting (an empty buffer), or past the end, which `render_to` reports.
            self.pos += b.len();
            return;
        }
        let (_, rest) = self.buf.split_at_mut(self.pos);
        let (dst, _) = rest.split_at_mut(b.len());
        dst.copy_from_slice(b);
        self.pos += b.len();
    }

    /// A function's body with its file numbers replaced by the module's (`numbers[k]` for its
    /// file `k+1`).
    const fn body(&mut self, node: &FnNode, numbers: &[usize]) {
        self.renumbered(node.body, node.file_refs, numbers)
    }

    /// `text` with the file numbers written at `refs` replaced by `numbers[k]` for file `k+1`.
    const fn renumbered(&mut self, text: &str, refs: &[FileRef], numbers: &[usize]) {
        let bytes = text.as_bytes();
        let mut prev = 0;
        let mut i = 0;
        while i < refs.len() {
            let r = refs[i];
            let at = r.at as usize;
            let (_, rest) = bytes.split_at(prev);
            let (part, _) = rest.split_at(at - prev);
            self.bytes(part);
            self.dec(numbers[r.file as usize - 1] as u64);
            prev = at + digits(r.file as u64);
            i += 1;
        }
        let (_, rest) = bytes.split_at(prev);
        self.bytes(rest);
    }

    pub const fn dec(&mut self, v: u64) {
        let mut digits = 1;
        let mut x = v;
        while x >= 10 {
            x /= 10;
            digits *= 10;
        }
        let mut x = v;
        while digits > 0 {
            self.byte(b'0' + (x / digits) as u8);
            x %= digits;
            digits /= 10;
        }
    }

    const fn pieces(&mut self, pieces: &[Piece]) {
        let mut i = 0;
        while i < pieces.len() {
            self.piece(&pieces[i]);
            i += 1;
        }
    }

    const fn piece(&mut self, p: &Piece) {
        match *p {
            Piece::Str(s) => self.str(s),
            Piece::Dec(v) => self.dec(v),
            Piece::Mangled(path) => write_mangled(path, self),
            Piece::CppWrapper { symbol, ret, params, args } => crate::cpp::write_wrapper(symbol, ret, params, args, self),
            Piece::Member { path, ty, name, operator, konst, params } => crate::symbol::write_member(path, ty, name, operator, konst, params, self),
            Piece::Template { path, args } => crate::template::write_template(path, args, self),
            Piece::MemberTemplate { path, class, args, name, margs, konst, operator, params } => crate::template::write_member_template(path, class, args, name, margs, konst, operator, params, self),
            Piece::Header { target, isa, funcs, debug } => {
                let mut v = target.min_isa().max(isa);
                let r = Reachable::of(funcs);
                let mut i = 0;
                while i < r.len {
                    v = v.max(r.get(i).isa);
                    i += 1;
                }
                self.str(".version ");
                self.dec(v.major as u64);
                self.byte(b'.');
                self.dec(v.minor as u64);
                self.str("\n.target sm_");
                self.dec(target.sm as u64);
                if let Some(c) = target.suffix {
                    self.byte(c as u8);
                }
                if debug {
                    self.str(", debug");
                }
                self.str("\n.address_size 64\n");
            }
            Piece::Param { abi, site, symbol, index } => {
                self.str(".param ");
                let decl = abi.decl(site);
                if let Decl::Bytes { align, .. } = decl {
                    self.str(".align ");
                    self.dec(align as u64);
                    self.str(" .b8 ");
                } else if let Decl::Typed(t) = decl {
                    self.str(t);
                    self.byte(b' ');
                }
                match site {
                    Site::Return => self.str("func_retval0"),
                    _ => self.piece(&Piece::ParamName { symbol, index }),
                }
                if let Decl::Bytes { size, .. } = decl {
                    self.byte(b'[');
                    self.dec(size as u64);
                    self.byte(b']');
                }
            }
            Piece::ParamName { symbol, index } => {
                self.str(symbol);
                self.str("_param_");
                self.dec(index as u64);
            }
            Piece::Copy { layout, from, to } => {
                let chunk = if layout.align < 8 { layout.align } else { 8 };
                let reg = match chunk {
                    1 | 2 => "%cp16",
                    4 => "%cp32",
                    _ => "%cp64",
                };
                self.str("\t{\n\t.reg ");
                self.str(bit_type(if chunk == 1 { 2 } else { chunk }));
                self.byte(b' ');
                self.str(reg);
                self.str(";\n");
                let mut off = 0;
                while off < layout.size {
                    self.str("\tld.param");
                    self.str(bit_type(chunk));
                    self.byte(b' ');
                    self.str(reg);
                    self.str(", [");
                    self.pieces(from);
                    self.byte(b'+');
                    self.dec(off as u64);
                    self.str("];\n\tst.param");
                    self.str(bit_type(chunk));
                    self.str(" [");
                    self.pieces(to);
                    self.byte(b'+');
                    self.dec(off as u64);
                    self.str("], ");
                    self.str(reg);
                    self.str(";\n");
                    off += chunk;
                }
                self.str("\t}\n");
            }
            Piece::FileRef(n) => self.dec(n as u64),
            Piece::Files { files, roots } => {
                let t = Self::file_table(files, roots);
                let mut i = 0;
                while i < t.len() {
                    self.str("\t.file\t");
                    self.dec(i as u64 + 1);
                    self.str(" \"");
                    self.str(t.name(i));
                    self.str("\"\n");
                    i += 1;
                }
            }
            Piece::Funcs { files, roots } => {
                let table = Self::file_table(files, roots);
                let r = Reachable::of(roots);
                let mut i = 0;
                while i < r.len {
                    self.str(r.get(i).prototype);
                    self.str(";\n");
                    i += 1;
                }
                i = 0;
                while i < r.len {
                    if r.get(i).body.is_empty() {
                        i += 1;
                        continue;
                    }
                    self.byte(b'\n');
                    self.str(r.get(i).prototype);
                    self.byte(b'\n');
                    let numbers = table.numbers(r.get(i));
                    self.body(r.get(i), &numbers);
                    self.byte(b'\n');
                    i += 1;
                }
            }
            Piece::DebugUnits { files, roots } => {
                let table = Self::file_table(files, roots);
                let r = Reachable::of(roots);
                let mut i = 0;
                while i < r.len {
                    let node = r.get(i);
                    if !node.dwarf.is_empty() {
                        let numbers = table.numbers(node);
                        self.renumbered(node.dwarf, node.dwarf_refs, &numbers);
                    }
                    i += 1;
                }
            }
            Piece::Seq(ps) => self.pieces(ps),
            Piece::CString(text) => {
                let b = text.as_bytes();
                self.byte(b'[');
                self.dec(b.len() as u64 + 1);
                self.str("] = {");
                let mut i = 0;
                while i < b.len() {
                    self.dec(b[i] as u64);
                    self.str(", ");
                    i += 1;
                }
                self.str("0}");
            }
            Piece::Quoted(s) => {
                self.byte(b'"');
                let b = s.as_bytes();
                let mut i = 0;
                while i < b.len() {
                    if crate::report::plain(b[i]) {
                        self.byte(b[i]);
                    } else {
                        const HEX: &[u8; 16] = b"0123456789abcdef";
                        self.str("\\x");
                        self.byte(HEX[(b[i] >> 4) as usize]);
                        self.byte(HEX[(b[i] & 15) as usize]);
                    }
                    i += 1;
                }
                self.byte(b'"');
            }
            Piece::Bytes(b) => {
                self.byte(b'[');
                self.dec(b.len() as u64);
                self.str("] = {");
                let mut i = 0;
                while i < b.len() {
                    if i > 0 {
                        self.str(", ");
                    }
                    self.dec(b[i] as u64);
                    i += 1;
                }
                self.str("}");
            }
        }
    }
}

impl Sink<'_> {
    /// The module's files: `own`, then those of the functions reachable from `roots`.
    const fn file_table<'a>(own: &[&'a str], roots: &'a [&'a FnNode]) -> FileTable<'a> {
        let mut t = FileTable::new(own);
        let r = Reachable::of(roots);
        let mut i = 0;
        while i < r.len {
            t.add_node(r.get(i));
            i += 1;
        }
        t
    }
}

/// Decimal digits of `v`.
const fn digits(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// Where the `N` [`Piece::FileRef`]s among `pieces` (top-level) are written when they are
/// rendered, for [`FnNode::file_refs`].
pub const fn file_refs<const N: usize>(pieces: &[Piece]) -> [FileRef; N] {
    let mut out = [FileRef { at: 0, file: 0 }; N];
    let mut sink = Sink { buf: &mut [], pos: 0 };
    let mut n = 0;
    let mut i = 0;
    while i < pieces.len() {
        if let Piece::FileRef(file) = pieces[i] {
            out[n] = FileRef { at: sink.pos as u32, file };
            n += 1;
        }
        sink.piece(&pieces[i]);
        i += 1;
    }
    assert!(n == N, "file_refs: wrong count");
    out
}

/// Length in bytes of the rendered pieces.
pub const fn render_len(pieces: &[Piece]) -> usize {
    let mut sink = Sink { buf: &mut [], pos: 0 };
    sink.pieces(pieces);
    sink.pos
}

/// Renders the pieces into `buf`, which must be [`render_len`] bytes long.
pub const fn render_to(pieces: &[Piece], buf: &mut [u8]) {
    let mut sink = Sink { buf, pos: 0 };
    sink.pieces(pieces);
    assert!(sink.pos == sink.buf.len(), "render_to: buffer length differs from render_len");
}

/// Renders the pieces into an array of exactly `N` = [`render_len`] bytes.
pub const fn render_array<const N: usize>(pieces: &[Piece]) -> [u8; N] {
    let mut out = [0u8; N];
    render_to(pieces, &mut out);
    out
}

/// The rendered bytes as text. Every piece writes ASCII or text that already was `str`.
pub const fn as_str(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("rendered PTX is not UTF-8"),
    }
}

/// Renders [`Piece`]s to a `&'static str` at compile time. Usable as a `const` initializer.
///
/// ```
/// use ptx_abi::text::Piece;
/// const SYM: &str = ptx_abi::ptx_text![Piece::Mangled("demo::k")];
/// const DECL: &str = ptx_abi::ptx_text![Piece::Str(".entry "), Piece::Str(SYM), Piece::Str("()")];
/// assert_eq!(DECL, ".entry _ZN4demo1kE()");
/// ```
#[macro_export]
macro_rules! ptx_text {
    ($($piece:expr),* $(,)?) => {{
        const __PIECES: &[$crate::text::Piece<'static>] = &[$($piece),*];
        const __LEN: usize = $crate::text::render_len(__PIECES);
        const __BYTES: [u8; __LEN] = $crate::text::render_array::<__LEN>(__PIECES);
        $crate::text::as_str(&__BYTES)
    }};
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scalar::Scalar;
    extern crate std;
    use std::string::String;

    /// The pieces rendered, as the const path renders them.
    pub(crate) fn render(p: &[Piece]) -> String {
        let mut buf = std::vec![0u8; render_len(p)];
        render_to(p, &mut buf);
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn numbers_and_params() {
        assert_eq!(render(&[Piece::Dec(0), Piece::Str(" "), Piece::Dec(1200)]), "0 1200");
        let p = Piece::Param { abi: ParamAbi::Aggregate(Layout::new(24, 8)), site: Site::Entry, symbol: "k", index: 3 };
        assert_eq!(render(&[p]), ".param .align 8 .b8 k_param_3[24]");
        let r = Piece::Param { abi: ParamAbi::Scalar(Scalar::I8), site: Site::Return, symbol: "f", index: 0 };
        assert_eq!(render(&[r]), ".param .b32 func_retval0");
    }

    static A: FnNode = FnNode { symbol: "a", prototype: ".func a()", body: "{ ret; }", callees: &[&B, &A], isa: Isa::new(6, 3), files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[] };
    static B: FnNode = FnNode { symbol: "b", prototype: ".func b()", body: "{ ret; }", callees: &[&A, &C], isa: Isa::new(7, 8), files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[] };
    static C: FnNode = FnNode { symbol: "c", prototype: ".func c()", body: "{ ret; }", callees: &[], isa: Isa::new(6, 3), files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[] };

    static S: FnNode = FnNode { symbol: "s", prototype: ".global .align 1 .b8 s[3] = {104, 105, 0}", body: "", callees: &[], isa: Isa::ABI_CALLS, files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[] };
    static D: FnNode = FnNode { symbol: "d", prototype: ".func d()", body: "{ ret; }", callees: &[&S, &crate::syscall::VPRINTF_NODE], isa: Isa::new(6, 3), files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[] };
    static E: FnNode = FnNode { symbol: "e", prototype: ".func e()", body: "{ ret; }", callees: &[&crate::syscall::VPRINTF_NODE], isa: Isa::new(6, 3), files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[] };

    #[test]
    fn declarations_are_declared_once_and_never_defined() {
        let text = render(&[Piece::Funcs { files: &[], roots: &[&D, &E] }]);
        assert_eq!(text.matches(".global .align 1 .b8 s[3] = {104, 105, 0};\n").count(), 1, "{text}");
        assert_eq!(text.matches(crate::syscall::VPRINTF).count(), 1, "{text}");
        assert_eq!(text.matches("vprintf").count(), 3, "one prototype, no definition: {text}");
    }

    #[test]
    fn c_strings_end_in_nul() {
        assert_eq!(render(&[Piece::Str("x"), Piece::CString("hi")]), "x[3] = {104, 105, 0}");
        assert_eq!(render(&[Piece::CString("")]), "[1] = {0}");
        assert_eq!(render(&[Piece::Bytes(&[1, 255])]), "[2] = {1, 255}");
    }

    #[test]
    fn every_reachable_function_exactly_once_despite_cycles() {
        let text = render(&[Piece::Funcs { files: &[], roots: &[&A, &C] }]);
        for f in ["a", "b", "c"] {
            assert_eq!(text.matches(&std::format!(".func {f}();")).count(), 1, "{text}");
            assert_eq!(text.matches(&std::format!(".func {f}()\n{{")).count(), 1, "{text}");
        }
    }

    #[test]
    fn header_takes_the_highest_version_reached() {
        let h = render(&[Piece::Header { target: Target::DEFAULT, isa: Isa::new(6, 3), funcs: &[&A], debug: false }]);
        assert_eq!(h, ".version 7.8\n.target sm_75\n.address_size 64\n");
    }

    // Two functions of two files, each rendered with its own numbering, in a module whose own
    // file is a third: the table is dense and each `.loc` names its function's file.
    static F: FnNode = FnNode {
        symbol: "f",
        prototype: ".func f()",
        body: "{\n.loc\t1 3 5\nret;\n}",
        callees: &[&G],
        isa: Isa::new(6, 3),
        files: &["src/f.rs"],
        file_refs: &file_refs::<1>(&[Piece::Str("{\n.loc\t"), Piece::FileRef(1), Piece::Str(" 3 5\nret;\n}")]),
        dwarf: "",
        dwarf_refs: &[],
    };
    static G: FnNode = FnNode {
        symbol: "g",
        prototype: ".func g()",
        body: "{\n.loc\t2 7 1\n.loc\t1 8 2\nret;\n}",
        callees: &[],
        isa: Isa::new(6, 3),
        files: &["src/lib.rs", "src/f.rs"],
        file_refs: &file_refs::<2>(&[Piece::Str("{\n.loc\t"), Piece::FileRef(2), Piece::Str(" 7 1\n.loc\t"), Piece::FileRef(1), Piece::Str(" 8 2\nret;\n}")]),
        dwarf: ".b8 7,2\n.b8 1\n",
        dwarf_refs: &file_refs::<2>(&[Piece::Str(".b8 7,"), Piece::FileRef(2), Piece::Str("\n.b8 "), Piece::FileRef(1), Piece::Str("\n")]),
    };

    #[test]
    fn file_numbers_are_renumbered_into_one_dense_table() {
        assert_eq!(F.file_refs, &[crate::lineinfo::FileRef { at: 7, file: 1 }]);
        let text = render(&[Piece::Funcs { files: &["src/lib.rs"], roots: &[&F] }, Piece::Files { files: &["src/lib.rs"], roots: &[&F] }]);
        assert!(text.contains(".func f()\n{\n.loc\t2 3 5\n"), "{text}");
        assert!(text.contains(".func g()\n{\n.loc\t2 7 1\n.loc\t1 8 2\n"), "{text}");
        assert!(text.ends_with("\t.file\t1 \"src/lib.rs\"\n\t.file\t2 \"src/f.rs\"\n"), "{text}");
        // On its own, a function's numbering is its own.
        let alone = render(&[Piece::Funcs { files: &[], roots: &[&G] }, Piece::Files { files: &[], roots: &[&G] }]);
        assert!(alone.contains(".loc\t2 7 1\n.loc\t1 8 2"), "{alone}");
        assert!(alone.ends_with("\t.file\t1 \"src/lib.rs\"\n\t.file\t2 \"src/f.rs\"\n"), "{alone}");
    }

    #[test]
    fn debug_units_are_copied_once_with_the_module_numbering() {
        // `g`'s unit names its files 2 (`src/f.rs`) and 1 (`src/lib.rs`): in the module whose
        // own file is `src/lib.rs`, reached through `f`, they are 2 and 1; `f` has no unit.
        let text = render(&[Piece::DebugUnits { files: &["src/lib.rs"], roots: &[&F, &G] }]);
        assert_eq!(text, ".b8 7,2\n.b8 1\n");
        let other = render(&[Piece::DebugUnits { files: &["src/f.rs"], roots: &[&G] }]);
        assert_eq!(other, ".b8 7,1\n.b8 2\n");
    }

    const CONST_TEXT: &str = crate::ptx_text![Piece::Mangled("x::y"), Piece::Str(" "), Piece::Dec(42)];

    #[test]
    fn renders_in_const_context() {
        assert_eq!(CONST_TEXT, "_ZN1x1yE 42");
    }
}
