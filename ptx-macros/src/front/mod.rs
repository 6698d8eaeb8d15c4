//! The front end: a Rust function body (syn) to a checked, typed [`hir::Body`].
//!
//! Names are resolved to locals, literals get their types by local inference (as rustc infers
//! them), methods and device-API calls become [`intrinsic::Intrinsic`]s, calls to device
//! functions are checked against the callee's signature (from its replay, see `link`), and every
//! construct outside the subset is reported at its tokens with what to write instead.
//!
//! Files: [`ty`] types, [`infer`] inference variables, [`resolve`] type syntax, [`expr`]
//! operators and places, [`control`] blocks and control flow, [`pat`] patterns, [`call`] calls,
//! paths and constants, [`method`] methods, [`api`] the device API, [`asm`] inline PTX,
//! [`printf`] `printf!`, [`panic`] assertions and panics, [`atomic`] atomics and the device
//! heap, [`user_method`] methods and operators of user types, [`unsupported`] the messages for
//! what is not in the subset.

pub mod api;
pub mod asm;
pub mod assoc_type;
pub mod atomic;
pub mod call;
pub mod compare;
pub mod closure;
pub mod control;
pub mod destructure;
pub mod conv;
pub mod enums;
pub mod enum_data;
#[cfg(test)]
mod deferred_tests;
pub mod expr;
pub mod force_inline;
pub mod from_user;
pub mod generic;
pub mod generic_method;
pub mod generic_trait;
pub mod generic_type;
pub mod half2;
pub mod inline_call;
pub mod inline_method;
pub mod hir;
pub mod infer;
pub mod intrinsic;
pub mod local_addr;
pub mod local_alias;
pub mod macro_tokens;
pub mod iter;
pub mod iter_chain;
pub mod iter_cmp;
pub mod iter_concat;
pub mod iter_flat;
pub mod iter_kept;
pub mod iter_peek;
pub mod local_ref;
pub mod method;
pub mod panic;
pub mod pat;
pub mod plain_call;
pub mod pretty;
pub mod prim_generic_trait;
pub mod prim_method;
pub mod printf;
pub mod receiver;
pub mod resolve;
pub mod round;
pub mod source_const;
pub mod trait_call;
pub mod traits;
pub mod statics;
pub mod sum;
pub mod sum_closure;
pub mod texture;
pub mod async_copy;
pub mod mma;
pub mod ty;
pub mod unsupported;
pub mod use_variants;
pub mod user_method;

use crate::link::{Env, Needs};
use crate::report::Errors;
use crate::syntax::signature::Signature;
use hir::{Body, Expr, ExprKind, Local, LocalId, LoopId};
use infer::{Infer, VarKind};
use proc_macro2::Span;
use syn::spanned::Spanned;
use std::collections::HashMap;
use std::rc::Rc;
use ty::{StructDef, Ty};

/// A loop or labelled block that `break`/`continue` can name.
struct LoopScope {
    label: Option<String>,
    id: LoopId,
    /// The type of `break value` (`loop` and labelled blocks), `()` for `while`/`for`.
    break_ty: Ty,
    /// `continue` is allowed (not a labelled block).
    is_loop: bool,
    /// Whether a `break` targets it (a `loop` without one has type `!`).
    broken: bool,
}

