//! The system calls (PTX Interoperability, chapter 3) and the string constants they take.
//!
//! A system call is a call of the `.extern .func` prototype from `ptx_abi::syscall`, which the
//! function declares through its [`Decls`] (once per module, however many functions reach it),
//! in nvcc's calling sequence: a `{ }` scope with a `.param` per argument, `st.param`s, and
//! `call.uni (retval0), vprintf, (param0, param1);`. Pointers are generic addresses: a string
//! constant is `cvta.global` of its `.global` name, `vprintf`'s argument buffer `cvta.local` of
//! a `.local` array, as the guide's example does.
//!
//! String constants are module-scope `.global .align 1 .b8 <symbol>$str$<i>[N] = {...}`
//! arrays (nvcc names its own `$str`, `$str$1`, ...), their bytes those of an expression rustc
//! evaluates: a literal, `file!()`, `module_path!()`, `concat!(...)`.

use super::value::Val;
use super::{Decls, Lowerer};
use crate::front::hir::PrintfArg;
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, Imm, InstKind, Mem, Mode, Opcode, Reg, RegClass, StateSpace, Sym, Type};
use proc_macro2::TokenStream;
use ptx_abi::syscall::valist;
use ptx_abi::Scalar;
use quote::quote;

/// The name of string constant `i` of the function being compiled, as a `Piece` expression.
pub fn string_name(i: usize) -> TokenStream {
    quote!(::ptx_runtime::__private::Piece::Seq(&[
        ::ptx_runtime::__private::Piece::Str(__SYMBOL),
        ::ptx_runtime::__private::Piece::Str("$str$"),
        ::ptx_runtime::__private::Piece::Dec(#i as u64),
    ]))
}

impl Decls {
    fn syscall(&mut self, node: &'static str) {
        if !self.syscalls.contains(&node) {
            self.syscalls.push(node);
        }
    }
}

/// A printf argument after C's default argument promotions: what is stored, as which type.
struct Packed {
    arg: Arg,
    /// `.u32`, `.u64`, `.f64`.
    ty: Type,
    size: usize,
}

impl<'a, 'e> Lowerer<'a, 'e> {
    /// The generic address of a string constant (a `&'static str` expression rustc evaluates).
    pub fn string_const(&mut self, value: TokenStream) -> Arg {
        let symbol = self.string_symbol(value);
        let a = self.b.op1(Opcode::Mov(Type::U64), RegClass::B64, vec![symbol]);
        Arg::Reg(self.b.op1(Opcode::Cvta { to: false, space: StateSpace::Global }, RegClass::B64, vec![Arg::Reg(a)]))
    }

    /// The `.global` symbol of a string constant (its address in the global window).
    pub fn string_symbol(&mut self, value: TokenStream) -> Arg {
        Arg::Sym(Sym::Piece(string_name(self.string_index(value))))
    }

    /// The number of a string constant among the function's, declared once however often it
    /// is used.
    pub fn string_index(&mut self, value: TokenStream) -> usize {
        let key = crate::link::key(&value);
        let strings = &mut self.decls.strings;
        match strings.iter().position(|s| crate::link::key(s) == key) {
            Some(i) => i,
            None => {
                strings.push(value);
                strings.len() - 1
            }
        }
    }

    /// A call of system call `name` (declared by `ptx_abi::syscall::<node>`): each argument a
    /// `.param` of its type (`.b32`/`.b64`), the return value (if any) declared as `retval0`
    /// and loaded into a register of `ret`'s class.
    fn syscall(&mut self, node: &'static str, name: &str, args: &[(Type, Arg)], ret: Option<(Type, Option<RegClass>)>) -> Option<Reg> {
        self.decls.syscall(node);
        self.b.kind(InstKind::ScopeOpen);
        let mut params = Vec::new();
        for (i, (ty, a)) in args.iter().enumerate() {
            let p = format!("param{i}");
            self.b.kind(InstKind::ParamDecl { ty: *ty, name: p.clone() });
            self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, *ty)), vec![Arg::mem(Arg::named(p.clone()), 0), a.clone()]);
            params.push(p);
        }
        if let Some((ty, _)) = ret {
            self.b.kind(InstKind::ParamDecl { ty, name: "retval0".to_owned() });
        }
        let target = Sym::Named(name.to_owned());
        self.b.kind(InstKind::Call { ret: ret.map(|_| "retval0".to_owned()), target, params });
        let result = match ret {
            Some((ty, Some(class))) => Some(self.b.op1(Opcode::Ld(Mem::plain(StateSpace::Param, ty)), class, vec![Arg::mem(Arg::named("retval0"), 0)])),
            _ => None,
        };
        self.b.kind(InstKind::ScopeClose);
        result
    }

    /// `printf!`: the arguments packed into a `.local` buffer as the ABI lays out a valist
    /// (each promoted, at the next offset aligned to its size), then `vprintf(format, buffer)`.
    pub fn printf(&mut self, format: &str, args: &[PrintfArg]) -> Val {
        let mut packed = Vec::new();
        for a in args {
            let p = match a {
                PrintfArg::Str(s) => Packed { arg: self.string_const(quote!(#s)), ty: Type::U64, size: 8 },
                PrintfArg::Value(x) => {
                    let v = self.expr(x);
                    if matches!(v, Val::Never) {
                        return Val::Never;
                    }
                    let v = self.stabilize(v);
                    let ty = self.ty(&x.ty);
                    match self.promote(&v, &ty) {
                        Some(p) => p,
                        None => return self.error(x.span, format!("internal: `printf!` argument of type `{ty}`")),
                    }
                }
            };
            packed.push(p);
        }
        self.vprintf(format, &packed);
        Val::Unit
    }

    /// `printf` of values already computed (an `assert_eq!`'s operands), all of type `ty`; a
    /// `bool` is passed as the string `true` or `false` (for `%s`), as Rust prints it.
    pub fn print_values(&mut self, format: &str, ty: &Ty, values: &[Val]) {
        let mut packed = Vec::new();
        for v in values {
            if let Ty::Scalar(Scalar::Bool) = ty {
                let (t, f) = (self.string_const(quote!("true")), self.string_const(quote!("false")));
                let p = self.pred(v);
                let s = self.b.op1(Opcode::Selp(Type::B64), RegClass::B64, vec![t, f, Arg::Reg(p)]);
                packed.push(Packed { arg: Arg::Reg(s), ty: Type::U64, size: 8 });
                continue;
            }
            match self.promote(v, ty) {
                Some(p) => packed.push(p),
                None => return,
            }
        }
        self.vprintf(format, &packed);
    }

    /// `vprintf(format, valist)` with the promoted arguments stored at their valist offsets.
    fn vprintf(&mut self, format: &str, packed: &[Packed]) {
        let valist = if packed.is_empty() {
            // No arguments: a null buffer, as nvcc passes.
            Arg::imm(0)
        } else {
            let mut offsets = Vec::new();
            let mut end = 0;
            for p in packed {
                let at = valist::place(end, p.size);
                offsets.push(at);
                end = at + p.size;
            }
            let align = packed.iter().map(|p| p.size).max().unwrap_or(4);
            let size = ptx_abi::layout::align_to(end, align);
            let name = format!("__local_{}", self.b.fresh());
            let mut t = crate::text::Text::new();
            t.str(&format!(".local .align {align} .b8 {name}[{size}];"));
            self.b.decl(t);
            let buf = self.b.op1(Opcode::Mov(Type::U64), RegClass::B64, vec![Arg::named(name)]);
            for (p, at) in packed.iter().zip(offsets) {
                self.b.op0(Opcode::St(Mem::plain(StateSpace::Local, p.ty)), vec![Arg::mem(Arg::Reg(buf), at as i64), p.arg.clone()]);
            }
            Arg::Reg(self.b.op1(Opcode::Cvta { to: false, space: StateSpace::Local }, RegClass::B64, vec![Arg::Reg(buf)]))
        };
        let fmt = self.string_const(quote!(#format));
        self.syscall("VPRINTF_NODE", "vprintf", &[(Type::B64, fmt), (Type::B64, valist)], Some((Type::B32, None)));
    }

    /// C's default argument promotions (`ptx_abi::syscall::valist::promoted`): integers narrower
    /// than 32 bits (and `bool`) to 32 bits by their signedness, `f32` to `f64`; pointers as
    /// generic addresses.
    fn promote(&mut self, v: &Val, ty: &Ty) -> Option<Packed> {
        let s = match ty {
            Ty::Ptr { .. } => return Some(Packed { arg: self.generic_address(v), ty: Type::U64, size: 8 }),
            Ty::Scalar(s) => *s,
            _ => return None,
        };
        let to = valist::promoted(s);
        let arg = match (s, v.arg()) {
            (Scalar::Bool, _) => {
                let p = self.pred(v);
                Arg::Reg(self.b.op1(Opcode::Selp(Type::U32), RegClass::B32, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(p)]))
            }
            (Scalar::F32, Arg::Imm(Imm::F32(bits))) => Arg::Imm(Imm::F64((f32::from_bits(bits) as f64).to_bits())),
            (Scalar::F32, a) => Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::F64, Type::F32), RegClass::F64, vec![a])),
            (_, a @ Arg::Imm(_)) => a,
            (Scalar::I8 | Scalar::I16, a) => Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::S32, Type::S16), RegClass::B32, vec![a])),
            (Scalar::U8 | Scalar::U16, a) => Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![a])),
            (_, a) => a,
        };
        let (ty, size) = match to {
            Scalar::F64 => (Type::F64, 8),
            t if t.size() == 8 => (Type::U64, 8),
            _ => (Type::U32, 4),
        };
        Some(Packed { arg, ty, size })
    }

    /// `__assertfail(message, file, line, function, 1)`, then `trap` (the call does not return;
    /// `trap` makes that explicit to ptxas). `strings` (message, file, function) are the
    /// global-window addresses of strings (`string_symbol`), made generic here.
    pub fn assertfail(&mut self, strings: [Arg; 3], line: Arg) {
        let [msg, file, function] = strings.map(|s| Arg::Reg(self.b.op1(Opcode::Cvta { to: false, space: StateSpace::Global }, RegClass::B64, vec![s])));
        let args = [(Type::B64, msg), (Type::B64, file), (Type::B32, line), (Type::B64, function), (Type::B64, Arg::imm(1))];
        self.syscall("ASSERTFAIL_NODE", "__assertfail", &args, None);
        self.b.terminate(crate::ir::Term::Trap);
    }

    /// `malloc(count * size_of::<T>())`: the block's generic address (null when the heap is
    /// full).
    pub fn malloc(&mut self, count: &Val, elem_size: u64) -> Val {
        let bytes = match count.arg() {
            Arg::Imm(Imm::Int(n)) => Arg::imm(n.wrapping_mul(elem_size as i64)),
            a if elem_size == 1 => a,
            a => Arg::Reg(self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), RegClass::B64, vec![a, Arg::imm(elem_size as i64)])),
        };
        let r = self.syscall("MALLOC_NODE", "malloc", &[(Type::B64, bytes)], Some((Type::B64, Some(RegClass::B64))));
        Val::Ptr(Arg::Reg(r.unwrap_or(Reg(0))), super::value::Space::Generic)
    }

    /// `free(ptr)`, with the pointer as a generic address.
    pub fn free(&mut self, ptr: &Val) {
        let a = self.generic_address(ptr);
        self.syscall("FREE_NODE", "free", &[(Type::B64, a)], None);
    }
}
