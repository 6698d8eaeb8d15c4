//! Full debug information (`#[kernel(debug)]`, the `debug-info` feature): the `.debug_abbrev`
//! and `.debug_info` sections of the guide's chapter 5, written into the PTX as nvcc `-G` does
//! (`.section` blocks of `.b8` bytes, `.b32`/`.b64` references to sections, labels and
//! parameters that ptxas relocates). ptxas writes `.debug_line` from the `.loc`s.
//!
//! Each described function (kernel or device function) has its own compile unit: a device
//! function's is rendered when it is compiled and travels in its `FnNode` (`dwarf`), like its
//! body, because the module it ends up in is only assembled in constant evaluation; the
//! kernel's module writes one `.debug_abbrev` and one `.debug_info` holding the kernel's unit
//! and then every reachable function's (`Piece::DebugUnits`). ptxas accepts several units in
//! the one section (two `.section .debug_info` blocks would make two ELF sections).
//!
//! A unit holds the subprogram (from `$L__func_begin_<symbol>` to `$L__func_end_<symbol>`,
//! `DW_AT_frame_base` as nvcc), its formal parameters and its local variables, each with its
//! type (base types, pointers with the address class of the space they point into, slices as
//! `{ data_ptr, length }` structures, arrays, structs with their members) and its location:
//! a kernel's parameters in parameter space (`DW_OP_addr <symbol>_param_<i>`, class 7), a
//! device function's parameters and every local in registers (`DW_OP_regx` of the register's
//! name, class 2, with `DW_OP_piece`s for an aggregate kept field by field), arrays in `.local`
//! (class 6) and shared arrays (class 8) at their symbols.

mod abbrev;
mod types;

use crate::front::ty::Ty;
use crate::text::Text;
use quote::quote;
use abbrev::Abbrev;

/// §5.2's address classes.
pub mod class {
    pub const REG: u8 = 2;
    pub const GLOBAL: u8 = 5;
    pub const LOCAL: u8 = 6;
    pub const PARAM: u8 = 7;
    pub const SHARED: u8 = 8;
    pub const GENERIC: u8 = 12;
    pub const CONST: u8 = 4;
}

/// A function as the DWARF describes it: its subprogram and everything in it.
pub struct Subprogram {
    pub name: String,
    /// The compile unit's name: the function's file as rustc names it.
    pub unit: String,
    /// Where it is declared: the function's own file number (renumbered by the module) and line.
    pub file: u16,
    pub line: u32,
    /// The return type, if not `()`.
    pub ret: Option<Ty>,
    pub params: Vec<Var>,
    pub vars: Vec<Var>,
    /// The lexical blocks the writer labelled (`$L__lex_begin<n>_<symbol>`): `(n, parent)`,
    /// outer first.
    pub blocks: Vec<(usize, Option<usize>)>,
}

/// A formal parameter or a local variable.
pub struct Var {
    pub name: String,
    pub file: u16,
    pub line: u32,
    pub ty: Ty,
    /// §5.2's class of the space its pointer (or slice's data pointer) points into.
    pub ptr_class: u8,
    pub at: Location,
    /// The lexical block (`n` of `Subprogram::blocks`) it is declared in; `None`: the body.
    pub scope: Option<usize>,
}

/// Where a variable's value is.
pub enum Location {
    /// A kernel parameter, in parameter space: `DW_OP_addr <symbol>_param_<index>` (class 7).
    Param(usize),
    /// Registers (class 2): `DW_OP_regx` of one register, or of each piece
    /// `(offset, size, register)` of an aggregate kept field by field, with empty pieces for
    /// padding and for fields kept nowhere.
    Regs(Vec<(u64, u64, Option<String>)>),
    /// A function-scope array: `DW_OP_addr <symbol>` with its class (6 `.local`, 8 `.shared`);
    /// ptxas turns a `.local` one into a frame offset, as nvcc -G describes locals.
    Array(String, u8),
    /// Nowhere a debugger can read (an unsupported type).
    None,
}

