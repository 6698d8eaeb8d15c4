//! Full debug information (`#[kernel(debug)]`, the `debug-info` feature): the `.debug_abbrev`
//! and `.debug_info` sections of the guide's chapter 5, written into the PTX as nvcc `-G` does
//! (`.section` blocks of `.b8` bytes, `.b32`/`.b64` references to sections, labels and
//! parameters that ptxas relocates). ptxas writes `.debug_line` from the `.loc`s.
//!
//! What is described: the compile unit, the kernel's subprogram (from `$L__func_begin0` to
//! `$L__func_end0`) and its formal parameters, each with its type (base types, pointers,
//! slices as `{ data_ptr, length }` structures, arrays, structs with their members), located
//! in parameter space by `DW_OP_addr <symbol>_param_<i>` with `DW_AT_address_class` 7, as nvcc
//! describes a kernel's parameters.

mod abbrev;
mod types;

use crate::front::ty::Ty;
use crate::text::Text;
use quote::quote;
use abbrev::Abbrev;

/// §5.2's address classes.
#[allow(dead_code)]
pub mod class {
    pub const REG: u8 = 2;
    pub const GLOBAL: u8 = 5;
    pub const LOCAL: u8 = 6;
    pub const PARAM: u8 = 7;
    pub const SHARED: u8 = 8;
    pub const GENERIC: u8 = 12;
}

/// The kernel as the DWARF describes it.
pub struct Subprogram {
    pub name: String,
    pub file: String,
    pub line: u32,
    pub params: Vec<Param>,
}

pub struct Param {
    pub name: String,
    pub line: u32,
    /// Its position in the signature (`<symbol>_param_<index>`).
    pub index: usize,
    pub ty: Ty,
}

/// One part of a section: bytes, or an 8-byte address (a label or a parameter's symbol), or a
/// 4-byte offset into another section.
enum Item {
    Bytes(Vec<u8>),
    Addr(Text),
    SectionOffset(&'static str),
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
    fn abbrev(&mut self, a: Abbrev) {
        self.uleb(a as u64);
    }

    /// The PTX: `.section <name> { ... }` with `.b8` lines of at most 16 bytes.
    fn write(&self, name: &str, t: &mut Text) {
        t.str(&format!("\t.section\t{name}\n\t{{\n"));
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
            }
        }
        t.str("\t}\n");
    }
}

/// The labels the body writer puts around a described function's instructions.
pub const FUNC_BEGIN: &str = "$L__func_begin0";
pub const FUNC_END: &str = "$L__func_end0";

/// `.debug_abbrev` and `.debug_info` for a kernel.
pub fn sections(sub: &Subprogram, comp_dir: &str) -> Text {
    let mut info = Section::default();
    // The header: unit length (patched below), version 2, the abbreviations, address size.
    info.u32(0);
    info.u16(2);
    info.section_offset(".debug_abbrev");
    info.u8(8);
    info.abbrev(Abbrev::CompileUnit);
    info.string(&format!("ptx-rs {}", env!("CARGO_PKG_VERSION")));
    info.u16(0x1c); // DW_LANG_Rust
    info.string(&sub.file);
    info.section_offset(".debug_line");
    info.string(comp_dir);

    // Types first, then the subprogram referring to them by offset.
    let mut types = types::Types::default();
    let refs: Vec<u32> = sub.params.iter().map(|p| types.describe(&p.ty, &mut info)).collect();

    info.abbrev(Abbrev::Subprogram);
    let label = |l: &str| {
        let mut t = Text::new();
        t.str(l);
        t
    };
    info.addr(label(FUNC_BEGIN));
    info.addr(label(FUNC_END));
    info.string(&sub.name);
    info.u8(1);
    info.u32(sub.line);
    info.u8(1); // external
    for (p, ty) in sub.params.iter().zip(refs) {
        info.abbrev(Abbrev::FormalParameter);
        // DW_OP_addr <symbol>_param_<index>: ptxas relocates it to the parameter's place.
        info.u8(9);
        info.u8(0x03);
        let index = p.index;
        let mut sym = Text::new();
        sym.piece(quote!(::ptx_runtime::__private::Piece::ParamName { symbol: __SYMBOL, index: #index }));
        info.addr(sym);
        info.u8(class::PARAM);
        info.string(&p.name);
        info.u8(1);
        info.u32(p.line);
        info.u32(ty);
    }
    info.u8(0); // end of the subprogram's children
    info.u8(0); // end of the unit's children

    // The unit length counts what follows the length field.
    let unit_len = (info.len - 4) as u32;
    if let Some(Item::Bytes(b)) = info.items.first_mut() {
        b[..4].copy_from_slice(&unit_len.to_le_bytes());
    }

    let mut abbrev = Section::default();
    abbrev::write(&mut abbrev);
    let mut t = Text::new();
    abbrev.write(".debug_abbrev", &mut t);
    info.write(".debug_info", &mut t);
    t
}
