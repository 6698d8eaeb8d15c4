//! The device API (`ptx_runtime::device`): each function's replay names it (`@api name`), and
//! this table gives its signature and the [`Intrinsic`] it lowers to.

use super::hir::{Callee, Expr, ExprKind};
use super::intrinsic::{FastOp, Intrinsic, RedOp, ShflMode, VoteMode};
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use ptx_abi::atomic::Scope;
use ptx_abi::Scalar;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

type Args = Punctuated<syn::Expr, syn::Token![,]>;

impl<'a> Checker<'a> {
    pub fn api_call(&mut self, name: &str, generics: &syn::PathArguments, args: &Args, span: Span) -> Expr {
        let u32t = Ty::u32();
        let u64t = Ty::Scalar(Scalar::U64);
        let b = Ty::bool();
        let sreg = |r: &'static str| (Intrinsic::Sreg(r), vec![], Ty::u32());
        let (op, params, ret): (Intrinsic, Vec<Ty>, Ty) = match name {
            "thread_idx_x" => sreg("%tid.x"),
            "thread_idx_y" => sreg("%tid.y"),
            "thread_idx_z" => sreg("%tid.z"),
            "block_idx_x" => sreg("%ctaid.x"),
            "block_idx_y" => sreg("%ctaid.y"),
            "block_idx_z" => sreg("%ctaid.z"),
            "block_dim_x" => sreg("%ntid.x"),
            "block_dim_y" => sreg("%ntid.y"),
            "block_dim_z" => sreg("%ntid.z"),
            "grid_dim_x" => sreg("%nctaid.x"),
            "grid_dim_y" => sreg("%nctaid.y"),
            "grid_dim_z" => sreg("%nctaid.z"),
            "lane_id" => sreg("%laneid"),
            "warp_size" => {
                self.no_args(args, span);
                return Expr { kind: ExprKind::Int(32), ty: u32t, span };
            }
            "clock" => sreg("%clock"),
            "clock64" => (Intrinsic::Sreg64("%clock64"), vec![], u64t),
            "global_timer" => (Intrinsic::Sreg64("%globaltimer"), vec![], u64t),
            "sync_threads" => (Intrinsic::SyncThreads, vec![], Ty::Unit),
            "sync_threads_count" => (Intrinsic::SyncThreadsRed(RedOp::Popc), vec![b.clone()], u32t),
            "sync_threads_and" => (Intrinsic::SyncThreadsRed(RedOp::And), vec![b.clone()], b.clone()),
            "sync_threads_or" => (Intrinsic::SyncThreadsRed(RedOp::Or), vec![b.clone()], b.clone()),
            "sync_warp" => (Intrinsic::SyncWarp, vec![u32t], Ty::Unit),
            "grid_sync" => {
                // Cooperative groups' grid barrier: a device function of the runtime
                // (`device/grid.rs`), as nvcc inlines `this_grid().sync()`'s header code.
                self.no_args(args, span);
                let callee = std::rc::Rc::new(Callee { path: quote::quote!(::ptx_runtime::device::__grid_sync), assoc: None, ret: Ty::Unit });
                return Expr { kind: ExprKind::Call { callee, args: vec![] }, ty: Ty::Unit, span };
            }
            "shfl_sync" | "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" => {
                let mode = match name {
                    "shfl_sync" => ShflMode::Idx,
                    "shfl_up_sync" => ShflMode::Up,
                    "shfl_down_sync" => ShflMode::Down,
                    _ => ShflMode::Bfly,
                };
                return self.shfl(mode, args, span);
            }
            "all_sync" => (Intrinsic::Vote(VoteMode::All), vec![u32t, b.clone()], b.clone()),
            "any_sync" => (Intrinsic::Vote(VoteMode::Any), vec![u32t, b.clone()], b.clone()),
            "uni_sync" => (Intrinsic::Vote(VoteMode::Uni), vec![u32t, b.clone()], b.clone()),
            "ballot_sync" => (Intrinsic::Vote(VoteMode::Ballot), vec![u32t.clone(), b.clone()], u32t),
            "active_mask" => (Intrinsic::ActiveMask, vec![], u32t),
            "thread_fence_block" => (Intrinsic::Fence(Scope::Block), vec![], Ty::Unit),
            "thread_fence" => (Intrinsic::Fence(Scope::Device), vec![], Ty::Unit),
            "thread_fence_system" => (Intrinsic::Fence(Scope::System), vec![], Ty::Unit),
            "nanosleep" => (Intrinsic::Nanosleep, vec![u32t], Ty::Unit),
            "trap" => (Intrinsic::Trap, vec![], Ty::Never),
            "shared_array" | "dynamic_shared" => return self.shared(name, generics, args, span),
            "malloc" | "free" => return self.heap(name, generics, args, span),
            _ => {
                if let Some(op) = name.strip_prefix("atomic_") {
                    return self.atomic(op, args, span);
                }
                if let Some(f) = name.strip_prefix("fast_") {
                    return self.fast(f, args, span);
                }
                if let Some(e) = self.texture_call(name, args, span) {
                    return e;
                }
                if let Some(e) = self.async_call(name, args, span) {
                    return e;
                }
                if let Some(e) = self.mma_call(name, args, span) {
                    return e;
                }
                return self.error(span, format!("internal: unknown device API function `{name}`"));
            }
        };
        let mut xs = Vec::new();
        if args.len() != params.len() {
            return self.error(span, format!("`{name}` takes {} argument(s) but {} were given", params.len(), args.len()));
        }
        for (a, p) in args.iter().zip(&params) {
            let x = self.expr(a);
            let x = self.auto_deref_value(x);
            self.expect(x.span, p, &x.ty);
            xs.push(x);
        }
        Expr { kind: ExprKind::Intrinsic { op, args: xs }, ty: ret, span }
    }

