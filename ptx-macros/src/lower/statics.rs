//! Tables defined outside the body (see `front::statics`): module-scope initialized `.const`
//! data, read with `ld.const`.
//!
//! nvcc declares a `__constant__ unsigned char LUT[16] = {...}` at namespace scope as
//! `.const .align 1 .b8 LUT[16] = {1, 2, ...};` and reads it with `ld.const.u8` from the
//! symbol's address plus the index; a table here is declared the same way, its bytes those of
//! the item as rustc evaluates it (little-endian, as on the device), its name the Itanium
//! mangling of the module path of the function that reads it followed by the path written
//! (`_ZN5mycrate6kernel3LUTE`), so tables of two modules or crates never share a name.

use super::place::Place;
use super::value::Space;
use super::Lowerer;
use crate::front::ty::Ty;
use crate::ir::{Arg, Opcode, RegClass, Sym, Type};
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// A table a function reads: the item's path (nameable from the generated module) and the
/// element type the body gives it.
#[derive(Clone)]
pub struct Table {
    pub path: TokenStream,
    pub elem: TokenStream,
    pub align: usize,
}

/// The symbol of table `path` as an assembly piece.
pub fn table_name(path: &TokenStream) -> TokenStream {
    let written: String = path.to_string().split_whitespace().collect::<String>();
    let written = written.trim_start_matches("super::").to_owned();
    quote!(::ptx_runtime::__private::Piece::Mangled(::core::concat!(::core::module_path!(), "::", #written)))
}

impl<'a, 'e> Lowerer<'a, 'e> {
    /// The place of table `path` (of array type `ty`): its `.const` address.
    pub fn table_place(&mut self, path: &TokenStream, ty: &Ty, span: Span) -> Place {
        let Ty::Array { elem, .. } = ty else {
            return Place::Value(self.error(span, "internal: a table that is not an array"));
        };
        let elem = self.ty(elem);
        let (Some(l), Ty::Scalar(s)) = (elem.layout(), &elem) else {
            return Place::Value(self.error(span, format!("tables defined outside the body hold scalars, not `{elem}`; the type of the elements is not known here: write `TABLE[i] as T` or bind it to an annotated local")));
        };
        let key = crate::link::key(path);
        if !self.decls.tables.iter().any(|t| crate::link::key(&t.path) == key) {
            let t = proc_macro2::Ident::new(crate::front::ty::scalar_name(*s), span);
            self.decls.tables.push(Table { path: path.clone(), elem: quote!(#t), align: l.align });
        }
        let a = self.b.op1(Opcode::Mov(Type::U64), RegClass::B64, vec![Arg::Sym(Sym::Address(table_name(path)))]);
        Place::Mem { addr: Arg::Reg(a), space: Space::Const, offset: 0 }
    }
}
