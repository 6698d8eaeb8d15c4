//! Where a path written in a body is defined, read from the body's own source files.
//!
//! A macro sees only its item, so a call of a function that has no replay fails in rustc's
//! words (``cannot find macro `helper` ``). Since Rust 1.88 a span names its source file
//! (`Span::local_file`), so the macro can read that file and find the function there: in the
//! module the call is written in, in an inline `mod m { .. }` of the file, or in the file a
//! `mod m;` declares (`m.rs` or `m/mod.rs` next to it, as rustc looks them up), through `use`
//! items and globs of those modules. What it finds is only ever used to say more about an
//! error: anything it cannot follow (another crate, `#[path]` modules, items a macro generates,
//! an unreadable or unparsable file) is "not found", and the caller keeps its own behaviour.
//! `crate::` paths, and `super::` out of a file's root module, are followed from the crate's
//! root file ([`crate_root`](super::crate_root)) when exactly one candidate root declares the
//! file's modules.
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
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Index {
    root: Module,
    /// Blocks that define items of their own (`fn k() { fn helper() {} .. }`): a name used
    /// inside one may be one of those, which this index does not follow.
    item_blocks: Vec<(LineColumn, LineColumn)>,
}

#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
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
#[derive(Clone)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Impl {
    ty: String,
    /// The self type's path, without arguments (`geo::Vec3`).
    ty_path: Vec<String>,
    /// The self type as written (`Pair < f32 >`), and whether the impl has generic parameters.
    self_ty: String,
    generic: bool,
    of_trait: Option<String>,
    plain: bool,
    line: usize,
    fns: Vec<(String, usize, bool)>,
}

#[cfg_attr(test, derive(Debug, PartialEq))]
enum Def {
    /// A function; `plain` when it carries no attribute but the built-in inert ones.
    Fn { line: usize, plain: bool, generic: bool, public: bool },
    /// `mod m { .. }`: the index of the module in `mods`.
    Inline(usize),
    /// `mod m;` without `#[path]`.
    File,
    /// `use path as name;` (`path` may start with `self`, `super` or `::`).
    Use(Vec<String>),
    /// A struct, enum or union (its impls are looked up in its module); `plain` when nothing
    /// gives it a device layout (no `DeviceRepr` derive, no attribute but the inert ones).
    Type { line: usize, plain: bool },
    /// A trait; `plain` when it carries no attribute but the inert ones.
    Trait { line: usize, plain: bool },
    /// `const NAME: T = expr;` of a primitive integer or `bool` type `T`, with no attribute but
    /// the inert ones and no `#[cfg]` (one that may not be there could leave the name to a glob).
    Const(ConstDef),
    /// Anything else with that name: the lookup stops (it would only be a guess).
    Other,
}

/// A module-level constant this index can evaluate (see [`Def::Const`]).
#[derive(Clone)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct ConstDef {
    line: usize,
    ty: ptx_abi::Scalar,
    /// The type as written (`usize`, where `ty` is `U64`).
    ty_name: String,
    expr: syn::Expr,
    public: bool,
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

