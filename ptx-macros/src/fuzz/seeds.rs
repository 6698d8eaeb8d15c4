//! What the fuzzer starts from: every `#[kernel]`, `#[device_fn]` and `#[derive(DeviceRepr)]`
//! item of the workspace's tests, examples and benches, and the "world" their fetch chains
//! resolve against (the device API and the seeds' own replays), read at start-up so the
//! fuzzer grows with the corpus.

use crate::expand;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Directories (under the workspace root) whose `.rs` files hold seed items. `tests/ui` holds
/// the inputs each rule rejects, so the error paths get mutated too.
const SEED_DIRS: &[&str] = &["tests/suite/corpus", "tests/suite", "tests/ui", "examples", "tests/crates/devlib/src", "benches"];

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("ptx-macros sits in the workspace").to_owned()
}

fn rust_files(dir: &Path, recurse: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && recurse {
            out.extend(rust_files(&p, true));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn last_segment(path: &syn::Path) -> String {
    path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
}

fn derives_device_repr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("derive") && a.meta.to_token_stream().to_string().contains("DeviceRepr"))
}

#[derive(Default)]
struct Collect {
    items: Vec<TokenStream>,
}

impl<'ast> Visit<'ast> for Collect {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if f.attrs.iter().any(|a| matches!(last_segment(a.path()).as_str(), "kernel" | "device_fn")) {
            self.items.push(f.to_token_stream());
        }
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        if derives_device_repr(&s.attrs) {
            self.items.push(s.to_token_stream());
        }
    }
    fn visit_item_union(&mut self, u: &'ast syn::ItemUnion) {
        if derives_device_repr(&u.attrs) {
            self.items.push(u.to_token_stream());
        }
    }
    fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
        if derives_device_repr(&e.attrs) {
            self.items.push(e.to_token_stream());
        }
    }
}

/// The seed items, in a fixed order (files sorted, items in file order).
pub fn seeds() -> Vec<TokenStream> {
    let root = workspace_root();
    let mut c = Collect::default();
    for dir in SEED_DIRS {
        for file in rust_files(&root.join(dir), false) {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            if let Ok(parsed) = syn::parse_file(&text) {
                c.visit_file(&parsed);
            }
        }
    }
    c.items
}

/// What a fetch chain finds for a path: replays' descriptions (`@api name`, `@fn ...`,
/// `@struct ...`), keyed by the path's last two segments (`atomic::fetch_add`) and by its last.
#[derive(Default)]
pub struct World {
    by_two: HashMap<String, TokenStream>,
    by_last: HashMap<String, TokenStream>,
}

impl World {
    pub fn get(&self, path: &TokenStream) -> Option<&TokenStream> {
        let idents: Vec<String> = path
            .clone()
            .into_iter()
            .filter_map(|t| match t {
                TokenTree::Ident(i) => Some(i.to_string()),
                _ => None,
            })
            .collect();
        let n = idents.len();
        let two = (n >= 2).then(|| format!("{}::{}", idents[n - 2], idents[n - 1]));
        two.and_then(|k| self.by_two.get(&k)).or_else(|| self.by_last.get(idents.last()?))
    }

    fn add(&mut self, module: Option<&str>, name: &str, info: TokenStream) {
        if let Some(m) = module {
            self.by_two.entry(format!("{m}::{name}")).or_insert_with(|| info.clone());
        }
        self.by_last.entry(name.to_owned()).or_insert(info);
    }

    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.by_last.keys()
    }
}

/// The device API's functions: each `#[device_api]` or `#[device_api(name)]` fn under
/// `ptx-runtime/src/device`, plus the coordinates that `index.rs` declares through a
/// `macro_rules!` (which syn cannot see into).
fn device_api(world: &mut World) {
    struct Api<'w>(&'w mut World, String);
    impl<'ast> Visit<'ast> for Api<'_> {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            for a in &f.attrs {
                if last_segment(a.path()) == "device_api" {
                    let name = match &a.meta {
                        syn::Meta::List(l) => l.tokens.to_string(),
                        _ => f.sig.ident.to_string(),
                    };
                    let info = api_info(&name);
                    self.0.add(Some(&self.1), &f.sig.ident.to_string(), info);
                }
            }
        }
    }
    let dir = workspace_root().join("ptx-runtime/src/device");
    for file in rust_files(&dir, true) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let Ok(parsed) = syn::parse_file(&text) else { continue };
        let module = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Api(world, module).visit_file(&parsed);
    }
    for axis in ["x", "y", "z"] {
        for what in ["thread_idx", "block_idx", "block_dim", "grid_dim"] {
            let name = format!("{what}_{axis}");
            world.add(Some("index"), &name, api_info(&name));
        }
    }
}

fn api_info(name: &str) -> TokenStream {
    let name = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
    quote::quote!(@api #name)
}

/// The replay descriptions in a macro's output: the `{ INFO }` handed to `fetch_next!`, with
/// `$crate` back to `crate`.
fn replays(out: TokenStream, found: &mut Vec<TokenStream>) {
    let toks: Vec<TokenTree> = out.into_iter().collect();
    for (i, t) in toks.iter().enumerate() {
        if let TokenTree::Group(g) = t {
            let is_fetch_next = i >= 2 && matches!((&toks[i - 2], &toks[i - 1]), (TokenTree::Ident(n), TokenTree::Punct(p)) if n == "fetch_next" && p.as_char() == '!');
            match g.stream().into_iter().next() {
                Some(TokenTree::Group(info)) if is_fetch_next && info.delimiter() == Delimiter::Brace => {
                    found.push(undollar(info.stream()));
                }
                _ => replays(g.stream(), found),
            }
        }
    }
}

fn undollar(ts: TokenStream) -> TokenStream {
    ts.into_iter()
        .filter(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == '$'))
        .map(|t| match t {
            TokenTree::Group(g) => TokenTree::Group(proc_macro2::Group::new(g.delimiter(), undollar(g.stream()))),
            t => t,
        })
        .collect()
}

/// The device API and the replays of every seed.
pub fn world(seeds: &[TokenStream]) -> World {
    let mut world = World::default();
    device_api(&mut world);
    for item in seeds {
        let mut infos = Vec::new();
        let Ok(parsed) = syn::parse2::<syn::Item>(item.clone()) else { continue };
        let (attr, item) = super::oracle::without_macro_attr(item.clone());
        let out = match (parsed, attr) {
            (syn::Item::Fn(_), Some(("device_fn", args))) => expand::device_fn(args, item),
            (syn::Item::Fn(_), _) => continue,
            _ => expand::derive_device_repr(item),
        };
        replays(out, &mut infos);
        for info in infos {
            // `@struct Name ...`, `@fn name ...`, `@generic Name`.
            if let Some(TokenTree::Ident(name)) = info.clone().into_iter().nth(2).filter(|_| info.to_string().starts_with('@')) {
                world.add(None, &name.to_string(), info);
            }
        }
    }
    world
}
