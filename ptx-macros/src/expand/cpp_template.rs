//! Itanium names of C++ function-template instances, for `#[device_extern]`:
//!
//! ```text
//! #[cpp = "geo::add<float>"]
//! #[cpp_template = "template <typename T> T add(T, T)"]
//! fn add_f(a: f32, b: f32) -> f32;          // `_ZN3geo3addIfEET_S1_S1_`
//! ```
//!
//! A template instance's symbol is not a function of its concrete signature: the Itanium ABI
//! encodes the *template's* signature — the return type, then the parameters, each written in
//! terms of the template parameters (`T_`, `T0_`, ...) — after the instance's arguments
//! (`IfE`). So the declaration names both: the instance in `cpp`, the template's declaration
//! in `cpp_template`, as a C++ user writes it. The C++ types understood are the fundamental
//! ones, the template parameters, structs in the global namespace, `const`, `*` and `&`;
//! non-type arguments are integer literals (`times<3>` with `template <int N>`).

use super::extern_cpp::{qualified, substitutable};

/// A C++ type in a template's declaration or among an instance's arguments.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    /// A fundamental type, by its Itanium code (`f`, `i`, `y`, ...).
    Builtin(&'static str),
    /// The template's `n`th parameter.
    Param(usize),
    /// A class in the global namespace.
    Named(String),
    Const(Box<Ty>),
    Ptr(Box<Ty>),
    Ref(Box<Ty>),
}

/// A template parameter: a type (`typename T`) or a value of a fundamental type (`int N`).
struct Param {
    name: String,
    value: Option<&'static str>,
}

/// The symbol of `path<args>` (`ns::f<int, 3>`), an instance of `decl`
/// (`template <typename T, int N> T f(T, const T*)`), whose Rust declaration has `arity`
/// parameters. Errors are messages for the `cpp`/`cpp_template` attribute.
pub fn mangle(instance: &str, decl: &str, arity: usize) -> Result<String, String> {
    let (path, args) = instance.split_once('<').ok_or_else(|| format!("`{instance}` names no template arguments: write the instance, e.g. `twice<int>`"))?;
    let args = args.trim_end().strip_suffix('>').ok_or_else(|| format!("`{instance}`: the template arguments end with `>`"))?;
    let segs: Vec<&str> = path.split("::").map(str::trim).collect();
    if segs.iter().any(|s| !is_ident(s)) {
        return Err(format!("`{path}` is not a C++ qualified name (`ns::f`)"));
    }
    let (name, ns) = segs.split_last().ok_or("empty name")?;
    let (params, ret, decl_name, fn_params) = declaration(decl)?;
    if decl_name != *name {
        return Err(format!("the template declares `{decl_name}`, the instance names `{name}`"));
    }
    if fn_params.len() != arity {
        return Err(format!("the template takes {} parameter(s), the Rust declaration {arity}", fn_params.len()));
    }
    let args: Vec<&str> = if args.trim().is_empty() { Vec::new() } else { split_top(args) };
    if args.len() != params.len() {
        return Err(format!("`{instance}` gives {} template argument(s) for the template's {}", args.len(), params.len()));
    }

    let mut subs: Vec<String> = Vec::new();
    let mut m = String::from("_Z");
    let nested = !ns.is_empty();
    if nested {
        m.push('N');
    }
    let mut prefix = String::new();
    for s in ns.iter().chain([name]) {
        prefix.push_str(&format!("{}{s}", s.len()));
        subs.push(prefix.clone());
    }
    m.push_str(&prefix);
    m.push('I');
    for (a, p) in args.iter().zip(&params) {
        m.push_str(&match p.value {
            Some(code) => {
                let v: i128 = a.trim().trim_end_matches(['u', 'U', 'l', 'L']).parse().map_err(|_| format!("`{a}` is not an integer, as the parameter `{}` requires", p.name))?;
                if v < 0 { format!("L{code}n{}E", -v) } else { format!("L{code}{v}E") }
            }
            None => encode(&parse_type(a, &[])?, &mut subs),
        });
    }
    m.push('E');
    if nested {
        m.push('E');
    }
    m.push_str(&encode(&ret, &mut subs));
    if fn_params.is_empty() {
        m.push('v');
    }
    for t in &fn_params {
        m.push_str(&encode(&top_level(t), &mut subs));
    }
    Ok(m)
}

