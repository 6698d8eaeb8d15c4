//! Where a path written in a body is defined, read from the body's own source files.
//!
//! A macro sees only its item, so a call of a function that has no replay fails in rustc's
//! words (``cannot find macro `helper` ``). Since Rust 1.88 a span names its source file
//! (`Span::local_file`), so the macro can read that file and find the function there: in the
//! module the call is written in, in an inline `mod m { .. }` of the file, or in the file a
//! `mod m;` declares (`m.rs` or `m/mod.rs` next to it, as rustc looks them up), through `use`
//! items and globs of those modules. What it finds is only ever used to say more about an
//! error: anything it cannot follow (another crate, `crate::` paths, `#[path]` modules, items a
//! macro generates, an unreadable or unparsable file) is "not found", and the caller keeps its
//! own behaviour.
//!
//! Each file is parsed once per compilation ([`index_of`]: a cache by path, size and
//! modification time, which also serves a long-lived proc-macro server after an edit). It is
//! parsed with proc-macro2's fallback implementation, whose spans carry lines and columns.

use proc_macro2::{LineColumn, Span};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::SystemTime;

/// A function definition found for a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnDef {
    /// The file, as the compiler named it (relative to the directory rustc runs in, usually).
    pub file: PathBuf,
    /// 1-based line of the function's name.
    pub line: usize,
    /// Whether it has generic parameters.
    pub generic: bool,
    /// Whether it is visible outside its module (a glob imports only those).
    pub public: bool,
}

/// What one file defines, by module.
struct Index {
    root: Module,
    /// Blocks that define items of their own (`fn k() { fn helper() {} .. }`): a name used
    /// inside one may be one of those, which this index does not follow.
    item_blocks: Vec<(LineColumn, LineColumn)>,
}

#[derive(Default)]
struct Module {
    /// Where its items are: its braces, or (for a file's root) everything.
    range: Option<(LineColumn, LineColumn)>,
    /// The inline module's `#[path]` (a `mod m;` inside it is then not looked up).
    has_path_attr: bool,
    names: HashMap<String, Vec<Def>>,
    globs: Vec<Vec<String>>,
    /// An item macro (`make_helpers!();`) may define any name, shadowing the globs.
    has_item_macro: bool,
    mods: Vec<(String, Module)>,
    impls: Vec<Impl>,
}

/// An `impl` block: the last name of its type (`Vec3` of `impl geo::Vec3<T>`), its trait's,
/// whether it and each function carry no attribute but the inert ones.
struct Impl {
    ty: String,
    of_trait: Option<String>,
    plain: bool,
    line: usize,
    fns: Vec<(String, usize, bool)>,
}

enum Def {
    /// A function; `plain` when it carries no attribute but the built-in inert ones.
    Fn { line: usize, plain: bool, generic: bool, public: bool },
    /// `mod m { .. }`: the index of the module in `mods`.
    Inline(usize),
    /// `mod m;` without `#[path]`.
    File,
    /// `use path as name;` (`path` may start with `self`, `super` or `::`).
    Use(Vec<String>),
    /// A struct, enum or union (its impls are looked up in its module).
    Type,
    /// Anything else with that name: the lookup stops (it would only be a guess).
    Other,
}

/// Attributes that do not make a function a device function (built-in, inert). Any other
/// attribute (`#[device_fn]`, `#[kernel]`, an alias of them, `#[cfg_attr(..)]`) may.
const INERT: &[&str] = &[
    "doc", "inline", "allow", "warn", "deny", "forbid", "expect", "must_use", "cold", "track_caller",
    "deprecated", "cfg", "no_mangle", "export_name", "link_section", "unsafe", "rustfmt::skip", "target_feature",
];

fn is_plain(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().all(|a| {
        let path: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
        let path = path.join("::");
        INERT.contains(&path.as_str()) || path.starts_with("clippy::")
    })
}

fn has_path_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("path"))
}

impl Module {
    fn of_items(items: &[syn::Item], range: Option<(LineColumn, LineColumn)>, has_path_attr: bool) -> Module {
        let mut m = Module { range, has_path_attr, ..Module::default() };
        for item in items {
            m.add(item);
        }
        m
    }

