//! `tex`, `tld4`, `suld.b` and `sust.b` on texture and surface objects (a `.u64` handle in a
//! register): the forms nvcc writes for CUDA's `tex*D*`, `tex2Dgather`, `surf*Dread` and
//! `surf*Dwrite` (and their layered forms; docs/textures.md). Texture references (`.texref` names), samplers given
//! separately, residency predicates, offsets, depth compares and `sust.p` are unsupported.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use super::Sym;
use crate::parse::ast::{self, Operand};
use crate::program::*;

const GEOMS: [(&str, TexGeom); 7] = [
    ("1d", TexGeom::D1),
    ("2d", TexGeom::D2),
    ("3d", TexGeom::D3),
    ("a1d", TexGeom::A1d),
    ("a2d", TexGeom::A2d),
    ("cube", TexGeom::Cube),
    ("acube", TexGeom::ACube),
];

impl FnDecoder<'_> {
    pub(super) fn texture(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let geom = m.take_any(&GEOMS.map(|g| g.0)).and_then(|g| GEOMS.iter().find(|x| x.0 == g)).map(|x| x.1);
        let Some(geom) = geom else { return unsupported(format!("{} (geometry other than 1d, 2d, 3d, a1d, a2d, cube, acube)", i.opcode)) };
        match m.base {
            "tex" | "tld4" => self.tex(i, m, geom),
            _ if geom.cube() => unsupported(format!("{} (cube-map surfaces)", i.opcode)),
            _ => self.surf(i, m, geom),
        }
    }

    fn tex(&mut self, i: &ast::Inst, m: &mut Mods, geom: TexGeom) -> R<Op> {
        let gather = if m.base == "tld4" {
            match m.take_any(&["r", "g", "b", "a"]) {
                Some(c) => Some(["r", "g", "b", "a"].iter().position(|x| *x == c).unwrap_or(0) as u8),
                None => return unsupported(format!("{} (tld4 without .r/.g/.b/.a)", i.opcode)),
            }
        } else {
            None
        };
        // The mipmap level: `.base` (the default), `.level` (one operand), `.grad` (two vectors).
        m.take("base");
        let extra = match m.take_any(&["level", "grad"]) {
            Some("level") => 1,
            Some(_) => 2,
            None => 0,
        };
        if !m.take("v4") || (gather.is_some() && (!matches!(geom, TexGeom::D2 | TexGeom::A2d) || extra != 0)) {
            return unsupported(format!("{} (form not executed by the CPU backend)", i.opcode));
        }
        let int_coords = match m.types().as_slice() {
            [T::F32 | T::S32 | T::U32, T::F32] => false,
            [T::F32 | T::S32 | T::U32, T::S32] if gather.is_none() && extra == 0 => true,
            _ => return unsupported(format!("{} (result and coordinate types other than .f32/.s32/.u32 and .f32/.s32)", i.opcode)),
        };
        self.args(i, 2 + extra)?;
        let d = self.regs4(&i.args[0])?;
        let (handle, parts) = self.object(i, &i.args[1])?;
        let Some(handle) = handle else { return unsupported(format!("{} (texture references and separate samplers)", i.opcode)) };
        let want = match geom {
            TexGeom::D1 => 1,
            TexGeom::D2 | TexGeom::A1d => 2,
            TexGeom::D3 | TexGeom::A2d | TexGeom::Cube | TexGeom::ACube => 4,
        };
        if parts.len() != want {
            return self.error(format!("`{}`: the coordinate vector has {} elements, {want} expected", i.opcode, parts.len()));
        }
        if int_coords && geom.cube() {
            return unsupported(format!("{} (integer cube-map coordinates)", i.opcode));
        }
        let mut coords = [Src::None; 4];
        for (k, c) in parts.iter().enumerate() {
            let t = if int_coords || (geom.layered() && k == 0) { T::S32 } else { T::F32 };
            coords[k] = self.src(c, t)?;
        }
        // The LOD, or the gradients: one lane per coordinate (a 3-D or cube gradient has four,
        // the last ignored).
        let lod = match &i.args[2..] {
            [l] => TexLod::Level(self.src(l, T::F32)?),
            [dx, dy] => TexLod::Grad(self.grad(i, dx, geom)?, self.grad(i, dy, geom)?),
            _ => TexLod::Base,
        };
        Ok(Op::Tex(Box::new(TexOp { geom, gather, int_coords, d, handle, coords, lod })))
    }

    fn surf(&mut self, i: &ast::Inst, m: &mut Mods, geom: TexGeom) -> R<Op> {
        if !m.take("b") {
            return unsupported(format!("{} (only suld.b/sust.b)", i.opcode));
        }
        let vec = m.vec();
        let bits: u8 = match m.ty() {
            Some(T::B8) => 8,
            Some(T::B16) => 16,
            Some(T::B32) => 32,
            Some(T::B64) => 64,
            _ => return unsupported(format!("{} (element type other than .b8/.b16/.b32/.b64)", i.opcode)),
        };
        let clamp = match m.take_any(&["trap", "clamp", "zero"]) {
            Some("clamp") => SurfClamp::Clamp,
            Some("zero") => SurfClamp::Zero,
            // `.trap` is the default.
            _ => SurfClamp::Trap,
        };
        if vec > 4 || (vec == 4 && bits == 64) {
            return unsupported(&i.opcode);
        }
        self.args(i, 2)?;
        let store = m.base == "sust";
        let (obj, data) = if store { (&i.args[0], &i.args[1]) } else { (&i.args[1], &i.args[0]) };
        let (handle, parts) = self.object(i, obj)?;
        let Some(handle) = handle else { return unsupported(format!("{} (surface references)", i.opcode)) };
        // `.3d` and `.a2d` pad their vector to four lanes; a layered one leads with the layer.
        let want = match geom {
            TexGeom::D3 | TexGeom::A2d => 4,
            TexGeom::A1d => 2,
            _ => geom.dims(),
        };
        if parts.len() != want {
            return self.error(format!("`{}`: the coordinate vector has {} elements, {want} expected", i.opcode, parts.len()));
        }
        let mut coords = [Src::None; 3];
        for (k, c) in parts.iter().take(3).enumerate() {
            coords[k] = self.src(c, T::S32)?;
        }
        let elems: &[Operand] = match data {
            Operand::Vector(v) => v,
            x => std::slice::from_ref(x),
        };
        if elems.len() != vec as usize {
            return self.error(format!("`{}`: {} data operands, {vec} expected", i.opcode, elems.len()));
        }
        let (mut d, mut v) = ([NOREG; 4], [Src::None; 4]);
        let t = [T::B8, T::B16, T::B32, T::B64][bits.trailing_zeros() as usize - 3];
        for (k, e) in elems.iter().enumerate() {
            if store {
                v[k] = self.src(e, t)?;
            } else {
                d[k] = self.dst(e)?;
            }
        }
        Ok(Op::Surf(Box::new(SurfOp { geom, store, bits, vec, clamp, handle, coords, d, v })))
    }

    /// `[h, {c…}]`: the handle register (`None` for a `.texref`/`.surfref` name or a separate
    /// sampler) and the coordinate vector's elements.
    fn object<'o>(&self, i: &ast::Inst, op: &'o Operand) -> R<(Option<Src>, &'o [Operand])> {
        let Operand::List(parts) = op else { return self.error(format!("`{}`: expected [object, {{coordinates}}], found {op:?}", i.opcode)) };
        let (Some(Operand::Addr { base: Some(name), offset: 0 }), Some(c)) = (parts.first(), parts.last()) else {
            return self.error(format!("`{}`: expected [object, {{coordinates}}]", i.opcode));
        };
        let coords: &[Operand] = match c {
            Operand::Vector(v) => v,
            x => std::slice::from_ref(x),
        };
        match self.lookup(name) {
            Some(Sym::Reg(r, _)) if parts.len() == 2 => Ok((Some(Src::Reg(r)), coords)),
            _ => Ok((None, coords)),
        }
    }

    /// A gradient vector of `tex.grad`: `{dx}`, `{dx, dy}` or `{dx, dy, dz, _}`.
    fn grad(&self, i: &ast::Inst, op: &Operand, geom: TexGeom) -> R<[Src; 3]> {
        let lanes: &[Operand] = match op {
            Operand::Vector(v) => v,
            x => std::slice::from_ref(x),
        };
        let want = if geom.dims() == 3 { 4 } else { geom.dims() };
        if lanes.len() != want {
            return self.error(format!("`{}`: a gradient has {} elements, {want} expected", i.opcode, lanes.len()));
        }
        let mut g = [Src::None; 3];
        for (k, x) in lanes.iter().enumerate() {
            let s = self.src(x, T::F32)?;
            if k < 3 {
                g[k] = s;
            }
        }
        Ok(g)
    }

    /// `{d0, d1, d2, d3}`.
    fn regs4(&self, op: &Operand) -> R<[Reg; 4]> {
        match op {
            Operand::Vector(v) if v.len() == 4 => {
                let mut d = [NOREG; 4];
                for (k, x) in v.iter().enumerate() {
                    d[k] = self.dst(x)?;
                }
                Ok(d)
            }
            _ => self.error(format!("expected a vector of 4 destination registers, found {op:?}")),
        }
    }
}
