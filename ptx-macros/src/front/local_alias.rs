//! Type aliases inside a body: `type Tile = [f32; 16];`, `type P = geo::Pair<f32>;`,
//! `type Row<T> = [T; 4];`.
//!
//! The device compiler resolves them itself, before checking, as it does `use Enum::*`
//! (`use_variants`): each alias is removed from its block and written out where the block and
//! the blocks inside it name it — as a type (`let t: Tile`, `[Tile; 2]`, `as Idx`, `f::<Tile>`),
//! as the type of a struct literal or pattern (`P { a, b }`), and as the first segment of a path
//! (`P::new(..)`, `P::ZERO`). An alias is visible in its whole block, before its definition too,
//! as an item is in Rust; an inner block's alias of the same name hides the outer one. A generic
//! alias's parameters are replaced by the arguments written (`Row<u8>`; a const parameter's an
//! integer literal, `Lane<f32, 3>`), inside the body's macros too (`assert!(n == N as Idx)`,
//! `printf!`, `matches!`, `ptx_asm!`'s operand types; see `macro_tokens`).

use crate::report::Errors;
use std::collections::HashMap;
use syn::visit_mut::VisitMut;

/// One alias: its parameters and its type.
#[derive(Clone)]
struct Alias {
    params: Vec<Param>,
    ty: syn::Type,
}

/// A parameter of an alias: a type, or a const with its type's Itanium code.
#[derive(Clone)]
enum Param {
    Type(String),
    Const(String, &'static str),
}

/// The body with its type aliases written out, or `None` when it has none.
pub fn resolve_aliases(block: &syn::Block, errors: &mut Errors) -> Option<syn::Block> {
    if !has_alias(block) {
        return None;
    }
    let mut block = block.clone();
    Expand { scopes: Vec::new(), expanding: Vec::new(), errors }.visit_block_mut(&mut block);
    Some(block)
}

fn has_alias(block: &syn::Block) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_item_type(&mut self, _: &'a syn::ItemType) {
            self.0 = true;
        }
        fn visit_item_fn(&mut self, _: &'a syn::ItemFn) {}
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_block(&mut f, block);
    f.0
}

/// The Itanium code of an integer or `bool` type (`usize`: `m`).
fn const_code(t: &syn::Type) -> Option<&'static str> {
    let syn::Type::Path(tp) = t else { return None };
    let s = ptx_abi::Scalar::from_rust_name(&tp.path.get_ident()?.to_string())?;
    (s.is_integral() || s == ptx_abi::Scalar::Bool).then(|| crate::expand::method::scalar_code(s))
}

struct Expand<'e> {
    scopes: Vec<HashMap<String, Alias>>,
    /// The aliases being written out, innermost last: one met again names itself.
    expanding: Vec<String>,
    errors: &'e mut Errors,
}

