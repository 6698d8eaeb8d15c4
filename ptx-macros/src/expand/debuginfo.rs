//! Full debug information (`#[kernel(debug)]`, `#[device_fn(debug)]`, the `debug-info`
//! feature): what the DWARF says about a function (`back::ptx::dwarf`), from the item, the
//! checked body and where the lowering left each value (`lower::debug`).

use crate::back::ptx::dwarf::{self, class, Location, Subprogram, Var};
use crate::back::ptx::regs::Names;
use crate::front::ty::{Len, Ty};
use crate::front::Checked;
use crate::ir::{Arg, Reg};
use crate::lower::value::{Space, Val};
use crate::lower::Lowered;
use crate::syntax::signature::FnKind;
use crate::text::Text;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::HashMap;

/// The function's compile unit and how many file numbers it wrote; `None` unless the
/// function was lowered for debugging.
pub fn unit(item: &syn::ItemFn, checked: &Checked, lowered: &Lowered, kind: FnKind) -> Option<(Text, usize)> {
    let vars = lowered.debug.as_ref()?;
    let func = &lowered.func;
    let names = Names::new(func);
    // The function's own file numbering: the body's, so each number names the same file.
    let mut files = func.files.clone();
    let at = files.loc(item.sig.ident.span());
    let unit = at.and_then(|l| files.names.get(l.file as usize - 1).cloned()).unwrap_or_else(|| "<unknown>".to_owned());
    let resolve = |t: &Ty| -> Ty {
        let t = checked.infer.resolve(t);
        match &t {
            Ty::Named(n) => match (checked.structs.get(&n.key), checked.enums.get(&n.key)) {
                (Some(d), _) => Ty::Struct(d.clone()).lowered(),
                (None, Some(s)) => Ty::Scalar(*s),
                _ => t,
            },
            _ => t.lowered(),
        }
    };
    let body = &checked.body;
    // Lexical blocks: those the writer labels; a block without instructions gives its
    // variables and blocks to the nearest labelled one around it.
    let labelled = crate::back::ptx::labelled_scopes(func);
    let labelled_in = |mut s: usize| -> Option<usize> {
        loop {
            if labelled.get(s) == Some(&true) {
                return Some(s);
            }
            s = func.scopes.get(s)?.parent?;
        }
    };
    let blocks: Vec<(usize, Option<usize>)> = (0..func.scopes.len()).filter(|&s| labelled[s]).map(|s| (s, func.scopes[s].parent.and_then(labelled_in))).collect();
    let mut describe = |id: usize, param: Option<usize>| -> Option<Var> {
        let local = &body.locals[id];
        if local.name.starts_with("__") {
            return None;
        }
        let l = files.loc(local.span);
        let ty = resolve(&local.ty);
        let slot = vars.slots.get(id).cloned().flatten();
        let (ty, ptr_class, at) = match (param, kind, slot) {
            (Some(index), FnKind::Kernel, _) => (ty, class::GENERIC, Location::Param(index)),
            (_, _, Some(v)) => place(ty, &v, local.in_memory, &vars.syms, &names),
            (_, _, None) => (ty, class::GENERIC, Location::None),
        };
        if matches!(ty, Ty::Unit | Ty::Never | Ty::Error) {
            return None;
        }
        let scope = vars.scopes.get(&id).and_then(|&s| labelled_in(s));
        Some(Var { name: local.name.clone(), file: l.map_or(1, |l| l.file), line: l.map_or(0, |l| l.line), ty, ptr_class, at, scope })
    };
    let params: Vec<Var> = body.params.iter().enumerate().filter_map(|(i, id)| describe((*id)?, Some(i))).collect();
    let is_param = |id: usize| body.params.contains(&Some(id));
    let vars: Vec<Var> = (0..body.locals.len()).filter(|&id| !is_param(id)).filter_map(|id| describe(id, None)).collect();
    let ret = match resolve(&body.ret) {
        Ty::Unit | Ty::Never | Ty::Error => None,
        t => Some(t),
    };
    let sub = Subprogram { name: item.sig.ident.to_string(), unit, file: at.map_or(1, |l| l.file), line: at.map_or(0, |l| l.line), ret, params, vars, blocks };
    let comp_dir = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    Some(dwarf::unit(&sub, &comp_dir))
}

