//! `use Enum::{A, B};` and `use Enum::*;` inside a body: the variants named without their type.
//!
//! The device compiler sees the body alone, so it resolves these imports itself, before
//! checking: each `use` of an enum's variants is removed, and every name it imports is written
//! as the path it stands for (`A` → `Enum::A`) in expressions, patterns and the tokens of macros
//! (`matches!(op, A | B)`), as rustc resolves them. A glob (`use Enum::*`) imports names the
//! macro cannot list without the enum's definition: names in `UpperCamelCase` used as a value, a
//! call, or a pattern (other than `Some`, `None`, `Ok`, `Err` and names imported by a list) are
//! taken as its variants, as Rust's naming conventions say, except a single name as a pattern:
//! that is found through the type of the value matched (`enums::bare_variant_pattern`), as is
//! a variant a `use` at module level imports, which the macro cannot see. As a value, such a
//! variant is an outside constant rustc evaluates where the function is.

use crate::report::Errors;
use proc_macro2::{TokenStream, TokenTree};
use syn::visit_mut::VisitMut;

const PRELUDE: [&str; 4] = ["Some", "None", "Ok", "Err"];

/// A pattern that is a single `UpperCamelCase` name on a value that is no enum: Rust reads it
/// as a variant a `use` imports, or as a new binding (against the naming rules, which rustc
/// warns about). A variant is found through the scrutinee's type (`enums`), so here it is an
/// error.
pub const UNQUALIFIED: &str = "a single `UpperCamelCase` name as a pattern is an enum's variant, which the device compiler finds through the type of the value matched, and that value is no enum here: write the variant with its type (`Op::Add`), and name a binding in `snake_case`";

/// Whether `ident` as a whole pattern looks like a variant (see `UNQUALIFIED`).
pub fn looks_like_variant(ident: &syn::Ident) -> bool {
    let s = ident.to_string();
    is_camel(&s) && !PRELUDE.contains(&s.as_str())
}

#[derive(Default)]
struct Imports {
    /// Names imported one by one, and the paths they stand for.
    names: Vec<(String, syn::Path)>,
    /// The enum of a glob import.
    glob: Option<syn::Path>,
}

/// The body with its `use` items of enum variants resolved, or `None` when it has none.
pub fn resolve_uses(block: &syn::Block, errors: &mut Errors) -> Option<syn::Block> {
    let mut collect = Collect { imports: Imports::default(), errors, found: false };
    let mut block = block.clone();
    collect.visit_block_mut(&mut block);
    if !collect.found {
        return None;
    }
    let imports = collect.imports;
    Rewrite { imports: &imports }.visit_block_mut(&mut block);
    Some(block)
}

struct Collect<'e> {
    imports: Imports,
    errors: &'e mut Errors,
    found: bool,
}

impl Collect<'_> {
    /// Adds the imports of `tree` under `prefix`; `false` if it is not a `use` of variants.
    fn tree(&mut self, prefix: &syn::Path, tree: &syn::UseTree, out: &mut Vec<(String, syn::Path)>, glob: &mut Vec<syn::Path>) -> bool {
        match tree {
            syn::UseTree::Path(p) => {
                let mut next = prefix.clone();
                next.segments.push(p.ident.clone().into());
                self.tree(&next, &p.tree, out, glob)
            }
            syn::UseTree::Name(n) if is_camel(&n.ident.to_string()) && is_camel_last(prefix) => {
                let mut path = prefix.clone();
                path.segments.push(n.ident.clone().into());
                out.push((n.ident.to_string(), path));
                true
            }
            syn::UseTree::Rename(r) if is_camel(&r.ident.to_string()) && is_camel_last(prefix) => {
                let mut path = prefix.clone();
                path.segments.push(r.ident.clone().into());
                out.push((r.rename.to_string(), path));
                true
            }
            syn::UseTree::Glob(_) if is_camel_last(prefix) => {
                glob.push(prefix.clone());
                true
            }
            syn::UseTree::Group(g) => g.items.iter().all(|t| self.tree(prefix, t, out, glob)),
            _ => false,
        }
    }
}

impl VisitMut for Collect<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut kept = Vec::new();
        for stmt in std::mem::take(&mut b.stmts) {
            if let syn::Stmt::Item(syn::Item::Use(u)) = &stmt {
                let mut prefix = syn::Path { leading_colon: u.leading_colon, segments: Default::default() };
                if let syn::UseTree::Path(p) = &u.tree {
                    prefix.segments.push(p.ident.clone().into());
                    let (mut names, mut globs) = (Vec::new(), Vec::new());
                    if self.tree(&prefix, &p.tree, &mut names, &mut globs) {
                        self.found = true;
                        self.imports.names.extend(names);
                        for g in globs {
                            if self.imports.glob.is_some() {
                                self.errors.error(u, "one `use Enum::*` per body is supported in device code: import the other enum's variants by name (`use Other::{A, B};`) or write them with their type");
                            }
                            self.imports.glob = Some(g);
                        }
                        continue;
                    }
                }
            }
            kept.push(stmt);
        }
        b.stmts = kept;
        syn::visit_mut::visit_block_mut(self, b);
    }
}

fn is_camel(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().any(|c| c.is_ascii_lowercase())
}

