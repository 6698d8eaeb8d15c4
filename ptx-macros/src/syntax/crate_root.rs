//! The files that may be the root of the crate being compiled, and the root files of its path
//! dependencies, from what Cargo tells a macro.
//!
//! A path written `crate::util::helper` is looked up from the crate's root file, which no macro
//! is told. Cargo sets `CARGO_MANIFEST_DIR` and `CARGO_CRATE_NAME` for each compilation; the
//! root is the `path` of the manifest's target of that name, or the file Cargo's conventions
//! give that name (`src/lib.rs`, `src/main.rs`, `src/bin/<name>.rs`, `tests/<name>.rs`,
//! `tests/<name>/main.rs`, ..). Several may exist (a package's `lib.rs` and `main.rs` share its
//! name): the caller keeps the one whose `mod` declarations reach the file it looks from.
//!
//! A dependency written `mathlib = { path = "../mathlib" }` (or `[dependencies.mathlib]`, or
//! `{ workspace = true }` with the path in the workspace's `[workspace.dependencies]`) has its
//! root at its own manifest's `[lib] path` or `src/lib.rs` ([`dependency_root`]). A dependency
//! from a registry is found through the workspace's `Cargo.lock` (its one locked version) in
//! Cargo's registry sources (`$CARGO_HOME/registry/src/*/<name>-<version>`); git dependencies
//! are not looked up. The device runtime's own crates are never looked up: their device
//! functions have replays of their own making.
//!
//! The manifest is read line by line (`[lib]`, `[[bin]]`.. headers, `name = ".."` and
//! `path = ".."` keys): enough for what Cargo and trybuild write; anything it misreads only
//! loses a candidate, and a lookup without a root keeps the macro's behaviour without one.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

thread_local! {
    /// The last answer, by manifest directory and crate name (one per compilation).
    static LAST: RefCell<Option<(PathBuf, String, Vec<PathBuf>)>> = const { RefCell::new(None) };
}