/// The class of the space a pointer value points into.
fn space_class(s: Space) -> u8 {
    match s {
        Space::Generic => class::GENERIC,
        Space::Global { .. } => class::GLOBAL,
        Space::Shared => class::SHARED,
        Space::Local => class::LOCAL,
        Space::Param => class::PARAM,
        Space::Const => class::CONST,
    }
}

/// Where a local's value `v` of type `ty` is, and the type to describe it with.
fn place(ty: Ty, v: &Val, in_memory: bool, syms: &HashMap<Reg, String>, names: &Names) -> (Ty, u8, Location) {
    match (&ty, v) {
        // An array in `.local` memory (indexed at run time), at its symbol.
        (_, Val::Ptr(Arg::Reg(r), Space::Local)) if in_memory && syms.contains_key(r) => (ty, class::GENERIC, Location::Array(syms[r].clone(), class::LOCAL)),
        // A shared array: the array itself, at its symbol, as nvcc describes `__shared__ T s[N]`.
        (Ty::Shared { elem, len: Some(len) }, Val::Ptr(Arg::Reg(r), Space::Shared)) if syms.contains_key(r) => {
            (Ty::Array { elem: elem.clone(), len: len.clone() }, class::GENERIC, Location::Array(syms[r].clone(), class::SHARED))
        }
        _ => {
            let ptr_class = match v {
                Val::Ptr(_, s) => space_class(*s),
                Val::Agg(xs) if matches!(ty, Ty::Slice { .. }) => match xs.first() {
                    Some(Val::Ptr(_, s)) => space_class(*s),
                    _ => class::GENERIC,
                },
                _ => class::GENERIC,
            };
            let mut pieces = Vec::new();
            let at = if leaves(&ty, v, 0, names, &mut pieces) { Location::Regs(pieces) } else { Location::None };
            (ty, ptr_class, at)
        }
    }
}

/// The registers holding `v` of type `ty` at `base`: `(offset, size, register)` in layout
/// order; `false` where part of it is not in a register.
fn leaves(ty: &Ty, v: &Val, base: u64, names: &Names, out: &mut Vec<(u64, u64, Option<String>)>) -> bool {
    let reg = |a: &Arg| match a {
        Arg::Reg(r) => Some(names.name(*r).to_owned()),
        _ => None,
    };
    match (ty, v) {
        (Ty::Scalar(s), Val::S(a)) => reg(a).map(|r| out.push((base, s.size() as u64, Some(r)))).is_some(),
        (Ty::Ptr { .. }, Val::Ptr(a, s)) => reg(a).map(|r| out.push((base, if *s == Space::Shared { 4 } else { 8 }, Some(r)))).is_some(),
        (Ty::Slice { .. }, Val::Agg(xs)) if xs.len() == 2 => {
            let ptr = Ty::Ptr { mutable: false, reference: false, pointee: std::rc::Rc::new(Ty::Unit) };
            leaves(&ptr, &xs[0], base, names, out) && leaves(&Ty::Scalar(ptx_abi::Scalar::U64), &xs[1], base + 8, names, out)
        }
        (Ty::Struct(def), Val::Agg(xs)) if xs.len() == def.fields.len() => def.fields.iter().zip(xs).all(|(f, x)| leaves(&f.ty, x, base + f.offset, names, out)),
        (Ty::Array { elem, len: Len::Known(n) }, Val::Agg(xs)) if xs.len() as u64 == *n => {
            let Some(l) = elem.layout() else { return false };
            xs.iter().enumerate().all(|(i, x)| leaves(elem, x, base + i as u64 * l.size as u64, names, out))
        }
        (Ty::Vector { elem, .. }, Val::Agg(xs)) => xs.iter().enumerate().all(|(i, x)| leaves(&Ty::Scalar(*elem), x, base + i as u64 * elem.size() as u64, names, out)),
        _ => false,
    }
}

/// A kernel's sections: the abbreviations, and `.debug_info` with the kernel's unit and the
/// units of every device function it reaches that has one.
pub fn kernel_sections(unit: &Text, roots: &TokenStream) -> Text {
    let mut t = dwarf::abbrev_section();
    t.str("\t.section\t.debug_info\n\t{\n");
    t.text(unit);
    t.piece(quote!(::ptx_runtime::__private::Piece::DebugUnits { files: __PTX_FILES, roots: #roots }));
    t.str("\t}\n");
    t
}
