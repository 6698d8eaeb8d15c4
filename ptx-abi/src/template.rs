//! Symbols of generic device functions: Itanium template names (chapter 7), as nvcc names an
//! instantiation of a function template in the same namespaces.
//!
//! `krate::geo::horner::<5>` is `_ZN5krate3geo6hornerILm5EEE` (`c++filt`:
//! `krate::geo::horner<5ul>`); `krate::app::total::<krate::shapes::Circle>` is
//! `_ZN5krate3app5totalINS_6shapes6CircleEEE` (`krate` is the substitution `S_`). Like the
//! other device functions' symbols here, the parameter types are left out (one Rust function
//! per path), so nvcc's symbol for the same template is this one followed by its return and
//! parameter types.

use crate::text::str_eq;
use crate::text::Sink;

/// One template argument.
#[derive(Clone, Copy, Debug)]
pub enum TemplateArg<'a> {
    /// A builtin type's code (`f` for `float`, `m` for `unsigned long`).
    Builtin(&'a str),
    /// A constant: the builtin code of its type and its value (`Lm5E`; `Li_3E` for -3).
    Int { code: &'a str, value: u64, negative: bool },
    /// A struct `path::name`: `path` is its `module_path!()`.
    Struct { path: &'a str, name: &'a str },
    /// An instance of a generic struct, `path::name<args>` (a class template's
    /// specialization): `krate::geo::Pair<float>` is `N5krate3geo4PairIfEE`.
    Specialization { path: &'a str, name: &'a str, args: &'a [TemplateArg<'a>] },
}

/// Most substitution candidates one symbol keeps track of.
const MAX_CANDIDATES: usize = 64;

/// The substitution candidates written so far: the first `segs` segments of a path, and for
/// a struct its name after them (`""` for a namespace, or the template prefix: `segs` `usize::MAX`).
struct Candidates<'a> {
    list: [(&'a str, usize, &'a str); MAX_CANDIDATES],
    /// For an instance of a generic struct, its arguments (the template name is the same
    /// entry without them).
    args: [Option<&'a [TemplateArg<'a>]>; MAX_CANDIDATES],
    len: usize,
}

impl<'a> Candidates<'a> {
    const fn new() -> Candidates<'a> {
        Candidates { list: [("", 0, ""); MAX_CANDIDATES], args: [None; MAX_CANDIDATES], len: 0 }
    }

    const fn push(&mut self, path: &'a str, segs: usize, name: &'a str) {
        if self.len < MAX_CANDIDATES {
            self.list[self.len] = (path, segs, name);
            self.len += 1;
        }
    }

    /// The instance `path::name<args>` (`path` all `segs` segments).
    const fn push_instance(&mut self, path: &'a str, name: &'a str, args: &'a [TemplateArg<'a>]) {
        if self.len < MAX_CANDIDATES {
            self.list[self.len] = (path, segments(path), name);
            self.args[self.len] = Some(args);
            self.len += 1;
        }
    }

    const fn find_instance(&self, path: &str, name: &str, args: &[TemplateArg]) -> Option<usize> {
        let n = segments(path);
        let mut i = 0;
        while i < self.len {
            let (p, k, m) = self.list[i];
            if let Some(a) = self.args[i] {
                if k == n && str_eq(m, name) && prefix_eq(p, path, n) && args_eq(a, args) {
                    return Some(i);
                }
            }
            i += 1;
        }
        None
    }

    /// The index of the candidate equal to the first `segs` segments of `path`, followed by
    /// `name` (`""`: a namespace).
    const fn find(&self, path: &str, segs: usize, name: &str) -> Option<usize> {
        let mut i = 0;
        while i < self.len {
            let (p, n, m) = self.list[i];
            if self.args[i].is_none() && n == segs && str_eq(m, name) && prefix_eq(p, path, segs) {
                return Some(i);
            }
            i += 1;
        }
        None
    }
}

