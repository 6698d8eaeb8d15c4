//! Run-time checks and panics: the one place that decides what a failed check does.
//!
//! Rust panics on an out-of-bounds index, a division by zero, `MIN / -1`, a `step_by(0)`, a
//! failed `assert!`, an explicit `panic!`. On the device each of these branches to a stub that
//! names the failure's site (the message Rust's panic carries, the `file!()`/`line!()`/
//! `column!()` of the expression or macro, and the function's path) and jumps to the
//! function's one report block, which ends in `trap`: the launch fails.
//!
//! How the block reports (one per function, whatever the number of sites):
//! - by default through the function's slot (`ptx_abi::report`): the stub sets the site's
//!   number, the block stores it where the slot points (host-mapped memory the runtime reads
//!   after the launch fails), then traps. No call: a handful of SASS instructions, and none of
//!   the ABI call's registers. The sites are comment lines of the module (`Decls::reports`).
//! - under `debug` and in exported (`#[no_mangle]`) functions, which other runtimes load, by
//!   calling `__assertfail(message, file, line, function, 1)` (PTX Interoperability §3), as
//!   nvcc's `assert` does (the driver prints the message): the stub sets the line and the
//!   strings in registers; where every site has one message, file or function, the call sets
//!   it once instead (`settle_report`). About twenty SASS instructions, the ABI call sequence.
//!
//! The writer places blocks that end in `trap`, and those that jump to one, after the hot code.

use super::value::Val;
use super::Lowerer;
use crate::front::hir::{BinOp, Panic, PanicWhen};
use crate::front::ty::Ty;
use crate::ir::{Arg, BlockId, Inst, InstKind, Mem, Opcode, Order, Reg, RegClass, StateSpace, Sym, Term, Type};
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::quote;

/// A function's one report block and the registers its stubs set.
#[derive(Clone, Copy)]
pub enum Reporter {
    /// Through the slot: the stubs set the site's number.
    Slot { block: BlockId, site: Reg },
    /// `__assertfail`: the stubs set the message, line, file and function.
    Call(ReportCall),
}

/// The `__assertfail` call and its registers.
#[derive(Clone, Copy)]
pub struct ReportCall {
    pub call: BlockId,
    pub message: Reg,
    pub line: Reg,
    pub file: Reg,
    pub function: Reg,
}

/// One site a function's failures report through its slot: `Piece` expressions of its line
/// and column, and `&str` expressions of its file, function and message, all evaluated by
/// rustc. Site `i` stores the number `i + 1`.
///
/// A site is a message at a line: two checks of one line (`w[k] * x[i + k]`) share one, as
/// they share a report on the host's panic line, so the passes that merge checks see one
/// failure (`ir::hoist::same_failure`); its column is the first check's.
#[derive(Clone)]
pub struct ReportSite {
    pub line: TokenStream,
    pub column: TokenStream,
    pub file: TokenStream,
    pub function: TokenStream,
    pub message: TokenStream,
    /// The message, file, function and line, as the macro sees them.
    key: String,
}

