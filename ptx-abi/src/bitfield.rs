//! §1.3 Bit fields: where each bit field and each ordinary member of a struct or union goes.
//!
//! The rules, as the guide states them (little endian):
//! - a bit field of type `T` and width `w` (1 to `8 * sizeof(T)`) is allocated from the least to
//!   the most significant bit, at the current bit position, unless it would cross a boundary of
//!   its storage unit (a `T`-sized, `T`-aligned block), in which case it starts at the next one;
//! - bit fields share storage units with each other and with ordinary members: an ordinary member
//!   goes at the first byte after the last bit used, rounded up to its alignment;
//! - a named bit field raises the aggregate's alignment to its type's, as an ordinary member of
//!   that type would; an unnamed one does not;
//! - a zero-width bit field (always unnamed) moves the position to the next boundary of its
//!   type, so the next member starts there, without raising the aggregate's alignment;
//! - in a union every member, bit field or not, starts at bit 0.
//!
//! Only the integer types of the guide's table can hold bit fields: `char`, `short`, `int` and
//! `long long`, signed or unsigned (plain ones are signed). Their storage unit is their size,
//! which is also their alignment (§1.1).

use crate::layout::{align_to, Layout};
use crate::scalar::Scalar;

/// A member of a struct or union that may have bit fields.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Member {
    /// An ordinary member.
    Field(Layout),
    /// A bit field of an integer type `unit`, `width` bits wide; `named` is false for C's
    /// unnamed bit fields (`int : 3;`) and zero-width ones.
    Bits { unit: Scalar, width: u32, named: bool },
}

/// Why a bit field declaration is not one the guide's table allows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BitError {
    /// The type is not one of the table's integers (`char` … `long long`).
    NotInteger,
    /// The width exceeds the type's bits (`unsigned char : 9`).
    TooWide { max: u32 },
    /// A named bit field of width 0.
    ZeroWidthNamed,
}

/// Checks a bit field declaration against the guide's table (§1.3).
pub const fn check_bits(unit: Scalar, width: u32, named: bool) -> Result<(), BitError> {
    if !is_bit_field_type(unit) {
        return Err(BitError::NotInteger);
    }
    let max = unit_bits(unit) as u32;
    if width > max {
        return Err(BitError::TooWide { max });
    }
    if width == 0 && named {
        return Err(BitError::ZeroWidthNamed);
    }
    Ok(())
}

/// The table's types: signed and unsigned `char`, `short`, `int`, `long long`.
pub const fn is_bit_field_type(s: Scalar) -> bool {
    matches!(s, Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16 | Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
}

/// Bits in a storage unit of type `unit`.
pub const fn unit_bits(unit: Scalar) -> usize {
    unit.size() * 8
}

/// Lays out a struct with bit fields member by member, in bits.
///
/// ```
/// use ptx_abi::bitfield::BitStruct;
/// use ptx_abi::{Layout, Scalar};
/// // struct { short s:9; int j:9; char c; } — the guide's figure 3, first word
/// let s = BitStruct::new(0).bits(Scalar::I16, 9, true);
/// assert_eq!(s.last_bit, 0);
/// let s = s.bits(Scalar::I32, 9, true);
/// assert_eq!(s.last_bit, 9);
/// let s = s.field(Layout::new(1, 1));
/// assert_eq!(s.last_bit, 24);
/// assert_eq!(s.finish(), Layout::new(4, 4));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BitStruct {
    /// First bit not yet allocated.
    pub bit: usize,
    /// Strictest alignment seen so far (at least the `repr(align)` request).
    pub align: usize,
    /// Bit offset given to the last member placed (a multiple of 8 for an ordinary member).
    pub last_bit: usize,
}

impl BitStruct {
    /// Starts a struct; `min_align` is the language-requested alignment, 0 for none.
    pub const fn new(min_align: usize) -> BitStruct {
        BitStruct { bit: 0, align: if min_align == 0 { 1 } else { min_align }, last_bit: 0 }
    }

    /// Places an ordinary member at the first byte after the bits used, at its alignment.
    pub const fn field(self, f: Layout) -> BitStruct {
        let offset = align_to(self.bit.div_ceil(8), f.align);
        BitStruct { bit: (offset + f.size) * 8, align: max(self.align, f.align), last_bit: offset * 8 }
    }

    /// Places a bit field: at the current bit unless it would cross its storage unit; a
    /// zero-width one moves to the next unit boundary.
    pub const fn bits(self, unit: Scalar, width: u32, named: bool) -> BitStruct {
        let ub = unit_bits(unit);
        let w = width as usize;
        let start = if w == 0 || self.bit % ub + w > ub { align_to(self.bit, ub) } else { self.bit };
        let align = if named && w > 0 { max(self.align, unit.align()) } else { self.align };
        BitStruct { bit: start + w, align, last_bit: start }
    }