/// Whether a type's attributes leave it without a device layout: `repr`, the inert ones and
/// derives that do not name `DeviceRepr`.
fn is_plain_type(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().all(|a| {
        if a.path().is_ident("derive") {
            let derived = a.meta.require_list().map(|l| l.tokens.to_string()).unwrap_or_default();
            return !derived.contains("DeviceRepr");
        }
        a.path().is_ident("repr") || is_plain(std::slice::from_ref(a))
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
                let (self_ty, generic) = (quote::ToTokens::to_token_stream(&i.self_ty).to_string(), !i.generics.params.is_empty());
                let ty_path = tp.path.segments.iter().map(|s| s.ident.to_string()).collect();
                self.impls.push(Impl { ty: ty.ident.to_string(), ty_path, self_ty, generic, of_trait, plain: is_plain(&i.attrs), line, fns: fns.collect() });
            }
            syn::Item::Struct(syn::ItemStruct { ident, attrs, .. }) | syn::Item::Enum(syn::ItemEnum { ident, attrs, .. }) | syn::Item::Union(syn::ItemUnion { ident, attrs, .. }) => {
                self.define(ident.to_string(), Def::Type { line: ident.span().start().line, plain: is_plain_type(attrs) });
            }
            syn::Item::Trait(t) => self.define(t.ident.to_string(), Def::Trait { line: t.ident.span().start().line, plain: is_plain(&t.attrs) }),
            syn::Item::Macro(m) if m.ident.is_none() => self.has_item_macro = true,
            syn::Item::Const(c) if c.generics.params.is_empty() && is_plain(&c.attrs) && !c.attrs.iter().any(|a| a.path().is_ident("cfg")) => {
                let def = match super::const_eval::scalar_of(&c.ty) {
                    Some(ty) => Def::Const(ConstDef { line: c.ident.span().start().line, ty, ty_name: quote::ToTokens::to_token_stream(&c.ty).to_string(), expr: (*c.expr).clone(), public: !matches!(c.vis, syn::Visibility::Inherited) }),
                    None => Def::Other,
                };
                self.define(c.ident.to_string(), def);
            }
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
    // Bodies skimmed first (`source_skim`); anything that does not parse so (a shebang, a
    // body the skim misjudged) gets the whole file parsed.
    let file = match skimmed(text) {
        Some(file) => file,
        None => syn::parse_file(text).ok()?,
    };
    Some(index(&file))
}

fn skimmed(text: &str) -> Option<syn::File> {
    syn::parse2(super::source_skim::skim(text.parse().ok()?)).ok()
}

fn index(file: &syn::File) -> Index {
    let mut blocks = ItemBlocks(Vec::new());
    syn::visit::Visit::visit_file(&mut blocks, file);
    Index { root: Module::of_items(&file.items, None, false), item_blocks: blocks.0 }
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
    /// A struct, enum or union defined in this module; where it is when it is plain.
    Type(Place, Option<Found>),
    /// A trait without `#[device_fn]`.
    PlainTrait(Found),
    /// A constant this index can evaluate, and the module that defines it.
    Const(Place, ConstDef),
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
            return match &self.parent {
                Some(p) => Some((**p).clone()),
                // A file looked at by itself: its parent is known from the crate's root.
                None => in_crate(&self.file)?.1.parent.as_deref().cloned(),
            };
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
        Place::root(file, Some(Rc::new(self.clone())))
    }

    /// The root module of `file`, declared in `parent` (`None`: a crate's root, or a file looked
    /// at by itself).
    fn root(file: PathBuf, parent: Option<Rc<Place>>) -> Option<Place> {
        let index = index_of(&file)?;
        Some(Place { file, index, chain: Vec::new(), names: Vec::new(), parent })
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
                    // A private item is not imported, except by a descendant (`super::*`).
                    Target::Fn(f) if !f.public && !g.iter().all(|s| s == "super" || s == "self") => None,
                    Target::Const(_, c) if !c.public && !g.iter().all(|s| s == "super" || s == "self") => None,
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
                        ([], [Def::Const(c)]) => Some(Target::Const(self.clone(), c.clone())),
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
                // A `use` beside a module of the same name imports a value (`mod sinf;` and
                // `pub use self::sinf::sinf;`): rustc refuses two items of one namespace.
                let uses_only = others.iter().all(|d| matches!(d, Def::Use(_)));
                match (mods.as_slice(), others.as_slice()) {
                    ([Def::Inline(i)], _) if uses_only => {
                        let mut p = self.clone();
                        p.chain.push(*i);
                        p.names.push(name.to_owned());
                        Some(Target::Module(p))
                    }
                    ([Def::File], _) if uses_only => Some(self.file_module(name).map_or(Target::Other, Target::Module)),
                    ([], [Def::Use(path)]) => Some(self.resolve(path, Ns::Type, w).unwrap_or(Target::Other)),
                    ([], [Def::Type { line, plain }]) => Some(Target::Type(self.clone(), plain.then(|| Found { file: self.file.clone(), line: *line }))),
                    ([], [Def::Trait { line, plain: true }]) => Some(Target::PlainTrait(Found { file: self.file.clone(), line: *line })),
                    _ => Some(Target::Other),
                }
            }
        }
    }

    /// A path written in this module; the last segment in `ns`.
    fn resolve(&self, path: &[String], ns: Ns, w: &mut Walk) -> Option<Target> {
        let (last, init) = path.split_last()?;
        let mut place = self.clone();
        // A first segment this crate does not define may be a dependency's name (Rust's
        // extern prelude); after a leading `::` it can only be one.
        let external = |seg: &str| extern_crate(seg).map(Target::Module);
        for (i, seg) in path.iter().enumerate() {
            let after_colons = i == 1 && path.first().is_some_and(|f| f == "::");
            place = match seg.as_str() {
                "::" if i == 0 => continue,
                _ if after_colons && i == init.len() => return external(seg).filter(|_| ns == Ns::Type),
                _ if after_colons => extern_crate(seg)?,
                "self" if i == 0 => place,
                "super" if path[..i].iter().all(|s| s == "super") => place.parent()?,
                "crate" if i == 0 => in_crate(&place.file)?.0,
                "crate" | "::" | "$crate" | "self" | "super" => return None,
                _ if i == init.len() => {
                    return match place.lookup(last, ns, w) {
                        None if i == 0 && ns == Ns::Type => external(seg),
                        found => found,
                    };
                }
                _ => match place.lookup(seg, Ns::Type, w) {
                    Some(Target::Module(p)) => p,
                    None if i == 0 => extern_crate(seg)?,
                    _ => return None,
                },
            };
        }
        // `use super::*`: the path is a module.
        (ns == Ns::Type).then_some(Target::Module(place))
    }
}

/// The crate's root module and `file`'s root module as the crate reaches it (through the
/// root's `mod` declarations, so its parent is known); `None` unless exactly one of the
/// [`crate_root::candidates`] reaches the file.
fn in_crate(file: &Path) -> Option<(Place, Place)> {
    let target = std::fs::canonicalize(file).ok()?;
    let mut found = None;
    for root_file in roots() {
        let Some(root) = Place::root(root_file, None) else { continue };
        let Some(place) = descend(&root, &target) else { continue };
        if found.is_some() {
            return None;
        }
        found = Some((root, place));
    }
    found
}

/// The root module of the dependency code names `name`.
fn extern_crate(name: &str) -> Option<Place> {
    Place::root(dependency_file(name)?, None)
}

/// The root file of the dependency code names `name` (see `crate_root::dependency_root`).
fn dependency_file(name: &str) -> Option<PathBuf> {
    #[cfg(test)]
    if let Some(file) = tests::DEPS.with(|d| d.borrow().iter().find(|(n, _)| n == name).map(|(_, f)| f.clone())) {
        return Some(file);
    }
    super::crate_root::dependency_root(name)
}

/// The files that may be the crate's root.
fn roots() -> Vec<PathBuf> {
    #[cfg(test)]
    if let Some(roots) = tests::ROOTS.with(|r| r.borrow().clone()) {
        return roots;
    }
    super::crate_root::candidates()
}