/// Writes the symbol of the function `path` (`a::b::f`: its last segment is the template's
/// name, the others its namespaces) instantiated with `args`.
pub const fn write_template(path: &str, args: &[TemplateArg], sink: &mut Sink) {
    let mut c = Candidates::new();
    sink.str("_ZN");
    let n = segments(path);
    let mut i = 0;
    while i < n {
        let (s, e) = segment(path, i);
        source_name(path, s, e, sink);
        if i + 1 < n {
            c.push(path, i + 1, "");
        }
        i += 1;
    }
    // The template prefix `path::name` is a candidate too (never named again here).
    c.push("", usize::MAX, "");
    write_args(args, &mut c, sink);
    sink.byte(b'E');
}

/// Writes the symbol of the method `name` of the class template `path::class` (`path` its
/// `module_path!()`) instantiated with `args`: `krate::geo::Pair<float>::sum` is
/// `_ZNK5krate3geo4PairIfE3sumE` (`konst`: a `self`/`&self` method, a `const` member). Like the
/// other device functions' symbols here, the parameter types are left out, except an
/// operator's (`operator`: `name` is its Itanium code, `pl` for `operator+`), which tell the
/// overloads apart as nvcc's do: `Pair<float>::operator+(Pair<float>) const` is
/// `_ZNK5krate3geo4PairIfEplES2_` (the class instance, a struct argument of `path` with the
/// class's name, is its substitution `S2_`; `Builtin("v")` writes an empty list).
#[allow(clippy::too_many_arguments)]
///
/// `margs`: the method's own template arguments (`krate::geo::Vec3::get<2ul>() const` is
/// `_ZNK5krate3geo4Vec33getILm2EEE`); `args` empty: the class is not a template.
pub const fn write_member_template<'a>(path: &'a str, class: &'a str, args: &[TemplateArg<'a>], name: &str, margs: &[TemplateArg<'a>], konst: bool, operator: bool, params: &[TemplateArg<'a>], sink: &mut Sink) {
    let mut c = Candidates::new();
    sink.str("_ZN");
    if konst {
        sink.byte(b'K');
    }
    let n = segments(path);
    let mut i = 0;
    while i < n {
        let (s, e) = segment(path, i);
        source_name(path, s, e, sink);
        c.push(path, i + 1, "");
        i += 1;
    }
    source_name(class, 0, class.len(), sink);
    // The template name `path::class` is a candidate, then its arguments', then the
    // specialization `path::class<args>`: a parameter naming `path::class` is this instance.
    if !args.is_empty() {
        c.push(path, n, class);
        write_args(args, &mut c, sink);
        c.push_instance(path, class, args);
    } else {
        c.push(path, n, class);
    }
    if operator {
        sink.str(name);
    } else {
        source_name(name, 0, name.len(), sink);
    }
    if !margs.is_empty() {
        // The member template's name (never named again here), then its arguments.
        c.push("", usize::MAX, "");
        write_args(margs, &mut c, sink);
    }
    sink.byte(b'E');
    if operator {
        let mut p = 0;
        while p < params.len() {
            match params[p] {
                TemplateArg::Builtin(code) => sink.str(code),
                TemplateArg::Int { .. } => {}
                // The class itself, in a class template: this instance.
                TemplateArg::Struct { path: tp, name: tn } if !args.is_empty() && str_eq(tn, class) && str_eq(tp, path) => write_instance(tp, tn, args, &mut c, sink),
                TemplateArg::Struct { path: tp, name: tn } => write_struct(tp, tn, &mut c, sink),
                TemplateArg::Specialization { path: tp, name: tn, args: ta } => write_instance(tp, tn, ta, &mut c, sink),
            }
            p += 1;
        }
    }
}

/// `I <args> E`.
const fn write_args<'a>(args: &[TemplateArg<'a>], c: &mut Candidates<'a>, sink: &mut Sink) {
    sink.byte(b'I');
    let mut a = 0;
    while a < args.len() {
        match args[a] {
            TemplateArg::Builtin(code) => sink.str(code),
            TemplateArg::Int { code, value, negative } => {
                sink.byte(b'L');
                sink.str(code);
                if negative {
                    sink.byte(b'n');
                }
                sink.dec(value);
                sink.byte(b'E');
            }
            TemplateArg::Struct { path: tp, name: tn } => write_struct(tp, tn, c, sink),
            TemplateArg::Specialization { path: tp, name: tn, args: ta } => write_instance(tp, tn, ta, c, sink),
        }
        a += 1;
    }
    sink.byte(b'E');
}