    fn define(&mut self, name: String, def: Def) {
        self.names.entry(name).or_default().push(def);
    }

    fn add(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Fn(f) => {
                let def = Def::Fn { line: f.sig.ident.span().start().line, plain: is_plain(&f.attrs), generic: !f.sig.generics.params.is_empty(), public: !matches!(f.vis, syn::Visibility::Inherited) };
                self.define(f.sig.ident.to_string(), def);
            }
            syn::Item::Mod(m) => {
                let def = match &m.content {
                    Some((brace, items)) => {
                        let span = brace.span.join();
                        let child = Module::of_items(items, Some((span.start(), span.end())), has_path_attr(&m.attrs));
                        self.mods.push((m.ident.to_string(), child));
                        Def::Inline(self.mods.len() - 1)
                    }
                    None if has_path_attr(&m.attrs) => Def::Other,
                    None => Def::File,
                };
                self.define(m.ident.to_string(), def);
            }
            syn::Item::Use(u) => {
                let mut prefix = Vec::new();
                if u.leading_colon.is_some() {
                    prefix.push("::".to_owned());
                }
                self.add_use(&u.tree, &mut prefix);
            }
            syn::Item::ForeignMod(f) => {
                for i in &f.items {
                    if let syn::ForeignItem::Fn(f) = i {
                        self.define(f.sig.ident.to_string(), Def::Other);
                    }
                }
            }
            syn::Item::Impl(i) => {
                let syn::Type::Path(tp) = &*i.self_ty else { return };
                let (Some(ty), None) = (tp.path.segments.last(), &tp.qself) else { return };
                let fns = i.items.iter().filter_map(|it| match it {
                    syn::ImplItem::Fn(f) => Some((f.sig.ident.to_string(), f.sig.ident.span().start().line, is_plain(&f.attrs))),
                    _ => None,
                });
                let of_trait = i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
                let line = i.impl_token.span.start().line;
                self.impls.push(Impl { ty: ty.ident.to_string(), of_trait, plain: is_plain(&i.attrs), line, fns: fns.collect() });
            }
            syn::Item::Struct(syn::ItemStruct { ident, .. }) | syn::Item::Enum(syn::ItemEnum { ident, .. }) | syn::Item::Union(syn::ItemUnion { ident, .. }) => {
                self.define(ident.to_string(), Def::Type);
            }
            syn::Item::Macro(m) if m.ident.is_none() => self.has_item_macro = true,
            other => {
                if let Some(name) = item_name(other) {
                    self.define(name, Def::Other);
                }
            }
        }
    }

    fn add_use(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.add_use(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) if n.ident == "self" => {
                if let Some(last) = prefix.last().cloned() {
                    self.define(last, Def::Use(prefix.clone()));
                }
            }
            syn::UseTree::Name(n) => {
                let mut path = prefix.clone();
                path.push(n.ident.to_string());
                self.define(n.ident.to_string(), Def::Use(path));
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                path.push(r.ident.to_string());
                if r.rename != "_" {
                    self.define(r.rename.to_string(), Def::Use(path));
                }
            }
            syn::UseTree::Glob(_) => self.globs.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.add_use(t, prefix);
                }
            }
        }
    }

    /// The path of inline modules, from this one, to the innermost that holds `at`.
    fn chain_to(&self, at: LineColumn, chain: &mut Vec<usize>) {
        for (i, (_, m)) in self.mods.iter().enumerate() {
            if m.range.is_some_and(|(a, b)| contains(a, b, at)) {
                chain.push(i);
                return m.chain_to(at, chain);
            }
        }
    }
}

fn contains(a: LineColumn, b: LineColumn, at: LineColumn) -> bool {
    (a.line, a.column) <= (at.line, at.column) && (at.line, at.column) < (b.line, b.column)
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::ExternCrate(i) => i.rename.as_ref().map(|(_, r)| r).unwrap_or(&i.ident),
        syn::Item::Macro(m) => m.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

/// Collects the blocks that define items.
struct ItemBlocks(Vec<(LineColumn, LineColumn)>);

impl<'ast> syn::visit::Visit<'ast> for ItemBlocks {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        if b.stmts.iter().any(|s| matches!(s, syn::Stmt::Item(_))) {
            let span = b.brace_token.span.join();
            self.0.push((span.start(), span.end()));
        }
        syn::visit::visit_block(self, b);
    }
}

