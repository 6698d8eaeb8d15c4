//! Places (what can be read and assigned), loads, stores and addresses.
//!
//! A place is a local's registers (a field path into them), memory at an address in a state
//! space, or a value that only exists as a value. Indexing a slice or shared memory checks the
//! index against the length (unless `get_unchecked`); arrays indexed with constants stay in
//! registers, arrays indexed at run time are in `.local` memory.

use super::panic::Check;
use super::value::{class_of, leaves, mem_type, Leaf, Space, Val};
use super::Lowerer;
use crate::front::hir::{Block, Expr, ExprKind, LocalId, Stmt};
use crate::front::intrinsic::{Intrinsic, PtrOp};
use crate::front::ty::{Len, StructKind, Ty};
use crate::ir::{Arg, Arith, Cmp, Imm, Mem, Mode, Opcode, Order, RegClass, StateSpace, Type};
use proc_macro2::Span;
use ptx_abi::Scalar;

#[derive(Clone, Debug)]
pub enum Place {
    /// Registers of a local (a path of field / element / lane indices into its value).
    Reg { local: LocalId, path: Vec<usize> },
    /// Memory: `[addr+offset]` in `space`.
    Mem { addr: Arg, space: Space, offset: i64 },
    /// Not assignable: the value of an expression.
    Value(Val),
}

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn place(&mut self, e: &Expr) -> Place {
        match &e.kind {
            ExprKind::Local(id) => {
                self.use_local(*id);
                if self.cx.body.locals[*id].in_memory {
                    let addr = self.slots[*id].as_ref().map(|v| v.arg()).unwrap_or(Arg::imm(0));
                    Place::Mem { addr, space: Space::Local, offset: 0 }
                } else {
                    Place::Reg { local: *id, path: Vec::new() }
                }
            }
            ExprKind::Field(base, i) => {
                let bt = self.ty(&base.ty);
                let off = match &bt {
                    Ty::Struct(def) => def.fields.get(*i).map(|f| f.offset).unwrap_or(0),
                    Ty::Vector { elem, .. } => (*i * elem.size()) as u64,
                    Ty::Tuple(ts) => crate::front::ty::tuple_offsets(ts).and_then(|o| o.get(*i).copied()).unwrap_or(0),
                    _ => 0,
                };
                let is_union = matches!(&bt, Ty::Struct(d) if d.kind == StructKind::Union);
                match self.place(base) {
                    Place::Mem { addr, space, offset } => Place::Mem { addr, space, offset: offset + off as i64 },
                    _ if is_union => {
                        self.error(e.span, "union fields can be read through a pointer or slice only (`(*p).field`); union values in registers are not supported");
                        Place::Value(Val::Unit)
                    }
                    Place::Reg { local, mut path } => {
                        path.push(*i);
                        Place::Reg { local, path }
                    }
                    Place::Value(v) => Place::Value(v.field(*i)),
                }
            }
            ExprKind::Index { base, index, checked } => self.index_place(base, index, *checked, e.span),
            ExprKind::Deref(p) => {
                let v = self.expr(p);
                match v {
                    Val::Ptr(addr, space) => Place::Mem { addr, space, offset: 0 },
                    Val::Never => Place::Value(Val::Never),
                    _ => Place::Value(self.error(e.span, "internal: dereference of a non-pointer")),
                }
            }
            _ => Place::Value(self.expr(e)),
        }
    }

    fn index_place(&mut self, base: &Expr, index: &Expr, checked: bool, span: Span) -> Place {
        let bt = self.ty(&base.ty);
        let elem = match &bt {
            Ty::Slice { elem, .. } | Ty::Array { elem, .. } | Ty::Shared { elem, .. } => self.ty(elem),
            _ => return Place::Value(self.error(span, "internal: index of a non-sequence")),
        };
        let Some(size) = elem.layout().map(|l| l.size as u64) else {
            if let (ExprKind::Const(path), Ty::Error | Ty::Var(_)) = (&base.kind, &elem) {
                return Place::Value(self.error(span, format!("the element type of the table `{path}` is not known here: the device compiler does not see the item; bind the element to an annotated local (`let v: u8 = {path}[i];`)")));
            }
            return Place::Value(self.error(span, format!("`{elem}` has no device layout")));
        };
        match &bt {
            Ty::Slice { .. } | Ty::Shared { len: None, .. } => {
                let s = self.expr(base);
                let idx = self.expr(index);
                let (ptr, len) = (s.field(0), s.field(1));
                let Val::Ptr(addr, space) = ptr else { return Place::Value(Val::Never) };
                if checked {
                    self.bounds_check(&idx, &len.arg());
                }
                let (addr, offset) = self.element_addr(&addr, space, &idx, size);
                Place::Mem { addr, space, offset }
            }
            Ty::Shared { len: Some(len), .. } => {
                let s = self.expr(base);
                let idx = self.expr(index);
                let Val::Ptr(addr, space) = s else { return Place::Value(Val::Never) };
                if checked {
                    let len = self.len_arg(len);
                    self.bounds_check(&idx, &len);
                }
                let (addr, offset) = self.element_addr(&addr, space, &idx, size);
                Place::Mem { addr, space, offset }
            }
            Ty::Array { len, .. } => {
                let n = len.known().unwrap_or(0);
                let pb = match &base.kind {
                    // A table defined outside the body (see `statics`).
                    ExprKind::Const(path) => self.table_place(path, &bt, span),
                    _ => self.place(base),
                };
                let idx = self.expr(index);
                // An outside constant's length: the array is in `.local` (see `const_array`).
                let const_len = !matches!(len, Len::Known(_));
                if let (Val::S(Arg::Imm(Imm::Int(i))), false) = (&idx, const_len) {
                    let i = *i;
                    if i < 0 || i as u64 >= n {
                        return Place::Value(self.error(span, format!("index {i} is out of bounds for an array of length {n}")));
                    }
                    let i = i as u64;
                    return match pb {
                        Place::Reg { local, mut path } => {
                            path.push(i as usize);
                            Place::Reg { local, path }
                        }
                        Place::Mem { addr, space, offset } => Place::Mem { addr, space, offset: offset + (i * size) as i64 },
                        Place::Value(v) => Place::Value(v.field(i as usize)),
                    };
                }
                let (addr, space, offset) = match pb {
                    Place::Mem { addr, space, offset } => (addr, space, offset),
                    other => {
                        // An array value indexed at run time: put it in local memory.
                        let v = self.read(&other, &base.ty, span);
                        let addr = self.spill(&v, &bt, span);
                        (addr, Space::Local, 0)
                    }
                };
                if checked {
                    let n = if const_len { self.len_arg(len) } else { Arg::imm(n as i64) };
                    self.bounds_check(&idx, &n);
                }
                let (addr, extra) = self.element_addr(&addr, space, &idx, size);
                Place::Mem { addr, space, offset: offset + extra }
            }
            _ => Place::Value(Val::Unit),
        }
    }

    /// A length as an operand: an immediate, or a constant rustc evaluates.
    pub fn len_arg(&mut self, len: &Len) -> Arg {
        match len {
            Len::Known(n) => Arg::imm(*n as i64),
            Len::Const(t) => {
                let piece = quote::quote!(::ptx_runtime::__private::Piece::Dec((#t) as u64));
                let r = self.reg(RegClass::B64);
                self.b.op_into(Opcode::Mov(Type::B64), r, vec![Arg::Sym(crate::ir::Sym::Piece(piece))]);
                Arg::Reg(r)
            }
        }
    }

    /// Stops the kernel unless `idx < len` (both `usize`); once per index and length in a
    /// region.
    fn bounds_check(&mut self, idx: &Val, len: &Arg) {
        if let (Val::S(Arg::Imm(Imm::Int(i))), Arg::Imm(Imm::Int(n))) = (idx, len) {
            if (*i as u64) < *n as u64 {
                return;
            }
        }
        let key = format!("bounds {:?} {:?}", idx.arg(), len);
        if self.available(&key).is_some() {
            return;
        }
        let p = self.b.op1(Opcode::Setp(Cmp::Ge, Type::U64), RegClass::Pred, vec![idx.arg(), len.clone()]);
        self.check_fails_if(p, Check::Bounds);
        self.remember(key, None, &[idx.arg(), len.clone()]);
    }

    /// `base + idx * size` in `space`: the address and a constant offset (computed once per
    /// region).
    pub fn element_addr(&mut self, base: &Arg, space: Space, idx: &Val, size: u64) -> (Arg, i64) {
        if let Val::S(Arg::Imm(Imm::Int(i))) = idx {
            // Wrapping: an index this large fails its bounds check before the access.
            return (base.clone(), i.wrapping_mul(size as i64));
        }
        let key = format!("addr {base:?} {:?} {size} {space:?}", idx.arg());
        if let Some(Some(r)) = self.available(&key) {
            return (Arg::Reg(r), 0);
        }
        let (a, off) = self.element_addr_uncached(base, space, idx, size);
        if let Arg::Reg(r) = a {
            self.remember(key, Some(r), &[base.clone(), idx.arg()]);
        }
        (a, off)
    }

    fn element_addr_uncached(&mut self, base: &Arg, space: Space, idx: &Val, size: u64) -> (Arg, i64) {
        let idx = idx.arg();
        let shift = if size.is_power_of_two() { Some(size.trailing_zeros() as i64) } else { None };
        if space == Space::Shared {
            let i32r = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![idx]);
            let scaled = match shift {
                Some(0) => i32r,
                Some(k) => self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(i32r), Arg::imm(k)]),
                None => self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S32), RegClass::B32, vec![Arg::Reg(i32r), Arg::imm(size as i64)]),
            };
            let a = self.b.op1(Opcode::arith(Arith::Add, Type::S32), RegClass::B32, vec![base.clone(), Arg::Reg(scaled)]);
            return (Arg::Reg(a), 0);
        }
        // A 64-bit index widened from 32 bits: multiply the 32-bit value (`mul.wide`).
        let scaled = match (&idx, self.widened_from(&idx)) {
            (_, Some((narrow, signed))) if size > 1 => {
                let t = if signed { Opcode::Arith(Arith::Mul, Mode::Wide, Type::S32) } else { Opcode::Arith(Arith::Mul, Mode::Wide, Type::U32) };
                self.b.op1(t, RegClass::B64, vec![Arg::Reg(narrow), Arg::imm(size as i64)])
            }
            (Arg::Reg(r), _) if size == 1 => *r,
            _ => match shift {
                Some(0) => return (Arg::Reg(self.b.op1(Opcode::arith(Arith::Add, Type::S64), RegClass::B64, vec![base.clone(), idx])), 0),
                Some(k) => self.b.op1(Opcode::arith(Arith::Shl, Type::B64), RegClass::B64, vec![idx, Arg::imm(k)]),
                None => self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), RegClass::B64, vec![idx, Arg::imm(size as i64)]),
            },
        };
        let a = self.b.op1(Opcode::arith(Arith::Add, Type::S64), RegClass::B64, vec![base.clone(), Arg::Reg(scaled)]);
        (Arg::Reg(a), 0)
    }

    /// The 32-bit register a 64-bit register was widened from (`cvt.u64.u32`), if that
    /// register still holds the value (it is not a mutable local's), and whether it was signed.
    fn widened_from(&self, a: &Arg) -> Option<(crate::ir::Reg, bool)> {
        let Arg::Reg(r) = a else { return None };
        let (narrow, signed) = *self.widened.get(r)?;
        if self.mutable_regs.contains(&narrow) || self.mutable_regs.contains(r) {
            return None;
        }
        Some((narrow, signed))
    }

    pub fn read(&mut self, p: &Place, ty: &Ty, span: Span) -> Val {
        match p {
            Place::Reg { local, path } => {
                let mut v = match &self.slots[*local] {
                    Some(v) => v.clone(),
                    None => return self.error(span, "internal: use of a local without a value"),
                };
                for i in path {
                    v = v.field(*i);
                }
                v
            }
            Place::Mem { addr, space, offset } => {
                let ty = self.ty(ty);
                self.load(addr, *space, *offset, &ty, span)
            }
            Place::Value(v) => v.clone(),
        }
    }

    pub fn write(&mut self, p: &Place, ty: &Ty, v: Val, span: Span) {
        if matches!(v, Val::Never) {
            return;
        }
        match p {
            Place::Reg { local, path } => {
                let Some(mut dst) = self.slots[*local].clone() else { return };
                for i in path {
                    dst = dst.field(*i);
                }
                self.move_into(&dst, &v, Some(*local));
            }
            Place::Mem { addr, space, offset } => {
                let ty = self.ty(ty);
                self.store(addr, *space, *offset, &ty, &v, span);
            }
            Place::Value(_) => {
                self.error(span, "this expression is not a place that can be assigned");
            }
        }
    }

    pub fn assign(&mut self, place: &Expr, v: Val) {
        let p = self.place(place);
        self.write(&p, &place.ty, v, place.span);
    }

    /// `mov`s every leaf of `src` into the registers of `dst`.
    pub fn move_into(&mut self, dst: &Val, src: &Val, local: Option<LocalId>) {
        match (dst, src) {
            (Val::S(Arg::Reg(d)), Val::S(a)) if !matches!(a, Arg::Reg(r) if r == d) => {
                if self.b.class(*d) == RegClass::Pred {
                    let p = self.pred(src);
                    self.mov(*d, Arg::Reg(p));
                } else {
                    self.mov(*d, a.clone());
                }
            }
            (Val::Ptr(Arg::Reg(d), ds), Val::Ptr(a, ss)) => {
                let a = if ds == ss {
                    a.clone()
                } else {
                    match (ds, ss) {
                        (Space::Global { nc: false }, Space::Global { .. }) => a.clone(),
                        // A generic register takes any address converted: nothing to learn.
                        (Space::Generic, _) => self.generic_address(src),
                        _ => {
                            // The local holds addresses of more than one space: lower again
                            // with it generic (or global without `.nc`).
                            if let Some(l) = local {
                                let s = match (ds, ss) {
                                    (Space::Global { .. }, Space::Global { .. }) => Space::Global { nc: false },
                                    _ => Space::Generic,
                                };
                                // Generic wins over `.global` without `.nc` when an
                                // aggregate's pointers disagree in different ways.
                                let e = self.restart.space.entry(l).or_insert(s);
                                if s == Space::Generic {
                                    *e = s;
                                }
                            }
                            a.clone()
                        }
                    }
                };
                if !matches!(&a, Arg::Reg(r) if r == d) {
                    self.mov(*d, a);
                }
            }
            (Val::Agg(ds), Val::Agg(ss)) => {
                for (d, s) in ds.iter().zip(ss) {
                    self.move_into(d, s, local);
                }
            }
            _ => {}
        }
    }

    /// Fresh registers for a value of type `ty` (a mutable local's storage).
    pub fn fresh(&mut self, ty: &Ty, space_hint: Option<&Val>) -> Val {
        // A C-like enum nested in another type is its integer (`Ty::lowered`).
        let ty = &ty.clone().lowered();
        match self.ty(ty) {
            Ty::Scalar(s) => Val::S(Arg::Reg(self.reg(class_of(s)))),
            Ty::Handle(_) => Val::S(Arg::Reg(self.reg(RegClass::B64))),
            Ty::Ptr { .. } => {
                let space = match space_hint {
                    Some(Val::Ptr(_, s)) => *s,
                    _ => Space::Generic,
                };
                Val::Ptr(Arg::Reg(self.reg(space.class())), space)
            }
            Ty::Slice { .. } => {
                let space = match space_hint.map(|v| v.field(0)) {
                    Some(Val::Ptr(_, s)) => s,
                    _ => Space::Generic,
                };
                Val::Agg(vec![Val::Ptr(Arg::Reg(self.reg(space.class())), space), Val::S(Arg::Reg(self.reg(RegClass::B64)))])
            }
            Ty::Shared { elem, len: Some(_) } => {
                let _ = elem;
                Val::Ptr(Arg::Reg(self.reg(RegClass::B32)), Space::Shared)
            }
            Ty::Shared { len: None, .. } => Val::Agg(vec![Val::Ptr(Arg::Reg(self.reg(RegClass::B32)), Space::Shared), Val::S(Arg::Reg(self.reg(RegClass::B64)))]),
            Ty::Vector { elem, lanes } => Val::Agg((0..lanes).map(|_| Val::S(Arg::Reg(self.reg(class_of(elem))))).collect()),
            Ty::Tuple(ts) => Val::Agg(ts.iter().enumerate().map(|(i, t)| {
                let h = space_hint.map(|h| h.field(i));
                self.fresh(t, h.as_ref())
            }).collect()),
            Ty::Array { elem, len: Len::Known(n) } => {
                let hints: Vec<Option<Val>> = (0..n as usize).map(|i| space_hint.map(|h| h.field(i))).collect();
                Val::Agg(hints.iter().map(|h| self.fresh(&elem, h.as_ref())).collect())
            }
            Ty::Struct(def) if def.kind != StructKind::Union => {
                let fields: Vec<Ty> = def.fields.iter().map(|f| f.ty.clone()).collect();
                Val::Agg(fields.iter().enumerate().map(|(i, t)| {
                    let h = space_hint.map(|h| h.field(i));
                    self.fresh(t, h.as_ref())
                }).collect())
            }
            _ => Val::Unit,
        }
    }

    /// The qualifiers of a load or store in `space`: `.volatile` for `read_volatile` /
    /// `write_volatile` (global, shared and generic addresses; never `.nc`), then the space.
    /// The returned access is scalar and of a placeholder type, for the caller to set.
    fn access(&self, space: Space, load: bool) -> Mem {
        let volatile = self.volatile && matches!(space, Space::Generic | Space::Global { .. } | Space::Shared);
        let order = if volatile { Order::Volatile } else { Order::Plain };
        let nc = load && !volatile && space == Space::Global { nc: true };
        Mem { order, space: space.state_space(), nc, lanes: 1, ty: Type::U8 }
    }

    pub fn load(&mut self, addr: &Arg, space: Space, offset: i64, ty: &Ty, span: Span) -> Val {
        // A C-like enum nested in another type is its integer (`Ty::lowered`).
        let ty = &ty.clone().lowered();
        let m = self.access(space, true);
        let ld = |ty: Type| Opcode::Ld(Mem { ty, ..m });
        let mem = |o: i64| Arg::mem(addr.clone(), offset + o);
        match ty {
            Ty::Unit => Val::Unit,
            Ty::Scalar(Scalar::Bool) => {
                let b = self.b.op1(ld(Type::U8), RegClass::B16, vec![mem(0)]);
                Val::S(Arg::Reg(self.b.op1(Opcode::Setp(Cmp::Ne, Type::S16), RegClass::Pred, vec![Arg::Reg(b), Arg::imm(0)])))
            }
            Ty::Scalar(s) => Val::S(Arg::Reg(self.b.op1(ld(mem_type(*s)), class_of(*s), vec![mem(0)]))),
            Ty::Handle(_) => Val::S(Arg::Reg(self.b.op1(ld(Type::U64), RegClass::B64, vec![mem(0)]))),
            Ty::Ptr { .. } => Val::Ptr(Arg::Reg(self.b.op1(ld(Type::U64), RegClass::B64, vec![mem(0)])), Space::Generic),
            Ty::Slice { .. } => {
                let p = self.b.op1(ld(Type::U64), RegClass::B64, vec![mem(0)]);
                let n = self.b.op1(ld(Type::U64), RegClass::B64, vec![mem(8)]);
                Val::Agg(vec![Val::Ptr(Arg::Reg(p), Space::Generic), Val::S(Arg::Reg(n))])
            }
            Ty::Vector { elem, lanes } if matches!(lanes, 2 | 4) && !(elem.size() == 8 && *lanes == 4) => {
                let c = class_of(*elem);
                let regs: Vec<_> = (0..*lanes).map(|_| self.reg(c)).collect();
                let t = Opcode::Ld(Mem { lanes: *lanes, ty: mem_type(*elem), ..m });
                self.b.push(crate::ir::Inst::op(t, 1, vec![Arg::Vec(regs.iter().map(|r| Arg::Reg(*r)).collect()), mem(0)]));
                Val::Agg(regs.into_iter().map(|r| Val::S(Arg::Reg(r))).collect())
            }
            Ty::Vector { elem, lanes } => {
                let sz = elem.size() as i64;
                Val::Agg((0..*lanes as i64).map(|i| self.load(addr, space, offset + i * sz, &Ty::Scalar(*elem), span)).collect())
            }
            Ty::Array { elem, len: Len::Known(n) } => {
                let elem = self.ty(elem);
                let sz = elem.layout().map(|l| l.size as i64).unwrap_or(0);
                Val::Agg((0..*n as i64).map(|i| self.load(addr, space, offset + i * sz, &elem, span)).collect())
            }
            Ty::Struct(def) if def.kind != StructKind::Union => {
                let fields: Vec<(u64, Ty)> = def.fields.iter().map(|f| (f.offset, f.ty.clone())).collect();
                Val::Agg(fields.iter().map(|(o, t)| {
                    let t = self.ty(t);
                    self.load(addr, space, offset + *o as i64, &t, span)
                }).collect())
            }
            Ty::Struct(_) => self.error(span, "union values in registers are not supported; read a union's fields through a pointer (`(*p).field`)"),
            Ty::Tuple(ts) => match crate::front::ty::tuple_offsets(ts) {
                Some(offsets) => Val::Agg(ts.iter().zip(offsets).map(|(t, o)| self.load(addr, space, offset + o as i64, t, span)).collect()),
                None => self.error(span, format!("values of type `{ty}` cannot be loaded from memory")),
            },
            t => self.error(span, format!("values of type `{t}` cannot be loaded from memory")),
        }
    }

    pub fn store(&mut self, addr: &Arg, space: Space, offset: i64, ty: &Ty, v: &Val, span: Span) {
        // A C-like enum nested in another type is its integer (`Ty::lowered`).
        let ty = &ty.clone().lowered();
        let m = self.access(space, false);
        let st = |ty: Type| Opcode::St(Mem { ty, ..m });
        let mem = |o: i64| Arg::mem(addr.clone(), offset + o);
        match ty {
            Ty::Unit => {}
            Ty::Scalar(Scalar::Bool) => {
                let a = match v {
                    Val::S(Arg::Imm(i)) => Arg::Imm(*i),
                    _ => {
                        let p = self.pred(v);
                        Arg::Reg(self.b.op1(Opcode::Selp(Type::U16), RegClass::B16, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(p)]))
                    }
                };
                self.b.op0(st(Type::U8), vec![mem(0), a]);
            }
            Ty::Scalar(s) => self.b.op0(st(mem_type(*s)), vec![mem(0), v.arg()]),
            Ty::Handle(_) => self.b.op0(st(Type::U64), vec![mem(0), v.arg()]),
            Ty::Ptr { .. } => {
                let a = self.generic_address(v);
                self.b.op0(st(Type::U64), vec![mem(0), a]);
            }
            Ty::Slice { .. } => {
                let a = self.generic_address(&v.field(0));
                self.b.op0(st(Type::U64), vec![mem(0), a]);
                self.b.op0(st(Type::U64), vec![mem(8), v.field(1).arg()]);
            }
            Ty::Vector { elem, lanes } if matches!(lanes, 2 | 4) && !(elem.size() == 8 && *lanes == 4) => {
                let c = class_of(*elem);
                let lanes_v: Vec<Arg> = (0..*lanes as usize)
                    .map(|i| match v.field(i).arg() {
                        Arg::Reg(r) => Arg::Reg(r),
                        other => {
                            let r = self.reg(c);
                            self.mov(r, other);
                            Arg::Reg(r)
                        }
                    })
                    .collect();
                self.b.op0(Opcode::St(Mem { lanes: *lanes, ty: mem_type(*elem), ..m }), vec![mem(0), Arg::Vec(lanes_v)]);
            }
            Ty::Vector { elem, lanes } => {
                let sz = elem.size() as i64;
                for i in 0..*lanes as usize {
                    self.store(addr, space, offset + i as i64 * sz, &Ty::Scalar(*elem), &v.field(i), span);
                }
            }
            Ty::Array { elem, len: Len::Known(n) } => {
                let elem = self.ty(elem);
                let sz = elem.layout().map(|l| l.size as i64).unwrap_or(0);
                for i in 0..*n as usize {
                    self.store(addr, space, offset + i as i64 * sz, &elem, &v.field(i), span);
                }
            }
            Ty::Struct(def) if def.kind == StructKind::Enum => self.store_enum(addr, space, offset, def, v, span),
            Ty::Struct(def) if def.kind != StructKind::Union => {
                let fields: Vec<(u64, Ty)> = def.fields.iter().map(|f| (f.offset, f.ty.clone())).collect();
                for (i, (o, t)) in fields.iter().enumerate() {
                    let t = self.ty(t);
                    self.store(addr, space, offset + *o as i64, &t, &v.field(i), span);
                }
            }
            Ty::Struct(_) => {
                self.error(span, "union values in registers are not supported; write a union's fields through a pointer (`(*p).field = v`)");
            }
            Ty::Tuple(ts) => match crate::front::ty::tuple_offsets(ts) {
                Some(offsets) => {
                    for (i, (t, o)) in ts.iter().zip(offsets).enumerate() {
                        self.store(addr, space, offset + o as i64, t, &v.field(i), span);
                    }
                }
                None => {
                    self.error(span, format!("values of type `{ty}` cannot be stored to memory"));
                }
            },
            t => {
                self.error(span, format!("values of type `{t}` cannot be stored to memory"));
            }
        }
    }

    /// Puts an aggregate in a fresh `.local` array; returns its address.
    pub fn spill(&mut self, v: &Val, ty: &Ty, span: Span) -> Arg {
        let addr = self.local_array(ty, span);
        self.store(&addr, Space::Local, 0, ty, v, span);
        addr
    }

    /// Declares a `.local` array for a value of type `ty`; returns its address.
    pub fn local_array(&mut self, ty: &Ty, span: Span) -> Arg {
        let Some(l) = self.ty(ty).layout() else {
            self.error(span, "this value has no device layout");
            return Arg::imm(0);
        };
        let name = self.array_name("__local_");
        let mut t = crate::text::Text::new();
        t.str(&format!(".local .align {} .b8 {name}[{}];", l.align, l.size.max(1)));
        self.b.decl(t);
        let r = self.b.op1(Opcode::Mov(Type::U64), RegClass::B64, vec![Arg::named(name.clone())]);
        self.debug_array(r, name);
        Arg::Reg(r)
    }

    /// The generic address of a pointer value.
    pub fn generic_address(&mut self, v: &Val) -> Arg {
        match v {
            Val::Ptr(a, Space::Generic) => a.clone(),
            Val::Ptr(a, Space::Global { .. }) => Arg::Reg(self.b.op1(Opcode::Cvta { to: false, space: StateSpace::Global }, RegClass::B64, vec![a.clone()])),
            Val::Ptr(a, Space::Local) => Arg::Reg(self.b.op1(Opcode::Cvta { to: false, space: StateSpace::Local }, RegClass::B64, vec![a.clone()])),
            Val::Ptr(a, Space::Shared) => {
                let w = self.b.op1(Opcode::Cvt(Mode::None, Type::U64, Type::U32), RegClass::B64, vec![a.clone()]);
                Arg::Reg(self.b.op1(Opcode::Cvta { to: false, space: StateSpace::Shared }, RegClass::B64, vec![Arg::Reg(w)]))
            }
            other => other.arg(),
        }
    }

    /// `&place`: the address of a place in memory.
    pub fn addr_of(&mut self, place: &Expr, span: Span) -> Val {
        match self.place(place) {
            Place::Mem { addr, space, offset } => {
                if offset == 0 {
                    return Val::Ptr(addr, space);
                }
                let (c, op) = if space == Space::Shared { (RegClass::B32, Opcode::arith(Arith::Add, Type::S32)) } else { (RegClass::B64, Opcode::arith(Arith::Add, Type::S64)) };
                Val::Ptr(Arg::Reg(self.b.op1(op, c, vec![addr, Arg::imm(offset)])), space)
            }
            Place::Value(Val::Never) => Val::Never,
            // `&temporary`: a fresh slot holds it (see `front::local_addr`).
            Place::Value(v) => {
                let ty = self.ty(&place.ty);
                Val::Ptr(self.spill(&v, &ty, span), Space::Local)
            }
            Place::Reg { .. } => self.error(span, "internal: the address of a local kept in registers"),
        }
    }

    /// `&s[start..end]`, `&s[start..=end]`, with Rust's checks.
    pub fn sub_slice(&mut self, base: &Expr, start: Option<&Expr>, end: Option<&Expr>, inclusive: bool, span: Span) -> Val {
        let s = self.expr(base);
        let Val::Ptr(addr, space) = s.field(0) else { return Val::Never };
        let len = s.field(1);
        let st = match start {
            Some(x) => {
                let v = self.expr(x);
                self.stabilize(v)
            }
            None => Val::S(Arg::imm(0)),
        };
        let mut en = match end {
            Some(x) => self.expr(x),
            None => len.clone(),
        };
        if inclusive {
            let p = self.b.op1(Opcode::Setp(Cmp::Eq, Type::S64), RegClass::Pred, vec![en.arg(), Arg::imm(-1)]);
            self.check_fails_if(p, Check::SliceRange);
            en = Val::S(Arg::Reg(self.b.op1(Opcode::arith(Arith::Add, Type::S64), RegClass::B64, vec![en.arg(), Arg::imm(1)])));
        }
        let p1 = self.b.op1(Opcode::Setp(Cmp::Gt, Type::U64), RegClass::Pred, vec![st.arg(), en.arg()]);
        self.check_fails_if(p1, Check::SliceRange);
        if end.is_some() {
            let p2 = self.b.op1(Opcode::Setp(Cmp::Gt, Type::U64), RegClass::Pred, vec![en.arg(), len.arg()]);
            self.check_fails_if(p2, Check::SliceRange);
        }
        let elem = match self.ty(&base.ty) {
            Ty::Slice { elem, .. } => self.ty(&elem),
            _ => Ty::Error,
        };
        let size = elem.layout().map(|l| l.size as u64).unwrap_or(1);
        let (a, off) = self.element_addr(&addr, space, &st, size);
        let a = if off != 0 { Arg::Reg(self.b.op1(Opcode::arith(Arith::Add, Type::S64), RegClass::B64, vec![a, Arg::imm(off)])) } else { a };
        let n = self.b.op1(Opcode::arith(Arith::Sub, Type::S64), RegClass::B64, vec![en.arg(), st.arg()]);
        let _ = span;
        Val::Agg(vec![Val::Ptr(a, space), Val::S(Arg::Reg(n))])
    }
}