/// The place of the file `target` (canonical), following the modules its path names from
/// `root`'s directory (`a/b.rs` and `a/b/mod.rs` are `mod a` then `mod b`), each declared.
fn descend(root: &Place, target: &Path) -> Option<Place> {
    let root_file = std::fs::canonicalize(&root.file).ok()?;
    if root_file == target {
        return Some(root.clone());
    }
    let rel = target.strip_prefix(root_file.parent()?).ok()?;
    let mut names = rel.iter().map(|c| c.to_str().map(str::to_owned)).collect::<Option<Vec<String>>>()?;
    let last = names.pop()?;
    if last != "mod.rs" {
        names.push(last.strip_suffix(".rs")?.to_owned());
    }
    let mut place = root.clone();
    for name in &names {
        place = match place.lookup(name, Ns::Type, &mut Walk::default())? {
            Target::Module(p) => p,
            _ => return None,
        };
    }
    let reached = place.chain.is_empty() && !names.is_empty() && std::fs::canonicalize(&place.file).ok()? == target;
    reached.then_some(place)
}

/// The file a span of the compiler is in and where, when it names one (a span a macro made
/// up has line 0).
fn located(at: Span) -> Option<(PathBuf, LineColumn)> {
    let file = at.local_file()?;
    let pos = at.start();
    (pos.line != 0).then_some((file, pos))
}

/// The definition of the function a body calls by `path` (its segments, without generic
/// arguments) at `at`, when it is a plain function this lookup can see: written in the same
/// file as the call or in a file one of its `mod m;` declares. `None` for everything else.
pub fn plain_fn(at: Span, path: &[String]) -> Option<FnDef> {
    let (file, pos) = located(at)?;
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
    let mut place = Place::root(file.to_path_buf(), None)?;
    let index = place.index.clone();
    if index.item_blocks.iter().any(|&(a, b)| contains(a, b, pos)) {
        return None;
    }
    index.root.chain_to(pos, &mut place.chain);
    let mut m = &index.root;
    for &i in &place.chain {
        place.names.push(m.mods[i].0.clone());
        m = &m.mods[i].1;
    }
    Some(place)
}

/// A module-level constant's value (see [`const_value`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstValue {
    pub value: i128,
    pub ty: ptx_abi::Scalar,
    /// The type as its definition writes it (`usize`).
    pub ty_name: String,
    /// Where it is defined: the file and the 1-based line of its name.
    pub file: PathBuf,
    pub line: usize,
}

/// The value of the constant a body names by `path` at `at`, when this lookup finds its
/// definition (`const TILE: usize = 16;` in the module, a `use` or glob of this crate, or a
/// file a `mod m;` declares) and [`const_eval`](super::const_eval) can evaluate its
/// initializer, the constants it names included; `None` for everything else.
pub fn const_value(at: Span, path: &[String]) -> Option<ConstValue> {
    let (file, pos) = located(at)?;
    const_value_at(&file, pos, path)
}

fn const_value_at(file: &Path, pos: LineColumn, path: &[String]) -> Option<ConstValue> {
    let mut w = Walk::default();
    let Target::Const(place, def) = place_at(file, pos)?.resolve(path, Ns::Value, &mut w)? else { return None };
    let value = place.evaluate(&def, &mut w)?;
    Some(ConstValue { value, ty: def.ty, ty_name: def.ty_name, file: place.file.clone(), line: def.line })
}

impl Place {
    /// The value of a constant this module defines; the constants its initializer names are
    /// looked up from here.
    fn evaluate(&self, def: &ConstDef, w: &mut Walk) -> Option<i128> {
        w.steps += 1;
        if w.steps > MAX_STEPS {
            return None;
        }
        let mut named = |path: &[String]| {
            let Target::Const(place, d) = self.resolve(path, Ns::Value, w)? else { return None };
            Some((place.evaluate(&d, w)?, d.ty))
        };
        let (v, ty) = super::const_eval::eval(&def.expr, Some(def.ty), &mut named)?;
        (ty == def.ty).then_some(v)
    }
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

/// The impl that defines `name` (a method or associated function, inherent or of a trait, or
/// an operator trait's method when `of_trait` is given) for the type written `ty` at `at`, when
/// it is an impl without `#[device_fn]` in the type's own module (where a `#[device_fn] impl`
/// must be), and no other impl there defines `name` (it may be the one a call resolves to).
pub fn plain_method(at: Span, ty: &[String], name: &str, of_trait: Option<&str>) -> Option<PlainMethod> {
    let (file, pos) = located(at)?;
    plain_method_at(&file, pos, ty, name, of_trait)
}

fn plain_method_at(file: &Path, pos: LineColumn, ty: &[String], name: &str, of_trait: Option<&str>) -> Option<PlainMethod> {
    let Target::Type(place, _) = place_at(file, pos)?.resolve(ty, Ns::Type, &mut Walk::default())? else { return None };
    let base = ty.last()?;
    // An operator is its trait's impl; a method or associated function any impl's.
    let defines = |i: &&Impl| &i.ty == base && (of_trait.is_none() || i.of_trait.as_deref() == of_trait) && i.fns.iter().any(|f| f.0 == name);
    let mut found = Vec::new();
    found.extend(place.module().impls.iter().filter(defines).map(|i| (place.clone(), i.clone())));
    // None in the type's module: an impl without `#[device_fn]` may be anywhere in the crate,
    // its path naming the type there.
    if found.is_empty() {
        let (modules, true) = crate_modules(file)? else { return None };
        for m in modules.iter().map(|(m, _)| m).filter(|m| !same_module(m, &place)) {
            for i in m.module().impls.iter().filter(defines) {
                if matches!(m.resolve(&i.ty_path, Ns::Type, &mut Walk::default()), Some(Target::Type(p, _)) if same_module(&p, &place)) {
                    found.push((m.clone(), i.clone()));
                }
            }
        }
    }
    let [(m, i)] = <[(Place, Impl); 1]>::try_from(found).ok()?;
    i.plain_fn(name).then(|| PlainMethod { file: m.file.clone(), line: i.line, of_trait: i.of_trait.clone() })
}

/// Where a definition is: its file and the 1-based line of its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub file: PathBuf,
    pub line: usize,
}

