//! Loads, stores and atomics, with memcheck: every access is resolved to the memory it names
//! and checked for bounds and alignment before it happens.
//!
//! Address spaces: global addresses are the device's allocations (and module variables, and
//! the `malloc` heap, where only live blocks are accessible); shared, local and parameter
//! addresses are offsets into the block's shared memory, the thread's stack of frames, and the
//! launch's parameter block; a generic address is one of these by the window it falls in (see
//! `program::SHARED_WINDOW`), global otherwise.

use super::block::Block;
use super::fp;
use super::softfloat::{self as sf, Rnd};
use super::warp::{lanes, Warp};
use crate::memory::{self, Region, RegionKind};
use crate::program::*;
use crate::error::{Error, FaultKind};
use std::sync::Arc;

/// A whole-warp contiguous range.
enum Span<'l> {
    Global(&'l Arc<Region>, u64),
    Shared(usize),
}

/// Where an access lands.
pub enum Loc<'l> {
    Global(&'l Arc<Region>, u64),
    Shared(usize),
    Local(usize),
    KParam(usize),
    FParam(usize),
}

#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Load,
    Store,
    Atomic,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Load => "load",
            Kind::Store => "store",
            Kind::Atomic => "atomic",
        }
    }
}

fn space_name(s: MemSpace) -> &'static str {
    match s {
        MemSpace::Global => "global",
        MemSpace::Shared => "shared",
        MemSpace::Local => "local",
        MemSpace::Const => "constant",
        MemSpace::KernelParam => "kernel-parameter",
        MemSpace::FrameParam => "parameter",
        MemSpace::Generic => "generic",
    }
}

fn in_window(a: u64, w: u64) -> bool {
    a >= w && a - w < WINDOW_SIZE
}

