//! `tex`, `tld4`, `suld.b`, `sust.b` per lane: the handle looked up in the device's object
//! table (an unknown one is an `InvalidHandle` fault at the instruction), texels read and
//! written through memcheck's global accesses, the sampling rules in `texture::sample` and
//! the surface addressing in `texture::surface`.

use super::block::Block;
use super::step::blend;
use super::warp::{lanes, Warp};
use crate::error::{Error, FaultKind};
use crate::program::*;
use crate::texture::sample::{self, Coords, Fetch};
use crate::texture::surface::{self, Place};
use crate::texture::{Lod, Surface, Texture};

impl<'l> Block<'l> {
    pub(super) fn texture_op(&mut self, w: &mut Warp, d: usize, exec: u32, inst: &Inst) -> Result<(), Error> {
        match &inst.op {
            Op::Tex(t) => self.tex(w, d, exec, t, inst.line),
            Op::Surf(s) => self.surf(w, d, exec, s, inst.line),
            _ => Ok(()),
        }
    }

    fn tex(&mut self, w: &mut Warp, d: usize, exec: u32, t: &TexOp, line: u32) -> Result<(), Error> {
        let mut h = [0u64; 32];
        self.fetch(w, d, t.handle, &mut h);
        let mut c = [[0u64; 32]; 4];
        for (k, s) in t.coords.iter().enumerate() {
            self.fetch(w, d, *s, &mut c[k]);
        }
        // The level of detail or the gradients' lanes (x then y), per lane.
        let mut lod = [[0u64; 32]; 6];
        match t.lod {
            TexLod::Base => {}
            TexLod::Level(s) => self.fetch(w, d, s, &mut lod[0]),
            TexLod::Grad(gx, gy) => {
                for (k, s) in gx.iter().chain(gy.iter()).enumerate() {
                    if *s != Src::None {
                        self.fetch(w, d, *s, &mut lod[k]);
                    }
                }
            }
        }
        let mut out = [[0u64; 32]; 4];
        let mut cached: Option<(u64, Texture)> = None;
        for l in lanes(exec) {
            let tex = match cached {
                Some((ch, tex)) if ch == h[l] => tex,
                _ => match self.l.objects.texture(h[l]) {
                    Some(tex) => {
                        cached = Some((h[l], tex));
                        tex
                    }
                    None => return Err(self.bad_handle(w, l, line, h[l], "texture")),
                },
            };
            // The layer leads the coordinate vector of a layered fetch.
            let (layer, first) = if t.geom.layered() { (c[0][l] as u32 as i32, 1) } else { (0, 0) };
            let mut fc = [0f32; 3];
            let mut ic = [0i32; 3];
            for k in 0..t.geom.dims() {
                fc[k] = f32::from_bits(c[first + k][l] as u32);
                ic[k] = c[first + k][l] as u32 as i32;
            }
            let coords = if t.int_coords { Coords::Int(ic) } else { Coords::Float(fc) };
            let g = |k: usize| [0, 1, 2].map(|c| f32::from_bits(lod[3 * k + c][l] as u32));
            let level = match t.lod {
                TexLod::Base => Lod::Base,
                TexLod::Level(_) => Lod::Level(f32::from_bits(lod[0][l] as u32)),
                TexLod::Grad(..) => Lod::Grad { dx: g(0), dy: g(1) },
            };
            let f = Fetch { dims: t.geom.dims(), coords, layer, gather: t.gather, lod: level, cube: t.geom.cube() };
            let v = sample::sample(&tex, &f, &mut |addr, size| self.read_global(w, l, addr, size, line))?;
            for k in 0..4 {
                out[k][l] = v[k] as u64;
            }
        }
        for (k, r) in t.d.iter().enumerate() {
            if *r != NOREG {
                blend(&mut w.levels[d][*r as usize], &out[k], exec);
            }
        }
        Ok(())
    }

    fn surf(&mut self, w: &mut Warp, d: usize, exec: u32, s: &SurfOp, line: u32) -> Result<(), Error> {
        let mut h = [0u64; 32];
        self.fetch(w, d, s.handle, &mut h);
        let mut c = [[0u64; 32]; 3];
        for (k, x) in s.coords.iter().enumerate() {
            self.fetch(w, d, *x, &mut c[k]);
        }
        let mut v = [[0u64; 32]; 4];
        if s.store {
            for k in 0..s.vec as usize {
                self.fetch(w, d, s.v[k], &mut v[k]);
            }
        }
        let eb = s.bits as u32 / 8;
        let bytes = (eb * s.vec as u32) as u64;
        let mut cached: Option<(u64, Surface)> = None;
        for l in lanes(exec) {
            let surf = match cached {
                Some((ch, surf)) if ch == h[l] => surf,
                _ => match self.l.objects.surface(h[l]) {
                    Some(surf) => {
                        cached = Some((h[l], surf));
                        surf
                    }
                    None => return Err(self.bad_handle(w, l, line, h[l], "surface")),
                },
            };
            let c = [c[0][l] as u32 as i32, c[1][l] as u32 as i32, c[2][l] as u32 as i32];
            // A layered access leads with the layer, which `place` takes as the third index.
            let (dims, coords) = match s.geom {
                TexGeom::A1d => (3, [c[1], 0, c[0]]),
                TexGeom::A2d => (3, [c[1], c[2], c[0]]),
                g => (g.dims(), c),
            };
            match surface::place(&surf.array, dims, coords, bytes, s.clamp) {
                Place::At(addr) => {
                    for k in 0..s.vec as usize {
                        let a = addr + (k as u32 * eb) as u64;
                        if s.store {
                            self.write_global(w, l, a, eb, v[k][l], line)?;
                        } else {
                            v[k][l] = self.read_global(w, l, a, eb, line)?;
                        }
                    }
                }
                Place::Nowhere => {
                    for x in v.iter_mut() {
                        x[l] = 0;
                    }
                }
                Place::Fault(detail) => {
                    let op = if s.store { "sust.b" } else { "suld.b" };
                    return Err(self.fault_at(w, l, FaultKind::OutOfBounds, None, Some(line as usize), format!("{op} on surface {:#x}: {detail}", h[l])));
                }
            }
        }
        if !s.store {
            for (k, r) in s.d.iter().enumerate() {
                if *r != NOREG {
                    blend(&mut w.levels[d][*r as usize], &v[k], exec);
                }
            }
        }
        Ok(())
    }

    fn bad_handle(&self, w: &Warp, l: usize, line: u32, h: u64, what: &str) -> Error {
        self.fault_at(
            w,
            l,
            FaultKind::InvalidHandle,
            None,
            Some(line as usize),
            format!("{h:#x} is not a live {what} object of this device (never created, destroyed, or an object of the other kind)"),
        )
    }
}
