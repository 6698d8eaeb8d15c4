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
        Shape::Cube => Geom::Cube,
        Shape::ACube => Geom::ACube,
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

    /// `lanes` of the four `tex` gives are the result (1: a scalar, 2 or 4: a vector, as nvcc
    /// reads CUDA's `float2`/`float4` from the same `tex.v4`).
    pub fn texture_read(&mut self, shape: Shape, read: TexRead, elem: Scalar, lanes: u8, vals: &[Val]) -> Val {
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
            TexRead::Gather(comp) => Opcode::Tld4 { comp, geom: geom(shape), dst: texel_type(elem) },
            _ => {
                let level = match read {
                    TexRead::Level => TexLevel::Level,
                    TexRead::Grad => TexLevel::Grad,
                    _ => TexLevel::Auto,
                };
                match read {
                    TexRead::Level => args.push(self.tex_reg(&vals[rest], RegClass::F32, Type::F32)),
                    TexRead::Grad => {
                        // One lane per coordinate; three pad to four by repeating the last
                        // (a `float4` gradient's fourth lane is not read), as nvcc writes them.
                        for g in &vals[rest..rest + 2] {
                            let lanes: Vec<Val> = if n == 1 { vec![g.clone()] } else { (0..n).map(|i| g.field(i)).collect() };
                            let mut lanes: Vec<Arg> = lanes.iter().map(|l| self.tex_reg(l, RegClass::F32, Type::F32)).collect();
                            if lanes.len() == 3 {
                                lanes.push(lanes[2].clone());
                            }
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
        match lanes {
            1 => Val::S(Arg::Reg(d[0])),
            n => Val::Agg(d.into_iter().take(n as usize).map(|r| Val::S(Arg::Reg(r))).collect()),
        }
    }

    /// A vector element (`lanes` 2 or 4) moves as `suld.b.vN`/`sust.b.vN` of its lanes.
    pub fn surface_access(&mut self, shape: Shape, elem: Scalar, lanes: u8, write: bool, boundary: Boundary, vals: &[Val]) -> Val {
        let h = self.tex_reg(&vals[0], RegClass::B64, Type::B64);
        let n = shape.dims();
        let layer = shape.layered().then(|| vals[1 + n].clone());
        let coords = self.tex_coords(&vals[1..1 + n], layer.as_ref(), true);
        let n = n + shape.layered() as usize;
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
        let vec = lanes;
        let op = if write { Opcode::Sust { geom: geom(shape), vec, ty, clamp } } else { Opcode::Suld { geom: geom(shape), vec, ty, clamp } };
        let class = class_of(elem);
        let index = Arg::Index(vec![h, coords]);
        if write {
            let v = &vals[1 + n];
            let parts: Vec<Val> = if lanes == 1 { vec![v.clone()] } else { (0..lanes as usize).map(|i| v.field(i)).collect() };
            let mut vs = Vec::new();
            for p in &parts {
                vs.push(match p.arg() {
                    Arg::Reg(r) if class == bclass => Arg::Reg(r),
                    a => Arg::Reg(self.b.op1(Opcode::Mov(bty), bclass, vec![a])),
                });
            }
            self.b.op0(op, vec![index, Arg::Vec(vs)]);
            Val::Unit
        } else {
            let d: Vec<_> = (0..lanes).map(|_| self.reg(bclass)).collect();
            self.b.push(Inst::op(op, 1, vec![Arg::Vec(d.iter().map(|r| Arg::Reg(*r)).collect()), index]));
            let out: Vec<Val> = d
                .into_iter()
                .map(|r| if class == bclass { Val::S(Arg::Reg(r)) } else { Val::S(Arg::Reg(self.b.op1(Opcode::Mov(bty), class, vec![Arg::Reg(r)]))) })
                .collect();
            if lanes == 1 {
                out.into_iter().next().unwrap_or(Val::Unit)
            } else {
                Val::Agg(out)
            }
        }
    }
}
