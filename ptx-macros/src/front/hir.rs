//! The checked body: a tree of typed expressions with names resolved to locals, loops to loop
//! ids, methods and device-API calls to [`Intrinsic`]s, and calls to [`Callee`]s.

use super::intrinsic::Intrinsic;
use super::ty::{Len, StructDef, Ty};
use proc_macro2::{Span, TokenStream};
use std::rc::Rc;

pub type LocalId = usize;
pub type LoopId = usize;

#[derive(Debug)]
pub struct Local {
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
    /// An array indexed with a run-time index somewhere: it lives in `.local` memory.
    pub in_memory: bool,
    pub span: Span,
}

pub struct Body {
    pub locals: Vec<Local>,
    /// The local each parameter is bound to (`None` for `_`).
    pub params: Vec<Option<LocalId>>,
    pub block: Block,
    pub ret: Ty,
}

#[derive(Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }
}

#[derive(Debug)]
pub enum ExprKind {
    Unit,
    /// Zeros of the expression's type: the members of the variant a sum does not hold (see
    /// `front::sum`), and `unwrap_or_default`'s default. Immediates, no instruction.
    Zero,
    /// An integer literal; its type says how wide.
    Int(u128),
    /// A float literal, rounded once to each width (rustc rounds the decimal text directly).
    Float(f32, f64),
    Bool(bool),
    /// A constant defined outside the body: rustc evaluates the tokens (of type `ty`).
    Const(TokenStream),
    Local(LocalId),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `&&` (`and == true`) and `||`.
    Logic { and: bool, lhs: Box<Expr>, rhs: Box<Expr> },
    Assign(Box<Expr>, Box<Expr>),
    OpAssign(BinOp, Box<Expr>, Box<Expr>),
    /// `expr as ty`
    Cast(Box<Expr>),
    /// A struct field, tuple-struct field or vector lane, by index.
    Field(Box<Expr>, usize),
    /// `base[index]` on a slice, array or shared array (through any number of references).
    Index { base: Box<Expr>, index: Box<Expr>, checked: bool },
    /// `&base[range]`: a sub-slice.
    SubSlice { base: Box<Expr>, start: Option<Box<Expr>>, end: Option<Box<Expr>>, inclusive: bool },
    /// `*p` (also implicit: a field through a reference).
    Deref(Box<Expr>),
    /// `&place` / `&mut place` / `&raw const place`: the address of a place in memory.
    AddrOf(Box<Expr>),
    Call { callee: Rc<Callee>, args: Vec<Expr> },
    Intrinsic { op: Intrinsic, args: Vec<Expr> },
    Block(Block),
    If { cond: Box<Expr>, then: Block, els: Option<Box<Expr>> },
    Loop { body: Block, id: LoopId },
    While { cond: Box<Expr>, body: Block, id: LoopId },
    /// `unroll`: the values of a short constant range whose variable indexes a local array
    /// (unrolled, so the array stays in registers).
    For { var: LocalId, range: Box<ForRange>, body: Block, id: LoopId, unroll: Option<Vec<i128>> },
    /// A labelled block (`'a: { ... break 'a v; }`).
    Labeled { body: Block, id: LoopId },
    Break { id: LoopId, value: Option<Box<Expr>> },
    Continue { id: LoopId },
    Return(Option<Box<Expr>>),
    Match { scrut: Box<Expr>, arms: Vec<Arm> },
    Struct { def: Rc<StructDef>, fields: Vec<(usize, Expr)>, base: Option<Box<Expr>> },
    /// A native vector built from its lanes.
    Vector(Vec<Expr>),
    /// A tuple (in registers only).
    Tuple(Vec<Expr>),
    Array(Vec<Expr>),
    Repeat(Box<Expr>, Len),
    Asm(Asm),
    /// `printf!(format, args...)`: the `vprintf` system call (see `front::printf`).
    Printf { format: String, args: Vec<PrintfArg> },
    /// `assert!`, `assert_eq!`, `panic!`, ...: a failure reporting a Rust panic message when
    /// the condition fails (see `front::panic`). Its type is `()`, or `!` without a condition.
    Panic(Box<Panic>),
}