impl ReportSite {
    fn at(message: TokenStream, span: Span) -> ReportSite {
        let (file, function) = (file_name(span), function_path(span));
        let line = match crate::ir::loc::replayed(span) {
            Some((_, line)) => line as usize,
            None => span.start().line,
        };
        // Without a line (compilers before 1.88), the expression's own span.
        let place = if line == 0 { format!("{span:?}") } else { format!("{}:{line}", span.file()) };
        let key = [&message, &file, &function].map(crate::link::key).join(" ") + " " + &place;
        ReportSite { line: line_piece(span), column: column_piece(span), file, function, message, key }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Check {
    /// `s[i]` with `i >= s.len()`.
    Bounds,
    /// `&s[a..b]` with `a > b` or `b > s.len()`.
    SliceRange,
    DivideByZero,
    /// `MIN / -1` or `MIN % -1`.
    DivideOverflow,
    /// `step_by(0)`.
    ZeroStep,
}

impl Check {
    /// The message Rust's panic would carry (without the run-time values Rust adds to some).
    pub fn message(self) -> &'static str {
        match self {
            Check::Bounds => "index out of bounds",
            Check::SliceRange => "slice index out of range",
            Check::DivideByZero => "attempt to divide by zero",
            Check::DivideOverflow => "attempt to divide with overflow",
            Check::ZeroStep => "assertion failed: step != 0",
        }
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    /// Stops the thread with `check`'s panic when `pred` holds, reporting the location of the
    /// expression being lowered.
    pub fn check_fails_if(&mut self, pred: Reg, check: Check) {
        let message = check.message();
        let stub = self.fail_stub(quote!(#message), self.span);
        self.branch_to_fail(pred, false, stub);
    }

    /// The stub that reports `message` at `span`'s line: made once per message and location.
    fn fail_stub(&mut self, message: TokenStream, span: Span) -> BlockId {
        let key = format!("{} {span:?}", crate::link::key(&message));
        if let Some(&b) = self.fails.get(&key) {
            return b;
        }
        // The report block is made first: the writer places cold blocks in the order they
        // were made, and with the stubs after it ptxas predicates a stub into its branch.
        self.reporter();
        let b = self.cold_block(|l| l.report(message, span));
        self.fails.insert(key, b);
        b
    }

    /// The function's report block (made on first use) and the registers its stubs set.
    fn reporter(&mut self) -> Reporter {
        if let Some(r) = self.reporter {
            return r;
        }
        let r = if self.cx.assertfail {
            let (message, line, file, function) = (self.reg(RegClass::B64), self.reg(RegClass::B32), self.reg(RegClass::B64), self.reg(RegClass::B64));
            let call = self.cold_block(|l| l.assertfail([message, file, function].map(Arg::Reg), Arg::Reg(line)));
            Reporter::Call(ReportCall { call, message, line, file, function })
        } else {
            let site = self.reg(RegClass::B32);
            let block = self.cold_block(|l| l.report_through_slot(site));
            Reporter::Slot { block, site }
        };
        self.reporter = Some(r);
        r
    }

    /// The slot's block: store the site's number where the slot points (host-mapped memory
    /// once the runtime armed it, else the module's own word: never null, so no test), make the
    /// store visible to the host, `trap`.
    fn report_through_slot(&mut self, site: Reg) {
        let slot = Arg::Sym(Sym::Piece(slot_name()));
        let at = self.b.op1(Opcode::Ld(Mem::plain(StateSpace::Const, Type::U64)), RegClass::B64, vec![Arg::mem(slot, 0)]);
        let store = Mem { order: Order::Volatile, ..Mem::plain(StateSpace::Global, Type::U32) };
        self.b.op0(Opcode::St(store), vec![Arg::mem(Arg::Reg(at), 0), Arg::Reg(site)]);
        self.b.op0(Opcode::Membar(ptx_abi::atomic::Scope::System), vec![]);
        self.b.terminate(Term::Trap);
    }

    /// Ends the current block with a jump to the function's report block, reporting `message`
    /// at `span`'s location.
    fn report(&mut self, message: TokenStream, span: Span) {
        match self.reporter() {
            Reporter::Slot { block, site } => {
                let number = self.report_site(ReportSite::at(message, span));
                self.b.op_into(Opcode::Mov(Type::U32), site, vec![Arg::imm(number as i64)]);
                self.b.terminate(Term::Jump(block));
            }
            Reporter::Call(r) => self.report_by_call(r, message, span),
        }
    }

    /// The number of `site` among the function's (from 1), added once.
    fn report_site(&mut self, site: ReportSite) -> usize {
        let sites = &mut self.decls.reports;
        match sites.iter().position(|s| s.key == site.key) {
            Some(i) => i + 1,
            None => {
                sites.push(site);
                sites.len()
            }
        }
    }

    fn report_by_call(&mut self, r: ReportCall, message: TokenStream, span: Span) {
        let i = self.string_index(message);
        if !self.report_messages.contains(&i) {
            self.report_messages.push(i);
        }
        let f = self.string_index(file_name(span));
        if !self.report_files.contains(&f) {
            self.report_files.push(f);
        }
        let p = self.string_index(function_path(span));
        if !self.report_functions.contains(&p) {
            self.report_functions.push(p);
        }
        let name = |i| Arg::Sym(Sym::Piece(super::syscall::string_name(i)));
        self.b.op_into(Opcode::Mov(Type::U32), r.line, vec![line_number(span)]);
        self.b.op_into(Opcode::Mov(Type::U64), r.message, vec![name(i)]);
        self.b.op_into(Opcode::Mov(Type::U64), r.file, vec![name(f)]);
        self.b.op_into(Opcode::Mov(Type::U64), r.function, vec![name(p)]);
        self.b.terminate(Term::Jump(r.call));
    }

    /// Values every stub sets alike move into the report block. Through the slot: a function
    /// with one site sets its number there, and its checks branch to the block directly.
    /// Through `__assertfail`: where every failure reports one message (most functions:
    /// bounds checks only), the call takes it as an immediate and the stubs set only the line:
    /// the PTX is shorter, and so is the expansion (each stub's `mov` names the string's
    /// symbol, a piece rustc evaluates). The same for the file and the function, which differ
    /// only where an inlined function fails a check (another function, maybe in another file).
    pub(super) fn settle_report(&mut self) {
        let r = match self.reporter {
            Some(Reporter::Call(r)) => r,
            Some(Reporter::Slot { block, site }) => {
                if self.decls.reports.len() == 1 {
                    self.settle_into_call(block, site);
                    self.skip_empty_stubs(block);
                }
                return;
            }
            None => return,
        };
        if self.report_functions.len() == 1 {
            self.settle_into_call(r.call, r.function);
        }
        if self.report_files.len() == 1 {
            self.settle_into_call(r.call, r.file);
        }
        if self.report_messages.len() == 1 {
            self.settle_into_call(r.call, r.message);
        }
    }

    /// The stubs' `mov`s into `reg` move to the call's block: one, first.
    fn settle_into_call(&mut self, call: BlockId, reg: Reg) {
        let sets = |i: &Inst| matches!(&i.kind, InstKind::Op { opcode: Opcode::Mov(_), args, .. } if matches!(args[0], Arg::Reg(r) if r == reg));
        let mut set = None;
        for block in &mut self.b.func.blocks {
            block.insts.retain(|i| {
                let keep = !sets(i);
                if !keep {
                    set = Some(i.clone());
                }
                keep
            });
        }
        if let Some(set) = set {
            self.b.func.blocks[call.0 as usize].insts.insert(0, set);
        }
    }

    /// Branches to a stub left empty (its `mov` settled into `block`) go to `block` itself: one
    /// jump less, and ptxas 13.5 crashes on an empty block that jumps back to a `trap`.
    fn skip_empty_stubs(&mut self, block: BlockId) {
        let blocks = &mut self.b.func.blocks;
        let empty: Vec<bool> = blocks.iter().map(|b| b.insts.is_empty() && matches!(b.term, Term::Jump(t) if t == block)).collect();
        let skip = |t: &mut BlockId| {
            if empty[t.0 as usize] {
                *t = block;
            }
        };
        for b in blocks.iter_mut() {
            match &mut b.term {
                Term::Jump(t) => skip(t),
                Term::Branch { if_true, if_false, .. } => {
                    skip(if_true);
                    skip(if_false);
                }
                Term::Open | Term::Ret | Term::Trap => {}
            }
        }
    }

    /// A new block filled by `fill`, off the current path (the current block goes on).
    fn cold_block(&mut self, fill: impl FnOnce(&mut Self)) -> BlockId {
        let cur = self.b.current();
        let b = self.b.new_block();
        self.b.continue_in(b);
        fill(self);
        self.b.continue_in(cur);
        b
    }

    /// `@pred bra fail` (`@!pred` when `negate`), continuing in the same region.
    fn branch_to_fail(&mut self, pred: Reg, negate: bool, fail: BlockId) {
        let cont = self.b.new_block();
        self.b.terminate(Term::Branch { pred, negate, if_true: fail, if_false: cont });
        self.b.continue_in(cont);
    }

    /// `assert!` and friends (type `()`), `panic!` and friends (type `!`).
    pub fn panic(&mut self, p: &Panic) -> Val {
        let skip = if p.debug {
            // `debug_assert!`: the check runs only when the crate has `debug_assertions`
            // (a constant rustc supplies; ptxas folds the branch away).
            let on = crate::front::hir::Expr {
                kind: crate::front::hir::ExprKind::Const(quote!(::core::cfg!(debug_assertions))),
                ty: Ty::bool(),
                span: p.span,
            };
            let v = self.expr(&on);
            let on = self.pred(&v);
            let run = self.b.new_block();
            let skip = self.b.new_block();
            self.b.terminate(Term::Branch { pred: on, negate: true, if_true: skip, if_false: run });
            self.b.switch_to(run);
            Some(skip)
        } else {
            None
        };
        match &p.when {
            PanicWhen::Always => {
                self.report(p.message.clone(), p.span);
                return Val::Never;
            }
            PanicWhen::Not(cond) => {
                let c = self.expr(cond);
                if matches!(c, Val::Never) {
                    return Val::Never;
                }
                let holds = self.pred(&c);
                let fail = self.new_fail_block(p.message.clone(), p.span, None);
                self.branch_to_fail(holds, true, fail);
            }
            PanicWhen::Compare { eq, left, right } => {
                let l = self.expr(left);
                let l = self.stabilize(l);
                let r = self.expr(right);
                if matches!(l, Val::Never) || matches!(r, Val::Never) {
                    return Val::Never;
                }
                let r = self.stabilize(r);
                let ty = self.ty(&left.ty);
                let s = match &ty {
                    Ty::Scalar(s) => *s,
                    Ty::Ptr { .. } => Scalar::U64,
                    t => return self.error(left.span, format!("internal: assertion on `{t}`")),
                };
                let op = if *eq { BinOp::Ne } else { BinOp::Eq };
                let (lv, rv) = match &ty {
                    Ty::Ptr { .. } => (Val::S(self.generic_address(&l)), Val::S(self.generic_address(&r))),
                    _ => (l, r),
                };
                let fails = self.compare(op, s, &lv, &rv);
                let fail = self.new_fail_block(p.message.clone(), p.span, Some((&ty, lv, rv)));
                self.branch_to_fail(fails, false, fail);
            }
        }
        if let Some(skip) = skip {
            self.b.jump_to(skip);
        }
        Val::Unit
    }

    /// A failure block for one assertion; `values` are printed first (`  left: ..`,
    /// ` right: ..`, as Rust's message for `assert_eq!` shows them: integers in decimal, `bool`s
    /// as `true`/`false`, floats with `%.9g`/`%.17g`, pointers with `%p`).
    fn new_fail_block(&mut self, message: TokenStream, span: Span, values: Option<(&Ty, Val, Val)>) -> BlockId {
        match values {
            None => self.fail_stub(message, span),
            values => self.cold_block(|l| l.fail_with_values(message, span, values)),
        }
    }

    fn fail_with_values(&mut self, message: TokenStream, span: Span, values: Option<(&Ty, Val, Val)>) {
        if let Some((ty, l, r)) = values {
            let conv = match ty {
                Ty::Ptr { .. } => "%p",
                Ty::Scalar(Scalar::Bool) => "%s",
                Ty::Scalar(Scalar::F32) => "%.9g",
                Ty::Scalar(Scalar::F64) => "%.17g",
                Ty::Scalar(s) if s.size() == 8 && s.is_signed() => "%lld",
                Ty::Scalar(s) if s.size() == 8 => "%llu",
                Ty::Scalar(s) if s.is_signed() => "%d",
                _ => "%u",
            };
            let format = format!("  left: {conv}\n right: {conv}\n");
            self.print_values(&format, ty, &[l, r]);
        }
        self.report(message, span);
    }
}

/// The line of `span` as an immediate rustc supplies (`line!()` at that span), or, in a
/// replayed body (`ir::loc::replayed`), the span's own.
pub fn line_number(span: Span) -> Arg {
    match crate::ir::loc::replayed(span) {
        Some((_, line)) => Arg::imm(line as i64),
        None => Arg::Sym(Sym::Piece(quote::quote_spanned!(span=> ::ptx_runtime::__private::Piece::Dec(::core::line!() as u64)))),
    }
}

/// The line of `span` as a `Piece` expression (a site's, see [`ReportSite`]).
fn line_piece(span: Span) -> TokenStream {
    match line_number(span) {
        Arg::Sym(Sym::Piece(t)) => t,
        other => {
            let n = match other {
                Arg::Imm(crate::ir::Imm::Int(n)) => n as u64,
                _ => 0,
            };
            quote!(::ptx_runtime::__private::Piece::Dec(#n))
        }
    }
}

/// The column of `span` (1-based) as a `Piece` expression: `column!()` at that span, or, in a
/// replayed body, the span's own.
fn column_piece(span: Span) -> TokenStream {
    match crate::ir::loc::replayed(span) {
        Some(_) => {
            let c = span.start().column as u64 + 1;
            quote!(::ptx_runtime::__private::Piece::Dec(#c))
        }
        None => quote::quote_spanned!(span=> ::ptx_runtime::__private::Piece::Dec(::core::column!() as u64)),
    }
}

/// The name of the function's slot: `<symbol>$report`.
pub fn slot_name() -> TokenStream {
    suffixed(ptx_abi::report::SLOT_SUFFIX)
}

/// The name of the word the slot points at until the runtime arms it: `<symbol>$report_word`.
pub fn slot_word_name() -> TokenStream {
    suffixed(ptx_abi::report::WORD_SUFFIX)
}

fn suffixed(suffix: &str) -> TokenStream {
    quote!(::ptx_runtime::__private::Piece::Seq(&[::ptx_runtime::__private::Piece::Str(__SYMBOL), ::ptx_runtime::__private::Piece::Str(#suffix)]))
}

/// The file of `span` as a string constant's value: `file!()` at that span, or, in a replayed
/// body, the span's own file.
pub fn file_name(span: Span) -> TokenStream {
    match crate::ir::loc::replayed(span) {
        Some((b, _)) => {
            let file = b.file;
            quote!(#file)
        }
        None => quote::quote_spanned!(span=> ::core::file!()),
    }
}

/// The path of the function `span` is in, as a string constant's value: the generated
/// module's `module_path!()`, or, in an inlined function's body, that function's.
pub fn function_path(span: Span) -> TokenStream {
    match crate::ir::loc::replayed(span).and_then(|(b, _)| b.function?.parse::<TokenStream>().ok()) {
        Some(f) => f,
        None => quote!(::core::module_path!()),
    }
}
