//! Register names: each class is numbered from 1 in order of creation, as nvcc numbers them
//! (`%r1`, `%r2`, ... `%rd1`, ...), and declared with one `.reg .b32 %r<N>;` line per class.

use crate::ir::{Func, Reg, RegClass};

pub struct Names {
    names: Vec<String>,
    /// Registers per class, in `RegClass::ALL` order.
    counts: [u32; 6],
}

impl Names {
    pub fn new(func: &Func) -> Names {
        let mut counts = [0u32; 6];
        let names = func
            .regs
            .iter()
            .map(|c| {
                let i = RegClass::ALL.iter().position(|x| x == c).unwrap_or(0);
                counts[i] += 1;
                format!("{}{}", c.decl().1, counts[i])
            })
            .collect();
        Names { names, counts }
    }

    pub fn name(&self, r: Reg) -> &str {
        &self.names[r.0 as usize]
    }

    /// `.reg` declarations for the classes in use.
    pub fn declarations(&self) -> String {
        let mut out = String::new();
        for (i, c) in RegClass::ALL.iter().enumerate() {
            if self.counts[i] > 0 {
                let (ty, prefix) = c.decl();
                out.push_str(&format!("\t.reg {ty} \t{prefix}<{}>;\n", self.counts[i] + 1));
            }
        }
        out
    }
}
