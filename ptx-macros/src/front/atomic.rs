//! The atomics of `ptx_runtime::device::atomic` and the device heap (`malloc`, `free`).
//!
//! An atomic call names its memory order (`core::sync::atomic::Ordering::Acquire`) and scope
//! (`Scope::Device`) as constants, because they select the instructions
//! (`ptx_abi::atomic::lower`). Combinations Rust forbids (a `Release` load, an `Acquire` store,
//! a `Relaxed` fence, a `Release` failure order) are errors at the order, with
//! `Forbidden::message`.

use super::hir::{Expr, ExprKind};
use super::intrinsic::{AtomicKind, AtomicOp, Intrinsic};
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use ptx_abi::atomic::{cas_order, lower, Access, Order, Scope};
use ptx_abi::Scalar;
use std::rc::Rc;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

type Args = Punctuated<syn::Expr, syn::Token![,]>;

/// Which element types an operation takes.
#[derive(Clone, Copy, PartialEq)]
enum Elems {
    /// Integers of 8 to 64 bits, `f32`, `f64`.
    Any,
    /// Integers.
    Int,
    /// Integers, `f32`, `f64` (add, sub).
    Arith,
    /// `u32` (`inc`, `dec`: PTX has them for `.u32` only).
    U32,
}

impl<'a> Checker<'a> {
    /// `atomic::<op>(ptr, operands..., order(s), scope)`.
    pub fn atomic(&mut self, op: &str, args: &Args, span: Span) -> Expr {
        use AtomicKind as K;
        let (kind, operands, elems, orders) = match op {
            "load" => (K::Load, 0, Elems::Any, 1),
            "store" => (K::Store, 1, Elems::Any, 1),
            "swap" => (K::Swap, 1, Elems::Any, 1),
            "compare_exchange" => (K::CompareExchange, 2, Elems::Int, 2),
            "fetch_add" => (K::Add, 1, Elems::Arith, 1),
            "fetch_sub" => (K::Sub, 1, Elems::Arith, 1),
            "fetch_and" => (K::And, 1, Elems::Int, 1),
            "fetch_or" => (K::Or, 1, Elems::Int, 1),
            "fetch_xor" => (K::Xor, 1, Elems::Int, 1),
            "fetch_min" => (K::Min, 1, Elems::Int, 1),
            "fetch_max" => (K::Max, 1, Elems::Int, 1),
            "fetch_inc" => (K::Inc, 1, Elems::U32, 1),
            "fetch_dec" => (K::Dec, 1, Elems::U32, 1),
            "fence" => (K::Fence, 0, Elems::Any, 1),
            _ => return self.error(span, format!("internal: unknown atomic operation `{op}`")),
        };
        let pointer = usize::from(kind != K::Fence);
        let want = pointer + operands + orders + 1;
        if args.len() != want {
            let form = match kind {
                K::Fence => "atomic::fence(order, scope)".to_owned(),
                K::Load => "atomic::load(ptr, order, scope)".to_owned(),
                K::CompareExchange => "atomic::compare_exchange(ptr, current, new, success, failure, scope)".to_owned(),
                K::Inc | K::Dec => format!("atomic::{op}(ptr, bound, order, scope)"),
                _ => format!("atomic::{op}(ptr, value, order, scope)"),
            };
            return self.error(span, format!("`atomic::{op}` takes {want} arguments: `{form}`"));
        }
        let mut xs = Vec::new();
        let mut elem = Ty::Unit;
        if pointer == 1 {
            let p = self.expr(&args[0]);
            elem = match self.shallow(&p.ty) {
                Ty::Ptr { pointee, .. } => (*pointee).clone(),
                Ty::Error => return self.error_expr(span),
                Ty::Var(_) => return self.error(p.span, "type annotations needed: the type of this pointer is not known here"),
                t => {
                    let t = self.infer.resolve(&t);
                    return self.error(p.span, format!("atomics take a pointer to the element (`*mut T`, `&mut s[i]`, `p.add(i)`), not `{t}`"));
                }
            };
            xs.push(p);
            for a in &args.iter().collect::<Vec<_>>()[1..1 + operands] {
                let x = self.expr(a);
                let x = self.auto_deref_value(x);
                self.expect(x.span, &elem, &x.ty);
                xs.push(x);
            }
            self.pending_atomics.push((elem.clone(), args[0].span(), op.to_owned(), elems_list(elems)));
        }
        let first_order = pointer + operands;
        let Some(order) = self.order_arg(&args[first_order]) else { return self.error_expr(span) };
        let access = match kind {
            K::Fence => Access::Fence,
            K::Load => Access::Load,
            K::Store => Access::Store,
            _ => Access::Rmw,
        };
        let order = if kind == K::CompareExchange {
            let Some(failure) = self.order_arg(&args[first_order + 1]) else { return self.error_expr(span) };
            match cas_order(order, failure) {
                Ok(o) => o,
                Err(f) => return self.error(args[first_order + 1].span(), format!("the failure order of a compare-exchange is a load's: {}", f.message())),
            }
        } else {
            order
        };
        if let Err(f) = lower(access, order) {
            return self.error(args[first_order].span(), f.message());
        }
        let Some(scope) = self.scope_arg(&args[args.len() - 1]) else { return self.error_expr(span) };
        let ret = match kind {
            K::Store | K::Fence => Ty::Unit,
            _ => elem,
        };
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Atomic(AtomicOp { kind, order, scope }), args: xs }, ty: ret, span }
    }

    /// A memory order, written as a constant of `core::sync::atomic::Ordering`.
    fn order_arg(&mut self, e: &syn::Expr) -> Option<Order> {
        let order = match last_segment(e).as_deref() {
            Some("Relaxed") => Order::Relaxed,
            Some("Acquire") => Order::Acquire,
            Some("Release") => Order::Release,
            Some("AcqRel") => Order::AcqRel,
            Some("SeqCst") => Order::SeqCst,
            _ => {
                self.errors.at(e.span(), "the memory order of a device atomic is a constant (`Ordering::Relaxed`, `Acquire`, `Release`, `AcqRel` or `SeqCst`): it selects the instruction, so it cannot be a run-time value");
                return None;
            }
        };
        Some(order)
    }

    fn scope_arg(&mut self, e: &syn::Expr) -> Option<Scope> {
        let scope = match last_segment(e).as_deref() {
            Some("Block") => Scope::Block,
            Some("Device") => Scope::Device,
            Some("System") => Scope::System,
            _ => {
                self.errors.at(e.span(), "the scope of a device atomic is a constant (`Scope::Block`, `Scope::Device` or `Scope::System`): it selects the instruction, so it cannot be a run-time value");
                return None;
            }
        };
        Some(scope)
    }

    /// Checks the element types of atomics once inference settled them.
    pub fn check_atomics(&mut self) {
        for (ty, span, op, allowed) in std::mem::take(&mut self.pending_atomics) {
            match self.infer.resolve(&ty) {
                Ty::Error => {}
                Ty::Scalar(s) if allowed.contains(&s) => {}
                t => {
                    let names: Vec<&str> = allowed.iter().map(|s| super::ty::scalar_name(*s)).collect();
                    self.errors.at(span, format!("`atomic::{op}` works on {}, not on `{t}`", names.join(", ")));
                }
            }
        }
    }

    /// `malloc::<T>(count)` and `free(ptr)`: the device heap.
    pub fn heap(&mut self, name: &str, generics: &syn::PathArguments, args: &Args, span: Span) -> Expr {
        if name == "free" {
            if args.len() != 1 {
                return self.error(span, "`free` takes the pointer `malloc` returned: `free(p)`");
            }
            let p = self.expr(&args[0]);
            match self.shallow(&p.ty) {
                Ty::Ptr { reference: false, .. } | Ty::Error => {}
                t => {
                    let t = self.infer.resolve(&t);
                    return self.error(p.span, format!("`free` takes the raw pointer `malloc` returned, not `{t}`"));
                }
            }
            return Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Free, args: vec![p] }, ty: Ty::Unit, span };
        }
        let syn::PathArguments::AngleBracketed(g) = generics else {
            return self.error(span, "write the element type explicitly: `malloc::<T>(count)`");
        };
        let elem = match g.args.first() {
            Some(syn::GenericArgument::Type(t)) if g.args.len() == 1 => self.resolve_type(t, super::Position::Body),
            _ => return self.error(span, "write the element type explicitly: `malloc::<T>(count)`"),
        };
        match elem.layout() {
            Some(l) if l.align <= 16 => {}
            Some(_) => return self.error(span, format!("`{elem}` is aligned to more than 16 bytes, and the device heap's blocks are 16-byte aligned")),
            None if matches!(elem, Ty::Error) => return self.error_expr(span),
            None => return self.error(span, format!("`{elem}` has no device layout and cannot be allocated on the device heap")),
        }
        if args.len() != 1 {
            return self.error(span, "`malloc::<T>` takes the number of elements: `malloc::<T>(count)`");
        }
        let n = self.expr(&args[0]);
        self.expect(n.span, &Ty::usize(), &n.ty);
        let ty = Ty::Ptr { mutable: true, reference: false, pointee: Rc::new(elem.clone()) };
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Malloc { elem }, args: vec![n] }, ty, span }
    }
}

fn elems_list(e: Elems) -> Vec<Scalar> {
    use Scalar::*;
    match e {
        Elems::Any => vec![I8, U8, I16, U16, I32, U32, I64, U64, F32, F64],
        Elems::Int => vec![I8, U8, I16, U16, I32, U32, I64, U64],
        Elems::Arith => vec![I8, U8, I16, U16, I32, U32, I64, U64, F32, F64],
        Elems::U32 => vec![U32],
    }
}

/// The last identifier of a path expression (`Ordering::Acquire` → `Acquire`).
fn last_segment(e: &syn::Expr) -> Option<String> {
    match super::expr::strip(e) {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}