/// `template <..> RET NAME(PARAMS)`: the template parameters, the return type, the name and
/// the parameter types.
fn declaration(decl: &str) -> Result<(Vec<Param>, Ty, String, Vec<Ty>), String> {
    let shape = "write the template as C++ declares it: `template <typename T> T twice(T)`";
    let rest = decl.trim().strip_prefix("template").ok_or(shape)?.trim_start();
    let rest = rest.strip_prefix('<').ok_or(shape)?;
    let close = rest.find('>').ok_or(shape)?;
    let mut params = Vec::new();
    for p in split_top(&rest[..close]) {
        let words: Vec<&str> = p.split_whitespace().collect();
        let (kind, name) = words.split_last().map(|(n, k)| (k.join(" "), n.to_string())).ok_or(shape)?;
        let value = match kind.as_str() {
            "typename" | "class" => None,
            k => Some(builtin(k).ok_or_else(|| format!("template parameter `{p}`: a type (`typename T`) or a value of a fundamental type (`int N`)"))?),
        };
        params.push(Param { name, value });
    }
    let sig = rest[close + 1..].trim();
    let open = sig.find('(').ok_or(shape)?;
    let inner = sig[open + 1..].trim_end().strip_suffix(')').ok_or(shape)?;
    let head = sig[..open].trim_end();
    let name_at = ident_tail(head);
    let name = head[name_at..].to_owned();
    if !is_ident(&name) {
        return Err(shape.to_owned());
    }
    let ret = parse_type(&head[..name_at], &params)?;
    let fn_params = match inner.trim() {
        "" | "void" => Vec::new(),
        list => split_top(list).iter().map(|p| parse_type(strip_param_name(p, &params), &params)).collect::<Result<_, _>>()?,
    };
    Ok((params, ret, name, fn_params))
}

/// `const T* p` → `const T*`: a trailing identifier that is no type is the parameter's name.
fn strip_param_name<'a>(p: &'a str, params: &[Param]) -> &'a str {
    let p = p.trim();
    let at = ident_tail(p);
    let last = &p[at..];
    let is_type_word = builtin(last).is_some() || params.iter().any(|q| q.name == last) || ["const", "int", "long", "short", "char", "unsigned", "signed"].contains(&last);
    if at > 0 && !is_type_word && p[..at].trim_end().chars().last().is_some_and(|c| c == '*' || c == '&' || c.is_ascii_alphanumeric() || c == '_') {
        p[..at].trim_end()
    } else {
        p
    }
}

/// One C++ type: `const`, words, then `*`/`&`/`const` declarators left to right.
fn parse_type(s: &str, params: &[Param]) -> Result<Ty, String> {
    let bad = || format!("`{}` is not a C++ type this declaration understands (fundamental types, the template's parameters, a struct name, `const`, `*`, `&`)", s.trim());
    let spaced = s.replace('*', " * ").replace('&', " & ");
    let mut words = Vec::new();
    let mut konst = false;
    let mut decls: Vec<&str> = Vec::new();
    for w in spaced.split_whitespace() {
        match w {
            "*" | "&" => decls.push(w),
            "const" if decls.is_empty() => konst = true,
            "const" => decls.push("const"),
            w if decls.is_empty() => words.push(w),
            _ => return Err(bad()),
        }
    }
    let base = words.join(" ");
    let mut t = if let Some(code) = builtin(&base) {
        Ty::Builtin(code)
    } else if let Some(i) = params.iter().position(|p| p.name == base && p.value.is_none()) {
        Ty::Param(i)
    } else if words.len() == 1 && is_ident(&base) {
        Ty::Named(base)
    } else {
        return Err(bad());
    };
    if konst {
        t = Ty::Const(Box::new(t));
    }
    for d in decls {
        t = match d {
            "*" => Ty::Ptr(Box::new(t)),
            "&" => Ty::Ref(Box::new(t)),
            _ => Ty::Const(Box::new(t)),
        };
    }
    Ok(t)
}