/// Whether the path names a type (an enum): its last segment is `UpperCamelCase`.
fn is_camel_last(p: &syn::Path) -> bool {
    p.segments.last().is_some_and(|s| is_camel(&s.ident.to_string()) || s.ident == "Self")
}

struct Rewrite<'a> {
    imports: &'a Imports,
}

impl Rewrite<'_> {
    /// The path a single name stands for, if it is imported (by a glob: when `glob_ok`).
    fn resolve(&self, name: &str, glob_ok: bool) -> Option<syn::Path> {
        if let Some((_, p)) = self.imports.names.iter().find(|(n, _)| n == name) {
            return Some(p.clone());
        }
        let g = self.imports.glob.as_ref().filter(|_| glob_ok && is_camel(name) && !PRELUDE.contains(&name))?;
        let mut p = g.clone();
        p.segments.push(syn::Ident::new(name, proc_macro2::Span::call_site()).into());
        Some(p)
    }

    fn path(&self, path: &mut syn::Path, glob_ok: bool) {
        if path.leading_colon.is_some() || path.segments.len() != 1 || !path.segments[0].arguments.is_empty() {
            return;
        }
        let ident = path.segments[0].ident.clone();
        if let Some(mut p) = self.resolve(&ident.to_string(), glob_ok) {
            if let Some(last) = p.segments.last_mut() {
                last.ident.set_span(ident.span());
            }
            *path = p;
        }
    }

    /// A macro's tokens (`matches!(op, Add | Sub)`): an imported name that is not part of a
    /// path (after `::`, `.` or `<`, or before `::`, `!` or `<`) is written as its path.
    fn tokens(&self, ts: TokenStream, glob_ok: bool) -> TokenStream {
        let tts: Vec<TokenTree> = ts.into_iter().collect();
        let punct = |t: Option<&TokenTree>, cs: &[char]| matches!(t, Some(TokenTree::Punct(p)) if cs.contains(&p.as_char()));
        let mut out = Vec::new();
        for (k, tt) in tts.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => {
                    let mut ng = proc_macro2::Group::new(g.delimiter(), self.tokens(g.stream(), glob_ok));
                    ng.set_span(g.span());
                    out.push(TokenTree::Group(ng));
                }
                TokenTree::Ident(i) => {
                    let before = k.checked_sub(1).and_then(|b| tts.get(b));
                    let in_path = punct(before, &[':', '.', '<']) || punct(tts.get(k + 1), &[':', '!', '<']);
                    match self.resolve(&i.to_string(), glob_ok).filter(|_| !in_path) {
                        Some(mut p) => {
                            if let Some(last) = p.segments.last_mut() {
                                last.ident.set_span(i.span());
                            }
                            out.extend(quote::quote!(#p));
                        }
                        None => out.push(tt.clone()),
                    }
                }
                t => out.push(t.clone()),
            }
        }
        out.into_iter().collect()
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        if e.qself.is_none() {
            self.path(&mut e.path, true);
        }
    }

    fn visit_expr_struct_mut(&mut self, e: &mut syn::ExprStruct) {
        self.path(&mut e.path, false);
        syn::visit_mut::visit_expr_struct_mut(self, e);
    }

    fn visit_pat_mut(&mut self, p: &mut syn::Pat) {
        if let syn::Pat::Ident(pi) = p {
            // A name a glob imports stays as written: as a pattern it is a variant of the
            // scrutinee's enum, found by its type (`enums::bare_variant_pattern`), which also
            // refuses a name that is none of them (Rust would read a binding).
            if pi.by_ref.is_none() && pi.mutability.is_none() && pi.subpat.is_none() {
                if let Some(mut path) = self.resolve(&pi.ident.to_string(), false) {
                    if let Some(last) = path.segments.last_mut() {
                        last.ident.set_span(pi.ident.span());
                    }
                    *p = syn::Pat::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path });
                    return;
                }
            }
        }
        syn::visit_mut::visit_pat_mut(self, p);
    }

    fn visit_pat_tuple_struct_mut(&mut self, p: &mut syn::PatTupleStruct) {
        if p.qself.is_none() {
            self.path(&mut p.path, true);
        }
        syn::visit_mut::visit_pat_tuple_struct_mut(self, p);
    }

    fn visit_pat_struct_mut(&mut self, p: &mut syn::PatStruct) {
        if p.qself.is_none() {
            self.path(&mut p.path, false);
        }
        syn::visit_mut::visit_pat_struct_mut(self, p);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let ts = std::mem::take(&mut m.tokens);
        if !m.path.is_ident("matches") {
            m.tokens = self.tokens(ts, true);
            return;
        }
        // `matches!(value, pattern)`: the pattern's names a glob imports stay as written, as
        // in a `match` (see `visit_pat_mut`).
        let tts: Vec<TokenTree> = ts.into_iter().collect();
        let comma = tts.iter().position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','));
        let (value, rest) = tts.split_at(comma.unwrap_or(tts.len()));
        let guard = rest.iter().position(|t| matches!(t, TokenTree::Ident(i) if i == "if"));
        let (pattern, guard) = rest.split_at(guard.unwrap_or(rest.len()));
        let mut out = self.tokens(value.iter().cloned().collect(), true);
        out.extend(self.tokens(pattern.iter().cloned().collect(), false));
        out.extend(self.tokens(guard.iter().cloned().collect(), true));
        m.tokens = out;
    }
}