/// An argument of `printf!`.
#[derive(Debug)]
pub enum PrintfArg {
    /// A value: a scalar, promoted as C's default argument promotions say, or a pointer.
    Value(Expr),
    /// A string literal: a string constant in global memory, passed by its address.
    Str(String),
}

/// A panic: when it happens, and the message and location it reports.
#[derive(Debug)]
pub struct Panic {
    pub when: PanicWhen,
    /// An expression rustc evaluates to the message, a `&'static str` (a literal, or
    /// `concat!("assertion `left == right` failed: ", "msg")`).
    pub message: TokenStream,
    /// Where the macro was invoked: its `file!()` and `line!()` are the location reported.
    pub span: Span,
    /// `debug_assert!` and friends: only when the crate is built with `debug_assertions`.
    pub debug: bool,
}

#[derive(Debug)]
pub enum PanicWhen {
    /// `panic!`, `unreachable!`, `todo!`, `unimplemented!`.
    Always,
    /// `assert!(cond)`: when `cond` is false.
    Not(Expr),
    /// `assert_eq!` (`eq`) / `assert_ne!`: when the comparison fails; both values are printed
    /// (`  left: ..`, ` right: ..`) before the message, as Rust's panic message has them.
    Compare { eq: bool, left: Expr, right: Expr },
}

/// What a `for` loop iterates over: `start..end`, `start..=end`, optionally reversed and with a
/// step (`step_first`: `.step_by(s).rev()` rather than `.rev().step_by(s)`).
#[derive(Debug)]
pub struct ForRange {
    pub start: Expr,
    pub end: Expr,
    pub inclusive: bool,
    pub rev: bool,
    pub step: Option<Expr>,
    pub step_first: bool,
}

#[derive(Debug)]
pub struct Arm {
    pub pats: Vec<Pat>,
    /// `x => ...` or `x @ 1..=3 => ...`
    pub binding: Option<LocalId>,
    pub guard: Option<Expr>,
    pub body: Expr,
}

#[derive(Debug, Clone)]
pub enum Pat {
    Wild,
    Int(i128),
    Bool(bool),
    Range { lo: Option<i128>, hi: Option<i128>, inclusive: bool },
    /// A constant defined outside the body (`BINS`, `limits::MAX_ITER`): rustc evaluates it,
    /// in the scrutinee's type.
    Const(TokenStream),
}

#[derive(Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
}

#[derive(Debug)]
pub enum Stmt {
    Let { pat: LetPat, init: Option<Expr>, span: Span },
    Expr(Expr),
}

#[derive(Debug)]
pub enum LetPat {
    Bind(LocalId),
    Wild,
    /// `S { a, b: x, .. }` / `S(a, _)` / `[a, b]`: each listed field or element, by index.
    Fields(Vec<(usize, LetPat)>),
}

/// A device function being called.
#[derive(Debug)]
pub struct Callee {
    /// The function's path as the caller wrote it: `<path>::NODE`, `<path>::SYMBOL`; for a
    /// method, its type's path.
    pub path: TokenStream,
    /// A method's key (see `expand::method`): `<path>::__PTX_NODE__<key>`,
    /// `<path>::__PTX_SYMBOL__<key>`.
    pub assoc: Option<String>,
    pub ret: Ty,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AsmDir {
    In,
    Out,
    InOut,
}

#[derive(Debug)]
pub struct Asm {
    pub template: String,
    pub operands: Vec<AsmOperand>,
}

#[derive(Debug)]
pub struct AsmOperand {
    pub dir: AsmDir,
    pub ty: Ty,
    /// The value (`in`) or the place written (`out`, `inout`).
    pub expr: Expr,
}
