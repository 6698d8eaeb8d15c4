//! `#[kernel(debug)]`: what the DWARF says about the kernel (`back::ptx::dwarf`), from the
//! item and the checked body.

use crate::back::ptx::dwarf::{self, Param, Subprogram};
use crate::front::ty::Ty;
use crate::front::Checked;
use crate::ir::loc::Files;
use crate::ir::Func;
use crate::text::Text;

/// The kernel's `.debug_abbrev` and `.debug_info`.
pub fn sections(item: &syn::ItemFn, checked: &Checked, func: &Func) -> Text {
    // The unit's file is the kernel's, file 1 of the module (the kernel's files come first).
    let mut files = func.files.clone();
    let at = files.loc(item.sig.ident.span());
    let file = at.and_then(|l| files.names.get(l.file as usize - 1).cloned()).unwrap_or_else(|| "<unknown>".to_owned());
    let resolve = |t: &Ty| -> Ty {
        let t = checked.infer.resolve(t);
        match &t {
            Ty::Named(n) => checked.structs.get(&n.key).map(|d| Ty::Struct(d.clone())).unwrap_or(t),
            _ => t,
        }
    };
    let params = checked
        .body
        .params
        .iter()
        .enumerate()
        .filter_map(|(index, id)| {
            let local = &checked.body.locals[(*id)?];
            let line = Files::default().loc(local.span).map_or(0, |l| l.line);
            Some(Param { name: local.name.clone(), line, index, ty: resolve(&local.ty) })
        })
        .collect();
    let sub = Subprogram { name: item.sig.ident.to_string(), file, line: at.map_or(0, |l| l.line), params };
    let comp_dir = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    dwarf::sections(&sub, &comp_dir)
}
