//! Tokens → [`Module`]. Recursive descent over the subset of PTX syntax that compilers emit:
//! module directives, variable declarations with initializers, `.entry`/`.func` definitions and
//! prototypes, and function bodies of labels, declarations, scopes and instructions.

use super::ast::*;
use super::lexer::{Tok, Token};
use super::ParseError;

pub struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// Nesting of braces in initializers and of compound operands, bounded so hostile input
    /// cannot exhaust the stack.
    depth: u32,
}

const MAX_DEPTH: u32 = 64;

type R<T> = Result<T, ParseError>;

impl Parser {
    pub fn new(toks: Vec<Token>) -> Parser {
        Parser { toks, pos: 0, depth: 0 }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    fn line(&self) -> u32 {
        self.toks.get(self.pos).or(self.toks.last()).map_or(0, |t| t.line)
    }

    fn next(&mut self) -> R<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.tok.clone()).ok_or_else(|| self.err("unexpected end of the module"))?;
        self.pos += 1;
        Ok(t)
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError { line: self.line(), message: message.into() }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> R<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{c}`, found {}", self.describe())))
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> R<String> {
        match self.next()? {
            Tok::Word(w) => Ok(w),
            t => {
                self.pos -= 1;
                Err(self.err(format!("expected a name, found {}", describe(&t))))
            }
        }
    }

    fn int(&mut self) -> R<i128> {
        let neg = self.eat_punct('-');
        match self.next()? {
            Tok::Int(v) => Ok(if neg { -(v as i128) } else { v as i128 }),
            t => {
                self.pos -= 1;
                Err(self.err(format!("expected an integer, found {}", describe(&t))))
            }
        }
    }

    fn describe(&self) -> String {
        self.peek().map_or("the end of the module".into(), describe)
    }

    /// Skips every token on the current token's line (`.loc`, `.file`).
    fn skip_line(&mut self) {
        let line = self.line();
        while self.pos < self.toks.len() && self.toks[self.pos].line == line {
            self.pos += 1;
        }
    }

    /// Skips a balanced `{ … }` group (`.section` contents).
    fn skip_braces(&mut self) -> R<()> {
        while !self.is_punct('{') {
            self.next()?;
        }
        let mut depth = 0;
        loop {
            match self.next()? {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }

    fn skip_to_semicolon(&mut self) -> R<()> {
        while !self.eat_punct(';') {
            self.next()?;
        }
        Ok(())
    }

    pub fn module(&mut self) -> R<Module> {
        let mut m = Module { address_size: 64, ..Module::default() };
        while self.pos < self.toks.len() {
            let line = self.line();
            let w = match self.peek() {
                Some(Tok::Word(w)) => w.clone(),
                Some(Tok::Punct(';')) => {
                    self.pos += 1;
                    continue;
                }
                _ => return Err(self.err(format!("expected a directive, found {}", self.describe()))),
            };
            match w.as_str() {
                ".version" => {
                    self.pos += 1;
                    m.version = match self.next()? {
                        Tok::Float(v) => {
                            let s = format!("{v}");
                            let (a, b) = s.split_once('.').unwrap_or((&s, "0"));
                            (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
                        }
                        Tok::Int(v) => (v as u32, 0),
                        t => return Err(ParseError { line, message: format!("bad .version {}", describe(&t)) }),
                    };
                }
                ".target" => {
                    self.pos += 1;
                    m.target.push(self.word()?);
                    while self.eat_punct(',') {
                        m.target.push(self.word()?);
                    }
                }
                ".address_size" => {
                    self.pos += 1;
                    m.address_size = self.int()? as u32;
                }
                ".file" | ".loc" => self.skip_line(),
                ".section" => self.skip_braces()?,
                ".pragma" => self.skip_to_semicolon()?,
                _ => {
                    let linkage = self.linkage();
                    if self.is_word(".entry") || self.is_word(".func") {
                        let mut f = self.function()?;
                        f.linkage = linkage;
                        m.funcs.push(f);
                    } else {
                        let decls = self.var_decls(linkage)?;
                        self.expect_punct(';')?;
                        m.vars.extend(decls);
                    }
                }
            }
        }
        if m.address_size != 64 {
            return Err(ParseError { line: 1, message: format!(".address_size {} (only 64 is supported)", m.address_size) });
        }
        Ok(m)
    }

    fn linkage(&mut self) -> Linkage {
        let mut l = Linkage::None;
        loop {
            l = match self.peek() {
                Some(Tok::Word(w)) if w == ".visible" => Linkage::Visible,
                Some(Tok::Word(w)) if w == ".extern" => Linkage::Extern,
                Some(Tok::Word(w)) if w == ".weak" => Linkage::Weak,
                Some(Tok::Word(w)) if w == ".common" => Linkage::Common,
                _ => return l,
            };
            self.pos += 1;
        }
    }

    fn function(&mut self) -> R<FuncDecl> {
        let line = self.line();
        let kind = if self.eat_word(".entry") {
            FuncKind::Entry
        } else {
            self.eat_word(".func");
            FuncKind::Func
        };
        let rets = if kind == FuncKind::Func && self.is_punct('(') { self.param_list()? } else { Vec::new() };
        let name = self.word()?;
        let params = if self.is_punct('(') { self.param_list()? } else { Vec::new() };
        // Performance directives: `.maxntid 256, 1, 1`, `.noreturn`, `.reqntid …`, `.pragma`.
        // `.reqntid` and `.maxntid` bound the launches (the driver refuses others); the rest
        // are hints to ptxas.
        let mut bounds = ptx_abi::launch::LaunchBounds::NONE;
        loop {
            match self.peek() {
                Some(Tok::Word(w)) if w.starts_with('.') && w != ".loc" => {
                    let w = w.clone();
                    self.pos += 1;
                    if w == ".pragma" {
                        self.skip_to_semicolon()?;
                        continue;
                    }
                    let mut dims = Vec::new();
                    while let Some(Tok::Int(v)) = self.peek() {
                        dims.push(*v);
                        self.pos += 1;
                        self.eat_punct(',');
                    }
                    if w == ".reqntid" || w == ".maxntid" {
                        if dims.is_empty() || dims.len() > 3 || dims.iter().any(|&d| d == 0 || d > u32::MAX as u64) {
                            return Err(ParseError { line, message: format!("`{w}` takes one to three extents of at least 1") });
                        }
                        dims.resize(3, 1);
                        if w == ".reqntid" {
                            bounds.block = Some(ptx_abi::launch::Dim3::new(dims[0] as u32, dims[1] as u32, dims[2] as u32));
                        } else {
                            bounds.max_threads = Some(dims.iter().fold(1u64, |a, &d| a.saturating_mul(d)));
                        }
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let mut body_error = None;
        let body = if self.eat_punct(';') {
            None
        } else {
            match self.body() {
                Ok(b) => Some(b),
                // A statement that does not parse: skip to the brace that closes the body, so
                // the error stays with this function. Without balanced braces the module
                // itself is malformed.
                Err(e) if self.toks.get(start).is_some_and(|t| t.tok == Tok::Punct('{')) => {
                    self.pos = start;
                    self.skip_braces().map_err(|_| e.clone())?;
                    body_error = Some(e);
                    Some(Vec::new())
                }
                Err(e) => return Err(e),
            }
        };
        Ok(FuncDecl { line, kind, linkage: Linkage::None, name, rets, params, body, body_error, bounds })
    }

    fn param_list(&mut self) -> R<Vec<VarDecl>> {
        self.expect_punct('(')?;
        let mut out = Vec::new();
        while !self.eat_punct(')') {
            out.extend(self.var_decls(Linkage::None)?);
            self.eat_punct(',');
        }
        Ok(out)
    }

    /// `space [.align N] [.vN] type name[dims] [= init] {, name…}` (no trailing `;`). Inside
    /// parameter lists only one name is taken, the comma being the list's.
    fn var_decls(&mut self, linkage: Linkage) -> R<Vec<VarDecl>> {
        let line = self.line();
        let space = match self.word()?.as_str() {
            ".reg" => Space::Reg,
            ".global" => Space::Global,
            ".const" => Space::Const,
            ".shared" => Space::Shared,
            ".local" => Space::Local,
            ".param" => Space::Param,
            w => return Err(ParseError { line, message: format!("unknown directive or state space `{w}`") }),
        };
        let mut align = None;
        let mut vector = 1;
        let ty = loop {
            let w = self.word()?;
            match w.as_str() {
                ".align" => align = Some(self.int()? as u32),
                ".v2" => vector = 2,
                ".v4" => vector = 4,
                ".v8" => vector = 8,
                ".ptr" | ".global" | ".shared" | ".const" | ".local" => {}
                _ if w.starts_with('.') => break w[1..].to_owned(),
                _ => return Err(ParseError { line, message: format!("expected a type, found `{w}`") }),
            }
        };
        let mut out = Vec::new();
        loop {
            let line = self.line();
            let name = self.word()?;
            // A parameter may still carry `.ptr .global .align N` after the type in old PTX.
            let mut range = None;
            if self.eat_punct('<') {
                range = Some(self.int()? as u32);
                self.expect_punct('>')?;
            }
            let mut dims = Vec::new();
            while self.eat_punct('[') {
                if self.eat_punct(']') {
                    dims.push(None);
                } else {
                    dims.push(Some(self.int()? as u64));
                    self.expect_punct(']')?;
                }
            }
            let init = if self.eat_punct('=') { Some(self.initializer()?) } else { None };
            out.push(VarDecl { line, space, linkage, align, vector, ty: ty.clone(), name, range, dims, init });
            // A comma continues the list only outside parameter lists, where the next token
            // is a name rather than a state space.
            if self.is_punct(',') && matches!(self.peek_at(1), Some(Tok::Word(w)) if !w.starts_with('.')) {
                self.pos += 1;
                continue;
            }
            return Ok(out);
        }
    }

    fn initializer(&mut self) -> R<Vec<Init>> {
        let mut out = Vec::new();
        self.init_into(&mut out)?;
        Ok(out)
    }

    fn init_into(&mut self, out: &mut Vec<Init>) -> R<()> {
        self.depth += 1;
        let r = self.init_into_inner(out);
        self.depth -= 1;
        r
    }

    fn init_into_inner(&mut self, out: &mut Vec<Init>) -> R<()> {
        if self.depth > MAX_DEPTH {
            return Err(self.err("initializer nested too deeply"));
        }
        if self.eat_punct('{') {
            if self.eat_punct('}') {
                return Ok(());
            }
            loop {
                self.init_into(out)?;
                if self.eat_punct('}') {
                    return Ok(());
                }
                self.expect_punct(',')?;
            }
        }
        let neg = self.eat_punct('-');
        let v = match self.next()? {
            Tok::Int(v) => Init::Int(if neg { -(v as i128) } else { v as i128 }),
            Tok::Float(v) => Init::Float(if neg { -v } else { v }),
            Tok::F32(b) => Init::F32(if neg { b ^ 0x8000_0000 } else { b }),
            Tok::F64(b) => Init::F64(if neg { b ^ (1 << 63) } else { b }),
            Tok::Word(w) if w == "generic" => {
                self.expect_punct('(')?;
                let name = self.word()?;
                self.expect_punct(')')?;
                let offset = self.offset()?;
                Init::Addr { name, generic: true, offset }
            }
            Tok::Word(name) => {
                let offset = self.offset()?;
                Init::Addr { name, generic: false, offset }
            }
            t => return Err(self.err(format!("bad initializer {}", describe(&t)))),
        };
        out.push(v);
        Ok(())
    }

    /// An optional `+N`, `-N` or `+-N`.
    fn offset(&mut self) -> R<i64> {
        if self.eat_punct('+') || (self.is_punct('-') && matches!(self.peek_at(1), Some(Tok::Int(_)))) {
            Ok(self.int()? as i64)
        } else {
            Ok(0)
        }
    }

    fn body(&mut self) -> R<Vec<Stmt>> {
        self.expect_punct('{')?;
        let mut out = Vec::new();
        let mut depth = 1;
        loop {
            let line = self.line();
            match self.peek().cloned() {
                None => return Err(self.err("unterminated function body")),
                Some(Tok::Punct('{')) => {
                    self.pos += 1;
                    depth += 1;
                    out.push(Stmt::Open);
                }
                Some(Tok::Punct('}')) => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(out);
                    }
                    out.push(Stmt::Close);
                }
                Some(Tok::Punct(';')) => self.pos += 1,
                Some(Tok::Word(w)) if w == ".loc" || w == ".file" => self.skip_line(),
                Some(Tok::Word(w)) if w == ".pragma" => self.skip_to_semicolon()?,
                Some(Tok::Word(w))
                    if matches!(w.as_str(), ".reg" | ".local" | ".shared" | ".param" | ".const" | ".global") =>
                {
                    for d in self.var_decls(Linkage::None)? {
                        out.push(Stmt::Decl(d));
                    }
                    self.expect_punct(';')?;
                }
                Some(Tok::Word(w)) if self.peek_at(1) == Some(&Tok::Punct(':')) => {
                    self.pos += 2;
                    if self.eat_word(".callprototype") {
                        let rets = if self.is_punct('(') { self.param_list()? } else { Vec::new() };
                        let _ = self.word()?; // `_`
                        let params = if self.is_punct('(') { self.param_list()? } else { Vec::new() };
                        self.expect_punct(';')?;
                        out.push(Stmt::Proto { name: w, line, rets, params });
                    } else {
                        out.push(Stmt::Label(w, line));
                    }
                }
                Some(Tok::Punct('@')) | Some(Tok::Word(_)) => out.push(Stmt::Inst(self.instruction()?)),
                Some(t) => return Err(self.err(format!("unexpected {} in a function body", describe(&t)))),
            }
        }
    }

    fn instruction(&mut self) -> R<Inst> {
        let line = self.line();
        let guard = if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            Some((neg, self.word()?))
        } else {
            None
        };
        let opcode = self.word()?;
        let mut args = Vec::new();
        if !self.eat_punct(';') {
            loop {
                args.push(self.operand()?);
                if self.eat_punct(';') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(Inst { line, guard, opcode, args })
    }

    fn operand(&mut self) -> R<Operand> {
        let first = self.operand_simple()?;
        if self.eat_punct('|') {
            let second = self.operand_simple()?;
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    fn operand_simple(&mut self) -> R<Operand> {
        self.depth += 1;
        let r = self.operand_simple_inner();
        self.depth -= 1;
        r
    }

    fn operand_simple_inner(&mut self) -> R<Operand> {
        if self.depth > MAX_DEPTH {
            return Err(self.err("operand nested too deeply"));
        }
        if self.eat_punct('[') {
            let (base, offset) = match self.peek().cloned() {
                Some(Tok::Word(w)) => {
                    self.pos += 1;
                    (Some(w), self.offset()?)
                }
                _ => (None, self.int()? as i64),
            };
            if self.is_punct(',') {
                // `[tex, {coords}]` and similar multi-part operands (texture instructions).
                let mut parts = vec![Operand::Addr { base, offset }];
                while self.eat_punct(',') {
                    parts.push(self.operand()?);
                }
                self.expect_punct(']')?;
                return Ok(Operand::List(parts));
            }
            self.expect_punct(']')?;
            return Ok(Operand::Addr { base, offset });
        }
        if self.eat_punct('{') {
            let mut v = Vec::new();
            loop {
                v.push(self.operand_simple()?);
                if self.eat_punct('}') {
                    return Ok(Operand::Vector(v));
                }
                self.expect_punct(',')?;
            }
        }
        if self.eat_punct('(') {
            let mut v = Vec::new();
            if self.eat_punct(')') {
                return Ok(Operand::List(v));
            }
            loop {
                v.push(self.operand()?);
                if self.eat_punct(')') {
                    return Ok(Operand::List(v));
                }
                self.expect_punct(',')?;
            }
        }
        if self.eat_punct('!') {
            return Ok(Operand::Not(Box::new(self.operand_simple()?)));
        }
        let neg = self.eat_punct('-');
        match self.next()? {
            Tok::Int(v) => Ok(Operand::Int(if neg { -(v as i128) } else { v as i128 })),
            Tok::Float(v) => Ok(Operand::Float(if neg { -v } else { v })),
            Tok::F32(b) => Ok(Operand::F32(if neg { b ^ 0x8000_0000 } else { b })),
            Tok::F64(b) => Ok(Operand::F64(if neg { b ^ (1 << 63) } else { b })),
            Tok::Word(w) if !neg => {
                if w == "_" {
                    return Ok(Operand::Sink);
                }
                let off = self.offset()?;
                Ok(if off != 0 { Operand::NameOffset(w, off) } else { Operand::Name(w) })
            }
            t => {
                self.pos -= 1;
                Err(self.err(format!("bad operand {}", describe(&t))))
            }
        }
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Word(w) => format!("`{w}`"),
        Tok::Int(v) => format!("`{v}`"),
        Tok::Float(v) => format!("`{v}`"),
        Tok::F32(b) => format!("`0f{b:08X}`"),
        Tok::F64(b) => format!("`0d{b:016X}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Punct(c) => format!("`{c}`"),
    }
}
