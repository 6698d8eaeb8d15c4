//! The linker: several PTX modules — `#[kernel]`'s, nvcc `-rdc=true -ptx` output, any
//! producer's — become one module, as `nvlink` (or the driver's `cuLink*`) joins their
//! cubins. The result is PTX text that ptxas accepts as a whole program and the emulator
//! loads like any module.
//!
//! Rules (those of the guide's chapter 7 and of `nvlink`):
//! - a `.extern .func`/`.extern .global`/`.extern .const` declaration is resolved by the
//!   `.visible` or `.weak` definition of the same name in another module; its sizes (every
//!   parameter and return value, or the variable's) must match, else `Err`;
//! - one `.visible` definition per name: two are a duplicate-symbol `Err`, except two copies of
//!   the same function text (each `#[kernel]` module carries the device functions it calls,
//!   so two kernels sharing one would otherwise never link): the first is kept and the other
//!   module calls its own copy;
//! - a `.visible` definition wins over `.weak` ones (nvcc's template instances), and among
//!   `.weak` ones the first; the others stay as their module's private copies;
//! - names without linkage are private to their module: where two modules use one, each is
//!   renamed apart;
//! - a declaration nothing defines is an unresolved-symbol `Err`, except the system calls of
//!   the guide's chapter 3 (`vprintf`, `malloc`, `free`, `__assertfail`), which the device
//!   provides; [`link_partial`] leaves them for a later link step (the driver's linker, with
//!   cubins and libraries);
//! - `.weak`/`.common` variables defined in several modules are refused (`Err`): define the
//!   variable in one module and declare it `.extern` in the others.
//!
//! The text: one header (the highest `.version`, the `.target` of the newest architecture),
//! then every module in order, each with its `.file` numbers raised past the previous
//! modules' so `.loc` line information keeps naming the right source files.

mod text;

use crate::error::{Error, Result};
use crate::parse::ast::{self, Linkage, Space};
use std::collections::{HashMap, HashSet};

/// Links `inputs` (a name for messages, and the PTX text) into one module's text; every
/// symbol must resolve.
pub fn link(inputs: &[(&str, &str)]) -> Result<String> {
    Linker::new(inputs)?.finish(false)
}

/// As [`link`], leaving declarations nothing here defines unresolved (as `.extern`), for a
/// later link step with binary inputs (cubins, fat binaries, libraries).
pub fn link_partial(inputs: &[(&str, &str)]) -> Result<String> {
    Linker::new(inputs)?.finish(true)
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Func,
    Var,
}

/// One module-level declaration or definition.
struct Decl {
    unit: usize,
    name: String,
    kind: Kind,
    linkage: Linkage,
    defined: bool,
    line: u32,
    /// A function's return and parameter sizes, or a variable's size (0: `[]`, unknown).
    sizes: Vec<u64>,
}

struct Unit<'a> {
    name: &'a str,
    text: &'a str,
    ast: ast::Module,
}

struct Linker<'a> {
    units: Vec<Unit<'a>>,
    decls: Vec<Decl>,
}

fn link_err(lines: Vec<String>) -> Error {
    Error::Link { log: lines.join("\n") }
}

