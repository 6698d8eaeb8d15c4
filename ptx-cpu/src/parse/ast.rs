//! The syntax tree of a PTX module, as written: names are still names, opcodes still text.

/// A state space of a declaration or an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Reg,
    Global,
    Const,
    Shared,
    Local,
    Param,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    None,
    Visible,
    Extern,
    Weak,
    Common,
}

/// A declaration: `.reg .b32 %r<8>`, `.global .align 4 .b8 x[16] = {...}`, `.param .u64 p`.
#[derive(Debug, Clone)]
pub struct VarDecl {
    pub line: u32,
    pub space: Space,
    pub linkage: Linkage,
    pub align: Option<u32>,
    /// 1, 2 or 4 (`.v2`/`.v4`).
    pub vector: u32,
    /// The element type's spelling without the dot (`b32`, `f64`, `pred`).
    pub ty: String,
    pub name: String,
    /// `%r<8>`: declares `%r0` … `%r7`.
    pub range: Option<u32>,
    /// Array dimensions; `None` is `[]` (size from the initializer, or an `.extern` array).
    pub dims: Vec<Option<u64>>,
    pub init: Option<Vec<Init>>,
}

/// One scalar of an initializer, flattened from nested braces.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    Int(i128),
    /// A decimal literal; converted to the declared float type.
    Float(f64),
    F32(u32),
    F64(u64),
    /// The address of a symbol (`generic(x)` gives its generic address), plus an offset.
    Addr { name: String, generic: bool, offset: i64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
}

#[derive(Debug, Clone)]
pub struct FuncDecl {
    pub line: u32,
    pub kind: FuncKind,
    /// `.visible`, `.extern`, `.weak` or none (local to the module); the linker reads it.
    pub linkage: Linkage,
    pub name: String,
    pub rets: Vec<VarDecl>,
    pub params: Vec<VarDecl>,
    /// `None` for a prototype (`.extern .func …;`).
    pub body: Option<Vec<Stmt>>,
    /// A syntax error inside the body (then `body` is empty): it rejects only the launches
    /// that can reach this function, not the whole module.
    pub body_error: Option<super::ParseError>,
    /// `.reqntid` and `.maxntid`, which a launch must respect.
    pub bounds: ptx_abi::launch::LaunchBounds,
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Label(String, u32),
    Decl(VarDecl),
    Inst(Inst),
    /// `name: .callprototype (rets) _ (params);`
    Proto { name: String, line: u32, rets: Vec<VarDecl>, params: Vec<VarDecl> },
    Open,
    Close,
}

#[derive(Debug, Clone)]
pub struct Inst {
    pub line: u32,
    /// `@%p` / `@!%p`: (negated, predicate register).
    pub guard: Option<(bool, String)>,
    /// The opcode with its modifiers, as written: `ld.global.nc.v2.f64`.
    pub opcode: String,
    pub args: Vec<Operand>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register, symbol or label.
    Name(String),
    /// `sym+8` outside brackets.
    NameOffset(String, i64),
    Int(i128),
    Float(f64),
    F32(u32),
    F64(u64),
    /// `[base+offset]`; `base` is `None` for an absolute address.
    Addr { base: Option<String>, offset: i64 },
    /// `{a, b, c, d}`
    Vector(Vec<Operand>),
    /// `d|p`
    Pair(Box<Operand>, Box<Operand>),
    /// `!p`
    Not(Box<Operand>),
    /// `(a, b)` in `call`.
    List(Vec<Operand>),
    /// `_`
    Sink,
}

#[derive(Debug, Clone, Default)]
pub struct Module {
    pub version: (u32, u32),
    pub target: Vec<String>,
    pub address_size: u32,
    pub vars: Vec<VarDecl>,
    pub funcs: Vec<FuncDecl>,
}