/// The definition of the trait written `path` at `at` when it is a trait without
/// `#[device_fn]` (so it has no replay for an impl to fetch); `None` for everything else.
pub fn plain_trait(at: Span, path: &[String]) -> Option<Found> {
    let (file, pos) = located(at)?;
    plain_trait_at(&file, pos, path)
}

fn plain_trait_at(file: &Path, pos: LineColumn, path: &[String]) -> Option<Found> {
    match place_at(file, pos)?.resolve(path, Ns::Type, &mut Walk::default())? {
        Target::PlainTrait(t) => Some(t),
        _ => None,
    }
}

/// The definition of the struct, enum or union written `path` at `at` when nothing gives it a
/// device layout (no `#[derive(DeviceRepr)]`); `None` for everything else.
pub fn plain_type(at: Span, path: &[String]) -> Option<Found> {
    let (file, pos) = located(at)?;
    plain_type_at(&file, pos, path)
}

fn plain_type_at(file: &Path, pos: LineColumn, path: &[String]) -> Option<Found> {
    match place_at(file, pos)?.resolve(path, Ns::Type, &mut Walk::default())? {
        Target::Type(_, found) => found,
        _ => None,
    }
}

/// How many modules a walk over the crate ([`crate_modules`]) looks through.
const MAX_MODULES: usize = 512;

/// The impl of a trait for the primitive `prim` that defines `method`, when the crate (from its
/// root, or the file of `at` alone when the root is not known) has such impls and every one of
/// them is without `#[device_fn]`: a trait's impl for a primitive may be in any module.
pub fn plain_prim_impl(at: Span, prim: &str, method: &str) -> Option<PlainMethod> {
    let file = at.local_file()?;
    plain_prim_impl_in(&file, prim, method)
}

fn plain_prim_impl_in(file: &Path, prim: &str, method: &str) -> Option<PlainMethod> {
    let (modules, _) = crate_modules(file)?;
    let mut found = None;
    for (place, _) in &modules {
        for i in prim_impls(place, prim, method) {
            if !i.plain_fn(method) {
                return None;
            }
            found.get_or_insert(PlainMethod { file: place.file.clone(), line: i.line, of_trait: i.of_trait.clone() });
        }
    }
    found
}

/// A `#[device_fn]` impl that method syntax cannot reach from where it is called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unseen {
    pub file: PathBuf,
    /// 1-based line of the `impl`.
    pub line: usize,
    pub of_trait: String,
    /// The impl's module from the crate's root (`crate::num`), when the root is known.
    pub module: Option<String>,
}

/// The `#[device_fn]` impl of a trait for `prim` that defines `method`, when the crate's only
/// such impls are in one module whose items the module at `at` does not see (it is not that
/// module, and no glob of it, followed as far as this lookup can, imports them) and nothing
/// there imports `alias` (the name method syntax fetches, see `front::prim_method`) by name,
/// nor has another `#[device_fn]` impl for `prim` (whose trait's defaults may have `method`):
/// the fetch cannot succeed. Globs of `ptx_runtime`, `core` and `std` are known not to bring
/// a user trait's impls; any other this lookup cannot follow makes the answer `None`.
pub fn unseen_prim_impl(at: Span, prim: &str, method: &str, alias: &str) -> Option<Unseen> {
    let (file, pos) = located(at)?;
    unseen_prim_impl_at(&file, pos, prim, method, alias)
}

fn unseen_prim_impl_at(file: &Path, pos: LineColumn, prim: &str, method: &str, alias: &str) -> Option<Unseen> {
    let (modules, rooted) = crate_modules(file)?;
    let mut found: Option<(&Place, &Vec<String>, &Impl)> = None;
    for (place, path) in &modules {
        for i in prim_impls(place, prim, method).filter(|i| !i.plain_fn(method)) {
            match found {
                Some((p, _, _)) if !same_module(p, place) => return None,
                Some(_) => {}
                None => found = Some((place, path, i)),
            }
        }
    }
    let (target, path, imp) = found?;
    let seen = place_at(file, pos)?.seen_modules()?;
    if seen.iter().any(|m| same_module(m, target) || may_provide(m, prim, alias)) {
        return None;
    }
    Some(Unseen { file: target.file.clone(), line: imp.line, of_trait: imp.of_trait.clone()?, module: rooted.then(|| path.join("::")) })
}

/// The impls of a trait for `prim` in `place`'s module that define `method`.
fn prim_impls<'a>(place: &'a Place, prim: &'a str, method: &'a str) -> impl Iterator<Item = &'a Impl> {
    place.module().impls.iter().filter(move |i| i.ty == prim && i.of_trait.is_some() && i.fns.iter().any(|f| f.0 == method))
}

impl Impl {
    /// Whether the impl and its function `name` carry no attribute but the inert ones.
    fn plain_fn(&self, name: &str) -> bool {
        self.plain && self.fns.iter().any(|f| f.0 == name && f.2)
    }
}

/// Whether two places are the same module.
fn same_module(a: &Place, b: &Place) -> bool {
    a.chain == b.chain && (a.file == b.file || std::fs::canonicalize(&a.file).ok().is_some_and(|f| std::fs::canonicalize(&b.file).ok() == Some(f)))
}

