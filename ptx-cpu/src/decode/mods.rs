//! An opcode's modifiers (`ld.global.nc.v2.f64` → `global nc v2 f64`), taken one by one by the
//! instruction decoders; whatever none takes makes the instruction unsupported, so an unknown
//! modifier can never be silently ignored.

use super::types::T;
use crate::exec::softfloat::Rnd;
use crate::program::{MemSpace, Order};

pub struct Mods<'a> {
    pub base: &'a str,
    list: Vec<&'a str>,
    used: Vec<bool>,
}

/// Modifiers that are performance hints only: cache operators, eviction priorities, L2 hints.
fn is_hint(m: &str) -> bool {
    matches!(m, "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "nc" | "noftz" | "unified")
        || m.starts_with("L1::")
        || m.starts_with("L2::")
        || m.starts_with("level::")
}

impl<'a> Mods<'a> {
    pub fn new(opcode: &'a str) -> Mods<'a> {
        let mut it = opcode.split('.');
        let base = it.next().unwrap_or("");
        let list: Vec<&str> = it.collect();
        let used = vec![false; list.len()];
        Mods { base, list, used }
    }

    pub fn take(&mut self, m: &str) -> bool {
        for (i, x) in self.list.iter().enumerate() {
            if !self.used[i] && *x == m {
                self.used[i] = true;
                return true;
            }
        }
        false
    }

    pub fn take_any(&mut self, opts: &[&'a str]) -> Option<&'a str> {
        for (i, x) in self.list.iter().enumerate() {
            if !self.used[i] && opts.contains(x) {
                self.used[i] = true;
                return Some(x);
            }
        }
        None
    }

    /// All type modifiers, in order.
    pub fn types(&mut self) -> Vec<T> {
        let mut out = Vec::new();
        for (i, x) in self.list.iter().enumerate() {
            if !self.used[i] {
                if let Some(t) = T::parse(x) {
                    self.used[i] = true;
                    out.push(t);
                }
            }
        }
        out
    }

    /// The one type modifier.
    pub fn ty(&mut self) -> Option<T> {
        let t = self.types();
        if t.len() == 1 {
            Some(t[0])
        } else {
            None
        }
    }

    pub fn rnd(&mut self) -> Option<Rnd> {
        Some(match self.take_any(&["rn", "rz", "rm", "rp", "rna"])? {
            "rn" => Rnd::Rn,
            "rz" => Rnd::Rz,
            "rm" => Rnd::Rm,
            "rp" => Rnd::Rp,
            _ => Rnd::Rna,
        })
    }

    pub fn irnd(&mut self) -> Option<Rnd> {
        Some(match self.take_any(&["rni", "rzi", "rmi", "rpi"])? {
            "rni" => Rnd::Rn,
            "rzi" => Rnd::Rz,
            "rmi" => Rnd::Rm,
            _ => Rnd::Rp,
        })
    }

    pub fn space(&mut self) -> Option<MemSpace> {
        Some(match self.take_any(&["global", "shared", "shared::cta", "local", "const", "param", "param::entry", "param::func"])? {
            "global" => MemSpace::Global,
            "shared" | "shared::cta" => MemSpace::Shared,
            "local" => MemSpace::Local,
            "const" => MemSpace::Const,
            _ => MemSpace::KernelParam,
        })
    }

    pub fn vec(&mut self) -> u8 {
        match self.take_any(&["v2", "v4", "v8"]) {
            Some("v2") => 2,
            Some("v4") => 4,
            Some("v8") => 8,
            _ => 1,
        }
    }

    /// `.weak/.volatile/.relaxed/.acquire/.release/.acq_rel/.sc/.mmio` and a scope
    /// (`.cta/.cluster/.gpu/.sys`, all executed at system strength: stronger is allowed).
    pub fn order(&mut self, default: Order) -> Order {
        let o = match self.take_any(&["weak", "volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio"]) {
            Some("weak") => Order::Weak,
            Some("volatile") | Some("relaxed") | Some("mmio") => Order::Relaxed,
            Some("acquire") => Order::Acquire,
            Some("release") => Order::Release,
            Some("acq_rel") => Order::AcqRel,
            Some("sc") => Order::SeqCst,
            _ => default,
        };
        self.take_any(&["cta", "cluster", "gpu", "sys"]);
        o
    }

    /// Marks every hint as taken.
    pub fn hints(&mut self) {
        for (i, x) in self.list.iter().enumerate() {
            if is_hint(x) {
                self.used[i] = true;
            }
        }
    }

    /// The first modifier nobody took.
    pub fn leftover(&self) -> Option<&'a str> {
        self.list.iter().zip(&self.used).find(|(_, u)| !**u).map(|(x, _)| *x)
    }
}
