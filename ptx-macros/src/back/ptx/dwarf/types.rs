//! Type DIEs: each type described once, at an offset the DIEs that use it refer to.

use super::abbrev::Abbrev;
use super::{class, Section};
use crate::front::ty::Ty;
use ptx_abi::Scalar;
use std::collections::HashMap;

#[derive(Default)]
pub struct Types {
    /// Offsets of the types described so far, by their Rust spelling.
    done: HashMap<String, u32>,
}

/// `DW_ATE_*`: how a base type's bits are read.
fn encoding(s: Scalar) -> u8 {
    match s {
        Scalar::Bool => 0x02,
        Scalar::F16 | Scalar::BF16 | Scalar::F32 | Scalar::F64 => 0x04,
        s if s.is_signed() => 0x05,
        _ => 0x07,
    }
}

fn usize_ty() -> Ty {
    Ty::Scalar(Scalar::U64)
}

impl Types {
    /// The offset of `ty`'s DIE, describing it (and what it refers to) first if needed.
    /// Pointers are generic (§5.2's class 12), as a pointer read from memory is.
    pub fn describe(&mut self, ty: &Ty, s: &mut Section) -> u32 {
        self.describe_in(ty, class::GENERIC, s)
    }

    /// The same, where `ptr_class` is the address class of the state space the value's
    /// pointer (or slice's data pointer) points into: a kernel's slice parameter once
    /// converted to a global address, a shared array's address.
    pub fn describe_in(&mut self, ty: &Ty, ptr_class: u8, s: &mut Section) -> u32 {
        let key = if ptr_class == class::GENERIC { ty.to_string() } else { format!("{ty}@{ptr_class}") };
        if let Some(&off) = self.done.get(&key) {
            return off;
        }
        let off = match ty {
            Ty::Scalar(sc) => {
                let off = s.len as u32;
                s.abbrev(Abbrev::BaseType);
                s.string(&key);
                s.u8(encoding(*sc));
                s.u8(sc.size() as u8);
                off
            }
            Ty::Ptr { pointee, .. } => {
                let to = self.describe(pointee, s);
                let off = s.len as u32;
                s.abbrev(Abbrev::PointerType);
                s.u32(to);
                s.u8(ptr_class);
                off
            }
            Ty::Slice { elem, mutable } => {
                // `&[T]` as rustc's debug info has it: `{ data_ptr: *const T, length: usize }`.
                let ptr = self.describe_in(&Ty::Ptr { mutable: *mutable, reference: false, pointee: elem.clone() }, ptr_class, s);
                let len = self.describe(&usize_ty(), s);
                let off = s.len as u32;
                s.abbrev(Abbrev::StructureType);
                s.string(&key);
                s.u32(16);
                for (name, t, at) in [("data_ptr", ptr, 0u8), ("length", len, 8)] {
                    s.abbrev(Abbrev::Member);
                    s.string(name);
                    s.u32(t);
                    s.u8(2);
                    s.u8(0x23); // DW_OP_plus_uconst
                    s.u8(at);
                }
                s.u8(0);
                off
            }
            Ty::Array { elem, len } if len.known().is_some() => {
                let e = self.describe(elem, s);
                let off = s.len as u32;
                s.abbrev(Abbrev::ArrayType);
                s.u32(e);
                s.abbrev(Abbrev::Subrange);
                s.u32(len.known().unwrap_or(1).saturating_sub(1) as u32);
                s.u8(0);
                off
            }
            Ty::Struct(def) => {
                let fields: Vec<(String, u32, u64)> = def.fields.iter().map(|f| (f.name.clone(), self.describe(&f.ty, s), f.offset)).collect();
                let off = s.len as u32;
                s.abbrev(Abbrev::StructureType);
                s.string(&def.name);
                s.u32(def.layout.size as u32);
                for (name, t, at) in fields {
                    s.abbrev(Abbrev::Member);
                    s.string(&name);
                    s.u32(t);
                    let mut loc = Section::default();
                    loc.u8(0x23);
                    loc.uleb(at);
                    s.u8(loc.len as u8);
                    s.uleb(0x23);
                    s.uleb(at);
                }
                s.u8(0);
                off
            }
            other => {
                let off = s.len as u32;
                s.abbrev(Abbrev::Unspecified);
                s.string(&other.to_string());
                off
            }
        };
        self.done.insert(key, off);
        off
    }
}
