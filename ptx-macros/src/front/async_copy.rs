//! Asynchronous copies and mbarriers (`ptx_runtime::device::memcpy_async`, `pipeline_commit`,
//! `mbarrier_arrive`, `memcpy_async_bulk`, ...): checked here, lowered by `lower::async_copy`
//! to `cp.async`, `cp.async.bulk` and `mbarrier` as nvcc lowers CUDA's
//! `__pipeline_memcpy_async`, `__mbarrier_*` and `cuda::ptx::cp_async_bulk`.

use super::hir::{Expr, ExprKind};
use super::intrinsic::Intrinsic;
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use ptx_abi::Scalar;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

type Args = Punctuated<syn::Expr, syn::Token![,]>;

/// One operation; its arguments are in the order the device API takes them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AsyncOp {
    /// `cp.async` of one element: args dst, src (and the source bytes with `zfill`). `ca`:
    /// always `.ca`; otherwise as `__pipeline_memcpy_async` chooses (`.cg` for 16 bytes).
    Copy { ca: bool, zfill: bool },
    /// `cp.async.commit_group`.
    Commit,
    /// `cp.async.wait_group n`.
    Wait(u32),
    /// `cp.async.wait_all`.
    WaitAll,
    /// An `mbarrier` operation: args the barrier, then the count, token, parity or bytes.
    Mbar(MbarOp),
    /// `cp.async.bulk...mbarrier::complete_tx::bytes`: args dst, the source slice, the barrier.
    Bulk,
    /// `cp.async.bulk.global.shared::cta.bulk_group`: args the destination slice, src.
    BulkStore,
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group n`.
    BulkWait(u32),
    /// `fence.proxy.async.shared::cta`.
    FenceProxyAsync,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MbarOp {
    Init,
    Arrive,
    ArriveDrop,
    TestWait,
    TryWait,
    TryWaitParity,
    Inval,
    ExpectTx,
    ArriveExpectTx,
}

impl MbarOp {
    /// The sm_90 operations.
    pub fn needs_sm90(self) -> bool {
        matches!(self, MbarOp::TryWait | MbarOp::TryWaitParity | MbarOp::ExpectTx | MbarOp::ArriveExpectTx)
    }
}

impl<'a> Checker<'a> {
    /// The asynchronous-copy and mbarrier functions; `None` for any other name.
    pub fn async_call(&mut self, name: &str, args: &Args, span: Span) -> Option<Expr> {
        let u32t = Ty::u32();
        let u64t = Ty::Scalar(Scalar::U64);
        // (operation, operands after the pointer(s), result)
        let (op, rest, ret): (AsyncOp, Vec<Ty>, Ty) = match name {
            "memcpy_async" => (AsyncOp::Copy { ca: false, zfill: false }, vec![], Ty::Unit),
            "memcpy_async_ca" => (AsyncOp::Copy { ca: true, zfill: false }, vec![], Ty::Unit),
            "memcpy_async_zfill" => (AsyncOp::Copy { ca: false, zfill: true }, vec![u32t.clone()], Ty::Unit),
            "pipeline_commit" => (AsyncOp::Commit, vec![], Ty::Unit),
            "pipeline_wait_all" => (AsyncOp::WaitAll, vec![], Ty::Unit),
            "bulk_commit" => (AsyncOp::BulkCommit, vec![], Ty::Unit),
            "fence_proxy_async" => (AsyncOp::FenceProxyAsync, vec![], Ty::Unit),
            "pipeline_wait_prior" | "bulk_wait_prior" => {
                let n = match args.iter().next() {
                    Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) if args.len() == 1 => i.base10_parse::<u32>().ok().filter(|n| *n <= 63),
                    _ => None,
                };
                let bulk = name == "bulk_wait_prior";
                let Some(n) = n else {
                    let ptx = if bulk { "cp.async.bulk.wait_group" } else { "cp.async.wait_group" };
                    return Some(self.error(span, format!("`{name}(n)` takes a literal `n` (0 to 63): it is `{ptx} n`, whose operand is a constant")));
                };
                let op = if bulk { AsyncOp::BulkWait(n) } else { AsyncOp::Wait(n) };
                return Some(Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Async(op), args: vec![] }, ty: Ty::Unit, span });
            }
            "mbarrier_init" => (AsyncOp::Mbar(MbarOp::Init), vec![u32t.clone()], Ty::Unit),
            "mbarrier_arrive" => (AsyncOp::Mbar(MbarOp::Arrive), vec![], u64t.clone()),
            "mbarrier_arrive_drop" => (AsyncOp::Mbar(MbarOp::ArriveDrop), vec![], u64t.clone()),
            "mbarrier_test_wait" => (AsyncOp::Mbar(MbarOp::TestWait), vec![u64t.clone()], Ty::bool()),
            "mbarrier_try_wait" => (AsyncOp::Mbar(MbarOp::TryWait), vec![u64t.clone()], Ty::bool()),
            "mbarrier_try_wait_parity" => (AsyncOp::Mbar(MbarOp::TryWaitParity), vec![u32t.clone()], Ty::bool()),
            "mbarrier_inval" => (AsyncOp::Mbar(MbarOp::Inval), vec![], Ty::Unit),
            "mbarrier_expect_tx" => (AsyncOp::Mbar(MbarOp::ExpectTx), vec![u32t.clone()], Ty::Unit),
            "mbarrier_arrive_expect_tx" => (AsyncOp::Mbar(MbarOp::ArriveExpectTx), vec![u32t.clone()], u64t.clone()),
            "memcpy_async_bulk" => (AsyncOp::Bulk, vec![], Ty::Unit),
            "memcpy_async_bulk_store" => (AsyncOp::BulkStore, vec![], Ty::Unit),
            _ => return None,
        };
        let pointers = match op {
            AsyncOp::Copy { .. } => 2,
            AsyncOp::Mbar(_) => 1,
            AsyncOp::Bulk => 3,
            AsyncOp::BulkStore => 2,
            _ => 0,
        };
        if args.len() != pointers + rest.len() {
            let form = match op {
                AsyncOp::Copy { zfill: true, .. } => format!("{name}(dst, src, src_bytes)"),
                AsyncOp::Copy { .. } => format!("{name}(dst, src)"),
                AsyncOp::Bulk => format!("{name}(dst, &src[a..b], bar)"),
                AsyncOp::BulkStore => format!("{name}(&mut dst[a..b], src)"),
                AsyncOp::Mbar(MbarOp::Init) => format!("{name}(bar, count)"),
                AsyncOp::Mbar(MbarOp::TestWait | MbarOp::TryWait) => format!("{name}(bar, token)"),
                AsyncOp::Mbar(MbarOp::TryWaitParity) => format!("{name}(bar, parity)"),
                AsyncOp::Mbar(MbarOp::ExpectTx | MbarOp::ArriveExpectTx) => format!("{name}(bar, bytes)"),
                AsyncOp::Mbar(_) => format!("{name}(bar)"),
                _ => format!("{name}()"),
            };
            return Some(self.error(span, format!("`{name}` takes {} argument(s): `{form}`", pointers + rest.len())));
        }
        let all: Vec<&syn::Expr> = args.iter().collect();
        let Some(mut xs) = self.async_pointers(op, &all) else { return Some(self.error_expr(span)) };
        for (a, p) in all[pointers..].iter().zip(&rest) {
            let x = self.expr(a);
            let x = self.auto_deref_value(x);
            self.expect(x.span, p, &x.ty);
            xs.push(x);
        }
        Some(Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Async(op), args: xs }, ty: ret, span })
    }

    /// The pointer (and slice) arguments.
    fn async_pointers(&mut self, op: AsyncOp, all: &[&syn::Expr]) -> Option<Vec<Expr>> {
        let mut xs = Vec::new();
        match op {
            AsyncOp::Copy { .. } => {
                let (d, de) = self.element_ptr(all[0])?;
                let (s, se) = self.element_ptr(all[1])?;
                self.expect(s.span, &de, &se);
                xs.extend([d, s]);
            }
            AsyncOp::Mbar(_) => xs.push(self.barrier_ptr(all[0])?),
            AsyncOp::Bulk => {
                let (d, de) = self.element_ptr(all[0])?;
                let s = self.expr(all[1]);
                let elem = match self.shallow(&s.ty) {
                    Ty::Slice { elem, .. } => (*elem).clone(),
                    Ty::Error => return None,
                    t => {
                        let t = self.infer.resolve(&t);
                        self.errors.at(s.span, format!("the source of a bulk copy is a slice of global memory (`&x[a..b]`), not `{t}`"));
                        return None;
                    }
                };
                self.expect(s.span, &de, &elem);
                xs.extend([d, s]);
                xs.push(self.barrier_ptr(all[2])?);
            }
            AsyncOp::BulkStore => {
                let d = self.expr(all[0]);
                let elem = match self.shallow(&d.ty) {
                    Ty::Slice { elem, mutable: true } => (*elem).clone(),
                    Ty::Error => return None,
                    t => {
                        let t = self.infer.resolve(&t);
                        self.errors.at(d.span, format!("the destination of a bulk store is a mutable slice of global memory (`&mut y[a..b]`), not `{t}`"));
                        return None;
                    }
                };
                let (s, se) = self.element_ptr(all[1])?;
                self.expect(s.span, &elem, &se);
                xs.extend([d, s]);
            }
            _ => {}
        }
        Some(xs)
    }

    /// A pointer to one element (`&mut tile[i]`, `&x[i]`, `p.add(i)`) and its element type.
    fn element_ptr(&mut self, e: &syn::Expr) -> Option<(Expr, Ty)> {
        let p = self.expr(e);
        match self.shallow(&p.ty) {
            Ty::Ptr { pointee, .. } => {
                let t = (*pointee).clone();
                Some((p, t))
            }
            Ty::Error => None,
            t => {
                let t = self.infer.resolve(&t);
                self.errors.at(e.span(), format!("asynchronous copies take a pointer to the element (`&mut tile[i]`, `&x[i]`, `p.add(i)`), not `{t}`"));
                None
            }
        }
    }

    /// The barrier: a pointer to a `u64` of shared memory (`&mut bar[0]`).
    fn barrier_ptr(&mut self, e: &syn::Expr) -> Option<Expr> {
        let (p, t) = self.element_ptr(e)?;
        if !matches!(self.shallow(&t), Ty::Var(_) | Ty::Scalar(Scalar::U64)) {
            let t = self.infer.resolve(&t);
            self.errors.at(e.span(), format!("an mbarrier is a `u64` of shared memory (`&mut bar[0]` of a `shared_array::<u64, 1>()`), not a `{t}`"));
            return None;
        }
        self.expect(p.span, &Ty::Scalar(Scalar::U64), &t);
        Some(p)
    }
}
