//! The line-info parts of an expansion: a function's source files and, for a device function's
//! `FnNode`, where its body wrote their numbers (see `ptx_abi::lineinfo`).

use super::Compiled;
use crate::ir::loc::Files;
use proc_macro2::TokenStream;
use quote::quote;

/// `&["src/lib.rs", ...]`: the files the body's `.loc`s name, numbered from 1.
pub fn files(c: &Compiled) -> TokenStream {
    let names = c.files.iter().map(|n| Files::ptx_string(n));
    quote!(&[#(#names),*])
}

/// For a device function's node: the items rendering its body once (`__PTX_BODY_TEXT`) and
/// locating its file numbers (`__PTX_FILE_REFS`), then the node's `body`, `files` and
/// `file_refs` fields.
pub fn node_fields(c: &Compiled) -> (TokenStream, TokenStream) {
    let p = quote!(::ptx_runtime::__private);
    let (shared, pieces) = c.body.shared_pieces("__PTX_PIECE_");
    let n = c.file_refs;
    let files = files(c);
    let items = quote! {
        #shared
        const __PTX_BODY: &[#p::Piece<'static>] = &[#(#pieces),*];
        const __PTX_BODY_LEN: usize = #p::render_len(__PTX_BODY);
        const __PTX_BODY_BYTES: [u8; __PTX_BODY_LEN] = #p::render_array::<__PTX_BODY_LEN>(__PTX_BODY);
        const __PTX_FILE_REFS: [#p::FileRef; #n] = #p::file_refs::<#n>(__PTX_BODY);
    };
    // Under `debug`, its DWARF unit, rendered the same way (see `expand::debuginfo`).
    let (dwarf_items, dwarf_fields) = match &c.dwarf {
        Some((unit, n)) => {
            let pieces = unit.pieces();
            (
                quote! {
                    const __PTX_DWARF: &[#p::Piece<'static>] = &[#(#pieces),*];
                    const __PTX_DWARF_LEN: usize = #p::render_len(__PTX_DWARF);
                    const __PTX_DWARF_BYTES: [u8; __PTX_DWARF_LEN] = #p::render_array::<__PTX_DWARF_LEN>(__PTX_DWARF);
                    const __PTX_DWARF_REFS: [#p::FileRef; #n] = #p::file_refs::<#n>(__PTX_DWARF);
                },
                quote!(dwarf: #p::as_str(&__PTX_DWARF_BYTES), dwarf_refs: &__PTX_DWARF_REFS,),
            )
        }
        None => (quote!(), quote!(dwarf: "", dwarf_refs: &[],)),
    };
    let items = quote!(#items #dwarf_items);
    let fields = quote! {
        body: #p::as_str(&__PTX_BODY_BYTES),
        files: #files,
        file_refs: &__PTX_FILE_REFS,
        #dwarf_fields
    };
    (items, fields)
}