impl<'a> Linker<'a> {
    fn new(inputs: &[(&'a str, &'a str)]) -> Result<Linker<'a>> {
        if inputs.is_empty() {
            return Err(link_err(vec!["nothing to link: no modules were added".into()]));
        }
        let mut units = Vec::new();
        let mut decls = Vec::new();
        for (u, &(name, text)) in inputs.iter().enumerate() {
            let ast = crate::parse::parse(text).map_err(|e| link_err(vec![format!("module `{name}`, line {}: {}", e.line, e.message)]))?;
            let size_err = |e: crate::decode::DecodeError| link_err(vec![format!("module `{name}`, line {}: {}", e.line, e.message)]);
            for f in &ast.funcs {
                let mut sizes = Vec::new();
                for p in f.rets.iter().chain(&f.params) {
                    sizes.push(crate::decode::decl_size(p).map_err(size_err)?.0);
                }
                decls.push(Decl { unit: u, name: f.name.clone(), kind: Kind::Func, linkage: f.linkage, defined: f.body.is_some(), line: f.line, sizes });
            }
            for v in &ast.vars {
                // Every `.extern .shared` is the launch's one dynamic region: nothing to resolve.
                if v.space == Space::Shared && v.linkage == Linkage::Extern {
                    continue;
                }
                let size = if v.linkage == Linkage::Extern && v.dims.iter().any(Option::is_none) { 0 } else { crate::decode::decl_size(v).map_err(size_err)?.0 };
                decls.push(Decl {
                    unit: u,
                    name: v.name.clone(),
                    kind: Kind::Var,
                    linkage: v.linkage,
                    defined: v.linkage != Linkage::Extern,
                    line: v.line,
                    sizes: vec![size],
                });
            }
            units.push(Unit { name, text, ast });
        }
        Ok(Linker { units, decls })
    }

    /// A definition's text with its line information dropped, to compare two copies.
    fn def_text(&self, d: &Decl) -> String {
        let text = self.units[d.unit].text;
        let (s, e) = text::statement_span(text, d.line, d.kind == Kind::Func);
        text[s..e].lines().filter(|l| !l.trim_start().starts_with(".loc")).collect::<Vec<_>>().join("\n")
    }

    fn finish(self, allow_unresolved: bool) -> Result<String> {
        let n = self.units.len();
        let mut problems = Vec::new();
        let mut idents: HashSet<String> = HashSet::new();
        for u in &self.units {
            idents.extend(text::identifiers(u.text));
        }
        let mut renames: Vec<HashMap<String, String>> = vec![HashMap::new(); n];
        let fresh = |unit: usize, name: &str, idents: &mut HashSet<String>| -> String {
            let mut new = format!("{name}__link{unit}");
            while idents.contains(&new) {
                new.push('_');
            }
            idents.insert(new.clone());
            new
        };
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, d) in self.decls.iter().enumerate() {
            by_name.entry(d.name.as_str()).or_default().push(i);
        }
        let mut names: Vec<&str> = by_name.keys().copied().collect();
        names.sort();

        // The definition each external name resolves to.
        let mut winner: HashMap<&str, usize> = HashMap::new();
        for &name in &names {
            let ds = &by_name[name];
            let external: Vec<usize> = ds.iter().copied().filter(|&i| self.decls[i].defined && self.decls[i].linkage != Linkage::None).collect();
            if external.is_empty() {
                continue;
            }
            let kinds: HashSet<Kind> = ds.iter().filter(|&&i| self.decls[i].linkage != Linkage::None).map(|&i| self.decls[i].kind).collect();
            if kinds.len() > 1 {
                let units: Vec<String> = ds.iter().map(|&i| format!("a {} in `{}`", if self.decls[i].kind == Kind::Func { "function" } else { "variable" }, self.units[self.decls[i].unit].name)).collect();
                problems.push(format!("`{name}` is both a function and a variable: {}", units.join(", ")));
                continue;
            }
            let strong: Vec<usize> = external.iter().copied().filter(|&i| self.decls[i].linkage == Linkage::Visible).collect();
            let weak: Vec<usize> = external.iter().copied().filter(|&i| self.decls[i].linkage != Linkage::Visible).collect();
            let kind = self.decls[external[0]].kind;
            if kind == Kind::Var && external.len() > 1 && !weak.is_empty() {
                problems.push(format!(
                    "variable `{name}` is defined `.weak`/`.common` in several modules ({}): define it in one module and declare it `.extern` in the others",
                    external.iter().map(|&i| format!("`{}`", self.units[self.decls[i].unit].name)).collect::<Vec<_>>().join(", ")
                ));
                continue;
            }
            let win = match strong.as_slice() {
                [] => weak[0],
                [one] => *one,
                [first, rest @ ..] => {
                    let t = self.def_text(&self.decls[*first]);
                    let same = kind == Kind::Func && rest.iter().all(|&i| self.def_text(&self.decls[i]) == t);
                    if !same {
                        let where_: Vec<String> = strong.iter().map(|&i| format!("`{}` (line {})", self.units[self.decls[i].unit].name, self.decls[i].line)).collect();
                        problems.push(format!("duplicate symbol `{name}`: defined `.visible` by {}", where_.join(" and ")));
                        continue;
                    }
                    *first
                }
            };
            winner.insert(name, win);
            // The other definitions stay as their modules' private copies.
            for &i in &external {
                let d = &self.decls[i];
                if i != win && d.unit != self.decls[win].unit {
                    let new = fresh(d.unit, name, &mut idents);
                    renames[d.unit].insert(name.to_owned(), new);
                }
            }
        }

        // Names without linkage that another module also declares: renamed apart.
        for &name in &names {
            let ds = &by_name[name];
            let units: HashSet<usize> = ds.iter().map(|&i| self.decls[i].unit).collect();
            if units.len() < 2 {
                continue;
            }
            for &i in ds {
                let d = &self.decls[i];
                if d.linkage == Linkage::None && !renames[d.unit].contains_key(name) {
                    let new = fresh(d.unit, name, &mut idents);
                    renames[d.unit].insert(name.to_owned(), new);
                }
            }
        }

        // Declarations: resolved (checked, rewritten) or unresolved.
        // Per unit: (start, end, replacement) edits of the original text.
        let mut edits: Vec<Vec<(usize, usize, String)>> = vec![Vec::new(); n];
        let mut hoisted: Vec<usize> = Vec::new();
        let mut unresolved = Vec::new();
        for (i, d) in self.decls.iter().enumerate() {
            if d.defined || self.defined_in(d.unit, &d.name) {
                continue;
            }
            let Some(&w) = winner.get(d.name.as_str()) else {
                if d.kind == Kind::Func && crate::decode::syscall(&d.name).is_some() {
                    continue;
                }
                unresolved.push(i);
                continue;
            };
            let def = &self.decls[w];
            let unit = &self.units[d.unit];
            if def.kind != d.kind {
                problems.push(format!("`{}` is declared as a {} in `{}` but defined as a {} in `{}`", d.name, kind_name(d.kind), unit.name, kind_name(def.kind), self.units[def.unit].name));
                continue;
            }
            let sizes_match = match d.kind {
                Kind::Func => d.sizes == def.sizes && self.ret_count(d) == self.ret_count(def),
                Kind::Var => d.sizes[0] == 0 || d.sizes == def.sizes,
            };
            if !sizes_match {
                problems.push(format!(
                    "`{}` is declared in `{}` (line {}) with {} but defined in `{}` (line {}) with {}",
                    d.name,
                    unit.name,
                    d.line,
                    self.describe_sizes(d),
                    self.units[def.unit].name,
                    def.line,
                    self.describe_sizes(def)
                ));
                continue;
            }
            let (s, e) = text::statement_span(unit.text, d.line, false);
            match d.kind {
                // ptxas refuses a definition after an `.extern` declaration of the same
                // function, and a declaration after its definition: a declaration before the
                // definition takes the definition's linkage, one after it goes.
                Kind::Func if def.unit < d.unit => edits[d.unit].push((s, e, String::new())),
                Kind::Func => {
                    let linkage = if def.linkage == Linkage::Visible { ".visible" } else { ".weak" };
                    edits[d.unit].push((s, e, unit.text[s..e].replacen(".extern", linkage, 1)));
                }
                // A variable is defined before any module uses it: its definition moves to
                // the top and the declarations go.
                Kind::Var => {
                    edits[d.unit].push((s, e, String::new()));
                    if !hoisted.contains(&w) {
                        hoisted.push(w);
                    }
                }
            }
        }
        if !allow_unresolved {
            for &i in &unresolved {
                let d = &self.decls[i];
                problems.push(format!(
                    "unresolved symbol `{}`: {} `{}` declares it (line {}) and no module defines it `.visible` or `.weak`",
                    d.name,
                    match d.kind {
                        Kind::Func => "module",
                        Kind::Var => "variable's module",
                    },
                    self.units[d.unit].name,
                    d.line
                ));
            }
        }
        if !problems.is_empty() {
            return Err(link_err(problems));
        }

        // The text.
        let version = self.units.iter().map(|u| u.ast.version).max().unwrap_or((7, 0));
        let newest = self.units.iter().max_by_key(|u| crate::target_sm(&u.ast.target)).map(|u| u.ast.target.clone()).unwrap_or_default();
        let mut out = format!("//\n// Linked by ptx-cpu from {}\n//\n\n.version {}.{}\n", self.units.iter().map(|u| format!("`{}`", u.name)).collect::<Vec<_>>().join(", "), version.0, version.1);
        if !newest.is_empty() {
            out.push_str(&format!(".target {}\n", newest.join(", ")));
        }
        out.push_str(".address_size 64\n");
        for &w in &hoisted {
            let d = &self.decls[w];
            let t = self.units[d.unit].text;
            let (s, e) = text::statement_span(t, d.line, false);
            out.push_str(&format!("\n// `{}` from `{}`\n", d.name, self.units[d.unit].name));
            out.push_str(&text::rename(&t[s..e], &renames[d.unit]));
            out.push('\n');
            edits[d.unit].push((s, e, String::new()));
        }
        let mut file_offset = 0;
        for (u, unit) in self.units.iter().enumerate() {
            let mut t = unit.text.to_owned();
            let mut es = std::mem::take(&mut edits[u]);
            es.sort_by_key(|e| std::cmp::Reverse(e.0));
            // From the end, each edit wholly before the previous one: two declarations on one
            // line (one span) are edited once, and nothing overlapping is cut twice.
            let mut limit = t.len();
            for (s, e, r) in es {
                if s <= e && e <= limit && t.is_char_boundary(s) && t.is_char_boundary(e) {
                    t.replace_range(s..e, &r);
                    limit = s;
                }
            }
            let (body, max_file) = text::strip_header_and_renumber(&t, file_offset);
            file_offset += max_file;
            out.push_str(&format!("\n// ---- module `{}` ----\n", unit.name));
            out.push_str(&text::rename(&body, &renames[u]));
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
        Ok(out)
    }

    /// Whether `unit` itself defines `name`.
    fn defined_in(&self, unit: usize, name: &str) -> bool {
        self.decls.iter().any(|d| d.unit == unit && d.defined && d.name == name)
    }

    fn ret_count(&self, d: &Decl) -> usize {
        let f = self.units[d.unit].ast.funcs.iter().find(|f| f.name == d.name && f.line == d.line);
        f.map_or(0, |f| f.rets.len())
    }

    fn describe_sizes(&self, d: &Decl) -> String {
        match d.kind {
            Kind::Var => format!("{} bytes", d.sizes[0]),
            Kind::Func => {
                let r = self.ret_count(d);
                let (rets, params) = d.sizes.split_at(r.min(d.sizes.len()));
                format!("return sizes {rets:?} and parameter sizes {params:?} (bytes)")
            }
        }
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Func => "function",
        Kind::Var => "variable",
    }
}

#[cfg(test)]
mod tests;
