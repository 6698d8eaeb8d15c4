//! Data-carrying enums with a defined layout (RFC 2195, the Reference's "primitive
//! representation of enums with fields").
//!
//! - `#[repr(C, Int)]`: a `#[repr(C)]` struct of the tag (`Int`) and a `#[repr(C)]` union of one
//!   `#[repr(C)]` struct per variant (its fields): [`TagStyle::CTagged`].
//! - `#[repr(Int)]`: a `#[repr(C)]` union of one `#[repr(C)]` struct per variant, each starting
//!   with the tag: [`TagStyle::Primitive`].
//!
//! In both the tag is at offset 0 and holds the variant's discriminant; the PTX ABI then treats
//! the value as the C aggregate it is (§1.2). The rules below are `const` so the derive checks
//! them against rustc's during constant evaluation, as it does for structs.

use crate::layout::{struct_layout, union_layout, Layout, StructLayout};

/// How the tag and the variants' fields are placed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TagStyle {
    /// `#[repr(C, Int)]`: `struct { tag: Int, payload: union { V0, V1, .. } }`.
    CTagged,
    /// `#[repr(Int)]`: `union { struct { tag: Int, V0 fields }, .. }`.
    Primitive,
}

/// The layout of variant `v`'s `#[repr(C)]` struct (its fields only).
const fn variant_struct(fields: &[Layout]) -> Layout {
    struct_layout(fields, 0)
}

/// The union of the variants' structs (`CTagged`).
const fn payload(variants: &[&[Layout]]) -> Layout {
    let mut size = 0;
    let mut align = 1;
    let mut v = 0;
    while v < variants.len() {
        let l = variant_struct(variants[v]);
        if l.size > size {
            size = l.size;
        }
        if l.align > align {
            align = l.align;
        }
        v += 1;
    }
    union_layout(&[Layout::new(size, align)], 0)
}

/// The whole enum's size and alignment.
pub const fn tagged_layout(tag: Layout, style: TagStyle, variants: &[&[Layout]]) -> Layout {
    match style {
        TagStyle::CTagged => struct_layout(&[tag, payload(variants)], 0),
        TagStyle::Primitive => {
            let mut size = tag.size;
            let mut align = tag.align;
            let mut v = 0;
            while v < variants.len() {
                let mut s = StructLayout::new(0).field(tag);
                let mut i = 0;
                while i < variants[v].len() {
                    s = s.field(variants[v][i]);
                    i += 1;
                }
                let l = s.finish();
                if l.size > size {
                    size = l.size;
                }
                if l.align > align {
                    align = l.align;
                }
                v += 1;
            }
            union_layout(&[Layout::new(size, align)], 0)
        }
    }
}

/// The offset in the enum of field `i` of variant `v`.
pub const fn tagged_field_offset(tag: Layout, style: TagStyle, variants: &[&[Layout]], v: usize, i: usize) -> usize {
    let fields = variants[v];
    match style {
        TagStyle::CTagged => {
            let base = StructLayout::new(0).field(tag).field(payload(variants)).last_offset;
            let mut s = StructLayout::new(0);
            let mut k = 0;
            while k <= i {
                s = s.field(fields[k]);
                k += 1;
            }
            base + s.last_offset
        }
        TagStyle::Primitive => {
            let mut s = StructLayout::new(0).field(tag);
            let mut k = 0;
            while k <= i {
                s = s.field(fields[k]);
                k += 1;
            }
            s.last_offset
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::Scalar;

    const U8: Layout = Layout::scalar(Scalar::U8);
    const U32: Layout = Layout::scalar(Scalar::U32);
    const F32: Layout = Layout::scalar(Scalar::F32);
    const F64: Layout = Layout::scalar(Scalar::F64);

    // The RFC's example: `#[repr(C, u8)] enum { A(u32), B(f64, u8), C }`.
    #[test]
    fn c_tagged_places_the_payload_after_the_tag_at_the_union_alignment() {
        let vs: [&[Layout]; 3] = [&[U32], &[F64, U8], &[]];
        assert_eq!(tagged_layout(U8, TagStyle::CTagged, &vs), Layout::new(24, 8));
        assert_eq!(tagged_field_offset(U8, TagStyle::CTagged, &vs, 0, 0), 8);
        assert_eq!(tagged_field_offset(U8, TagStyle::CTagged, &vs, 1, 0), 8);
        assert_eq!(tagged_field_offset(U8, TagStyle::CTagged, &vs, 1, 1), 16);
    }

    #[test]
    fn primitive_places_each_variant_right_after_the_tag() {
        let vs: [&[Layout]; 3] = [&[U32], &[F64, U8], &[]];
        assert_eq!(tagged_layout(U8, TagStyle::Primitive, &vs), Layout::new(24, 8));
        assert_eq!(tagged_field_offset(U8, TagStyle::Primitive, &vs, 0, 0), 4);
        assert_eq!(tagged_field_offset(U8, TagStyle::Primitive, &vs, 1, 0), 8);
        assert_eq!(tagged_field_offset(U8, TagStyle::Primitive, &vs, 1, 1), 16);
        let small: [&[Layout]; 2] = [&[U8], &[U8, U8]];
        assert_eq!(tagged_layout(U32, TagStyle::Primitive, &small), Layout::new(8, 4));
        assert_eq!(tagged_field_offset(U32, TagStyle::Primitive, &small, 1, 1), 5);
        let f: [&[Layout]; 1] = [&[F32]];
        assert_eq!(tagged_layout(U8, TagStyle::CTagged, &f), Layout::new(8, 4));
    }
}