impl Expand<'_> {
    fn lookup(&self, name: &str) -> Option<&Alias> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// The type `name<args>` stands for, its parameters replaced by `args`.
    fn instance(&mut self, seg: &syn::PathSegment) -> Option<syn::Type> {
        let name = seg.ident.to_string();
        let alias = self.lookup(&name)?.clone();
        if self.expanding.contains(&name) {
            // rustc: "cycle detected when expanding type alias" (E0391).
            self.errors.error(seg, format!("the type alias `{name}` names itself (through its own type or another alias's): an alias cannot contain itself; rename it, or write the type out"));
            return None;
        }
        let args: Vec<syn::GenericArgument> = match &seg.arguments {
            syn::PathArguments::None => Vec::new(),
            syn::PathArguments::AngleBracketed(ab) => ab.args.iter().filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_))).cloned().collect(),
            syn::PathArguments::Parenthesized(_) => return None,
        };
        if args.len() != alias.params.len() {
            self.errors.error(seg, format!("the type alias `{}` takes {} generic argument(s) but {} were given", seg.ident, alias.params.len(), args.len()));
            return None;
        }
        let mut ty = alias.ty;
        if !args.is_empty() {
            let (mut types, mut consts) = (HashMap::new(), HashMap::new());
            for (p, a) in alias.params.into_iter().zip(args) {
                match (p, a) {
                    (Param::Type(n), syn::GenericArgument::Type(t)) => {
                        types.insert(n, t);
                    }
                    (Param::Const(n, code), a) => match crate::front::generic::const_value(&a) {
                        Some(v) => {
                            consts.insert(n, (v, code));
                        }
                        None => {
                            self.errors.error(&a, format!("the const argument `{n}` of the type alias `{}` is an integer literal here (`{}<4>`)", seg.ident, seg.ident));
                            return None;
                        }
                    },
                    (Param::Type(n), a) => {
                        self.errors.error(&a, format!("`{n}` is a type parameter of the type alias `{}`", seg.ident));
                        return None;
                    }
                }
            }
            crate::front::generic::Subst::new(types, consts).visit_type_mut(&mut ty);
        }
        // Its own paths are aliases of this scope too (`type Pair2 = [Tile; 2];`).
        self.expanding.push(name);
        self.visit_type_mut(&mut ty);
        self.expanding.pop();
        Some(ty)
    }

    /// A path whose first segment is an alias of a named type: that type's path first
    /// (`P::new` with `type P = geo::Pair<f32>;` is `geo::Pair::<f32>::new`).
    fn path_through_alias(&mut self, path: &mut syn::Path, whole: bool) {
        if path.leading_colon.is_some() || (path.segments.len() < 2 && !whole) {
            return;
        }
        let Some(first) = path.segments.first().cloned() else { return };
        if self.lookup(&first.ident.to_string()).is_none() {
            return;
        }
        let Some(ty) = self.instance(&first) else { return };
        let syn::Type::Path(tp) = ty else {
            self.errors.error(&first, format!("the type alias `{}` names a type that is not a path: write the type's own path here", first.ident));
            return;
        };
        if tp.qself.is_some() {
            return;
        }
        let mut segs: Vec<syn::PathSegment> = tp.path.segments.into_iter().collect();
        // In an expression, arguments take a turbofish (`Pair::<f32>::new`).
        for s in &mut segs {
            if let syn::PathArguments::AngleBracketed(ab) = &mut s.arguments {
                ab.colon2_token = Some(Default::default());
            }
        }
        path.leading_colon = tp.path.leading_colon;
        path.segments = segs.into_iter().chain(path.segments.iter().skip(1).cloned()).collect();
    }
}