pub struct Checker<'a> {
    pub errors: &'a mut Errors,
    pub infer: Infer,
    pub env: &'a Env,
    pub needs: &'a mut Needs,
    locals: Vec<Local>,
    scopes: Vec<HashMap<String, LocalId>>,
    loops: Vec<LoopScope>,
    next_loop: LoopId,
    ret: Ty,
    /// Structs described so far, by path key.
    structs: HashMap<String, Rc<StructDef>>,
    /// Compile-time checks for the generated module (see `resolve`).
    pub checks: Vec<proc_macro2::TokenStream>,
    /// Enums described so far (their integer), by path key (see `enums`).
    pub enums: HashMap<String, ptx_abi::Scalar>,
    /// Locals indexed at run time (see `hir::Local::in_memory`).
    dynamic_index: Vec<LocalId>,
    /// Whether `unsafe` surrounds the current expression (for `ptx_asm!`, shared memory).
    pub in_unsafe: usize,
    /// A parameter of a type not described yet may be named here (it is returned whole).
    pub opaque_ok: bool,
    /// `const N: T = <integer literal>;` items in the body, usable as array lengths.
    pub local_consts: HashMap<String, u64>,
    /// Variables of short constant `for` ranges, and whether they index a local array.
    pub unroll_candidates: HashMap<LocalId, bool>,
    /// The first segments of the paths the item itself writes: names in its scope.
    pub mentioned: std::collections::HashSet<String>,
    /// `printf!` arguments, checked against their conversions once types are inferred.
    pub pending_printf: Vec<printf::Pending>,
    /// `assert_eq!`/`assert_ne!` operands (type, span, macro), checked once types are inferred.
    pub pending_compares: Vec<(Ty, Span, String)>,
    /// Numeric conversions (`x.into()`) whose target the context fixes later: checked once the
    /// types are final (see `conv`).
    pub pending_conversions: Vec<(Ty, Ty, Span)>,
    /// Element types of atomics (type, span, operation, the types it takes), checked once
    /// types are inferred.
    pub pending_atomics: Vec<(Ty, Span, String, Vec<ptx_abi::Scalar>)>,
    /// Integer methods called before their receiver's type was known, checked once it is.
    pub deferred_methods: Vec<method::Deferred>,
    /// In a `&mut self` method: `return` leaves this labelled block, after which the body
    /// returns the receiver (copy-in/copy-out).
    return_to: Option<LoopId>,
    /// The receiver of a `&self`/`&mut self` method, held by value: `*self` is itself.
    pub ref_self: Option<LocalId>,
    /// Instantiations of generic device functions the body calls (see `generic`).
    pub instances: Vec<generic::Instance>,
    /// In an instance: the user traits bounding primitives (`where f32: Float`, see `traits`).
    pub prim_bounds: Vec<(ptx_abi::Scalar, syn::Path)>,
    /// A method call's turbofish (`v.get::<2>()`), for a generic method (`generic_method`).
    pub method_generics: Option<syn::AngleBracketedGenericArguments>,
    /// A generic trait's arguments written at a call (`<V as Scale<u32>>::scale`,
    /// `Scale::<u32>::scale`), for the generic trait call that follows (`generic_trait`).
    pub written_trait_args: Option<syn::AngleBracketedGenericArguments>,
    /// Closures and the names iterator chains bind (see `closure`).
    pub natural: closure::Natural,
    /// A kernel's body: calls of small self-contained device functions are inlined
    /// (`inline_call`).
    pub inline_device_fns: bool,
    /// A kernel's body: calls of small self-contained methods are inlined (`inline_method`).
    pub inline_methods: bool,
    /// The methods whose bodies are being inlined, innermost last: one that calls itself is
    /// compiled as a call there (`inline_method`).
    pub inlining: Vec<String>,
    /// The outside constants read from the source so far, as written (see `source_const`).
    pub assumed: std::collections::HashSet<String>,
}

/// Which calls a body inlines where it qualifies.
#[derive(Clone, Copy)]
pub struct Inlining {
    /// Free `#[device_fn]`s (`inline_call`).
    pub device_fns: bool,
    /// Methods of `DeviceRepr` types (`inline_method`).
    pub methods: bool,
}