impl<'l> Block<'l> {
    /// Resolves and checks an access of `size` bytes (the whole vector) at `addr` by lane `l`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn resolve(&mut self, w: &Warp, l: usize, space: MemSpace, addr: u64, size: u64, kind: Kind, line: u32) -> Result<Loc<'l>, Box<Error>> {
        let fault = |b: &Self, k: FaultKind, detail: String| {
            Err(Box::new(b.fault_at(w, l, k, Some(addr), Some(line as usize), format!("{size}-byte {} ({} space): {detail}", kind.word(), space_name(space)))))
        };
        if !addr.is_multiple_of(size.min(16)) {
            return fault(self, FaultKind::Misaligned, format!("the address is not a multiple of {}", size.min(16)));
        }
        let (space, a) = match space {
            MemSpace::Generic => {
                if in_window(addr, SHARED_WINDOW) {
                    (MemSpace::Shared, addr - SHARED_WINDOW)
                } else if in_window(addr, LOCAL_WINDOW) {
                    (MemSpace::Local, addr - LOCAL_WINDOW)
                } else if in_window(addr, PARAM_WINDOW) {
                    (MemSpace::KernelParam, addr)
                } else {
                    (MemSpace::Global, addr)
                }
            }
            s => (s, addr),
        };
        match space {
            MemSpace::Shared => {
                if a.checked_add(size).is_none_or(|e| e > self.shared.len() as u64) {
                    return fault(
                        self,
                        FaultKind::OutOfBounds,
                        format!("shared offset {a:#x} is outside the block's {} bytes of shared memory ({})", self.shared.len(), self.shared_map()),
                    );
                }
                Ok(Loc::Shared(a as usize))
            }
            MemSpace::Local => {
                let sp = w.local_sp[l] as u64;
                if a.checked_add(size).is_none_or(|e| e > sp) {
                    return fault(self, FaultKind::OutOfBounds, format!("local offset {a:#x} is outside the thread's {sp} bytes of live local memory"));
                }
                Ok(Loc::Local(a as usize))
            }
            MemSpace::FrameParam => {
                let sp = w.param_sp[l] as u64;
                if a.checked_add(size).is_none_or(|e| e > sp) {
                    return fault(self, FaultKind::OutOfBounds, format!("parameter offset {a:#x} is outside the thread's parameter frames"));
                }
                Ok(Loc::FParam(a as usize))
            }
            MemSpace::KernelParam => {
                let off = a.wrapping_sub(PARAM_WINDOW);
                if kind != Kind::Load {
                    return fault(self, FaultKind::OutOfBounds, "kernel parameters are read-only".into());
                }
                if !in_window(a, PARAM_WINDOW) || off + size > self.l.kparams.len() as u64 {
                    return fault(self, FaultKind::OutOfBounds, format!("outside the {}-byte kernel parameter block", self.l.kparams.len()));
                }
                Ok(Loc::KParam(off as usize))
            }
            MemSpace::Global | MemSpace::Const => {
                let r = match self.hint {
                    Some(r) if r.contains(a, size) => r,
                    _ => match memory::find(&self.l.table, a, size) {
                        Some(r) => {
                            self.hint = Some(r);
                            r
                        }
                        None => return fault(self, FaultKind::OutOfBounds, self.describe_miss(a, size)),
                    },
                };
                match &r.kind {
                    RegionKind::Var { constant: true, name } if kind != Kind::Load => {
                        return fault(self, FaultKind::OutOfBounds, format!("`{name}` is in constant memory, which is read-only"));
                    }
                    RegionKind::Heap
                        if !self.l.heap.as_ref().is_some_and(|h| h.is_live(a, size)) => {
                            return fault(self, FaultKind::OutOfBounds, "device-heap memory that no live malloc block holds (freed, or never allocated)".into());
                        }
                    _ => {}
                }
                if space == MemSpace::Const && !matches!(r.kind, RegionKind::Var { constant: true, .. }) {
                    return fault(self, FaultKind::OutOfBounds, "not a .const variable".into());
                }
                Ok(Loc::Global(r, a - r.base))
            }
            MemSpace::Generic => unreachable!(),
        }
    }

    /// A global range inside one ordinary allocation or variable (no heap, no constant memory
    /// for stores), for whole-warp fast paths; `None` sends the access down the checked path.
    fn fast_global(&mut self, space: MemSpace, a: u64, size: u64, store: bool) -> Option<(&'l Arc<Region>, u64)> {
        if !matches!(space, MemSpace::Global | MemSpace::Generic) || a < memory::HEAP_BASE {
            return None;
        }
        let r = match self.hint {
            Some(r) if r.contains(a, size) => r,
            _ => memory::find(&self.l.table, a, size)?,
        };
        match r.kind {
            RegionKind::Alloc => {}
            RegionKind::Var { constant, .. } if !(store && constant) => {}
            _ => return None,
        }
        self.hint = Some(r);
        Some((r, a - r.base))
    }

    /// The kernel's shared variables and where they are, for fault messages.
    pub(crate) fn shared_map(&self) -> String {
        let vars = &self.l.prog.shared_vars;
        let mut placed: Vec<(u32, &str, u64)> = vars
            .iter()
            .zip(&self.l.shared_offsets)
            .filter(|(_, o)| **o != u32::MAX)
            .map(|(v, o)| (*o, v.name.as_str(), if v.dynamic { self.l.dyn_shared as u64 } else { v.size as u64 }))
            .collect();
        if self.l.reserved_shared > 0 {
            placed.push((0, "(reserved region)", self.l.reserved_shared as u64));
        }
        placed.sort();
        let list: Vec<String> = placed.iter().map(|(o, n, s)| format!("`{n}` at {o:#x}..{:#x}", *o as u64 + s)).collect();
        if list.is_empty() {
            "the kernel declares no shared variables".into()
        } else {
            list.join(", ")
        }
    }

    /// Explains a global address that hit no allocation.
    fn describe_miss(&self, a: u64, size: u64) -> String {
        match memory::nearest(&self.l.table, a) {
            Some(r) if a >= r.base && a < r.base + r.len => {
                format!("the access runs {} byte(s) past the end of the {}-byte {} at {:#x}", a + size - (r.base + r.len), r.len, what(r), r.base)
            }
            Some(r) if a >= r.base => {
                format!("{} bytes past the end of the {}-byte {} at {:#x}", a - (r.base + r.len), r.len, what(r), r.base)
            }
            _ if a < memory::HEAP_BASE => "no device memory is there (a null or uninitialized pointer?)".into(),
            _ => "no device allocation holds this address (freed memory?)".into(),
        }
    }

    #[inline(always)]
    fn read(&self, w: &Warp, l: usize, loc: &Loc, at: usize, size: u32, order: Order) -> u64 {
        let bytes = |s: &[u8], at: usize| {
            let mut b = [0u8; 8];
            b[..size as usize].copy_from_slice(&s[at..at + size as usize]);
            u64::from_le_bytes(b)
        };
        match loc {
            Loc::Global(r, off) => r.load(off + at as u64, size, order),
            Loc::Shared(o) => bytes(&self.shared, o + at),
            Loc::Local(o) => bytes(&w.local[l], o + at),
            Loc::KParam(o) => bytes(&self.l.kparams, o + at),
            Loc::FParam(o) => bytes(&w.params[l], o + at),
        }
    }

    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn write(&mut self, w: &mut Warp, l: usize, loc: &Loc, at: usize, size: u32, v: u64, order: Order) {
        let put = |s: &mut [u8], at: usize| s[at..at + size as usize].copy_from_slice(&v.to_le_bytes()[..size as usize]);
        match loc {
            Loc::Global(r, off) => r.store(off + at as u64, size, v, order),
            Loc::Shared(o) => put(&mut self.shared, o + at),
            Loc::Local(o) => put(&mut w.local[l], o + at),
            Loc::KParam(_) => {}
            Loc::FParam(o) => put(&mut w.params[l], o + at),
        }
    }

    /// Reads a NUL-terminated string through a generic address (for `printf`/`assert`).
    pub fn read_cstr(&mut self, w: &Warp, l: usize, addr: u64, line: u32) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        let mut a = addr;
        loop {
            let loc = self.resolve(w, l, MemSpace::Generic, a, 1, Kind::Load, line).map_err(|e| *e)?;
            let b = self.read(w, l, &loc, 0, 1, Order::Weak) as u8;
            if b == 0 || out.len() >= 1 << 20 {
                return Ok(out);
            }
            out.push(b);
            a += 1;
        }
    }

    /// Reads `size` bytes at a generic address.
    pub fn read_generic(&mut self, w: &Warp, l: usize, addr: u64, size: u32, line: u32) -> Result<u64, Error> {
        let loc = self.resolve(w, l, MemSpace::Generic, addr, size as u64, Kind::Load, line).map_err(|e| *e)?;
        Ok(self.read(w, l, &loc, 0, size, Order::Weak))
    }

    /// Reads `size` (at most 8) bytes of global memory, checked: texels of textures and surfaces.
    pub fn read_global(&mut self, w: &Warp, l: usize, addr: u64, size: u32, line: u32) -> Result<u64, Error> {
        let loc = self.resolve(w, l, MemSpace::Global, addr, size as u64, Kind::Load, line).map_err(|e| *e)?;
        Ok(self.read(w, l, &loc, 0, size, Order::Weak))
    }

    /// Writes `size` (at most 8) bytes of global memory, checked: surface stores.
    pub fn write_global(&mut self, w: &mut Warp, l: usize, addr: u64, size: u32, v: u64, line: u32) -> Result<(), Error> {
        let loc = self.resolve(w, l, MemSpace::Global, addr, size as u64, Kind::Store, line).map_err(|e| *e)?;
        self.write(w, l, &loc, 0, size, v, Order::Weak);
        Ok(())
    }

    pub fn memory_op(&mut self, w: &mut Warp, d: usize, exec: u32, inst: &Inst) -> Result<(), Error> {
        match &inst.op {
            Op::Ld { space, size, sext, vec, ds, dbits, addr, order } => {
                let mut base = [0u64; 32];
                self.fetch(w, d, addr.base, &mut base);
                let total = *size as u64 * *vec as u64;
                let checked = self.l.sanitize.race || self.l.sanitize.init;
                if *vec == 1 {
                    let mut v = [0u64; 32];
                    let l0 = exec.trailing_zeros() as usize;
                    // Local memory is each thread's own, also through a generic address: the
                    // same number in two lanes names two places.
                    let per_thread = matches!(space, MemSpace::Local | MemSpace::FrameParam)
                        || (*space == MemSpace::Generic && in_window(base[l0].wrapping_add(addr.offset as u64), LOCAL_WINDOW));
                    if !per_thread && !checked && (matches!(addr.base, Src::Imm(_) | Src::Shared(..)) || lanes(exec).all(|l| base[l] == base[l0])) {
                        // One address for every lane (a parameter, a broadcast): one check, one read.
                        let loc = self.resolve(w, l0, *space, base[l0].wrapping_add(addr.offset as u64), total, Kind::Load, inst.line).map_err(|e| *e)?;
                        v = [self.read(w, l0, &loc, 0, *size as u32, *order); 32];
                    } else if checked || !self.load_fast(&base, addr.offset, exec, *size, *space, *order, &mut v) {
                        for l in lanes(exec) {
                            let a = base[l].wrapping_add(addr.offset as u64);
                            let loc = self.resolve(w, l, *space, a, total, Kind::Load, inst.line).map_err(|e| *e)?;
                            if checked {
                                self.sanitize_access(w, l, &loc, total, Kind::Load, inst.line)?;
                            }
                            v[l] = self.read(w, l, &loc, 0, *size as u32, *order);
                        }
                    }
                    return self.finish_load(w, d, exec, &ds[..1], *size, *sext, *dbits, std::slice::from_mut(&mut v));
                }
                let mut vals = [[0u64; 32]; 8];
                for l in lanes(exec) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    let loc = self.resolve(w, l, *space, a, total, Kind::Load, inst.line).map_err(|e| *e)?;
                    if self.l.sanitize.race || self.l.sanitize.init {
                        self.sanitize_access(w, l, &loc, total, Kind::Load, inst.line)?;
                    }
                    for (e, v) in vals.iter_mut().enumerate().take(*vec as usize) {
                        v[l] = self.read(w, l, &loc, e * *size as usize, *size as u32, *order);
                    }
                }
                self.finish_load(w, d, exec, &ds[..*vec as usize], *size, *sext, *dbits, &mut vals[..*vec as usize])
            }
            Op::St { space, size, vec, srcs, addr, order } => {
                let mut base = [0u64; 32];
                self.fetch(w, d, addr.base, &mut base);
                let mut vals = [[0u64; 32]; 8];
                for (e, s) in srcs.iter().enumerate().take(*vec as usize) {
                    self.fetch(w, d, *s, &mut vals[e]);
                }
                let total = *size as u64 * *vec as u64;
                // Initcheck marks each lane's bytes of shared memory written.
                let checked = self.l.sanitize.race || self.shared_init.is_some();
                if *vec == 1 && !checked && self.store_fast(&base, addr.offset, exec, *size, *space, *order, &vals[0]) {
                    return Ok(());
                }
                for l in lanes(exec) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    let loc = self.resolve(w, l, *space, a, total, Kind::Store, inst.line).map_err(|e| *e)?;
                    if checked {
                        self.sanitize_access(w, l, &loc, total, Kind::Store, inst.line)?;
                    }
                    for (e, v) in vals.iter().enumerate().take(*vec as usize) {
                        self.write(w, l, &loc, e * *size as usize, *size as u32, v[l], *order);
                    }
                }
                Ok(())
            }
            Op::Atom { space, op, ty, d: dst, addr, b, c, order, ftz } => {
                let (mut base, mut tb, mut tc) = ([0u64; 32], [0u64; 32], [0u64; 32]);
                self.fetch(w, d, addr.base, &mut base);
                self.fetch(w, d, *b, &mut tb);
                self.fetch(w, d, *c, &mut tc);
                let size = ty.size();
                let mut out = [0u64; 32];
                for l in lanes(exec) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    let loc = self.resolve(w, l, *space, a, size as u64, Kind::Atomic, inst.line).map_err(|e| *e)?;
                    if self.race.is_some() || self.shared_init.is_some() {
                        self.sanitize_access(w, l, &loc, size as u64, Kind::Atomic, inst.line)?;
                    }
                    // Only an atomic that changes memory is an event (`hang`): a failed
                    // compare-and-swap in a spin lock changes nothing. The last call decides (a
                    // global one may retry).
                    let changed = std::cell::Cell::new(false);
                    let f = |old: u64| {
                        let new = atom_apply(*op, *ty, old, tb[l], tc[l], *ftz);
                        changed.set(new.is_some_and(|n| n & super::lanes::mask(size * 8) != old));
                        new
                    };
                    out[l] = match loc {
                        Loc::Global(r, off) => r.rmw(off, size, *order, f),
                        _ => {
                            let old = self.read(w, l, &loc, 0, size, Order::Weak);
                            if let Some(new) = f(old) {
                                self.write(w, l, &loc, 0, size, new, Order::Weak);
                            }
                            old
                        }
                    };
                    if changed.get() {
                        self.event();
                    }
                }
                if *dst != NOREG {
                    super::step::blend(&mut w.levels[d][*dst as usize], &out, exec);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A whole warp accessing consecutive `size`-byte elements inside one global allocation or
    /// the block's shared memory: checked once for all 32 lanes.
    fn contiguous(&mut self, base: &Lanes, offset: i64, exec: u32, size: u8, space: MemSpace, store: bool) -> Option<Span<'l>> {
        if exec != u32::MAX || !matches!(size, 1 | 2 | 4 | 8) || matches!(space, MemSpace::Local | MemSpace::FrameParam) {
            return None;
        }
        let sz = size as u64;
        let a0 = base[0].wrapping_add(offset as u64);
        if !a0.is_multiple_of(sz) || !(1..32).all(|l| base[l].wrapping_add(offset as u64) == a0.wrapping_add(sz * l as u64)) {
            return None;
        }
        let shared = match space {
            MemSpace::Shared => Some(a0),
            MemSpace::Generic if in_window(a0, SHARED_WINDOW) => Some(a0 - SHARED_WINDOW),
            _ => None,
        };
        if let Some(o) = shared {
            return (o.checked_add(32 * sz)? <= self.shared.len() as u64).then_some(Span::Shared(o as usize));
        }
        if space == MemSpace::Const {
            return None;
        }
        let (r, off) = self.fast_global(space, a0, 32 * sz, store)?;
        Some(Span::Global(r, off))
    }

    /// Loads for a whole warp through [`contiguous`](Self::contiguous); `false` if it does not apply.
    #[allow(clippy::too_many_arguments)]
    fn load_fast(&mut self, base: &Lanes, offset: i64, exec: u32, size: u8, space: MemSpace, order: Order, v: &mut Lanes) -> bool {
        let Some(span) = self.contiguous(base, offset, exec, size, space, false) else { return false };
        let sz = size as usize;
        match span {
            Span::Global(r, off) => {
                for (l, x) in v.iter_mut().enumerate() {
                    *x = r.load(off + (sz * l) as u64, size as u32, order);
                }
            }
            Span::Shared(o) => {
                for (l, x) in v.iter_mut().enumerate() {
                    let mut b = [0u8; 8];
                    b[..sz].copy_from_slice(&self.shared[o + sz * l..o + sz * (l + 1)]);
                    *x = u64::from_le_bytes(b);
                }
            }
        }
        true
    }

    /// Stores for a whole warp through [`contiguous`](Self::contiguous); `false` if it does not apply.
    #[allow(clippy::too_many_arguments)]
    fn store_fast(&mut self, base: &Lanes, offset: i64, exec: u32, size: u8, space: MemSpace, order: Order, v: &Lanes) -> bool {
        let Some(span) = self.contiguous(base, offset, exec, size, space, true) else { return false };
        let sz = size as usize;
        match span {
            Span::Global(r, off) if sz == 4 && off % 8 == 0 => {
                // Two lanes' words at once: one 64-bit store per pair.
                for p in 0..16 {
                    r.store_word(off + 8 * p as u64, (v[2 * p] & 0xffff_ffff) | (v[2 * p + 1] << 32), order);
                }
            }
            Span::Global(r, off) => {
                for (l, x) in v.iter().enumerate() {
                    r.store(off + (sz * l) as u64, size as u32, *x, order);
                }
            }
            Span::Shared(o) => {
                for (l, x) in v.iter().enumerate() {
                    self.shared[o + sz * l..o + sz * (l + 1)].copy_from_slice(&x.to_le_bytes()[..sz]);
                }
            }
        }
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_load(&mut self, w: &mut Warp, d: usize, exec: u32, ds: &[Reg], size: u8, sext: bool, dbits: u8, vals: &mut [Lanes]) -> Result<(), Error> {
        let m = super::lanes::mask(dbits as u32);
        for (&r, v) in ds.iter().zip(vals.iter_mut()) {
            if r == NOREG {
                continue;
            }
            if sext {
                for x in v.iter_mut() {
                    *x = super::lanes::sext(*x, size as u32 * 8) as u64 & m;
                }
            } else if (dbits as u32) < size as u32 * 8 {
                for x in v.iter_mut() {
                    *x &= m;
                }
            }
            super::step::blend(&mut w.levels[d][r as usize], v, exec);
        }
        Ok(())
    }
}