/// One part of a section: bytes, or an 8-byte address (a label or a parameter's symbol), or a
/// 4-byte offset into another section.
enum Item {
    Bytes(Vec<u8>),
    Addr(Text),
    SectionOffset(&'static str),
    /// A one-byte file number (`DW_AT_decl_file`): the function's own, which the module
    /// renumbers (`Piece::FileRef`).
    File(u16),
}

/// A section's contents under construction; offsets count from its start.
#[derive(Default)]
struct Section {
    items: Vec<Item>,
    len: usize,
}

impl Section {
    fn bytes(&mut self, b: &[u8]) {
        self.len += b.len();
        match self.items.last_mut() {
            Some(Item::Bytes(v)) => v.extend_from_slice(b),
            _ => self.items.push(Item::Bytes(b.to_vec())),
        }
    }
    fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }
    fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn string(&mut self, s: &str) {
        self.bytes(s.as_bytes());
        self.u8(0);
    }
    fn uleb(&mut self, mut v: u64) {
        loop {
            let mut b = (v & 0x7f) as u8;
            v >>= 7;
            if v != 0 {
                b |= 0x80;
            }
            self.u8(b);
            if v == 0 {
                break;
            }
        }
    }
    fn addr(&mut self, t: Text) {
        self.len += 8;
        self.items.push(Item::Addr(t));
    }
    fn section_offset(&mut self, name: &'static str) {
        self.len += 4;
        self.items.push(Item::SectionOffset(name));
    }
    fn file(&mut self, n: u16) {
        self.len += 1;
        self.items.push(Item::File(n));
    }
    fn abbrev(&mut self, a: Abbrev) {
        self.uleb(a as u64);
    }

    /// The contents as PTX lines: `.b8` lines of at most 16 bytes, `.b64`/`.b32`
    /// references, file numbers as `Piece::FileRef`; and how many of those it wrote.
    fn contents(&self, t: &mut Text) -> usize {
        let mut refs = 0;
        for item in &self.items {
            match item {
                Item::Bytes(b) => {
                    for chunk in b.chunks(16) {
                        let list: Vec<String> = chunk.iter().map(|x| x.to_string()).collect();
                        t.str(&format!(".b8 {}\n", list.join(",")));
                    }
                }
                Item::Addr(a) => {
                    t.str(".b64 ").text(a).str("\n");
                }
                Item::SectionOffset(s) => {
                    t.str(&format!(".b32 {s}\n"));
                }
                Item::File(n) => {
                    t.str(".b8 ");
                    t.file_ref(*n);
                    t.str("\n");
                    refs += 1;
                }
            }
        }
        refs
    }
}

/// The label the body writer puts before (`begin`) or after a described function's
/// instructions: `$L__func_begin_<symbol>`, unique in the module.
pub fn func_label(which: &str) -> Text {
    let mut t = Text::new();
    t.str(&format!("$L__func_{which}_"));
    t.piece(quote!(::ptx_runtime::__private::Piece::Str(__SYMBOL)));
    t
}

/// The label before (`begin`) or after a lexical block's instructions:
/// `$L__lex_begin<n>_<symbol>`.
pub fn scope_label(which: &str, n: usize) -> Text {
    let mut t = Text::new();
    t.str(&format!("$L__lex_{which}{n}_"));
    t.piece(quote!(::ptx_runtime::__private::Piece::Str(__SYMBOL)));
    t
}

/// `.section .debug_abbrev`: one table for every unit of the module.
pub fn abbrev_section() -> Text {
    let mut abbrev = Section::default();
    abbrev::write(&mut abbrev);
    let mut t = Text::new();
    t.str("\t.section\t.debug_abbrev\n\t{\n");
    abbrev.contents(&mut t);
    t.str("\t}\n");
    t
}

/// `DW_OP_regx` of a PTX register: its name's bytes as one number, as nvcc writes it
/// (`%f1` is 0x256631) and ptxas maps to the machine register.
fn regx(name: &str, s: &mut Section) {
    s.u8(0x90);
    s.uleb(name.bytes().fold(0u64, |v, b| v << 8 | b as u64));
}

