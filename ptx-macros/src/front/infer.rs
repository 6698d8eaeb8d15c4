//! Local type inference: inference variables for literals and unannotated bindings, unified
//! as the body is checked, defaulted as rustc defaults them (`{integer}` → `i32`,
//! `{float}` → `f64`).
//!
//! rustc type-checks the same body, so unification here is deliberately permissive about
//! coercions rustc decides (`&mut T` → `&T`, `&T` → `*const T`): its job is to *find* the types
//! rustc finds, not to re-judge the program.

use super::ty::{Len, Ty};
use ptx_abi::Scalar;
use std::rc::Rc;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VarKind {
    /// Any type (`let x;`).
    General,
    /// An integer literal's type.
    Int,
    /// A float literal's type.
    Float,
}

#[derive(Default)]
pub struct Infer {
    parent: Vec<u32>,
    kind: Vec<VarKind>,
    bound: Vec<Option<Ty>>,
}

pub struct Mismatch;

impl Infer {
    pub fn var(&mut self, kind: VarKind) -> Ty {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        self.kind.push(kind);
        self.bound.push(None);
        Ty::Var(id)
    }

    fn root(&self, mut v: u32) -> u32 {
        while self.parent[v as usize] != v {
            v = self.parent[v as usize];
        }
        v
    }

    /// Follows bound variables at the top of `ty`.
    pub fn shallow(&self, ty: &Ty) -> Ty {
        let mut ty = ty.clone();
        while let Ty::Var(v) = ty {
            let r = self.root(v);
            match &self.bound[r as usize] {
                Some(t) => ty = t.clone(),
                None => return Ty::Var(r),
            }
        }
        ty
    }

    /// The kind of an unbound variable.
    pub fn kind_of(&self, v: u32) -> VarKind {
        self.kind[self.root(v) as usize]
    }

    /// The type with every variable replaced: bound ones by their type, unbound integer and
    /// float variables by rustc's defaults, unbound general ones by `Error`.
    pub fn resolve(&self, ty: &Ty) -> Ty {
        match self.shallow(ty) {
            Ty::Var(v) => match self.kind_of(v) {
                VarKind::Int => Ty::Scalar(Scalar::I32),
                VarKind::Float => Ty::Scalar(Scalar::F64),
                VarKind::General => Ty::Error,
            },
            Ty::Ptr { mutable, reference, pointee } => Ty::Ptr { mutable, reference, pointee: Rc::new(self.resolve(&pointee)) },
            Ty::Slice { mutable, elem } => Ty::Slice { mutable, elem: Rc::new(self.resolve(&elem)) },
            Ty::Array { elem, len } => Ty::Array { elem: Rc::new(self.resolve(&elem)), len },
            Ty::Shared { elem, len } => Ty::Shared { elem: Rc::new(self.resolve(&elem)), len },
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| self.resolve(t)).collect()),
            Ty::Sum { kind, args } => Ty::Sum { kind, args: args.iter().map(|t| self.resolve(t)).collect() },
            t => t,
        }
    }

    pub fn unify(&mut self, a: &Ty, b: &Ty) -> Result<(), Mismatch> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (&a, &b) {
            // A variable meeting an error takes it on, so later uses stay quiet.
            (Ty::Var(v), Ty::Error) | (Ty::Error, Ty::Var(v)) => {
                let r = self.root(*v);
                self.bound[r as usize] = Some(Ty::Error);
                Ok(())
            }
            (Ty::Error, _) | (_, Ty::Error) | (Ty::Never, _) | (_, Ty::Never) => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                if x == y {
                    return Ok(());
                }
                let (kx, ky) = (self.kind_of(*x), self.kind_of(*y));
                let k = match (kx, ky) {
                    (VarKind::General, k) | (k, VarKind::General) => k,
                    (a, b) if a == b => a,
                    _ => return Err(Mismatch),
                };
                self.parent[*x as usize] = *y;
                self.kind[*y as usize] = k;
                Ok(())
            }
            (Ty::Var(v), t) | (t, Ty::Var(v)) => {
                let ok = match self.kind_of(*v) {
                    VarKind::General => true,
                    // Not a named type: the macro sees a struct or an alias, never a primitive.
                    VarKind::Int => t.is_integer(),
                    VarKind::Float => t.is_float(),
                };
                if !ok {
                    return Err(Mismatch);
                }
                let r = self.root(*v);
                self.bound[r as usize] = Some(t.clone());
                Ok(())
            }
            (Ty::Named(_), _) | (_, Ty::Named(_)) => Ok(()),
            (Ty::Scalar(x), Ty::Scalar(y)) if x == y => Ok(()),
            (Ty::Unit, Ty::Unit) => Ok(()),
            (Ty::Handle(a), Ty::Handle(b)) if a == b => Ok(()),
            (Ty::Ptr { pointee: p, .. }, Ty::Ptr { pointee: q, .. }) => self.unify(p, q),
            (Ty::Slice { elem: p, .. }, Ty::Slice { elem: q, .. }) => self.unify(p, q),
            (Ty::Array { elem: p, len: m }, Ty::Array { elem: q, len: n }) => {
                if let (Len::Known(m), Len::Known(n)) = (m, n) {
                    if m != n {
                        return Err(Mismatch);
                    }
                }
                self.unify(p, q)
            }
            (Ty::Shared { elem: p, .. }, Ty::Shared { elem: q, .. }) => self.unify(p, q),
            (Ty::Tuple(p), Ty::Tuple(q)) if p.len() == q.len() => {
                for (a, b) in p.iter().zip(q) {
                    self.unify(a, b)?;
                }
                Ok(())
            }
            (Ty::Sum { kind: k, args: p }, Ty::Sum { kind: l, args: q }) if k == l && p.len() == q.len() => {
                for (a, b) in p.iter().zip(q) {
                    self.unify(a, b)?;
                }
                Ok(())
            }
            (Ty::Struct(x), Ty::Struct(y)) if x.name == y.name && x.fields.len() == y.fields.len() => Ok(()),
            (Ty::Vector { elem: e, lanes: l }, Ty::Vector { elem: f, lanes: m }) if e == f && l == m => Ok(()),
            _ => Err(Mismatch),
        }
    }
}