fn what(r: &Region) -> String {
    match &r.kind {
        RegionKind::Alloc => "allocation".into(),
        RegionKind::Var { name, .. } => format!("variable `{name}`"),
        RegionKind::Heap => "device heap".into(),
    }
}

/// The new value of an atomic, or `None` to leave memory unchanged (a failed CAS).
pub fn atom_apply(op: AtomOp, ty: AtomTy, old: u64, b: u64, c: u64, ftz: bool) -> Option<u64> {
    let bits = ty.size() * 8;
    let m = super::lanes::mask(bits);
    let (old, b, c) = (old & m, b & m, c & m);
    let float = |fmt: sf::Fmt, x: u64, y: u64| -> u64 {
        let (x, y) = if ftz { (fmt.flush(x), fmt.flush(y)) } else { (x, y) };
        let r = sf::encode(sf::add(sf::decode(x, fmt), sf::decode(y, fmt), Rnd::Rn), fmt, Rnd::Rn);
        if ftz {
            fmt.flush(r)
        } else {
            r
        }
    };
    let signed = matches!(ty, AtomTy::S32 | AtomTy::S64);
    let sx = |v: u64| super::lanes::sext(v, bits);
    Some(match op {
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                return None;
            }
        }
        AtomOp::Add => match ty {
            AtomTy::F32 => float(sf::F32, old, b),
            AtomTy::F64 => float(sf::F64, old, b),
            AtomTy::F16 => float(sf::F16, old, b),
            AtomTy::Bf16 => float(sf::BF16, old, b),
            AtomTy::F16x2 | AtomTy::Bf16x2 => {
                let f = if ty == AtomTy::F16x2 { sf::F16 } else { sf::BF16 };
                float(f, old & 0xffff, b & 0xffff) | float(f, old >> 16, b >> 16) << 16
            }
            _ => old.wrapping_add(b) & m,
        },
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::Min | AtomOp::Max => {
            let max = op == AtomOp::Max;
            match ty {
                AtomTy::F32 | AtomTy::F64 => {
                    let k = if ty == AtomTy::F32 { fp::F32 } else { fp::F64 };
                    let (mut o, mut o2) = ([0u64; 32], [0u64; 32]);
                    let f = if max { fp::max } else { fp::min };
                    f(&[old; 32], &[b; 32], &[0; 32], k, &mut o, &mut o2);
                    o[0]
                }
                _ if signed => {
                    let (x, y) = (sx(old), sx(b));
                    (if (x < y) == max { y } else { x }) as u64 & m
                }
                _ => {
                    if (old < b) == max {
                        b
                    } else {
                        old
                    }
                }
            }
        }
    })
}
