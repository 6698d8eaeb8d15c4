//! Texture reads and surface accesses (`front::texture`): `tex`, `tld4`, `suld.b`, `sust.b`,
//! with the operand shapes nvcc writes for CUDA's `tex2D<T>`, `tex2Dgather<T>`,
//! `surf2Dread<T>` and `surf2Dwrite` (the coordinate vector of a 3-D or layered 2-D access has
//! four lanes, the last coordinate repeated; the layer comes first).

use super::value::{class_of, Val};
use super::Lowerer;
use crate::front::texture::{Boundary, Shape, TexRead};
use crate::ir::{Arg, Geom, Inst, Opcode, RegClass, SurfClamp, TexLevel, Type};
use ptx_abi::Scalar;

fn geom(s: Shape) -> Geom {
    match s {
        Shape::D1 => Geom::D1,
        Shape::D2 => Geom::D2,
        Shape::D3 => Geom::D3,
        Shape::A1 => Geom::A1,
        Shape::A2 => Geom::A2,
    }
}

/// `tex`'s destination type for an element type (`.f32`, `.s32`, `.u32`).
fn texel_type(s: Scalar) -> Type {
    match s {
        Scalar::I32 => Type::S32,
        Scalar::U32 => Type::U32,
        _ => Type::F32,
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    /// `v` in a register of class `c` (an immediate is moved into one: the operands of
    /// texture instructions are registers).
    fn tex_reg(&mut self, v: &Val, c: RegClass, ty: Type) -> Arg {
        match v.arg() {
            a @ Arg::Reg(_) => a,
            a => Arg::Reg(self.b.op1(Opcode::Mov(ty), c, vec![a])),
        }
    }

    /// The `{...}` coordinate vector: layer first, then the coordinates, padded to four lanes
    /// by repeating the last for three coordinates or a layer and two.
    fn tex_coords(&mut self, coords: &[Val], layer: Option<&Val>, int: bool) -> Arg {
        let (c, t) = if int { (RegClass::B32, Type::B32) } else { (RegClass::F32, Type::F32) };
        let mut v = Vec::new();
        if let Some(l) = layer {
            v.push(self.tex_reg(l, RegClass::B32, Type::B32));
        }
        for x in coords {
            v.push(self.tex_reg(x, c, t));
        }
        if v.len() == 3 {
            v.push(v[2].clone());
        }
        Arg::Vec(v)
    }

    pub fn texture_read(&mut self, shape: Shape, read: TexRead, elem: Scalar, vals: &[Val]) -> Val {
        let h = self.tex_reg(&vals[0], RegClass::B64, Type::B64);
        let n = shape.dims();
        let layer = shape.layered().then(|| vals[1 + n].clone());
        let fetch = read == TexRead::Fetch;
        let coords = self.tex_coords(&vals[1..1 + n], layer.as_ref(), fetch);
        let rest = 1 + n + shape.layered() as usize;
        let class = class_of(elem);
        let d: Vec<_> = (0..4).map(|_| self.reg(class)).collect();
        let dst = Arg::Vec(d.iter().map(|r| Arg::Reg(*r)).collect());
        let mut args = vec![dst, Arg::Index(vec![h, coords])];
        let opcode = match read {
            TexRead::Gather(comp) => Opcode::Tld4 { comp, dst: texel_type(elem) },
            _ => {
                let level = match read {
                    TexRead::Level => TexLevel::Level,
                    TexRead::Grad => TexLevel::Grad,
                    _ => TexLevel::Auto,
                };
                match read {
                    TexRead::Level => args.push(self.tex_reg(&vals[rest], RegClass::F32, Type::F32)),
                    TexRead::Grad => {
                        for g in &vals[rest..rest + 2] {
                            let lanes: Vec<Val> = (0..2).map(|i| g.field(i)).collect();
                            let lanes = lanes.iter().map(|l| self.tex_reg(l, RegClass::F32, Type::F32)).collect();
                            args.push(Arg::Vec(lanes));
                        }
                    }
                    _ => {}
                }
                let coord = if fetch { Type::S32 } else { Type::F32 };
                Opcode::Tex { geom: geom(shape), level, dst: texel_type(elem), coord }
            }
        };
        self.b.push(Inst::op(opcode, 1, args));
        match read {
            TexRead::Gather(_) => Val::Agg(d.into_iter().map(|r| Val::S(Arg::Reg(r))).collect()),
            _ => Val::S(Arg::Reg(d[0])),
        }
    }

    pub fn surface_access(&mut self, shape: Shape, elem: Scalar, write: bool, boundary: Boundary, vals: &[Val]) -> Val {
        let h = self.tex_reg(&vals[0], RegClass::B64, Type::B64);
        let n = shape.dims();
        let coords = self.tex_coords(&vals[1..1 + n], None, true);
        let clamp = match boundary {
            Boundary::Trap => SurfClamp::Trap,
            Boundary::Clamp => SurfClamp::Clamp,
            Boundary::Zero => SurfClamp::Zero,
        };
        let bits = elem.size() as u32 * 8;
        // `suld.b`/`sust.b` move bits: floats go through an integer register of their width.
        let (bclass, bty) = match bits {
            8 | 16 => (RegClass::B16, Type::B16),
            32 => (RegClass::B32, Type::B32),
            _ => (RegClass::B64, Type::B64),
        };
        let ty = match bits {
            8 => Type::B8,
            16 => Type::B16,
            32 => Type::B32,
            _ => Type::B64,
        };
        let op = if write { Opcode::Sust { geom: geom(shape), ty, clamp } } else { Opcode::Suld { geom: geom(shape), ty, clamp } };
        let class = class_of(elem);
        let index = Arg::Index(vec![h, coords]);
        if write {
            let v = &vals[1 + n];
            let v = match v.arg() {
                Arg::Reg(r) if class == bclass => Arg::Reg(r),
                a => Arg::Reg(self.b.op1(Opcode::Mov(bty), bclass, vec![a])),
            };
            self.b.op0(op, vec![index, Arg::Vec(vec![v])]);
            Val::Unit
        } else {
            let d = self.reg(bclass);
            self.b.push(Inst::op(op, 1, vec![Arg::Vec(vec![Arg::Reg(d)]), index]));
            if class == bclass {
                Val::S(Arg::Reg(d))
            } else {
                Val::S(Arg::Reg(self.b.op1(Opcode::Mov(bty), class, vec![Arg::Reg(d)])))
            }
        }
    }
}