/// Parses with the fallback implementation (spans with lines) and puts the compiler's back,
/// even if parsing unwinds.
fn parse(text: &str) -> Option<Index> {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            proc_macro2::fallback::unforce();
        }
    }
    proc_macro2::fallback::force();
    let _restore = Restore;
    let file = syn::parse_file(text).ok()?;
    let mut blocks = ItemBlocks(Vec::new());
    syn::visit::Visit::visit_file(&mut blocks, &file);
    Some(Index { root: Module::of_items(&file.items, None, false), item_blocks: blocks.0 })
}

/// A file's version: its size and modification time.
type Stamp = (u64, Option<SystemTime>);
/// Each file's index (`None`: unreadable or unparsable), with the version it was read at.
type Cache = HashMap<PathBuf, (Stamp, Option<Rc<Index>>)>;

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(HashMap::new());
}

/// The file's index, parsed at most once per version of the file; `None` when it cannot be
/// read or parsed.
fn index_of(file: &Path) -> Option<Rc<Index>> {
    let meta = std::fs::metadata(file).ok()?;
    let stamp = (meta.len(), meta.modified().ok());
    if let Some((s, index)) = CACHE.with(|c| c.borrow().get(file).cloned()) {
        if s == stamp {
            return index;
        }
    }
    let index = std::fs::read_to_string(file).ok().and_then(|text| parse(&text)).map(Rc::new);
    CACHE.with(|c| c.borrow_mut().insert(file.to_path_buf(), (stamp, index.clone())));
    index
}

/// A module: a file's index and the inline modules from its root, with the module that
/// declared the file (for `super`).
#[derive(Clone)]
struct Place {
    file: PathBuf,
    index: Rc<Index>,
    chain: Vec<usize>,
    /// Names of the inline modules of `chain`, for the files their `mod m;` declare.
    names: Vec<String>,
    parent: Option<Rc<Place>>,
}

/// How many names one query may look up (uses and globs followed).
const MAX_STEPS: usize = 256;

/// One query's walk: the names being looked up (a name met again while it is being looked up,
/// e.g. a glob's own path through the same glob, is not there) and the steps taken.
#[derive(Default)]
struct Walk {
    active: Vec<(PathBuf, Vec<usize>, String, bool)>,
    steps: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Ns {
    Type,
    Value,
}

/// What a name is, as far as this lookup can tell.
enum Target {
    Fn(FnDef),
    /// Something this lookup does not follow (a device function, an ambiguous name): the
    /// search stops, and nothing is reported.
    Other,
    Module(Place),
    /// A struct, enum or union defined in this module.
    Type(Place),
}

impl Place {
    fn module(&self) -> &Module {
        let mut m = &self.index.root;
        for &i in &self.chain {
            m = &m.mods[i].1;
        }
        m
    }

    fn parent(&self) -> Option<Place> {
        if self.chain.is_empty() {
            return self.parent.as_deref().cloned();
        }
        let mut p = self.clone();
        p.chain.pop();
        p.names.pop();
        Some(p)
    }

    /// The file of `mod name;` declared in this module: `name.rs` or `name/mod.rs` in the
    /// directory of this module's own files, if exactly one exists.
    fn file_module(&self, name: &str) -> Option<Place> {
        let mut m = &self.index.root;
        for &i in &self.chain {
            m = &m.mods[i].1;
            if m.has_path_attr {
                return None;
            }
        }
        let dir = self.file.parent()?;
        let file_name = self.file.file_name()?.to_str()?;
        // A crate root or `mod.rs` owns its directory; `a.rs` owns `a/`. A crate root not named
        // `lib.rs` or `main.rs` (a test, an example, a binary) cannot be told apart from `a.rs`:
        // both are tried, and only one may exist.
        let mut bases = Vec::new();
        if !matches!(file_name, "lib.rs" | "main.rs" | "mod.rs") {
            bases.push(dir.join(self.file.file_stem()?));
        }
        bases.push(dir.to_path_buf());
        let mut found = Vec::new();
        for base in bases {
            let mut d = base;
            for n in &self.names {
                d.push(n);
            }
            for candidate in [d.join(format!("{name}.rs")), d.join(name).join("mod.rs")] {
                if candidate.is_file() {
                    found.push(candidate);
                }
            }
        }
        let [file] = <[PathBuf; 1]>::try_from(found).ok()?;
        let index = index_of(&file)?;
        Some(Place { file, index, chain: Vec::new(), names: Vec::new(), parent: Some(Rc::new(self.clone())) })
    }