    /// Places `m`.
    pub const fn member(self, m: Member) -> BitStruct {
        match m {
            Member::Field(l) => self.field(l),
            Member::Bits { unit, width, named } => self.bits(unit, width, named),
        }
    }

    /// The struct's layout: the bytes used, rounded up to the alignment.
    pub const fn finish(self) -> Layout {
        Layout { size: align_to(self.bit.div_ceil(8), self.align), align: self.align }
    }
}

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// The layout of a struct (`union == false`) or union with the given members and `repr(align)`
/// request (0 for none).
pub const fn bit_layout(members: &[Member], min_align: usize, union: bool) -> Layout {
    if union {
        return bit_union_layout(members, min_align);
    }
    let mut s = BitStruct::new(min_align);
    let mut i = 0;
    while i < members.len() {
        s = s.member(members[i]);
        i += 1;
    }
    s.finish()
}

/// The bit offset of member `index` (0 for every member of a union).
pub const fn member_bit(members: &[Member], index: usize, union: bool) -> usize {
    if union {
        return 0;
    }
    let mut s = BitStruct::new(0);
    let mut i = 0;
    while i <= index {
        s = s.member(members[i]);
        i += 1;
    }
    s.last_bit
}

/// A union: every member at bit 0; a bit field occupies the bytes its width needs; named bit
/// fields align it like their type.
const fn bit_union_layout(members: &[Member], min_align: usize) -> Layout {
    let mut size = 0;
    let mut align = if min_align == 0 { 1 } else { min_align };
    let mut i = 0;
    while i < members.len() {
        let (s, a) = match members[i] {
            Member::Field(l) => (l.size, l.align),
            Member::Bits { unit, width, named } => ((width as usize).div_ceil(8), if named && width > 0 { unit.align() } else { 1 }),
        };
        size = max(size, s);
        align = max(align, a);
        i += 1;
    }
    Layout { size: align_to(size, align), align }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn b(unit: Scalar, width: u32) -> Member {
        Member::Bits { unit, width, named: true }
    }
    const fn anon(unit: Scalar, width: u32) -> Member {
        Member::Bits { unit, width, named: false }
    }
    const C: Member = Member::Field(Layout::new(1, 1));

    fn bits_of(m: &[Member]) -> alloc::vec::Vec<usize> {
        (0..m.len()).map(|i| member_bit(m, i, false)).collect()
    }

    #[test]
    fn figure_2_allocation() {
        // struct { int j:5; int k:6; int m:7; }
        let m = [b(Scalar::I32, 5), b(Scalar::I32, 6), b(Scalar::I32, 7)];
        assert_eq!(bits_of(&m), [0, 5, 11]);
        assert_eq!(bit_layout(&m, 0, false), Layout::new(4, 4));
    }

    #[test]
    fn figure_3_boundary_alignment() {
        // struct { short s:9; int j:9; char c; short t:9; short u:9; char d; }
        let m = [b(Scalar::I16, 9), b(Scalar::I32, 9), C, b(Scalar::I16, 9), b(Scalar::I16, 9), C];
        assert_eq!(bits_of(&m), [0, 9, 24, 32, 48, 64]);
        assert_eq!(bit_layout(&m, 0, false), Layout::new(12, 4));
    }

    #[test]
    fn figure_4_sharing_with_ordinary_members() {
        // struct { char c; short s:8; }
        let m = [C, b(Scalar::I16, 8)];
        assert_eq!(bits_of(&m), [0, 8]);
        assert_eq!(bit_layout(&m, 0, false), Layout::new(2, 2));
    }

    #[test]
    fn figure_5_union() {
        // union { char c; short s:8; }
        let m = [C, b(Scalar::I16, 8)];
        assert_eq!(bit_layout(&m, 0, true), Layout::new(2, 2));
    }

    #[test]
    fn figure_6_unnamed_and_zero_width() {
        // struct { char c; int :0; char d; short :9; char e; char :0; }
        let m = [C, anon(Scalar::I32, 0), C, anon(Scalar::I16, 9), C, anon(Scalar::I8, 0)];
        assert_eq!(bits_of(&m), [0, 32, 32, 48, 64, 72]);
        assert_eq!(bit_layout(&m, 0, false), Layout::new(9, 1));
    }

    #[test]
    fn the_table_bounds_widths() {
        assert_eq!(check_bits(Scalar::U8, 8, true), Ok(()));
        assert_eq!(check_bits(Scalar::U8, 9, true), Err(BitError::TooWide { max: 8 }));
        assert_eq!(check_bits(Scalar::I64, 64, true), Ok(()));
        assert_eq!(check_bits(Scalar::I32, 0, true), Err(BitError::ZeroWidthNamed));
        assert_eq!(check_bits(Scalar::I32, 0, false), Ok(()));
        assert_eq!(check_bits(Scalar::F32, 3, true), Err(BitError::NotInteger));
        assert_eq!(check_bits(Scalar::Bool, 1, true), Err(BitError::NotInteger));
    }
}