/// An instance of a generic struct, `N <prefix> <name> I <args> E E`: the whole instance, or
/// its template name `path::name`, may be a substitution; both become candidates.
const fn write_instance<'a>(path: &'a str, name: &'a str, args: &'a [TemplateArg<'a>], c: &mut Candidates<'a>, sink: &mut Sink) {
    if let Some(k) = c.find_instance(path, name, args) {
        substitution(k, sink);
        return;
    }
    let n = segments(path);
    sink.byte(b'N');
    if let Some(k) = c.find(path, n, name) {
        // The template name, written before (another instance of it).
        substitution(k, sink);
    } else {
        write_prefixed_name(path, n, name, c, sink);
    }
    write_args(args, c, sink);
    c.push_instance(path, name, args);
    sink.byte(b'E');
}

/// Whether two argument lists are the same.
const fn args_eq(a: &[TemplateArg], b: &[TemplateArg]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        let same = match (a[i], b[i]) {
            (TemplateArg::Builtin(x), TemplateArg::Builtin(y)) => str_eq(x, y),
            (TemplateArg::Int { code: c1, value: v1, negative: n1 }, TemplateArg::Int { code: c2, value: v2, negative: n2 }) => str_eq(c1, c2) && v1 == v2 && n1 == n2,
            (TemplateArg::Struct { path: p1, name: m1 }, TemplateArg::Struct { path: p2, name: m2 }) => str_eq(p1, p2) && str_eq(m1, m2),
            (TemplateArg::Specialization { path: p1, name: m1, args: a1 }, TemplateArg::Specialization { path: p2, name: m2, args: a2 }) => str_eq(p1, p2) && str_eq(m1, m2) && args_eq(a1, a2),
            _ => false,
        };
        if !same {
            return false;
        }
        i += 1;
    }
    true
}

/// A struct's nested name, using and adding substitution candidates. `path` holds the
/// module, `name` the struct: the whole is `path::name`.
const fn write_struct<'a>(path: &'a str, name: &'a str, c: &mut Candidates<'a>, sink: &mut Sink) {
    let n = segments(path);
    if let Some(k) = c.find(path, n, name) {
        // The whole type, written before.
        substitution(k, sink);
        return;
    }
    sink.byte(b'N');
    write_prefixed_name(path, n, name, c, sink);
    sink.byte(b'E');
}

/// `path::name` inside an `N…E` nested name, where `path` has `n` segments: the longest module
/// prefix already a candidate as its substitution, then the other segments and `name` as
/// source names, each prefix added as a candidate as it is written.
const fn write_prefixed_name<'a>(path: &'a str, n: usize, name: &'a str, c: &mut Candidates<'a>, sink: &mut Sink) {
    let mut known = n;
    while known > 0 {
        if let Some(k) = c.find(path, known, "") {
            substitution(k, sink);
            break;
        }
        known -= 1;
    }
    let mut i = known;
    while i < n {
        let (s, e) = segment(path, i);
        source_name(path, s, e, sink);
        c.push(path, i + 1, "");
        i += 1;
    }
    source_name(name, 0, name.len(), sink);
    c.push(path, n, name);
}

/// `S_` for candidate 0, `S<k-1 in base 36>_` after.
const fn substitution(k: usize, sink: &mut Sink) {
    sink.byte(b'S');
    if k > 0 {
        base36((k - 1) as u64, sink);
    }
    sink.byte(b'_');
}

const fn base36(n: u64, sink: &mut Sink) {
    if n >= 36 {
        base36(n / 36, sink);
    }
    let d = (n % 36) as u8;
    sink.byte(if d < 10 { b'0' + d } else { b'A' + d - 10 });
}

const fn source_name(s: &str, start: usize, end: usize, sink: &mut Sink) {
    let b = s.as_bytes();
    sink.dec((end - start) as u64);
    let mut j = start;
    while j < end {
        assert!(b[j].is_ascii_alphanumeric() || b[j] == b'_', "PTX identifiers are ASCII: rename the module or item to use ASCII letters, digits and `_`");
        sink.byte(b[j]);
        j += 1;
    }
}