    /// What `name` is here: `None` when the module does not have it.
    fn lookup(&self, name: &str, ns: Ns, w: &mut Walk) -> Option<Target> {
        let key = (self.file.clone(), self.chain.clone(), name.to_owned(), ns == Ns::Type);
        w.steps += 1;
        if w.steps > MAX_STEPS || w.active.contains(&key) {
            return Some(Target::Other);
        }
        w.active.push(key);
        let found = self.lookup_here(name, ns, w);
        w.active.pop();
        found
    }

    fn lookup_here(&self, name: &str, ns: Ns, w: &mut Walk) -> Option<Target> {
        let module = self.module();
        let Some(defs) = module.names.get(name) else {
            if module.has_item_macro {
                return Some(Target::Other);
            }
            // Globs, in order: the first that has the name (two that both have it would be
            // rustc's ambiguity error at the host copy of the same call). One this lookup
            // cannot follow (another crate's) may have it too: that is the same error.
            return module.globs.iter().find_map(|g| match self.resolve(g, Ns::Type, w)? {
                Target::Module(p) => match p.lookup(name, ns, w)? {
                    // A private function is not imported, except by a descendant (`super::*`).
                    Target::Fn(f) if !f.public && !g.iter().all(|s| s == "super" || s == "self") => None,
                    t => Some(t),
                },
                _ => None,
            });
        };
        let fns: Vec<&Def> = defs.iter().filter(|d| matches!(d, Def::Fn { .. })).collect();
        let others: Vec<&Def> = defs.iter().filter(|d| !matches!(d, Def::Fn { .. } | Def::Inline(_) | Def::File)).collect();
        match ns {
            Ns::Value => {
                if !others.is_empty() {
                    // A `use` alone is followed; with anything else the name is ambiguous here.
                    return match (fns.as_slice(), others.as_slice()) {
                        ([], [Def::Use(path)]) => Some(self.resolve(path, Ns::Value, w).unwrap_or(Target::Other)),
                        _ => Some(Target::Other),
                    };
                }
                // Every definition (e.g. one per `#[cfg]`) plain: a plain function.
                let mut first = None;
                for d in fns {
                    let Def::Fn { line, plain: true, generic, public } = d else { return Some(Target::Other) };
                    first.get_or_insert(FnDef { file: self.file.clone(), line: *line, generic: *generic, public: *public });
                }
                // Only a module or a file module by that name: not a function.
                Some(first.map_or(Target::Other, Target::Fn))
            }
            Ns::Type => {
                let mods: Vec<&Def> = defs.iter().filter(|d| matches!(d, Def::Inline(_) | Def::File)).collect();
                match (mods.as_slice(), others.as_slice()) {
                    ([Def::Inline(i)], []) => {
                        let mut p = self.clone();
                        p.chain.push(*i);
                        p.names.push(name.to_owned());
                        Some(Target::Module(p))
                    }
                    ([Def::File], []) => Some(self.file_module(name).map_or(Target::Other, Target::Module)),
                    ([], [Def::Use(path)]) => Some(self.resolve(path, Ns::Type, w).unwrap_or(Target::Other)),
                    ([], [Def::Type]) => Some(Target::Type(self.clone())),
                    _ => Some(Target::Other),
                }
            }
        }
    }