/// The existing files that may be the crate's root; empty outside Cargo.
pub fn candidates() -> Vec<PathBuf> {
    let (Some(dir), Ok(name)) = (std::env::var_os("CARGO_MANIFEST_DIR"), std::env::var("CARGO_CRATE_NAME")) else {
        return Vec::new();
    };
    let dir = PathBuf::from(dir);
    if let Some(found) = LAST.with(|l| l.borrow().as_ref().filter(|(d, n, _)| *d == dir && *n == name).map(|l| l.2.clone())) {
        return found;
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let found: Vec<PathBuf> = candidates_in(&dir, &name, &manifest).into_iter().filter(|p| p.is_file()).collect();
    LAST.with(|l| *l.borrow_mut() = Some((dir, name, found.clone())));
    found
}

/// The root file of the path dependency that code names `name` (`mathlib` for `math-lib`),
/// when the crate being compiled has one.
pub fn dependency_root(name: &str) -> Option<PathBuf> {
    if matches!(name, "ptx_runtime" | "ptx_macros" | "ptx_abi") {
        return None;
    }
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let dep = match dependency_path(&manifest, name, false)? {
        DepPath::Path(p) => dir.join(p),
        DepPath::Registry(package) => registry_source(&dir, &package)?,
        DepPath::Workspace => {
            let (root, text) = dir.ancestors().skip(1).find_map(|d| {
                let text = std::fs::read_to_string(d.join("Cargo.toml")).ok()?;
                text.lines().any(|l| l.trim() == "[workspace]").then(|| (d.to_path_buf(), text))
            })?;
            match dependency_path(&text, name, true)? {
                DepPath::Path(p) => root.join(p),
                DepPath::Registry(package) => registry_source(&dir, &package)?,
                DepPath::Workspace => return None,
            }
        }
    };
    let lib = scan(&std::fs::read_to_string(dep.join("Cargo.toml")).ok()?).1.into_iter().find(|t| t.kind == "lib").and_then(|t| t.path);
    let root = dep.join(lib.as_deref().unwrap_or("src/lib.rs"));
    root.is_file().then_some(root)
}

/// The sources of the registry package `package` the workspace's `Cargo.lock` (found from the
/// manifest directory `dir` up) locks at exactly one version.
fn registry_source(dir: &Path, package: &str) -> Option<PathBuf> {
    let lock = dir.ancestors().find_map(|d| std::fs::read_to_string(d.join("Cargo.lock")).ok())?;
    let home = std::env::var_os("CARGO_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    registry_source_in(&lock, package, &home)
}

/// [`registry_source`] with the lock file's text and Cargo's home.
fn registry_source_in(lock: &str, package: &str, home: &Path) -> Option<PathBuf> {
    let mut versions = Vec::new();
    let (mut name, mut version) = (None, None);
    for item in items(lock).chain(std::iter::once(Item::Table("package"))) {
        match item {
            Item::Table(_) => {
                if let (Some(n), Some(v)) = (name.take(), version.take()) {
                    if n == package {
                        versions.push(v);
                    }
                }
            }
            Item::Key("name", v) => name = string(v),
            Item::Key("version", v) => version = string(v),
            Item::Key("source", v) if !v.contains("registry+") => name = None,
            Item::Key(..) => {}
        }
    }
    let [version] = <[String; 1]>::try_from(versions).ok()?;
    let found: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src")).ok()?.filter_map(|e| Some(e.ok()?.path().join(format!("{package}-{version}")))).filter(|p| p.is_dir()).collect();
    found.into_iter().next()
}

/// Where a dependency's path is written.
#[derive(Debug, PartialEq)]
enum DepPath {
    Path(String),
    /// From a registry: the package's name.
    Registry(String),
    /// `{ workspace = true }`: in the workspace's manifest.
    Workspace,
}

/// The path of the dependency `name` (its key, `-` read as `_`) in the manifest's dependency
/// tables (`[workspace.dependencies]` when `workspace`).
fn dependency_path(manifest: &str, name: &str, workspace: bool) -> Option<DepPath> {
    let tables: &[&str] = if workspace { &["workspace.dependencies"] } else { &["dependencies", "dev-dependencies", "build-dependencies"] };
    let is_table = |section: &str| tables.contains(&section) || (!workspace && section.starts_with("target.") && tables.iter().any(|t| section.ends_with(&format!(".{t}"))));
    let same = |key: &str| key.trim_matches('"').replace('-', "_") == name;
    let mut section = "";
    for item in items(manifest) {
        let (key, value) = match item {
            Item::Table(t) => {
                section = t;
                continue;
            }
            Item::Key(k, v) => (k, v),
        };
        // `[dependencies.mathlib]` then `path = ".."`.
        if let Some((table, dep)) = section.rsplit_once('.') {
            if is_table(table) && same(dep) && key.trim() == "path" {
                return string(value).map(DepPath::Path);
            }
        }
        // `mathlib = { path = ".." }`, `mathlib = { workspace = true }`.
        if is_table(section) && same(key) {
            let value = value.trim();
            if let Some(at) = value.find("path") {
                let rest = value[at + 4..].trim_start().strip_prefix('=')?;
                return string(rest).map(DepPath::Path);
            }
            if value.contains("workspace") && value.contains("true") {
                return Some(DepPath::Workspace);
            }
            if value.contains("git") {
                return None;
            }
            // `libm = "0.2"`, `m = { version = "0.2", package = "libm" }`.
            let package = value.find("package").and_then(|at| string(value[at + 7..].trim_start().strip_prefix('=')?));
            return Some(DepPath::Registry(package.unwrap_or_else(|| key.trim_matches('"').to_owned())));
        }
    }
    None
}

/// A `[lib]` / `[[bin]]` / .. table of the manifest.
#[derive(Default)]
struct Target {
    kind: String,
    name: Option<String>,
    path: Option<String>,
}

/// The files (existing or not) that may be the root of the crate `crate_name` of the package
/// in `dir` whose manifest is `manifest`.
fn candidates_in(dir: &Path, crate_name: &str, manifest: &str) -> Vec<PathBuf> {
    let (package, targets) = scan(manifest);
    let same = |n: &str| n.replace('-', "_") == crate_name;
    let mut out = Vec::new();
    for t in &targets {
        let name = t.name.as_deref().or(package.as_deref().filter(|_| t.kind == "lib"));
        if !name.is_some_and(same) {
            continue;
        }
        match (&t.path, name) {
            (Some(p), _) => out.push(dir.join(p)),
            (None, Some(n)) => out.extend(conventional(dir, &t.kind, n)),
            (None, None) => {}
        }
    }
    // Targets Cargo finds by itself (none declared, or `autobins` and the like left on).
    if package.as_deref().is_some_and(same) {
        out.push(dir.join("src/lib.rs"));
        out.push(dir.join("src/main.rs"));
    }
    for name in [crate_name.to_owned(), crate_name.replace('_', "-")] {
        for kind in ["bin", "test", "example", "bench"] {
            out.extend(conventional(dir, kind, &name));
        }
    }
    let mut seen = Vec::new();
    out.retain(|p| !seen.contains(p) && {
        seen.push(p.clone());
        true
    });
    out
}

/// Where Cargo looks for a target of `kind` named `name` without a `path`.
fn conventional(dir: &Path, kind: &str, name: &str) -> Vec<PathBuf> {
    let folder = match kind {
        "lib" => return vec![dir.join("src/lib.rs")],
        "bin" => "src/bin",
        "test" => "tests",
        "example" => "examples",
        "bench" => "benches",
        _ => return Vec::new(),
    };
    let mut out = vec![dir.join(folder).join(format!("{name}.rs")), dir.join(folder).join(name).join("main.rs")];
    if kind == "bin" {
        out.push(dir.join("src/main.rs"));
    }
    out
}

/// The package's name and its target tables.
fn scan(manifest: &str) -> (Option<String>, Vec<Target>) {
    let mut package = None;
    let mut targets: Vec<Target> = Vec::new();
    let mut section = "";
    for item in items(manifest) {
        let (key, value) = match item {
            Item::Table(t) => {
                section = t;
                if matches!(section, "lib" | "bin" | "test" | "example" | "bench") {
                    targets.push(Target { kind: section.to_owned(), ..Target::default() });
                }
                continue;
            }
            Item::Key(k, v) => (k, v),
        };
        let Some(value) = string(value) else { continue };
        match (section, key) {
            ("package", "name") => package = Some(value),
            ("lib" | "bin" | "test" | "example" | "bench", "name") => {
                if let Some(t) = targets.last_mut() {
                    t.name = Some(value);
                }
            }
            ("lib" | "bin" | "test" | "example" | "bench", "path") => {
                if let Some(t) = targets.last_mut() {
                    t.path = Some(value);
                }
            }
            _ => {}
        }
    }
    (package, targets)
}

/// A line of a manifest or lock file that says something: a table's header (`[lib]`,
/// `[[bin]]`: `lib`, `bin`) or a key and its value's text (both trimmed).
enum Item<'a> {
    Table(&'a str),
    Key(&'a str, &'a str),
}

/// The manifest's or lock file's headers and keys, line by line.
fn items(text: &str) -> impl Iterator<Item = Item<'_>> {
    text.lines().filter_map(|line| {
        let line = line.trim();
        if line.starts_with('[') {
            return Some(Item::Table(line.trim_matches(|c| c == '[' || c == ']').trim()));
        }
        let (key, value) = line.split_once('=')?;
        Some(Item::Key(key.trim(), value.trim()))
    })
}

/// A TOML basic or literal string without escapes (`"src/lib.rs"`, `'x.rs'`), before any comment.
fn string(value: &str) -> Option<String> {
    let value = value.trim();
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &value[1..];
    let end = rest.find(quote)?;
    let s = &rest[..end];
    (!s.contains('\\')).then(|| s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_targets_and_conventions() {
        let dir = Path::new("/p");
        let manifest = "[package]\nname = \"my-crate\" # c\n\n[[bin]]\nname = \"trybuild000\"\npath = \"/w/tests/ui/x.rs\"\n\n[[test]]\nname = 'suite'\n";
        assert_eq!(candidates_in(dir, "trybuild000", manifest)[0], PathBuf::from("/w/tests/ui/x.rs"));
        let suite = candidates_in(dir, "suite", manifest);
        assert_eq!(&suite[..2], &[PathBuf::from("/p/tests/suite.rs"), PathBuf::from("/p/tests/suite/main.rs")]);
        let lib = candidates_in(dir, "my_crate", manifest);
        assert!(lib.contains(&PathBuf::from("/p/src/lib.rs")) && lib.contains(&PathBuf::from("/p/src/main.rs")));
        assert!(!candidates_in(dir, "other", manifest).contains(&PathBuf::from("/p/src/lib.rs")));
        assert_eq!(string("\"a\\b\""), None);
    }

    #[test]
    fn registry_sources_by_the_locked_version() {
        let home = std::env::temp_dir().join(format!("ptx-crate-root-{}", std::process::id()));
        std::fs::create_dir_all(home.join("registry/src/index.example/m-0.2.16")).unwrap();
        let lock = "[[package]]\nname = \"m\"\nversion = \"0.2.16\"\nsource = \"registry+https://x\"\n\n[[package]]\nname = \"two\"\nversion = \"1.0.0\"\nsource = \"registry+https://x\"\n\n[[package]]\nname = \"two\"\nversion = \"2.0.0\"\nsource = \"registry+https://x\"\n\n[[package]]\nname = \"g\"\nversion = \"1.0.0\"\nsource = \"git+https://x\"\n";
        assert_eq!(registry_source_in(lock, "m", &home), Some(home.join("registry/src/index.example/m-0.2.16")));
        // Two locked versions, a git source, a package not downloaded.
        assert_eq!(registry_source_in(lock, "two", &home), None);
        assert_eq!(registry_source_in(lock, "g", &home), None);
        assert_eq!(registry_source_in(lock, "absent", &home), None);
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn path_dependencies() {
        let manifest = "[dependencies]\nmath-lib = { version = \"1\", path = \"../math\" }\nserde = \"1\"\nws = { workspace = true }\n\n[dependencies.other]\npath = 'x/other'\n\n[target.'cfg(unix)'.dev-dependencies]\nu = { path = \"u\" }\n";
        assert_eq!(dependency_path(manifest, "math_lib", false), Some(DepPath::Path("../math".into())));
        assert_eq!(dependency_path(manifest, "serde", false), Some(DepPath::Registry("serde".into())));
        assert_eq!(dependency_path("[dependencies]\nm = { version = \"0.2\", package = \"libm\" }\ng = { git = \"https://x\" }\n", "m", false), Some(DepPath::Registry("libm".into())));
        assert_eq!(dependency_path("[dependencies]\ng = { git = \"https://x\" }\n", "g", false), None);
        assert_eq!(dependency_path(manifest, "ws", false), Some(DepPath::Workspace));
        assert_eq!(dependency_path(manifest, "other", false), Some(DepPath::Path("x/other".into())));
        assert_eq!(dependency_path(manifest, "u", false), Some(DepPath::Path("u".into())));
        assert_eq!(dependency_path("[workspace.dependencies]\nws = { path = \"crates/ws\" }\n", "ws", true), Some(DepPath::Path("crates/ws".into())));
    }
}
