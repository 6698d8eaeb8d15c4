//! §1.2 Aggregates and unions: sizes, alignments and member offsets.
//!
//! The rules, as the guide states them:
//! - an aggregate or union is aligned like its most strictly aligned member, unless the
//!   language sets the alignment (in Rust: `#[repr(C, align(N))]`);
//! - each member goes at the lowest offset with its alignment;
//! - the size is rounded up to a multiple of the alignment (tail padding);
//! - a native vector of `n` elements of type `t` is aligned to `alignof(t)` when `n` is odd and
//!   to `n * alignof(t)` when `n` is even; vectors have 1–4 elements of types up to 4 bytes and
//!   1–2 elements of 8-byte types.

use crate::scalar::Scalar;

/// Size and alignment of a type in device memory, in bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Layout {
    pub size: usize,
    pub align: usize,
}

impl Layout {
    pub const fn new(size: usize, align: usize) -> Layout {
        Layout { size, align }
    }

    /// §1.1: a fundamental type.
    pub const fn scalar(s: Scalar) -> Layout {
        Layout { size: s.size(), align: s.align() }
    }

    /// A 64-bit generic address (§1.1, `.address_size 64`).
    pub const POINTER: Layout = Layout { size: 8, align: 8 };

    /// A slice parameter `&[T]`: the aggregate `{ T *ptr; size_t len; }`.
    pub const SLICE: Layout = Layout { size: 16, align: 8 };

    /// A `[T; n]` array: `n` elements back to back; aligned like its element.
    pub const fn array(elem: Layout, n: usize) -> Layout {
        Layout { size: elem.size * n, align: elem.align }
    }

    /// [`Layout::array`], or `None` when the size passes [`MAX_SIZE`].
    pub const fn checked_array(elem: Layout, n: usize) -> Option<Layout> {
        match elem.size.checked_mul(n) {
            Some(size) if size <= MAX_SIZE => Some(Layout { size, align: elem.align }),
            _ => None,
        }
    }

    /// A native vector of `lanes` elements of `elem` (§1.2). Panics (a compile error in const
    /// context) for a lane count PTX has no vector type for.
    pub const fn vector(elem: Scalar, lanes: usize) -> Layout {
        assert!(vector_lanes_allowed(elem, lanes), "PTX has no native vector of this element type and lane count (§1.2)");
        let align = if lanes % 2 == 1 { elem.align() } else { lanes * elem.align() };
        round_up(Layout { size: elem.size() * lanes, align })
    }
}

/// Rust's limit on the size of a type, `isize::MAX` bytes (rustc: "too big for the target
/// architecture"); a layout past it is an error, not an overflow.
pub const MAX_SIZE: usize = isize::MAX as usize;

/// §1.2: vectors of 1, 2, 3 or 4 elements exist for scalars of at most four bytes, and of 1 or 2
/// elements for larger ones.
pub const fn vector_lanes_allowed(elem: Scalar, lanes: usize) -> bool {
    if elem.size() <= 4 {
        lanes >= 1 && lanes <= 4
    } else {
        lanes == 1 || lanes == 2
    }
}

/// §2.3 note D: an aggregate passed as a parameter must be aligned to 1, 2, 4, 8, 16, 32, 64 or
/// 128 bytes.
pub const fn is_valid_aggregate_align(align: usize) -> bool {
    align.is_power_of_two() && align <= MAX_AGGREGATE_ALIGN
}

/// The strictest alignment note D allows.
pub const MAX_AGGREGATE_ALIGN: usize = 128;

/// Rounds `offset` up to a multiple of `align` (a power of two).
pub const fn align_to(offset: usize, align: usize) -> usize {
    offset.div_ceil(align) * align
}

const fn round_up(l: Layout) -> Layout {
    Layout { size: align_to(l.size, l.align), align: l.align }
}

/// Lays out a `#[repr(C)]` struct, member by member.
///
/// ```
/// use ptx_abi::layout::{StructLayout, Layout};
/// // struct { char a; double b; int c; }
/// let s = StructLayout::new(0)
///     .field(Layout::new(1, 1))
///     .field(Layout::new(8, 8))
///     .field(Layout::new(4, 4));
/// assert_eq!(s.finish(), Layout::new(24, 8));
/// assert_eq!(s.last_offset, 16);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct StructLayout {
    /// End of the last member placed so far.
    pub end: usize,
    /// Strictest alignment seen so far (at least the `repr(align)` request).
    pub align: usize,
    /// Offset given to the last member placed.
    pub last_offset: usize,
}

impl StructLayout {
    /// Starts a struct; `min_align` is the language-requested alignment (`repr(align(N))`), or
    /// 0 when there is none.
    pub const fn new(min_align: usize) -> StructLayout {
        StructLayout { end: 0, align: if min_align == 0 { 1 } else { min_align }, last_offset: 0 }
    }