    /// A path written in this module; the last segment in `ns`.
    fn resolve(&self, path: &[String], ns: Ns, w: &mut Walk) -> Option<Target> {
        let (last, init) = path.split_last()?;
        let mut place = self.clone();
        for (i, seg) in path.iter().enumerate() {
            place = match seg.as_str() {
                "self" if i == 0 => place,
                "super" if path[..i].iter().all(|s| s == "super") => place.parent()?,
                "crate" | "::" | "$crate" | "self" | "super" => return None,
                _ if i == init.len() => return place.lookup(last, ns, w),
                _ => match place.lookup(seg, Ns::Type, w)? {
                    Target::Module(p) => p,
                    _ => return None,
                },
            };
        }
        // `use super::*`: the path is a module.
        (ns == Ns::Type).then_some(Target::Module(place))
    }
}

/// The definition of the function a body calls by `path` (its segments, without generic
/// arguments) at `at`, when it is a plain function this lookup can see: written in the same
/// file as the call or in a file one of its `mod m;` declares. `None` for everything else.
pub fn plain_fn(at: Span, path: &[String]) -> Option<FnDef> {
    let file = at.local_file()?;
    let pos = at.start();
    if pos.line == 0 {
        return None;
    }
    plain_fn_at(&file, pos, path)
}

fn plain_fn_at(file: &Path, pos: LineColumn, path: &[String]) -> Option<FnDef> {
    match place_at(file, pos)?.resolve(path, Ns::Value, &mut Walk::default())? {
        Target::Fn(f) => Some(f),
        _ => None,
    }
}

/// The module a position of a file is in; `None` inside a block that defines items.
fn place_at(file: &Path, pos: LineColumn) -> Option<Place> {
    let index = index_of(file)?;
    if index.item_blocks.iter().any(|&(a, b)| contains(a, b, pos)) {
        return None;
    }
    let mut place = Place { file: file.to_path_buf(), index: index.clone(), chain: Vec::new(), names: Vec::new(), parent: None };
    index.root.chain_to(pos, &mut place.chain);
    let mut m = &index.root;
    for &i in &place.chain {
        place.names.push(m.mods[i].0.clone());
        m = &m.mods[i].1;
    }
    Some(place)
}

/// A method without a device replay: `name` of an impl without `#[device_fn]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainMethod {
    pub file: PathBuf,
    /// 1-based line of the `impl`.
    pub line: usize,
    /// The impl's trait (`Add` of `impl Add for V`), `None` for an inherent impl.
    pub of_trait: Option<String>,
}

/// The impl that defines `name` (a method or associated function, or an operator trait's
/// method when `of_trait` is given) for the type written `ty` at `at`, when it is an impl
/// without `#[device_fn]` in the type's own module (where a `#[device_fn] impl` must be), and
/// no other impl there defines `name` (a trait's method may be the one a call resolves to).
pub fn plain_method(at: Span, ty: &[String], name: &str, of_trait: Option<&str>) -> Option<PlainMethod> {
    let file = at.local_file()?;
    let pos = at.start();
    if pos.line == 0 {
        return None;
    }
    plain_method_at(&file, pos, ty, name, of_trait)
}

fn plain_method_at(file: &Path, pos: LineColumn, ty: &[String], name: &str, of_trait: Option<&str>) -> Option<PlainMethod> {
    let Target::Type(place) = place_at(file, pos)?.resolve(ty, Ns::Type, &mut Walk::default())? else { return None };
    let base = ty.last()?;
    let mut found = None;
    // An operator is its trait's impl; a method or associated function any impl's.
    for i in place.module().impls.iter().filter(|i| &i.ty == base && (of_trait.is_none() || i.of_trait.as_deref() == of_trait)) {
        let Some(&(_, _, fn_plain)) = i.fns.iter().find(|f| f.0 == name) else { continue };
        if !(i.plain && fn_plain) || i.of_trait.as_deref() != of_trait || found.is_some() {
            return None;
        }
        found = Some(PlainMethod { file: place.file.clone(), line: i.line, of_trait: i.of_trait.clone() });
    }
    found
}