/// The checked body, or `None` when errors were reported (or knowledge must be fetched first).
pub fn check(
    block: &syn::Block,
    sig: &Signature,
    item_sig: &syn::Signature,
    env: &Env,
    needs: &mut Needs,
    errors: &mut Errors,
    inline: Inlining,
) -> Option<Checked> {
    // `use Enum::{A, B};` in the body: the variants written with their type (`use_variants`).
    let resolved = use_variants::resolve_uses(block, errors);
    let block = resolved.as_ref().unwrap_or(block);
    // `type Tile = [f32; 16];` in the body: written out where it is named (`local_alias`).
    let aliased = local_alias::resolve_aliases(block, errors);
    let block = aliased.as_ref().unwrap_or(block);
    let mut c = Checker {
        errors,
        infer: Infer::default(),
        env,
        needs,
        locals: Vec::new(),
        scopes: vec![HashMap::new()],
        loops: Vec::new(),
        next_loop: 0,
        ret: Ty::Unit,
        structs: HashMap::new(),
        checks: Vec::new(),
        enums: HashMap::new(),
        dynamic_index: Vec::new(),
        in_unsafe: 0,
        opaque_ok: false,
        local_consts: HashMap::new(),
        unroll_candidates: HashMap::new(),
        mentioned: mentioned_names(item_sig, block),
        pending_printf: Vec::new(),
        pending_compares: Vec::new(),
        pending_conversions: Vec::new(),
        pending_atomics: Vec::new(),
        deferred_methods: Vec::new(),
        return_to: None,
        ref_self: None,
        instances: Vec::new(),
        prim_bounds: traits::prim_bounds(item_sig),
        method_generics: None,
        written_trait_args: None,
        natural: closure::Natural::default(),
        inline_device_fns: inline.device_fns,
        inline_methods: inline.methods,
        inlining: Vec::new(),
        assumed: Default::default(),
    };
    let before = c.errors.len();
    // A type the signature check refused (`syntax::signature`, reported there) is not
    // resolved again: its parameter is `Error`, so nothing is said twice.
    c.ret = match &item_sig.output {
        syn::ReturnType::Default => Ty::Unit,
        syn::ReturnType::Type(..) if matches!(sig.ret, Some((_, None))) => Ty::Error,
        syn::ReturnType::Type(_, t) => match c.resolve_type(t, Position::Signature) {
            // Tuples and `Option`/`Result`s of structs: their members' layouts are needed.
            held @ (Ty::Tuple(_) | Ty::Sum { .. }) => c.describe(&held, t.span()),
            ty => ty,
        },
    };
    let mut params = Vec::new();
    let mut mut_self = None;
    for (p, input) in sig.params.iter().zip(item_sig.inputs.iter()) {
        if let syn::FnArg::Receiver(r) = input {
            // A method's receiver, by value (see `expand::method`).
            let ty = if p.ty.is_some() { c.resolve_type(&p.syn_ty, Position::Signature) } else { Ty::Error };
            use crate::link::info::Recv;
            let recv = Recv::of(r);
            let id = c.declare("self", ty, r.mutability.is_some() || recv == Recv::Mut, r.self_token.span);
            if recv != Recv::Value {
                c.ref_self = Some(id);
            }
            if recv == Recv::Mut {
                mut_self = Some(id);
            }
            params.push(Some(id));
            continue;
        }
        let syn::FnArg::Typed(pt) = input else { continue };
        let mut ty = if p.ty.is_some() { c.resolve_type(&pt.ty, Position::Signature) } else { Ty::Error };
        if let Ty::Tuple(_) = ty {
            // Its members are loaded one by one: their layouts are needed.
            ty = c.describe(&ty, pt.ty.span());
        }
        // Pointers and slices of kernels point to global memory: that is how they reach the
        // device. Recorded in the local's type only through the lowering (see `lower::space`).
        if let Ty::Var(_) = ty {
            ty = Ty::Error;
        }
        let mutable = matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.mutability.is_some());
        params.push(p.ident.as_ref().map(|id| c.declare(&id.to_string(), ty, mutable, id.span())));
    }
    if mut_self.is_some() {
        c.return_to = Some(c.next_loop);
        c.next_loop += 1;
    }
    let ret = c.ret.clone();
    let mut block = c.block(block, &ret);
    let mut ret = c.enum_return(ret);
    if let Some(id) = mut_self {
        // `{ 'body: { ... } self }`, each `return` a `break 'body`.
        let label = c.return_to.take().unwrap_or_default();
        let span = c.locals[id].span;
        let ty = c.locals[id].ty.clone();
        let inner = Expr { kind: ExprKind::Labeled { body: block, id: label }, ty: Ty::Unit, span };
        block = hir::Block { stmts: vec![hir::Stmt::Expr(inner)], tail: Some(Box::new(Expr { kind: ExprKind::Local(id), ty: ty.clone(), span })) };
        ret = ty;
    }
    // Deferred methods wait for every fetch too: a callee's signature can fix a receiver
    // (`times_three(q); q.is_power_of_two()`), and the fallback must not be taken before.
    if c.needs.is_empty() {
        c.resolve_deferred();
    }
    for id in std::mem::take(&mut c.dynamic_index) {
        c.locals[id].in_memory = true;
    }
    // An array of an outside constant's length lives in `.local` (see `lower::const_array`).
    for l in &mut c.locals {
        if let Ty::Array { len: ty::Len::Const(_), .. } = c.infer.resolve(&l.ty) {
            l.in_memory = true;
        }
    }
    // Checks that need the final types (`printf!` conversions, atomics' element types): only
    // once nothing waits for a fetch, since a callee's signature can still fix a literal's type.
    if c.needs.is_empty() {
        c.check_printf_args();
        c.check_compares();
        c.check_conversions();
        c.check_atomics();
    }
    // What is not known yet (until a fetch) has the error type, which no check reports on:
    // errors found now are the body's own, reported now (and the fetch waits for the fix).
    if c.errors.len() > before {
        c.needs.paths.clear();
        return None;
    }
    if !c.needs.is_empty() {
        return None;
    }
    // Every binding's type must be known by now, as rustc requires.
    for l in &c.locals {
        if let Ty::Error = c.infer.resolve(&l.ty) {
            if !matches!(l.ty, Ty::Error) {
                c.errors.at(l.span, format!("type annotations needed for `{}`: write its type (`let {}: T = ...`)", l.name, l.name));
            }
        }
    }
    if c.errors.len() > before {
        return None;
    }
    Some(Checked { body: Body { locals: c.locals, params, block, ret }, checks: c.checks, infer: c.infer, structs: c.structs, instances: c.instances, enums: c.enums })
}