impl VisitMut for Expand<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut scope = HashMap::new();
        let mut kept = Vec::new();
        for stmt in std::mem::take(&mut b.stmts) {
            match stmt {
                syn::Stmt::Item(syn::Item::Type(t)) => {
                    let mut params = Vec::new();
                    for p in &t.generics.params {
                        match p {
                            syn::GenericParam::Type(tp) => params.push(Param::Type(tp.ident.to_string())),
                            syn::GenericParam::Lifetime(_) => {}
                            syn::GenericParam::Const(c) => match const_code(&c.ty) {
                                Some(code) => params.push(Param::Const(c.ident.to_string(), code)),
                                None => self.errors.error(&c.ty, "a const parameter of a type alias in device code is an integer or `bool`"),
                            },
                        }
                    }
                    scope.insert(t.ident.to_string(), Alias { params, ty: *t.ty });
                }
                other => kept.push(other),
            }
        }
        b.stmts = kept;
        self.scopes.push(scope);
        syn::visit_mut::visit_block_mut(self, b);
        self.scopes.pop();
    }

    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(p) = t {
            if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 {
                let seg = p.path.segments[0].clone();
                if self.lookup(&seg.ident.to_string()).is_some() {
                    if let Some(ty) = self.instance(&seg) {
                        *t = ty;
                    }
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        self.path_through_alias(path, false);
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        if s.qself.is_none() {
            self.path_through_alias(&mut s.path, true);
        }
        syn::visit_mut::visit_expr_struct_mut(self, s);
    }

    fn visit_pat_struct_mut(&mut self, s: &mut syn::PatStruct) {
        if s.qself.is_none() {
            self.path_through_alias(&mut s.path, true);
        }
        syn::visit_mut::visit_pat_struct_mut(self, s);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        // `assert!(v.len() == N as Idx)`, `printf!("%d", x as Idx)`, `matches!(p, P { .. })`.
        super::macro_tokens::visit_macro_mut(self, m);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {
        // A nested item (refused later) has its own scope.
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn expand(block: syn::Block) -> String {
        let mut e = crate::report::Errors::new();
        let out = super::resolve_aliases(&block, &mut e).expect("aliases");
        assert!(e.is_empty());
        out.to_token_stream().to_string()
    }

    #[test]
    fn an_alias_that_names_itself_is_one_error() {
        for body in [quote::quote!({ type f32 = geo::Pair<f32>; let x: f32 = f32::new(1.0, 2.0); }), quote::quote!({ type A = [B; 2]; type B = (A, u8); let a: A = todo(); })] {
            let block: syn::Block = syn::parse2(body).unwrap();
            let mut e = crate::report::Errors::new();
            super::resolve_aliases(&block, &mut e);
            assert!(!e.is_empty());
        }
    }

    #[test]
    fn aliases_are_written_out_in_their_block() {
        let out = expand(syn::parse_quote!({
            let t: Tile = [0.0; 16];
            type Tile = [f32; 16];
            type Two = [Tile; 2];
            type P = geo::Pair<f32>;
            type Row<T> = [T; 4];
            type Lane<T, const N: usize> = [T; N];
            let l: Lane<f32, 3> = [0.0; 3];
            let p = P::new(1.0, 2.0);
            let q = P { a: 1.0, b: 2.0 };
            let r: Row<u8> = [0; 4];
            let w: Two = [t, t];
            { type Tile = u32; let z: Tile = 3; }
        }));
        assert!(!out.contains("type "), "{out}");
        assert!(out.contains("let t : [f32 ; 16]"), "{out}");
        assert!(out.contains("let w : [[f32 ; 16] ; 2]"), "{out}");
        assert!(out.contains("geo :: Pair :: < f32 > :: new"), "{out}");
        assert!(out.contains("geo :: Pair :: < f32 > { a"), "{out}");
        assert!(out.contains("let r : [u8 ; 4]"), "{out}");
        assert!(out.contains("let z : u32"), "{out}");
        assert!(out.contains("let l : [f32 ; 3]"), "{out}");
    }

    #[test]
    fn aliases_reach_the_body_macros() {
        let out = expand(syn::parse_quote!({
            type Idx = u32;
            type P = geo::Pair<f32>;
            assert!(v.len() == N as Idx);
            debug_assert!(i < 4 as Idx, "small");
            assert_eq!(a as Idx, b);
            printf!("%u\n", i as Idx);
            let m = matches!(p, P { a, .. } if a > 0 as Idx);
            ptx_asm!("mov.u32 {0}, {1};", out(Idx) r, in(Idx) i as Idx);
            other!(Idx);
        }));
        assert_eq!(out.matches("as Idx").count(), 1, "only in the message: {out}");
        assert!(out.contains("assert ! (v . len () == N as u32 , \"assertion failed: v.len() == N as Idx\")"), "{out}");
        assert!(out.contains("\"small\""), "{out}");
        assert!(out.contains("geo :: Pair :: < f32 > { a , .. } if a > 0 as u32"), "{out}");
        assert!(out.contains("out (u32) r , in (u32) i as u32"), "{out}");
        assert!(out.contains("other ! (Idx)"), "{out}");
    }
}