/// `path` for messages: relative to the crate's directory when under it.
pub fn display(file: &Path) -> String {
    let rel = std::env::var_os("CARGO_MANIFEST_DIR").and_then(|d| file.strip_prefix(d).ok().map(Path::to_path_buf));
    rel.as_deref().unwrap_or(file).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> LineColumn {
        LineColumn { line, column }
    }

    fn segs(p: &str) -> Vec<String> {
        p.split("::").map(str::to_owned).collect()
    }

    /// A directory of files for one test, removed at the end.
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str, files: &[(&str, &str)]) -> Tree {
            let dir = std::env::temp_dir().join(format!("ptx-source-index-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for (path, text) in files {
                let p = dir.join(path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, text).unwrap();
            }
            Tree(dir)
        }

        fn find(&self, file: &str, pos: LineColumn, path: &str) -> Option<(String, usize)> {
            let f = plain_fn_at(&self.0.join(file), pos, &segs(path))?;
            Some((f.file.strip_prefix(&self.0).unwrap().display().to_string(), f.line))
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const LIB: &str = "\
use ptx_runtime::kernel;
mod m;
mod inline {
    pub fn helper(x: u32) -> u32 { x }
    #[ptx_runtime::device_fn]
    pub fn dev(x: u32) -> u32 { x }
    pub mod deeper { pub fn h2() {} }
}
use inline::helper as renamed;
use m::*;
fn helper(x: u32) -> u32 { x + 1 }
#[kernel]
pub fn k(out: &mut [u32]) { out[0] = helper(out[0]); }
mod tests {
    use super::*;
    #[kernel]
    pub fn k2(out: &mut [u32]) { out[0] = helper(out[0]); }
    fn local() { fn helper() {} }
}
";

    const M: &str = "\
pub fn from_m() {}
#[cfg(a)] pub fn twice() {}
#[cfg(not(a))] #[device_fn] pub fn twice() {}
pub mod sub;
";

    #[test]
    fn finds_plain_functions_through_modules_uses_and_globs() {
        let t = Tree::new("lookup", &[("src/lib.rs", LIB), ("src/m.rs", M), ("src/m/sub.rs", "pub(crate) fn s<T>(x: T) -> T { x }\n")]);
        let call = at(13, 40);
        assert_eq!(t.find("src/lib.rs", call, "helper"), Some(("src/lib.rs".into(), 11)));
        assert_eq!(t.find("src/lib.rs", call, "self::helper"), Some(("src/lib.rs".into(), 11)));
        assert_eq!(t.find("src/lib.rs", call, "inline::helper"), Some(("src/lib.rs".into(), 4)));
        assert_eq!(t.find("src/lib.rs", call, "renamed"), Some(("src/lib.rs".into(), 4)));
        assert_eq!(t.find("src/lib.rs", call, "inline::deeper::h2"), Some(("src/lib.rs".into(), 7)));
        // `mod m;` is src/m.rs; its `mod sub;` is src/m/sub.rs.
        assert_eq!(t.find("src/lib.rs", call, "m::from_m"), Some(("src/m.rs".into(), 1)));
        assert_eq!(t.find("src/lib.rs", call, "from_m"), Some(("src/m.rs".into(), 1)));
        assert_eq!(t.find("src/lib.rs", call, "m::sub::s"), Some(("src/m/sub.rs".into(), 1)));
        // Inside `mod tests`: `super::*`, and `super::` paths.
        let inner = at(17, 45);
        assert_eq!(t.find("src/lib.rs", inner, "helper"), Some(("src/lib.rs".into(), 11)));
        assert_eq!(t.find("src/lib.rs", inner, "super::m::from_m"), Some(("src/m.rs".into(), 1)));
    }

    #[test]
    fn anything_uncertain_is_not_found() {
        let t = Tree::new("uncertain", &[("src/lib.rs", LIB), ("src/m.rs", M)]);
        let call = at(13, 40);
        // A device function; one definition of two (cfg) with an attribute.
        assert_eq!(t.find("src/lib.rs", call, "inline::dev"), None);
        assert_eq!(t.find("src/lib.rs", call, "m::twice"), None);
        // Other crates, `crate::`, names not defined, a missing file.
        assert_eq!(t.find("src/lib.rs", call, "ptx_runtime::device::lane_id"), None);
        assert_eq!(t.find("src/lib.rs", call, "crate::helper"), None);
        assert_eq!(t.find("src/lib.rs", call, "nowhere"), None);
        assert_eq!(t.find("src/lib.rs", call, "m::sub::s"), None);
        assert_eq!(t.find("src/absent.rs", call, "helper"), None);
        // Inside a block that defines items of its own.
        assert_eq!(t.find("src/lib.rs", at(18, 25), "helper"), None);
    }

    #[test]
    fn unparsable_and_path_modules_are_not_found() {
        let t = Tree::new("odd", &[
            ("src/lib.rs", "fn helper() {}\n#[path = \"x.rs\"] mod m;\nfn k() { helper(); m::g(); }\n"),
            ("src/m.rs", "pub fn g() {}\n"),
            ("src/bad.rs", "fn helper() {\nfn k() { helper() }\n"),
        ]);
        assert_eq!(t.find("src/lib.rs", at(3, 10), "helper"), Some(("src/lib.rs".into(), 1)));
        assert_eq!(t.find("src/lib.rs", at(3, 20), "m::g"), None);
        assert_eq!(t.find("src/bad.rs", at(2, 10), "helper"), None);
    }

    const METHODS: &str = "\
mod geo {
    pub struct V { pub x: f32 }
    impl V { pub fn len(self) -> f32 { self.x } }
    impl core::ops::Add for V { type Output = V; fn add(self, o: V) -> V { o } }
    #[device_fn]
    impl V { pub fn dev(self) -> f32 { self.x } }
    pub struct W;
    impl W { pub fn both(&self) {} }
    impl Tr for W { fn both(self) {} }
}
use geo::V;
fn k(v: V) { v.len(); }
";

    #[test]
    fn finds_plain_impls_in_the_types_module() {
        let t = Tree::new("methods", &[("src/lib.rs", METHODS)]);
        let f = t.0.join("src/lib.rs");
        let find = |ty: &str, name: &str, of_trait: Option<&str>| plain_method_at(&f, at(12, 15), &segs(ty), name, of_trait).map(|m| (m.line, m.of_trait));
        assert_eq!(find("V", "len", None), Some((3, None)));
        assert_eq!(find("geo::V", "len", None), Some((3, None)));
        assert_eq!(find("V", "add", Some("Add")), Some((4, Some("Add".to_owned()))));
        // A `#[device_fn] impl`; a name two impls define; no such method; not a type.
        assert_eq!(find("V", "dev", None), None);
        assert_eq!(find("geo::W", "both", None), None);
        assert_eq!(find("V", "nothing", None), None);
        assert_eq!(find("V", "sub", Some("Sub")), None);
        assert_eq!(find("k", "len", None), None);
    }

    #[test]
    fn cycles_of_globs_end() {
        let t = Tree::new("cycles", &[(
            "src/lib.rs",
            "use ext::device::*;\nuse other::*;\nmod a { pub use super::b::*; pub use super::*; }\nmod b { pub use super::a::*; pub fn g() {} }\nfn k() { x(); }\n",
        )]);
        assert_eq!(t.find("src/lib.rs", at(5, 10), "x"), None);
        assert_eq!(t.find("src/lib.rs", at(5, 10), "a::g"), Some(("src/lib.rs".into(), 4)));
        assert_eq!(t.find("src/lib.rs", at(5, 10), "a::nothing"), None);
    }

    #[test]
    fn globs_import_what_rustc_imports() {
        let t = Tree::new("globs", &[(
            "src/lib.rs",
            "mod dev { #[device_fn] pub fn h() {} }\nmod m { fn h() {} pub fn p() {} }\nuse dev::*;\nuse m::*;\nfn k() { h(); }\n\
             mod t { use super::*; fn k2() { p(); } }\nmod u { use super::*; make!(); fn k3() { p(); } }\n",
        )]);
        // `m::h` is private: the glob brings `dev::h`, a device function.
        assert_eq!(t.find("src/lib.rs", at(5, 10), "h"), None);
        assert_eq!(t.find("src/lib.rs", at(5, 10), "p"), Some(("src/lib.rs".into(), 2)));
        assert_eq!(t.find("src/lib.rs", at(6, 35), "p"), Some(("src/lib.rs".into(), 2)));
        // An item macro may define `p` itself.
        assert_eq!(t.find("src/lib.rs", at(7, 45), "p"), None);
    }

    #[test]
    fn a_non_root_file_owns_its_directory() {
        let t = Tree::new("nonroot", &[
            ("src/lib.rs", "mod a;\n"),
            ("src/a.rs", "mod b;\nfn k() { b::f() }\n"),
            ("src/a/b.rs", "pub fn f() {}\n"),
        ]);
        assert_eq!(t.find("src/a.rs", at(2, 10), "b::f"), Some(("src/a/b.rs".into(), 1)));
    }
}