/// A location expression as a `DW_FORM_block1`, and the variable's address class.
fn location(at: &Location, s: &mut Section) -> u8 {
    let mut e = Section::default();
    let class = match at {
        Location::Param(index) => {
            e.u8(0x03); // DW_OP_addr <symbol>_param_<index>: ptxas relocates it.
            let mut sym = Text::new();
            sym.piece(quote!(::ptx_runtime::__private::Piece::ParamName { symbol: __SYMBOL, index: #index }));
            e.addr(sym);
            class::PARAM
        }
        Location::Regs(pieces) => {
            let whole = pieces.len() == 1 && pieces[0].0 == 0;
            let mut at = 0;
            for (off, size, reg) in pieces {
                if *off > at {
                    e.u8(0x93); // DW_OP_piece: padding, kept nowhere
                    e.uleb(off - at);
                }
                if let Some(r) = reg {
                    regx(r, &mut e);
                }
                if !whole {
                    e.u8(0x93);
                    e.uleb(*size);
                }
                at = off + size;
            }
            class::REG
        }
        Location::Array(sym, class) => {
            e.u8(0x03);
            let mut t = Text::new();
            t.str(sym);
            e.addr(t);
            *class
        }
        Location::None => class::REG,
    };
    if e.len > 255 {
        // Too long for a block1: described as kept nowhere.
        s.u8(0);
        return class;
    }
    s.u8(e.len as u8);
    for item in e.items {
        match item {
            Item::Bytes(b) => s.bytes(&b),
            Item::Addr(a) => s.addr(a),
            Item::SectionOffset(n) => s.section_offset(n),
            Item::File(n) => s.file(n),
        }
    }
    class
}

/// The function's `.debug_info` compile unit (the contents of the section, without the
/// `.section` lines) and how many file numbers it wrote.
pub fn unit(sub: &Subprogram, comp_dir: &str) -> (Text, usize) {
    let mut info = Section::default();
    // The header: unit length (patched below), version 2, the abbreviations, address size.
    info.u32(0);
    info.u16(2);
    info.section_offset(".debug_abbrev");
    info.u8(8);
    info.abbrev(Abbrev::CompileUnit);
    info.string(&format!("ptx-rs {}", env!("CARGO_PKG_VERSION")));
    info.u16(0x1c); // DW_LANG_Rust
    info.string(&sub.unit);
    info.section_offset(".debug_line");
    info.string(comp_dir);

    // Types first, then the subprogram referring to them by offset.
    let mut types = types::Types::default();
    let prefs: Vec<u32> = sub.params.iter().map(|p| types.describe_in(&p.ty, p.ptr_class, &mut info)).collect();
    let vrefs: Vec<u32> = sub.vars.iter().map(|p| types.describe_in(&p.ty, p.ptr_class, &mut info)).collect();
    let ret = sub.ret.as_ref().map(|t| types.describe(t, &mut info));

    info.abbrev(if ret.is_some() { Abbrev::SubprogramTyped } else { Abbrev::Subprogram });
    info.addr(func_label("begin"));
    info.addr(func_label("end"));
    info.u8(1);
    info.u8(0x9c); // DW_AT_frame_base: DW_OP_call_frame_cfa, as nvcc
    info.string(&sub.name);
    info.file(sub.file);
    info.u32(sub.line);
    if let Some(r) = ret {
        info.u32(r);
    }
    info.u8(1); // external
    let var = |info: &mut Section, abbrev: Abbrev, v: &Var, ty: u32| {
        info.abbrev(abbrev);
        let class = location(&v.at, info);
        info.u8(class);
        info.string(&v.name);
        info.file(v.file);
        info.u32(v.line);
        info.u32(ty);
    };
    for (v, ty) in sub.params.iter().zip(&prefs) {
        var(&mut info, Abbrev::FormalParameter, v, *ty);
    }
    // The variables of the body, then each lexical block with its own and its blocks.
    fn scope(info: &mut Section, sub: &Subprogram, at: Option<usize>, vrefs: &[u32], var: &dyn Fn(&mut Section, Abbrev, &Var, u32)) {
        for (v, ty) in sub.vars.iter().zip(vrefs).filter(|(v, _)| v.scope == at) {
            var(info, Abbrev::Variable, v, *ty);
        }
        for &(n, _) in sub.blocks.iter().filter(|(_, p)| *p == at) {
            info.abbrev(Abbrev::LexicalBlock);
            info.addr(scope_label("begin", n));
            info.addr(scope_label("end", n));
            scope(info, sub, Some(n), vrefs, var);
            info.u8(0);
        }
    }
    scope(&mut info, sub, None, &vrefs, &var);
    info.u8(0); // end of the subprogram's children
    info.u8(0); // end of the unit's children

    // The unit length counts what follows the length field.
    let unit_len = (info.len - 4) as u32;
    if let Some(Item::Bytes(b)) = info.items.first_mut() {
        b[..4].copy_from_slice(&unit_len.to_le_bytes());
    }
    let mut t = Text::new();
    let refs = info.contents(&mut t);
    (t, refs)
}