impl Place {
    /// This module and those whose items its globs import (and theirs); `None` where a glob
    /// cannot be followed. Globs of `ptx_runtime`, `core` and `std` are left out: they bring
    /// no user items.
    fn seen_modules(&self) -> Option<Vec<Place>> {
        let (mut out, mut todo, mut w): (Vec<Place>, _, _) = (Vec::new(), vec![self.clone()], Walk::default());
        while let Some(place) = todo.pop() {
            if out.iter().any(|v| same_module(v, &place)) {
                continue;
            }
            for g in &place.module().globs {
                let first = if g.first().is_some_and(|f| f == "::") { g.get(1) } else { g.first() };
                if first.is_some_and(|f| matches!(f.as_str(), "ptx_runtime" | "core" | "std")) {
                    continue;
                }
                match place.resolve(g, Ns::Type, &mut w)? {
                    Target::Module(p) => todo.push(p),
                    _ => return None,
                }
            }
            out.push(place);
        }
        Some(out)
    }
}

/// Whether method syntax on the primitive `prim` at `at` certainly cannot reach a `#[device_fn]`
/// impl's `method`: neither the call's module nor any module whose items its globs import has
/// a `#[device_fn]` impl of a trait for `prim` (nor an item macro, nor an import of `alias`, the
/// name the call fetches), as far as every glob can be followed.
pub fn prim_method_unreachable(at: Span, prim: &str, method: &str, alias: &str) -> bool {
    located(at).and_then(|(file, pos)| prim_method_unreachable_at(&file, pos, prim, method, alias)).unwrap_or(false)
}

fn prim_method_unreachable_at(file: &Path, pos: LineColumn, prim: &str, _method: &str, alias: &str) -> Option<bool> {
    let seen = place_at(file, pos)?.seen_modules()?;
    Some(!seen.iter().any(|m| may_provide(m, prim, alias)))
}

/// Whether method syntax on `prim` may find a `#[device_fn]` impl's method through `m`'s items:
/// it has such an impl of a trait for `prim` (which may define the method, or have it from one
/// of the trait's default methods), imports `alias` by name, or has an item macro.
fn may_provide(m: &Place, prim: &str, alias: &str) -> bool {
    let module = m.module();
    module.has_item_macro || module.names.contains_key(alias) || module.impls.iter().any(|i| i.ty == prim && i.of_trait.is_some() && !i.plain)
}

/// Every module of the crate (from its root, or of the file alone when the root is not known;
/// the `bool` says which) with its path (`crate::a::b`); `None` where an item macro may define
/// modules or impls, or past [`MAX_MODULES`].
fn crate_modules(file: &Path) -> Option<(Vec<(Place, Vec<String>)>, bool)> {
    let (start, rooted) = match in_crate(file) {
        Some((root, _)) => (root, true),
        None => (place_at(file, LineColumn { line: 1, column: 0 })?, false),
    };
    let first = if rooted { "crate" } else { "self" };
    let (mut todo, mut out): (Vec<(Place, Vec<String>)>, Vec<(Place, Vec<String>)>) = (vec![(start, vec![first.to_owned()])], Vec::new());
    while let Some((place, path)) = todo.pop() {
        if out.len() >= MAX_MODULES {
            return None;
        }
        let module = place.module();
        if module.has_item_macro {
            return None;
        }
        for (i, (name, _)) in module.mods.iter().enumerate() {
            let mut p = place.clone();
            p.chain.push(i);
            p.names.push(name.clone());
            todo.push((p, [path.clone(), vec![name.clone()]].concat()));
        }
        for (name, defs) in &module.names {
            if defs.iter().any(|d| matches!(d, Def::File)) {
                if let Some(p) = place.file_module(name).filter(|p| !out.iter().any(|(q, _)| q.file == p.file && q.chain.is_empty())) {
                    todo.push((p, [path.clone(), vec![name.clone()]].concat()));
                }
            }
        }
        out.push((place, path));
    }
    Some((out, rooted))
}

/// The `#[device_fn]` impls for single instances of the generic type written `ty` at `at` that
/// may give it the method `name`: the inherent ones that define it (`false`) and those of traits
/// that may be user traits (`user_trait` of the trait's name; `true`: one of its default
/// methods may be `name`), each with its self type as written and where it is, when the type's
/// module (where a `#[device_fn] impl` must be) has such inherent impls and no generic impl or
/// impl without `#[device_fn]` that may define it. `None` otherwise.
pub fn instance_impls(at: Span, ty: &[String], name: &str, user_trait: impl Fn(&str) -> bool) -> Option<Vec<(String, Found, bool)>> {
    let (file, pos) = located(at)?;
    instance_impls_at(&file, pos, ty, name, user_trait)
}

fn instance_impls_at(file: &Path, pos: LineColumn, ty: &[String], name: &str, user_trait: impl Fn(&str) -> bool) -> Option<Vec<(String, Found, bool)>> {
    let Target::Type(place, _) = place_at(file, pos)?.resolve(ty, Ns::Type, &mut Walk::default())? else { return None };
    let module = place.module();
    if module.has_item_macro {
        return None;
    }
    let base = ty.last()?;
    let mut out = Vec::new();
    for i in module.impls.iter().filter(|i| &i.ty == base) {
        let defines = i.fns.iter().any(|f| f.0 == name);
        let user = i.of_trait.as_deref().is_some_and(&user_trait);
        if !(defines || user) || (i.of_trait.is_some() && !user) {
            continue;
        }
        if i.generic || i.plain || !i.self_ty.contains('<') {
            return None;
        }
        out.push((i.self_ty.clone(), Found { file: place.file.clone(), line: i.line }, i.of_trait.is_some()));
    }
    out.iter().any(|e| !e.2).then_some(out)
}

