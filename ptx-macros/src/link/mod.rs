//! Knowledge that crosses items.
//!
//! A proc macro sees one item. A kernel that reads a struct's fields or calls a device
//! function needs their definitions, so each definition leaves a *replay*: `#[derive(DeviceRepr)]`
//! and `#[device_fn]` emit a hidden `#[macro_export] macro_rules!` re-exported under the item's
//! own name (`pub use __ptx_repr_Foo_1a2b as Foo;` — the macro namespace, so `path::Foo!`
//! resolves wherever the type `path::Foo` does, in any module or crate). The device API in
//! `ptx-runtime` has replays too.
//!
//! Compiling a body that needs such knowledge expands into a chain: `A! { @ptx_fetch ... }`
//! appends A's description and invokes `B!`, ... and the last link invokes the hidden
//! `ptx_runtime::__private::compile!` with the item and everything fetched ([`chain`]). The
//! compiler runs again with that knowledge ([`Env`]); if it then needs more (a struct nested in a
//! struct), it fetches again.

pub mod chain;
pub mod info;
pub mod replay;

use info::Info;
use proc_macro2::TokenStream;
use std::collections::HashMap;

/// What the fetches so far have found, by path.
#[derive(Default)]
pub struct Env {
    found: HashMap<String, Info>,
}

impl Env {
    pub fn new(found: Vec<(TokenStream, Info)>) -> Env {
        let mut map = HashMap::new();
        for (path, info) in found {
            // The device-API functions an inlined body calls, by the names the inlining gives
            // their paths (`front::inline_call`): known without a fetch in the caller's scope.
            if let Info::Inline(i) = &info {
                for (_, name) in &i.apis {
                    map.insert(key(&inline_api_path(name)), Info::Api(name.clone()));
                }
            }
            map.insert(key(&path), info);
        }
        Env { found: map }
    }

    pub fn get(&self, path: &TokenStream) -> Option<&Info> {
        self.found.get(&key(path))
    }

    /// Everything found, by path key ([`key`]).
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Info)> {
        self.found.iter().map(|(k, i)| (k.as_str(), i))
    }
}

/// The path an inlined body's call of the device-API function `name` is given.
pub fn inline_api_path(name: &str) -> TokenStream {
    let name = quote::format_ident!("{}", name);
    quote::quote!(__ptx_inline_api::#name)
}

/// Paths whose replays the compiler asked for.
#[derive(Default)]
pub struct Needs {
    pub paths: Vec<TokenStream>,
}

impl Needs {
    pub fn need(&mut self, path: &TokenStream) {
        let k = key(path);
        if !self.paths.iter().any(|p| key(p) == k) {
            self.paths.push(path.clone());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
}

/// The identity of a path: its tokens, spacing normalised.
pub fn key(path: &TokenStream) -> String {
    path.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}