/// Whether a body may write memory: stores through pointers, slices or shared memory, calls
/// (the callee might), inline PTX. Decides whether `*const T` kernel parameters may be read
/// with `ld.global.nc`.
pub fn writes_memory(block: &Block) -> bool {
    let mut found = false;
    visit_block(block, &mut |e| {
        found |= match &e.kind {
            ExprKind::Assign(p, _) | ExprKind::OpAssign(_, p, _) => is_memory(p) || matches!(&p.kind, ExprKind::Tuple(ps) if ps.iter().any(is_memory)),
            ExprKind::Intrinsic { op: Intrinsic::Ptr(PtrOp::Write { .. }) | Intrinsic::Atomic(_) | Intrinsic::Free, .. } => true,
            ExprKind::Call { .. } | ExprKind::Asm(_) => true,
            _ => false,
        };
    });
    found
}

fn is_memory(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Deref(_) => true,
        ExprKind::Index { base, .. } => matches!(base.ty, Ty::Slice { .. } | Ty::Shared { .. }) || is_memory(base),
        ExprKind::Field(b, _) => is_memory(b),
        _ => false,
    }
}

/// Calls `f` on every expression in the block.
pub fn visit_block(b: &Block, f: &mut dyn FnMut(&Expr)) {
    for s in &b.stmts {
        match s {
            Stmt::Let { init: Some(e), .. } | Stmt::Expr(e) => visit(e, f),
            Stmt::Let { .. } => {}
        }
    }
    if let Some(t) = &b.tail {
        visit(t, f);
    }
}

pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, x) | ExprKind::Cast(x) | ExprKind::Field(x, _) | ExprKind::Deref(x) | ExprKind::AddrOf(x) | ExprKind::Repeat(x, _) => visit(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Assign(a, b) | ExprKind::OpAssign(_, a, b) => {
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Logic { lhs, rhs, .. } => {
            visit(lhs, f);
            visit(rhs, f);
        }
        ExprKind::Index { base, index, .. } => {
            visit(base, f);
            visit(index, f);
        }
        ExprKind::SubSlice { base, start, end, .. } => {
            visit(base, f);
            if let Some(s) = start {
                visit(s, f);
            }
            if let Some(s) = end {
                visit(s, f);
            }
        }
        ExprKind::Call { args, .. } | ExprKind::Intrinsic { args, .. } | ExprKind::Vector(args) | ExprKind::Array(args) | ExprKind::Tuple(args) => args.iter().for_each(|a| visit(a, f)),
        ExprKind::Block(b) | ExprKind::Loop { body: b, .. } | ExprKind::Labeled { body: b, .. } => visit_block(b, f),
        ExprKind::If { cond, then, els } => {
            visit(cond, f);
            visit_block(then, f);
            if let Some(e) = els {
                visit(e, f);
            }
        }
        ExprKind::While { cond, body, .. } => {
            visit(cond, f);
            visit_block(body, f);
        }
        ExprKind::For { range, body, .. } => {
            visit(&range.start, f);
            visit(&range.end, f);
            if let Some(s) = &range.step {
                visit(s, f);
            }
            visit_block(body, f);
        }
        ExprKind::Break { value: Some(v), .. } | ExprKind::Return(Some(v)) => visit(v, f),
        ExprKind::Match { scrut, arms } => {
            visit(scrut, f);
            for a in arms {
                if let Some(g) = &a.guard {
                    visit(g, f);
                }
                visit(&a.body, f);
            }
        }
        ExprKind::Struct { fields, base, .. } => {
            fields.iter().for_each(|(_, x)| visit(x, f));
            if let Some(b) = base {
                visit(b, f);
            }
        }
        ExprKind::Asm(a) => a.operands.iter().for_each(|o| visit(&o.expr, f)),
        ExprKind::Printf { args, .. } => args.iter().for_each(|a| {
            if let crate::front::hir::PrintfArg::Value(x) = a {
                visit(x, f);
            }
        }),
        ExprKind::Panic(p) => match &p.when {
            crate::front::hir::PanicWhen::Always => {}
            crate::front::hir::PanicWhen::Not(c) => visit(c, f),
            crate::front::hir::PanicWhen::Compare { left, right, .. } => {
                visit(left, f);
                visit(right, f);
            }
        },
        _ => {}
    }
}

#[allow(dead_code)]
fn leaf_count(ty: &Ty) -> usize {
    let mut v = Vec::new();
    leaves(ty, 0, &mut v);
    v.iter().filter(|(_, l)| matches!(l, Leaf::Scalar(_) | Leaf::Ptr)).count()
}