/// The `#[device_fn]` impl in the module of the type written `ty` (one name, imported alone:
/// `use geo::Vec3;`) at `at` that defines `name` (an operator trait's method when `of_trait` is
/// given), when the module at `at` does not see that module's items (it is not that module, no
/// glob of it imports them, as far as every glob can be followed) nor imports `replay` (the
/// name the call fetches) by name: the fetch cannot succeed. With the module's path from the
/// crate's root (`crate::geo`) when the root is known.
pub fn unseen_type_impl(at: Span, ty: &[String], name: &str, of_trait: Option<&str>, replay: &str) -> Option<(Found, Option<String>)> {
    let (file, pos) = located(at)?;
    if ty.len() != 1 {
        return None;
    }
    let call = place_at(&file, pos)?;
    let Target::Type(place, _) = call.resolve(ty, Ns::Type, &mut Walk::default())? else { return None };
    let base = ty.last()?;
    let module = place.module();
    let imp = module.impls.iter().find(|i| &i.ty == base && !i.plain && i.fns.iter().any(|f| f.0 == name) && (of_trait.is_none() || i.of_trait.as_deref() == of_trait))?;
    let seen = call.seen_modules()?;
    if seen.iter().any(|m| same_module(m, &place) || m.module().names.contains_key(replay) || m.module().has_item_macro) {
        return None;
    }
    let path = crate_modules(&file).filter(|(_, rooted)| *rooted).and_then(|(ms, _)| ms.into_iter().find(|(m, _)| same_module(m, &place)).map(|(_, p)| p.join("::")));
    Some((Found { file: place.file.clone(), line: imp.line }, path))
}

