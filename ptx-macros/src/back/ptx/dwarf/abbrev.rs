//! The abbreviation table: one row per kind of DIE, its tag, whether it has children, and its
//! attributes with their forms (DWARF 2, as nvcc writes).

use super::Section;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Abbrev {
    CompileUnit = 1,
    Subprogram = 2,
    FormalParameter = 3,
    BaseType = 4,
    PointerType = 5,
    StructureType = 6,
    Member = 7,
    ArrayType = 8,
    Subrange = 9,
    Unspecified = 10,
    Variable = 11,
    /// A subprogram with a return type (`DW_AT_type`).
    SubprogramTyped = 12,
    LexicalBlock = 13,
}

// Tags, attributes and forms (DWARF 2, §7.5).
const DW_CHILDREN_NO: u8 = 0;
const DW_CHILDREN_YES: u8 = 1;
const STRING: u8 = 0x08;
const DATA1: u8 = 0x0b;
const DATA2: u8 = 0x05;
const DATA4: u8 = 0x06;
const ADDR: u8 = 0x01;
const FLAG: u8 = 0x0c;
const BLOCK1: u8 = 0x0a;
const REF4: u8 = 0x13;

const NAME: u8 = 0x03;
const TYPE: u8 = 0x49;
const ADDRESS_CLASS: u8 = 0x33;
const DECL_FILE: u8 = 0x3a;
const DECL_LINE: u8 = 0x3b;
const BYTE_SIZE: u8 = 0x0b;
const FRAME_BASE: u8 = 0x40;

/// Every abbreviation: code, tag, children, attributes; in the order of their codes (ptxas
/// rejects a table out of order: "Checked Data was Invalid").
pub const ABBREV: &[(Abbrev, u8, u8, &[(u8, u8)])] = &[
    (Abbrev::CompileUnit, 0x11, DW_CHILDREN_YES, &[(0x25, STRING), (0x13, DATA2), (NAME, STRING), (0x10, DATA4), (0x1b, STRING)]),
    (Abbrev::Subprogram, 0x2e, DW_CHILDREN_YES, &[(0x11, ADDR), (0x12, ADDR), (FRAME_BASE, BLOCK1), (NAME, STRING), (DECL_FILE, DATA1), (DECL_LINE, DATA4), (0x3f, FLAG)]),
    (Abbrev::FormalParameter, 0x05, DW_CHILDREN_NO, &[(0x02, BLOCK1), (ADDRESS_CLASS, DATA1), (NAME, STRING), (DECL_FILE, DATA1), (DECL_LINE, DATA4), (TYPE, REF4)]),
    (Abbrev::BaseType, 0x24, DW_CHILDREN_NO, &[(NAME, STRING), (0x3e, DATA1), (BYTE_SIZE, DATA1)]),
    (Abbrev::PointerType, 0x0f, DW_CHILDREN_NO, &[(TYPE, REF4), (ADDRESS_CLASS, DATA1)]),
    (Abbrev::StructureType, 0x13, DW_CHILDREN_YES, &[(NAME, STRING), (BYTE_SIZE, DATA4)]),
    (Abbrev::Member, 0x0d, DW_CHILDREN_NO, &[(NAME, STRING), (TYPE, REF4), (0x38, BLOCK1)]),
    (Abbrev::ArrayType, 0x01, DW_CHILDREN_YES, &[(TYPE, REF4)]),
    (Abbrev::Subrange, 0x21, DW_CHILDREN_NO, &[(0x2f, DATA4)]),
    (Abbrev::Unspecified, 0x3b, DW_CHILDREN_NO, &[(NAME, STRING)]),
    (Abbrev::Variable, 0x34, DW_CHILDREN_NO, &[(0x02, BLOCK1), (ADDRESS_CLASS, DATA1), (NAME, STRING), (DECL_FILE, DATA1), (DECL_LINE, DATA4), (TYPE, REF4)]),
    (Abbrev::SubprogramTyped, 0x2e, DW_CHILDREN_YES, &[(0x11, ADDR), (0x12, ADDR), (FRAME_BASE, BLOCK1), (NAME, STRING), (DECL_FILE, DATA1), (DECL_LINE, DATA4), (TYPE, REF4), (0x3f, FLAG)]),
    (Abbrev::LexicalBlock, 0x0b, DW_CHILDREN_YES, &[(0x11, ADDR), (0x12, ADDR)]),
];

pub fn write(s: &mut Section) {
    for &(code, tag, children, attrs) in ABBREV {
        s.uleb(code as u64);
        s.uleb(tag as u64);
        s.u8(children);
        for &(a, f) in attrs {
            s.uleb(a as u64);
            s.uleb(f as u64);
        }
        s.u8(0);
        s.u8(0);
    }
    s.u8(0);
}

#[cfg(test)]
mod tests {
    #[test]
    fn codes_are_in_order() {
        for (i, (code, ..)) in super::ABBREV.iter().enumerate() {
            assert_eq!(*code as usize, i + 1, "{code:?}");
        }
    }
}