/// A checked body and what the lowering needs with it.
pub struct Checked {
    pub body: Body,
    /// Compile-time checks for the generated module (recognised type names, struct layouts).
    pub checks: Vec<proc_macro2::TokenStream>,
    pub infer: Infer,
    /// The structs described while checking, by path key.
    pub structs: HashMap<String, Rc<StructDef>>,
    /// The generic device functions' instantiations the body calls.
    pub instances: Vec<generic::Instance>,
    /// The enums described while checking (their integer), by path key.
    pub enums: HashMap<String, ptx_abi::Scalar>,
}

/// Where a type is written (some types are only allowed in some places).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Signature,
    Body,
}

impl<'a> Checker<'a> {
    pub fn declare(&mut self, name: &str, ty: Ty, mutable: bool, span: Span) -> LocalId {
        let id = self.locals.len();
        self.locals.push(Local { name: name.to_owned(), ty, mutable, in_memory: false, span });
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_owned(), id);
        }
        id
    }

    pub fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Narrows a local's type once it is known better (a parameter of enum type: its integer).
    pub fn set_local_type(&mut self, id: LocalId, ty: Ty) {
        self.locals[id].ty = ty;
    }

    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id]
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub fn var(&mut self, kind: VarKind) -> Ty {
        self.infer.var(kind)
    }

    /// The type as far as it is known now.
    pub fn shallow(&self, ty: &Ty) -> Ty {
        self.infer.shallow(ty)
    }

    /// Unifies, reporting a mismatch at `span`. A value of a type not described yet (a bare
    /// parameter passed along, see `control::tail_expr`) where a described type is expected
    /// is described first, so it is compared as what it is rather than taken on trust.
    pub fn expect(&mut self, span: Span, expected: &Ty, found: &Ty) {
        let described;
        let found = match (self.shallow(expected), self.shallow(found)) {
            (Ty::Named(_) | Ty::Var(_) | Ty::Error, _) => found,
            (_, f @ Ty::Named(_)) => {
                described = self.describe(&f, span);
                &described
            }
            _ => found,
        };
        if self.infer.unify(expected, found).is_err() {
            let (e, f) = (self.infer.resolve(expected), self.infer.resolve(found));
            self.errors.at(span, format!("mismatched types: expected `{e}`, found `{f}`"));
        }
    }

    /// An expression of type `Error` (after a reported error).
    pub fn error_expr(&self, span: Span) -> Expr {
        Expr { kind: ExprKind::Unit, ty: Ty::Error, span }
    }

    pub fn error(&mut self, span: Span, msg: impl std::fmt::Display) -> Expr {
        self.errors.at(span, msg);
        self.error_expr(span)
    }

    /// Records that `local` is indexed at run time.
    pub fn mark_dynamic_index(&mut self, local: LocalId) {
        self.dynamic_index.push(local);
    }

    fn enter_loop(&mut self, label: Option<&syn::Label>, break_ty: Ty, is_loop: bool) -> LoopId {
        let id = self.next_loop;
        self.next_loop += 1;
        self.loops.push(LoopScope {
            label: label.map(|l| l.name.ident.to_string()),
            id,
            break_ty,
            is_loop,
            broken: false,
        });
        id
    }

    fn exit_loop(&mut self) -> bool {
        self.loops.pop().map(|l| l.broken).unwrap_or(false)
    }
}

/// The first segment of every path in the signature and body.
fn mentioned_names(sig: &syn::Signature, block: &syn::Block) -> std::collections::HashSet<String> {
    struct Names(std::collections::HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            if let Some(first) = p.segments.first() {
                self.0.insert(first.ident.to_string());
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut n = Names(std::collections::HashSet::new());
    syn::visit::Visit::visit_signature(&mut n, sig);
    syn::visit::Visit::visit_block(&mut n, block);
    n.0
}