/// A parameter's top-level `const` is not part of the function's type.
fn top_level(t: &Ty) -> Ty {
    match t {
        Ty::Const(inner) => (**inner).clone(),
        t => t.clone(),
    }
}

/// The Itanium encoding, with substitutions; template parameters are candidates too.
fn encode(t: &Ty, subs: &mut Vec<String>) -> String {
    match t {
        Ty::Builtin(code) => (*code).to_owned(),
        Ty::Param(i) => {
            let p = if *i == 0 { "T_".to_owned() } else { format!("T{}_", i - 1) };
            substitutable(p.clone(), p, subs)
        }
        Ty::Named(n) => {
            let e = format!("{}{n}", n.len());
            substitutable(e.clone(), e, subs)
        }
        Ty::Const(inner) => {
            let e = encode(inner, subs);
            qualified('K', &e, subs)
        }
        Ty::Ptr(inner) => {
            let e = encode(inner, subs);
            qualified('P', &e, subs)
        }
        Ty::Ref(inner) => {
            let e = encode(inner, subs);
            qualified('R', &e, subs)
        }
    }
}

/// The Itanium code of a fundamental type spelled in C++: the ABI table's spellings
/// (`ptx_abi::cpp::FUNDAMENTAL`), and the other ways C++ writes the same types.
fn builtin(s: &str) -> Option<&'static str> {
    if let Some((_, _, code)) = ptx_abi::cpp::FUNDAMENTAL.iter().find(|(_, cpp, code)| *cpp == s && !code.is_empty()) {
        return Some(code);
    }
    Some(match s {
        "void" => "v",
        "char" => "c",
        "short int" | "signed short" => "s",
        "unsigned short int" => "t",
        "signed" | "signed int" => "i",
        "unsigned" => "j",
        "long" | "long int" | "signed long" => "l",
        "unsigned long" | "unsigned long int" => "m",
        "long long int" | "signed long long" => "x",
        "unsigned long long int" => "y",
        _ => return None,
    })
}

/// Splits at the commas outside `<>` and `()`.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// Where the identifier that ends `s` starts (`s.len()` when it ends in another character; a
/// char boundary even after non-ASCII text).
fn ident_tail(s: &str) -> usize {
    s.char_indices().rev().find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |(i, c)| i + c.len_utf8())
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') && !s.as_bytes()[0].is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::mangle;

    /// Names as `c++filt`'s reading of the ABI gives them (and nvcc emits: the suite's
    /// link_interop tests link these against nvcc's own instances).
    #[test]
    fn template_instances() {
        assert_eq!(mangle("twice<int>", "template <typename T> T twice(T)", 1).unwrap(), "_Z5twiceIiET_S0_");
        assert_eq!(mangle("geo::add<float>", "template <typename T> T add(T a, T b)", 2).unwrap(), "_ZN3geo3addIfEET_S1_S1_");
        assert_eq!(mangle("load<float>", "template <class T> T load(const T* p)", 1).unwrap(), "_Z4loadIfET_PKS0_");
        assert_eq!(mangle("times<3>", "template <int N> int times(int x)", 1).unwrap(), "_Z5timesILi3EEii");
        assert_eq!(mangle("pick<P, -2>", "template <typename T, int N> float pick(const T& t, int k)", 2).unwrap(), "_Z4pickI1PLin2EEfRKT_i");
        assert_eq!(mangle("ns::f<float, 3>", "template <typename T, int N> T f(const T*, int)", 2).unwrap(), "_ZN2ns1fIfLi3EEET_PKS1_i");
        assert!(mangle("twice<int>", "T twice(T)", 1).is_err());
        // Non-ASCII text is an error, not a slice through a character.
        assert!(mangle("twice<int>", "template <typename T> T twice(T é)", 1).is_err());
        assert!(mangle("twice<int>", "template <typename T> T é(T)", 1).is_err());
        assert!(mangle("tw<é>", "template <typename T> T tw(T)", 1).is_err());
        assert!(mangle("twice<int>", "template <typename T> T twice(T)", 2).is_err());
        assert!(mangle("thrice<int>", "template <typename T> T twice(T)", 1).is_err());
        assert!(mangle("twice<int, 2>", "template <typename T> T twice(T)", 1).is_err());
    }
}