/// `path` for messages: relative to the crate's directory when under it.
pub fn display(file: &Path) -> String {
    let rel = std::env::var_os("CARGO_MANIFEST_DIR").and_then(|d| file.strip_prefix(d).ok().map(Path::to_path_buf));
    rel.as_deref().unwrap_or(file).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// The crate roots [`roots`] gives a test (Cargo's own are this crate's).
        pub static ROOTS: RefCell<Option<Vec<PathBuf>>> = const { RefCell::new(None) };
        /// The path dependencies [`extern_crate`] knows in a test, by name.
        pub static DEPS: RefCell<Vec<(String, PathBuf)>> = const { RefCell::new(Vec::new()) };
    }

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

    /// The skimmed parse gives every `.rs` file of this workspace the index a full parse
    /// gives, and skims something off most of them.
    #[test]
    fn skimmed_bodies_leave_the_index_as_it_was() {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() && !p.ends_with("target") && !p.ends_with(".git") {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let mut files = Vec::new();
        walk(root, &mut files);
        assert!(files.len() > 100, "{} files under {}", files.len(), root.display());
        proc_macro2::fallback::force();
        let (mut compared, mut smaller) = (0, 0);
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            let Ok(full) = syn::parse_file(&text) else { continue };
            let skim = skimmed(&text).unwrap_or_else(|| panic!("{}: the skimmed tokens do not parse", f.display()));
            assert!(index(&skim) == index(&full), "{}: the skimmed index differs", f.display());
            compared += 1;
            let count = |t: proc_macro2::TokenStream| t.to_string().len();
            if count(quote::ToTokens::to_token_stream(&skim)) < count(quote::ToTokens::to_token_stream(&full)) {
                smaller += 1;
            }
        }
        proc_macro2::fallback::unforce();
        assert!(compared > 100 && smaller * 2 > compared, "{compared} files compared, {smaller} skimmed");
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
mod far { use super::geo::V; impl V { pub fn far(self) {} } impl crate::geo::W { pub fn w(self) {} } }
";

    #[test]
    fn finds_plain_impls_in_the_types_module() {
        let t = Tree::new("methods", &[("src/lib.rs", METHODS)]);
        let f = t.0.join("src/lib.rs");
        let find = |ty: &str, name: &str, of_trait: Option<&str>| plain_method_at(&f, at(12, 15), &segs(ty), name, of_trait).map(|m| (m.line, m.of_trait));
        assert_eq!(find("V", "len", None), Some((3, None)));
        assert_eq!(find("geo::V", "len", None), Some((3, None)));
        assert_eq!(find("V", "add", Some("Add")), Some((4, Some("Add".to_owned()))));
        // A trait's method by method syntax: its impl.
        assert_eq!(find("V", "add", None), Some((4, Some("Add".to_owned()))));
        // A `#[device_fn] impl`; a name two impls define; no such method; not a type.
        assert_eq!(find("V", "dev", None), None);
        assert_eq!(find("geo::W", "both", None), None);
        assert_eq!(find("V", "nothing", None), None);
        assert_eq!(find("V", "sub", Some("Sub")), None);
        assert_eq!(find("k", "len", None), None);
        // In another module of the crate, once its root is known.
        assert_eq!(find("V", "far", None), None);
        ROOTS.with(|r| *r.borrow_mut() = Some(vec![f.clone()]));
        assert_eq!(find("V", "far", None), Some((13, None)));
        assert_eq!(find("geo::W", "w", None), Some((13, None)));
        assert_eq!(find("V", "w", None), None);
        ROOTS.with(|r| *r.borrow_mut() = None);
    }

    #[test]
    fn impls_for_single_instances() {
        let t = Tree::new("instances", &[(
            "src/lib.rs",
            "mod geo {\n pub struct P<T>(T);\n #[device_fn] impl P<f32> { fn s(self) {} fn g(self) {} }\n #[device_fn] impl P<u8> { fn s(self) {} }\n #[device_fn] impl<T> P<T> { fn g(self) {} }\n}\nuse geo::*;\nfn k() {}\n",
        )]);
        let f = t.0.join("src/lib.rs");
        let find = |name: &str| instance_impls_at(&f, at(8, 4), &segs("P"), name, |_| true).map(|v| v.into_iter().map(|(t, d, _)| (t, d.line)).collect::<Vec<_>>());
        assert_eq!(find("s"), Some(vec![("P < f32 >".to_owned(), 3), ("P < u8 >".to_owned(), 4)]));
        // A generic impl defines `g` too; nothing defines `x`.
        assert_eq!(find("g"), None);
        assert_eq!(find("x"), None);
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
    fn crate_paths_and_super_start_at_the_crate_root() {
        let t = Tree::new("crate", &[
            ("tests/suite/main.rs", "mod a;\nmod util { pub fn helper() {} }\nfn top() {}\n"),
            ("tests/suite/a.rs", "mod b;\nfn k() { crate::util::helper(); super::top(); }\n"),
            ("tests/suite/a/b.rs", "fn k() { crate::a::g(); super::super::top(); }\n"),
            ("tests/other.rs", "fn top() {}\n"),
        ]);
        ROOTS.with(|r| *r.borrow_mut() = Some(vec![t.0.join("tests/other.rs"), t.0.join("tests/suite/main.rs")]));
        let found = |file: &str, path: &str| t.find(file, at(2, 12), path);
        assert_eq!(found("tests/suite/a.rs", "crate::util::helper"), Some(("tests/suite/main.rs".into(), 2)));
        assert_eq!(found("tests/suite/a.rs", "super::top"), Some(("tests/suite/main.rs".into(), 3)));
        assert_eq!(t.find("tests/suite/a/b.rs", at(1, 12), "super::super::top"), Some(("tests/suite/main.rs".into(), 3)));
        assert_eq!(t.find("tests/suite/a/b.rs", at(1, 12), "crate::nothing"), None);
        // Two roots that both reach the file: no root.
        ROOTS.with(|r| *r.borrow_mut() = Some(vec![t.0.join("tests/suite/main.rs"), t.0.join("tests/suite/main.rs")]));
        assert_eq!(found("tests/suite/a.rs", "crate::util::helper"), None);
        // A root that does not declare the file's module: not its crate.
        ROOTS.with(|r| *r.borrow_mut() = Some(vec![t.0.join("tests/other.rs")]));
        assert_eq!(found("tests/suite/a.rs", "crate::util::helper"), None);
        ROOTS.with(|r| *r.borrow_mut() = None);
    }

    #[test]
    fn plain_traits_types_and_primitive_impls() {
        let t = Tree::new("traits", &[
            ("src/lib.rs", "mod num;\npub trait Area { fn area(&self) -> f32; }\n#[device_fn] pub trait Dev {}\nuse num::Halve;\nfn k() {}\n#[derive(Clone, Copy)] #[repr(C)] pub struct P;\n#[derive(Clone, ptx_runtime::DeviceRepr)] pub struct D;\n#[doc = \"e\"] enum E { A }\n"),
            ("src/num.rs", "pub trait Halve { fn halve(self) -> Self; }\nimpl Halve for f32 { fn halve(self) -> f32 { self } }\n#[device_fn] impl super::Dev for f32 { fn d(self) {} }\nimpl super::Dev for u32 { fn d(self) {} }\n"),
        ]);
        let f = t.0.join("src/lib.rs");
        let traits = |path: &str| plain_trait_at(&f, at(5, 8), &segs(path)).map(|d| d.line);
        assert_eq!(traits("Area"), Some(2));
        assert_eq!(traits("Halve"), Some(1));
        assert_eq!(traits("num::Halve"), Some(1));
        assert_eq!(traits("Dev"), None);
        assert_eq!(traits("k"), None);
        let types = |path: &str| plain_type_at(&f, at(5, 8), &segs(path)).map(|d| d.line);
        assert_eq!(types("P"), Some(6));
        assert_eq!(types("crate::P"), None);
        assert_eq!(types("D"), None);
        assert_eq!(types("E"), Some(8));
        assert_eq!(types("Area"), None);
        let prim = |ty: &str, m: &str| plain_prim_impl_in(&f, ty, m).map(|i| (i.file.strip_prefix(&t.0).unwrap().display().to_string(), i.line, i.of_trait));
        assert_eq!(prim("f32", "halve"), Some(("src/num.rs".into(), 2, Some("Halve".to_owned()))));
        // A `#[device_fn]` impl defines `d` for `f32`; nothing defines `halve` for `u32`.
        assert_eq!(prim("f32", "d"), None);
        assert_eq!(prim("u32", "halve"), None);
        assert_eq!(prim("u32", "d"), Some(("src/num.rs".into(), 4, Some("Dev".to_owned()))));
        // `f32`'s `d` is a device impl's, in `num`, which `src/lib.rs` does not glob-import.
        let unseen = |file: &str, pos: LineColumn| unseen_prim_impl_at(&t.0.join(file), pos, "f32", "d", "alias").map(|u| (u.line, u.module));
        assert_eq!(unseen("src/lib.rs", at(5, 8)), Some((3, None)));
        assert_eq!(unseen("src/num.rs", at(3, 8)), None);
        assert_eq!(unseen_prim_impl_at(&f, at(5, 8), "f32", "halve", "alias"), None);
    }

    #[test]
    fn device_impls_for_primitives_seen_through_globs() {
        let t = Tree::new("unseen", &[(
            "src/lib.rs",
            "mod num { pub trait H {} #[device_fn] impl H for f32 { fn h(self) {} } }\n\
             mod a { use ptx_runtime::device::*; use super::num::H; fn k() {} }\n\
             mod b { use super::num::*; fn k() {} }\n\
             mod c { use super::b::*; use super::a::*; fn k() {} }\n\
             mod d { use other::*; fn k() {} }\n",
        )]);
        let f = t.0.join("src/lib.rs");
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let unseen = |line: usize| unseen_prim_impl_at(&f, at(line, lines[line - 1].find("fn k").unwrap()), "f32", "h", "alias").map(|u| u.line);
        // Only the trait imported: the impl's module is not seen.
        assert_eq!(unseen(2), Some(1));
        // A glob of the module, a glob of a glob of it, another crate's glob.
        assert_eq!(unseen(3), None);
        assert_eq!(unseen(4), None);
        assert_eq!(unseen(5), None);
        // The method nothing defines is unreachable where every glob is followed.
        let unreachable = |line: usize, m: &str| prim_method_unreachable_at(&f, at(line, lines[line - 1].find("fn k").unwrap()), "f32", m, "alias");
        assert_eq!(unreachable(2, "h"), Some(true));
        assert_eq!(unreachable(3, "h"), Some(false));
        // `b` sees `num`'s impl for `f32`, whose trait's defaults might have the method.
        assert_eq!(unreachable(3, "nothing"), Some(false));
        assert_eq!(unreachable(2, "nothing"), Some(true));
        assert_eq!(unreachable(5, "nothing"), None);
    }

    #[test]
    fn path_dependencies_are_followed() {
        let t = Tree::new("deps", &[
            ("app/src/lib.rs", "use mathlib::twice;\nuse mathlib::geo::*;\nfn k() { mathlib::helper(); ::mathlib::helper(); twice(); area(); dev(); }\n"),
            ("mathlib/src/lib.rs", "pub fn helper() {}\npub fn twice() {}\npub mod geo { pub fn area() {} #[device_fn] pub fn dev() {} }\nmod sq;\npub use self::sq::sq;\n"),
            ("mathlib/src/sq.rs", "pub fn sq() {}\n"),
        ]);
        DEPS.with(|d| *d.borrow_mut() = vec![("mathlib".to_owned(), t.0.join("mathlib/src/lib.rs"))]);
        let call = at(3, 10);
        assert_eq!(t.find("app/src/lib.rs", call, "mathlib::helper"), Some(("mathlib/src/lib.rs".into(), 1)));
        let rooted = ["::", "mathlib", "helper"].map(str::to_owned);
        assert_eq!(plain_fn_at(&t.0.join("app/src/lib.rs"), call, &rooted).map(|f| f.line), Some(1));
        assert_eq!(t.find("app/src/lib.rs", call, "twice"), Some(("mathlib/src/lib.rs".into(), 2)));
        assert_eq!(t.find("app/src/lib.rs", call, "area"), Some(("mathlib/src/lib.rs".into(), 3)));
        assert_eq!(t.find("app/src/lib.rs", call, "dev"), None);
        assert_eq!(t.find("app/src/lib.rs", call, "other::helper"), None);
        // A module and the function it re-exports under the module's name.
        assert_eq!(t.find("app/src/lib.rs", call, "mathlib::sq"), Some(("mathlib/src/sq.rs".into(), 1)));
        DEPS.with(|d| d.borrow_mut().clear());
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

    const CONSTS: &str = "\
pub const TILE: usize = 16;
const AREA: usize = TILE * TILE + sizes::PAD as usize;
#[cfg(feature = \"big\")]
const CFG: u32 = 8;
const TWICE: u8 = 1;
const TWICE: u8 = 2;
const F: f32 = 0.5;
const CALL: usize = compute();
const NEG: i32 = -(sizes::PAD as i32) * 2;
mod sizes {
    pub const PAD: u32 = 3;
    const HIDDEN: u32 = 7;
}
mod user {
    use super::TILE as T;
    use super::sizes::*;
    fn k() { let x = T + PAD; let y = HIDDEN; }
}
fn k() { let x = TILE; }
";

    #[test]
    fn constants_are_evaluated_where_they_are_defined() {
        let t = Tree::new("consts", &[("src/lib.rs", CONSTS), ("src/other.rs", "const OWN: u16 = 5;\n")]);
        let f = t.0.join("src/lib.rs");
        let value = |pos, path: &str| const_value_at(&f, pos, &segs(path)).map(|c| (c.value, c.ty_name, c.line));
        let body = at(19, 10);
        assert_eq!(value(body, "TILE"), Some((16, "usize".to_owned(), 1)));
        assert_eq!(value(body, "AREA"), Some((259, "usize".to_owned(), 2)));
        assert_eq!(value(body, "NEG"), Some((-6, "i32".to_owned(), 9)));
        assert_eq!(value(body, "sizes::PAD"), Some((3, "u32".to_owned(), 11)));
        // Through a `use` with a rename and a glob.
        let user = at(17, 15);
        assert_eq!(value(user, "T"), Some((16, "usize".to_owned(), 1)));
        assert_eq!(value(user, "PAD"), Some((3, "u32".to_owned(), 11)));
        // Not certain, not evaluable, not there: a `#[cfg]`, two definitions, a float, a call,
        // a private item of a glob, a name another file defines.
        for path in ["CFG", "TWICE", "F", "CALL", "nowhere"] {
            assert_eq!(value(body, path), None, "{path}");
        }
        assert_eq!(value(user, "HIDDEN"), None);
        assert_eq!(value(body, "OWN"), None);
    }
}
