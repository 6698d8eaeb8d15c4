//! The system calls of the guide's chapter 3: `vprintf`, `malloc`, `free`, `__assertfail`.
//! Arguments come from the caller's call-scope `.param` variables, exactly as the prototypes
//! declare them; results go back the same way.

use super::block::Block;
use super::printf::{self, Args};
use super::warp::{lanes, Warp};
use crate::heap::FreeError;
use crate::program::Syscall;
use crate::error::{Error, FaultKind};

impl<'l> Block<'l> {
    fn param(&self, w: &Warp, l: usize, off: u32, size: usize) -> u64 {
        let at = w.param_base[l] as usize + off as usize;
        let mut b = [0u8; 8];
        if let Some(src) = w.params[l].get(at..at + size) {
            b[..size].copy_from_slice(src);
        }
        u64::from_le_bytes(b)
    }

    fn set_param(&self, w: &mut Warp, l: usize, off: u32, size: usize, v: u64) {
        let at = w.param_base[l] as usize + off as usize;
        if let Some(dst) = w.params[l].get_mut(at..at + size) {
            dst.copy_from_slice(&v.to_le_bytes()[..size]);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn syscall(&mut self, w: &mut Warp, _d: usize, exec: u32, which: Syscall, args: &[u32], rets: &[u32], line: u32) -> Result<(), Error> {
        for l in lanes(exec) {
            match which {
                Syscall::Vprintf => {
                    let fmt_addr = self.param(w, l, args[0], 8);
                    let list = self.param(w, l, args[1], 8);
                    let status = if fmt_addr == 0 {
                        -1i32
                    } else {
                        let fmt = self.read_cstr(w, l, fmt_addr, line)?;
                        let mut a = ArgReader { block: self, warp: w, lane: l, base: list, at: 0, line, err: None };
                        let r = printf::format(&fmt, &mut a);
                        if let Some(e) = a.err.take() {
                            return Err(e);
                        }
                        match r {
                            Ok((text, n)) => {
                                self.out.extend_from_slice(&text);
                                n as i32
                            }
                            Err(_) => -2,
                        }
                    };
                    if let Some(&r) = rets.first() {
                        self.set_param(w, l, r, 4, status as u32 as u64);
                    }
                }
                Syscall::Malloc => {
                    let size = self.param(w, l, args[0], 8);
                    let origin = crate::heap::Origin {
                        grid: self.l.grid_id,
                        block: self.ctaid,
                        thread: [w.tid[0][l] as u32, w.tid[1][l] as u32, w.tid[2][l] as u32],
                        line,
                    };
                    let p = self.l.heap.as_ref().map_or(0, |h| h.malloc(size, origin));
                    if let Some(&r) = rets.first() {
                        self.set_param(w, l, r, 8, p);
                    }
                }
                Syscall::Free => {
                    let p = self.param(w, l, args[0], 8);
                    if p != 0 {
                        let r = self.l.heap.as_ref().map_or(Err(FreeError::NotAllocated), |h| h.free(p));
                        if r.is_err() {
                            return Err(self.fault_at(
                                w,
                                l,
                                FaultKind::InvalidFree,
                                Some(p),
                                Some(line as usize),
                                "free of an address that is not a live block from the device heap (double free?)".into(),
                            ));
                        }
                    }
                }
                Syscall::AssertFail => {
                    let msg = self.param(w, l, args[0], 8);
                    let file = self.param(w, l, args[1], 8);
                    let aline = self.param(w, l, args[2], 4) as u32;
                    let func = self.param(w, l, args[3], 8);
                    let text = |b: &mut Self, a: u64| -> Result<String, Error> {
                        Ok(if a == 0 { String::new() } else { String::from_utf8_lossy(&b.read_cstr(w, l, a, line)?).into_owned() })
                    };
                    let (message, file, function) = (text(self, msg)?, text(self, file)?, text(self, func)?);
                    let [bx, by, bz] = self.ctaid;
                    let t = [w.tid[0][l], w.tid[1][l], w.tid[2][l]];
                    // What CUDA prints for a failed device assertion.
                    self.out.extend_from_slice(
                        format!(
                            "{file}:{aline}: {function}: block: [{bx},{by},{bz}], thread: [{},{},{}] Assertion `{message}` failed.\n",
                            t[0], t[1], t[2]
                        )
                        .as_bytes(),
                    );
                    let site = Some(Box::new(self.site(w, l, Some(line as usize))));
                    return Err(Error::Assert { message, file, line: aline, function, site });
                }
            }
        }
        Ok(())
    }
}

/// `vprintf`'s argument buffer, read through memcheck.
struct ArgReader<'a, 'l> {
    block: &'a mut Block<'l>,
    warp: &'a Warp,
    lane: usize,
    base: u64,
    at: u64,
    line: u32,
    err: Option<Error>,
}

impl Args for ArgReader<'_, '_> {
    fn arg(&mut self, size: u32) -> Result<u64, String> {
        let at = self.at.div_ceil(size as u64) * size as u64;
        self.at = at + size as u64;
        match self.block.read_generic(self.warp, self.lane, self.base.wrapping_add(at), size, self.line) {
            Ok(v) => Ok(v),
            Err(e) => {
                self.err = Some(e);
                Err("bad argument buffer".into())
            }
        }
    }

    fn string(&mut self, addr: u64) -> Result<Vec<u8>, String> {
        match self.block.read_cstr(self.warp, self.lane, addr, self.line) {
            Ok(v) => Ok(v),
            Err(e) => {
                self.err = Some(e);
                Err("bad string".into())
            }
        }
    }
}