    fn no_args(&mut self, args: &Args, span: Span) {
        if !args.is_empty() {
            self.errors.at(span, "this function takes no arguments");
        }
    }

    /// `shfl_*_sync(mask, value, lane)`: the value is any 32- or 64-bit scalar.
    fn shfl(&mut self, mode: ShflMode, args: &Args, span: Span) -> Expr {
        if args.len() != 3 {
            return self.error(span, "warp shuffles take (mask: u32, value, lane_or_delta: u32)");
        }
        let mask = self.expr(&args[0]);
        self.expect(mask.span, &Ty::u32(), &mask.ty);
        let value = self.expr(&args[1]);
        let value = self.auto_deref_value(value);
        let lane = self.expr(&args[2]);
        self.expect(lane.span, &Ty::u32(), &lane.ty);
        let ty = value.ty.clone();
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Shfl(mode), args: vec![mask, value, lane] }, ty, span }
    }

    fn shared(&mut self, name: &str, generics: &syn::PathArguments, args: &Args, span: Span) -> Expr {
        self.no_args(args, span);
        let syn::PathArguments::AngleBracketed(g) = generics else {
            let form = if name == "shared_array" { "shared_array::<T, N>()" } else { "dynamic_shared::<T>()" };
            return self.error(span, format!("write the element type (and length) explicitly: `{form}`"));
        };
        let mut elem = None;
        let mut len = None;
        for a in &g.args {
            match a {
                syn::GenericArgument::Type(syn::Type::Path(p)) if elem.is_some() => {
                    // `shared_array::<f32, TILE>`: a constant's path, which parses as a type.
                    let as_expr = syn::Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: p.qself.clone(), path: p.path.clone() });
                    len = Some(self.array_len(&as_expr));
                }
                syn::GenericArgument::Type(t) => elem = Some(self.resolve_type(t, super::Position::Body)),
                syn::GenericArgument::Const(e) => len = Some(self.array_len(e)),
                other => {
                    self.errors.error(other, "unexpected generic argument");
                }
            }
        }
        let Some(elem) = elem else { return self.error(span, "write the element type explicitly") };
        if elem.layout().is_none() && !matches!(elem, Ty::Error) {
            return self.error(span, format!("`{elem}` has no device layout and cannot be stored in shared memory"));
        }
        if self.in_unsafe == 0 {
            // rustc reports the missing `unsafe` too; nothing to add.
        }
        let elem = std::rc::Rc::new(elem);
        if name == "shared_array" {
            let Some(len) = len else { return self.error(span, "write the length: `shared_array::<T, N>()`") };
            let ty = Ty::Shared { elem: elem.clone(), len: Some(len.clone()) };
            let op = Intrinsic::SharedArray { elem: (*elem).clone(), len };
            Expr { kind: ExprKind::Intrinsic { op, args: vec![] }, ty, span }
        } else {
            let ty = Ty::Shared { elem: elem.clone(), len: None };
            Expr { kind: ExprKind::Intrinsic { op: Intrinsic::DynShared { elem: (*elem).clone() }, args: vec![] }, ty, span }
        }
    }

    /// `fast::sin(x)` and friends: `f32` only, one `.approx` instruction (or a few).
    fn fast(&mut self, f: &str, args: &Args, span: Span) -> Expr {
        let (op, n) = match f {
            "sin" => (FastOp::Sin, 1),
            "cos" => (FastOp::Cos, 1),
            "tan" => (FastOp::Tan, 1),
            "exp2" => (FastOp::Exp2, 1),
            "exp" => (FastOp::Exp, 1),
            "log2" => (FastOp::Log2, 1),
            "ln" => (FastOp::Ln, 1),
            "rsqrt" => (FastOp::Rsqrt, 1),
            "sqrt" => (FastOp::Sqrt, 1),
            "recip" => (FastOp::Recip, 1),
            "div" => (FastOp::Div, 2),
            "tanh" => (FastOp::Tanh, 1),
            "powf" => (FastOp::Powf, 2),
            "exp2_ftz" => (FastOp::Exp2Ftz, 1),
            "recip_ftz" => (FastOp::RecipFtz, 1),
            "rsqrt_ftz" => (FastOp::RsqrtFtz, 1),
            "div_ftz" => (FastOp::DivFtz, 2),
            _ => return self.error(span, format!("internal: unknown fast function `{f}`")),
        };
        if args.len() != n {
            return self.error(span, format!("`fast::{f}` takes {n} argument(s)"));
        }
        let f32t = Ty::Scalar(Scalar::F32);
        let mut xs = Vec::new();
        for a in args {
            let x = self.expr(a);
            let x = self.auto_deref_value(x);
            self.expect(x.span, &f32t, &x.ty);
            xs.push(x);
        }
        let _ = args.span();
        Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Fast(op), args: xs }, ty: f32t, span }
    }
}