    /// Places the next member at the lowest offset with its alignment.
    pub const fn field(self, f: Layout) -> StructLayout {
        let offset = align_to(self.end, f.align);
        StructLayout {
            end: offset + f.size,
            align: if f.align > self.align { f.align } else { self.align },
            last_offset: offset,
        }
    }

    /// [`StructLayout::field`], or `None` when the struct passes [`MAX_SIZE`] bytes.
    pub const fn checked_field(self, f: Layout) -> Option<StructLayout> {
        if self.end > MAX_SIZE || f.size > MAX_SIZE || f.align > MAX_SIZE {
            return None;
        }
        // Both below 2^63: neither the rounding nor the sum overflows.
        let s = self.field(f);
        if s.end > MAX_SIZE { None } else { Some(s) }
    }

    /// The struct's layout, with tail padding.
    pub const fn finish(self) -> Layout {
        round_up(Layout { size: self.end, align: self.align })
    }
}

/// The layout of a `#[repr(C)]` struct with the given members (and `repr(align)` request, 0 for
/// none).
pub const fn struct_layout(fields: &[Layout], min_align: usize) -> Layout {
    let mut s = StructLayout::new(min_align);
    let mut i = 0;
    while i < fields.len() {
        s = s.field(fields[i]);
        i += 1;
    }
    s.finish()
}

/// The offset of member `index` of a `#[repr(C)]` struct with the given members.
pub const fn field_offset(fields: &[Layout], index: usize) -> usize {
    let mut s = StructLayout::new(0);
    let mut i = 0;
    while i <= index {
        s = s.field(fields[i]);
        i += 1;
    }
    s.last_offset
}

/// The layout of a `#[repr(C)]` union: every member at offset 0, size of the largest member
/// rounded up to the strictest alignment.
pub const fn union_layout(fields: &[Layout], min_align: usize) -> Layout {
    let mut size = 0;
    let mut align = if min_align == 0 { 1 } else { min_align };
    let mut i = 0;
    while i < fields.len() {
        if fields[i].size > size {
            size = fields[i].size;
        }
        if fields[i].align > align {
            align = fields[i].align;
        }
        i += 1;
    }
    round_up(Layout { size, align })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_past_rusts_limit_are_none() {
        assert_eq!(Layout::checked_array(Layout::new(8, 8), 3), Some(Layout::new(24, 8)));
        assert_eq!(Layout::checked_array(Layout::new(8, 8), 0xF0F0_F0F0_1234_5678), None);
        assert_eq!(Layout::checked_array(Layout::new(1, 1), MAX_SIZE + 1), None);
        let big = Layout::new(MAX_SIZE - 4, 4);
        assert!(StructLayout::new(0).checked_field(big).is_some());
        assert!(StructLayout::new(0).checked_field(big).unwrap().checked_field(Layout::new(8, 8)).is_none());
    }

    #[test]
    fn struct_with_internal_and_tail_padding() {
        let l = [Layout::new(1, 1), Layout::new(8, 8), Layout::new(4, 4)];
        assert_eq!(struct_layout(&l, 0), Layout::new(24, 8));
        assert_eq!(field_offset(&l, 0), 0);
        assert_eq!(field_offset(&l, 1), 8);
        assert_eq!(field_offset(&l, 2), 16);
    }

    #[test]
    fn requested_alignment_raises_alignment_and_size() {
        assert_eq!(struct_layout(&[Layout::new(4, 4)], 16), Layout::new(16, 16));
        assert_eq!(struct_layout(&[Layout::new(1, 1)], 128), Layout::new(128, 128));
    }

    #[test]
    fn unions_take_the_largest_member_and_strictest_alignment() {
        let l = [Layout::new(1, 1), Layout::new(8, 8), Layout::array(Layout::new(4, 4), 3)];
        assert_eq!(union_layout(&l, 0), Layout::new(16, 8));
    }

    #[test]
    fn native_vector_alignment_follows_lane_parity() {
        assert_eq!(Layout::vector(Scalar::F32, 3), Layout::new(12, 4));
        assert_eq!(Layout::vector(Scalar::F32, 4), Layout::new(16, 16));
        assert_eq!(Layout::vector(Scalar::F32, 2), Layout::new(8, 8));
        assert_eq!(Layout::vector(Scalar::U8, 2), Layout::new(2, 2));
        assert_eq!(Layout::vector(Scalar::U8, 3), Layout::new(3, 1));
        assert_eq!(Layout::vector(Scalar::I16, 4), Layout::new(8, 8));
        assert_eq!(Layout::vector(Scalar::F64, 2), Layout::new(16, 16));
        assert!(!vector_lanes_allowed(Scalar::F64, 3));
        assert!(!vector_lanes_allowed(Scalar::F32, 5));
    }

    #[test]
    fn note_d_alignments() {
        for a in [1, 2, 4, 8, 16, 32, 64, 128] {
            assert!(is_valid_aggregate_align(a));
        }
        for a in [0, 3, 256, 512] {
            assert!(!is_valid_aggregate_align(a));
        }
    }
}