/// The number of `::`-separated segments of `path` (0 for "").
const fn segments(path: &str) -> usize {
    let b = path.as_bytes();
    if b.is_empty() {
        return 0;
    }
    let mut n = 1;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b':' && b[i + 1] == b':' {
            n += 1;
            i += 1;
        }
        i += 1;
    }
    n
}

/// The byte range of segment `k` of `path`.
const fn segment(path: &str, k: usize) -> (usize, usize) {
    let b = path.as_bytes();
    let mut seg = 0;
    let mut start = 0;
    let mut i = 0;
    while i <= b.len() {
        if i == b.len() || (b[i] == b':' && i + 1 < b.len() && b[i + 1] == b':') {
            if seg == k {
                return (start, i);
            }
            seg += 1;
            i += 2;
            start = i;
            continue;
        }
        i += 1;
    }
    (b.len(), b.len())
}

/// Whether the first `segs` segments of `a` and `b` are the same.
const fn prefix_eq(a: &str, b: &str, segs: usize) -> bool {
    if segs == usize::MAX {
        return false;
    }
    if segs == 0 {
        return true;
    }
    if segments(a) < segs || segments(b) < segs {
        return false;
    }
    let (_, ea) = segment(a, segs - 1);
    let (_, eb) = segment(b, segs - 1);
    if ea != eb {
        return false;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < ea {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::TemplateArg::{self, *};
    use crate::text::{render_len, render_to, Piece};

    fn sym(path: &'static str, name: &'static str, args: &'static [TemplateArg<'static>]) -> std::string::String {
        let full = std::format!("{path}::{name}").leak();
        let pieces = [Piece::Template { path: full, args }];
        let mut buf = std::vec![0u8; render_len(&pieces)];
        render_to(&pieces, &mut buf);
        std::string::String::from_utf8(buf).unwrap()
    }

    /// Expected strings written by hand from the Itanium ABI's rules (and what `c++filt`
    /// prints for them, in the comments); the suite checks them against nvcc.
    #[test]
    fn template_names() {
        // krate::geo::horner<5ul>
        assert_eq!(sym("krate::geo", "horner", &[Int { code: "m", value: 5, negative: false }]), "_ZN5krate3geo6hornerILm5EEE");
        // krate::geo::lerp<float>
        assert_eq!(sym("krate::geo", "lerp", &[Builtin("f")]), "_ZN5krate3geo4lerpIfEE");
        // krate::app::total<krate::shapes::Circle>
        assert_eq!(sym("krate::app", "total", &[Struct { path: "krate::shapes", name: "Circle" }]), "_ZN5krate3app5totalINS_6shapes6CircleEEE");
        // krate::app::pair<krate::app::V, krate::app::V, int -3>
        // krate::geo::Pair<float>::sum (const member), krate::geo::Pair<krate::geo::V>::new
        let member = |args: &'static [TemplateArg<'static>], name: &'static str, konst: bool| {
            let pieces = [Piece::MemberTemplate { path: "krate::geo", class: "Pair", args, name, margs: &[], konst, operator: false, params: &[] }];
            let mut buf = std::vec![0u8; render_len(&pieces)];
            render_to(&pieces, &mut buf);
            std::string::String::from_utf8(buf).unwrap()
        };
        assert_eq!(member(&[Builtin("f")], "sum", true), "_ZNK5krate3geo4PairIfE3sumE");
        assert_eq!(member(&[Struct { path: "krate::geo", name: "V" }], "new", false), "_ZN5krate3geo4PairINS0_1VEE3newE");
        // Operators carry their parameter types: krate::geo::Pair<float>::operator+(
        // krate::geo::Pair<float>) const, Pair<float>::operator*(float) const,
        // Pair<krate::geo::V>::operator+=(Pair<krate::geo::V>), Pair<float>::operator-() const.
        let op = |args: &'static [TemplateArg<'static>], name: &'static str, konst: bool, params: &'static [TemplateArg<'static>]| {
            let pieces = [Piece::MemberTemplate { path: "krate::geo", class: "Pair", args, name, margs: &[], konst, operator: true, params }];
            let mut buf = std::vec![0u8; render_len(&pieces)];
            render_to(&pieces, &mut buf);
            std::string::String::from_utf8(buf).unwrap()
        };
        const THIS: TemplateArg<'static> = Struct { path: "krate::geo", name: "Pair" };
        assert_eq!(op(&[Builtin("f")], "pl", true, &[THIS]), "_ZNK5krate3geo4PairIfEplES2_");
        assert_eq!(op(&[Builtin("f")], "ml", true, &[Builtin("f")]), "_ZNK5krate3geo4PairIfEmlEf");
        assert_eq!(op(&[Struct { path: "krate::geo", name: "V" }], "pL", false, &[THIS]), "_ZN5krate3geo4PairINS0_1VEEpLES3_");
        assert_eq!(op(&[Builtin("f")], "ng", true, &[Builtin("v")]), "_ZNK5krate3geo4PairIfEngEv");
        // Member templates: krate::geo::Vec3::get<2ul>() const, krate::geo::Pair<float>::
        // scale<double>(double), krate::geo::Vec3::pick<krate::geo::Vec3>.
        let mt = |class: &'static str, args: &'static [TemplateArg<'static>], name: &'static str, margs: &'static [TemplateArg<'static>], konst: bool| {
            let pieces = [Piece::MemberTemplate { path: "krate::geo", class, args, name, margs, konst, operator: false, params: &[] }];
            let mut buf = std::vec![0u8; render_len(&pieces)];
            render_to(&pieces, &mut buf);
            std::string::String::from_utf8(buf).unwrap()
        };
        assert_eq!(mt("Vec3", &[], "get", &[Int { code: "m", value: 2, negative: false }], true), "_ZNK5krate3geo4Vec33getILm2EEE");
        assert_eq!(mt("Pair", &[Builtin("f")], "scale", &[Builtin("d")], false), "_ZN5krate3geo4PairIfE5scaleIdEE");
        assert_eq!(mt("Vec3", &[], "pick", &[Struct { path: "krate::geo", name: "Vec3" }], true), "_ZNK5krate3geo4Vec34pickIS1_EE");
        assert_eq!(
            sym("krate::app", "pair", &[Struct { path: "krate::app", name: "V" }, Struct { path: "krate::app", name: "V" }, Int { code: "i", value: 3, negative: true }]),
            "_ZN5krate3app4pairINS0_1VES2_Lin3EEE"
        );
    }

    /// Instances of generic structs as arguments; the expected strings are nvcc's symbols for
    /// the same C++ (`template <class T> struct Pair`) without the parameter types.
    #[test]
    fn instance_arguments() {
        const PF: TemplateArg<'static> = Specialization { path: "krate::geo", name: "Pair", args: &[Builtin("f")] };
        // krate::app::total<krate::geo::Pair<float> >
        assert_eq!(sym("krate::app", "total", &[PF]), "_ZN5krate3app5totalINS_3geo4PairIfEEEE");
        // krate::app::total<krate::geo::Pair<krate::geo::Pair<float> > >: the inner instance
        // names the template by its substitution.
        assert_eq!(sym("krate::app", "total", &[Specialization { path: "krate::geo", name: "Pair", args: &[PF] }]), "_ZN5krate3app5totalINS_3geo4PairINS3_IfEEEEEE");
        // two<Pair<float>, Pair<double> >, two<Pair<float>, Pair<float> >, two<V, Pair<V> >
        assert_eq!(sym("krate::app", "two", &[PF, Specialization { path: "krate::geo", name: "Pair", args: &[Builtin("d")] }]), "_ZN5krate3app3twoINS_3geo4PairIfEENS3_IdEEEE");
        assert_eq!(sym("krate::app", "two", &[PF, PF]), "_ZN5krate3app3twoINS_3geo4PairIfEES4_EE");
        const V: TemplateArg<'static> = Struct { path: "krate::geo", name: "V" };
        assert_eq!(sym("krate::app", "two", &[V, Specialization { path: "krate::geo", name: "Pair", args: &[V] }]), "_ZN5krate3app3twoINS_3geo1VENS2_4PairIS3_EEEE");
    }
}
