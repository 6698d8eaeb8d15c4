//! The control-flow graph's shape: predecessors, dominators and natural loops, for the passes
//! that reason about what holds where (`ir::bce`) and what runs on every trip (`ir::hoist`).

use super::{Func, Reg};

/// Predecessors and immediate dominators of the blocks reachable from the entry.
pub struct Cfg {
    pub preds: Vec<Vec<usize>>,
    /// `idom[b]`: `b`'s immediate dominator; the entry's is itself; `None` when unreachable.
    pub idom: Vec<Option<usize>>,
    /// Reverse postorder of the reachable blocks: each block after its dominators.
    pub order: Vec<usize>,
}

impl Cfg {
    /// Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast Dominance Algorithm").
    pub fn new(func: &Func) -> Cfg {
        let n = func.blocks.len();
        let mut preds = vec![Vec::new(); n];
        for (b, block) in func.blocks.iter().enumerate() {
            for s in block.term.successors() {
                preds[s.0 as usize].push(b);
            }
        }
        // Postorder by an explicit depth-first walk.
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some((b, i)) = stack.pop() {
            let succ = func.blocks[b].term.successors();
            if let Some(s) = succ.get(i) {
                stack.push((b, i + 1));
                let s = s.0 as usize;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
        let mut rpo_index = vec![usize::MAX; n];
        for (i, &b) in post.iter().rev().enumerate() {
            rpo_index[b] = i;
        }
        let order: Vec<usize> = post.iter().rev().copied().collect();
        let mut idom: Vec<Option<usize>> = vec![None; n];
        idom[0] = Some(0);
        let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
            while a != b {
                while rpo_index[a] > rpo_index[b] {
                    a = idom[a].unwrap_or(0);
                }
                while rpo_index[b] > rpo_index[a] {
                    b = idom[b].unwrap_or(0);
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(x) => intersect(&idom, p, x),
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Cfg { preds, idom, order }
    }

    /// Whether `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom[b] {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        }
    }

    /// The natural loop of each header: the header and every block that reaches one of its
    /// back edges (`latch → header` with the header dominating the latch) without passing
    /// through the header. Sorted by header.
    pub fn loops(&self) -> Vec<Loop> {
        let mut loops: Vec<Loop> = Vec::new();
        for &h in &self.order {
            let latches: Vec<usize> = self.preds[h].iter().copied().filter(|&p| self.idom[p].is_some() && self.dominates(h, p)).collect();
            if latches.is_empty() {
                continue;
            }
            let mut body = vec![false; self.preds.len()];
            body[h] = true;
            let mut stack = latches.clone();
            while let Some(b) = stack.pop() {
                if !body[b] {
                    body[b] = true;
                    stack.extend(self.preds[b].iter().copied().filter(|&p| self.idom[p].is_some()));
                }
            }
            loops.push(Loop { header: h, latches, body });
        }
        loops
    }
}

/// A natural loop.
pub struct Loop {
    pub header: usize,
    pub latches: Vec<usize>,
    /// `body[b]`: whether block `b` belongs to the loop (the header included).
    pub body: Vec<bool>,
}

impl Loop {
    pub fn contains(&self, b: usize) -> bool {
        self.body[b]
    }

    /// Where the loop writes `r`: (block, instruction), blocks in index order.
    pub fn writes(&self, func: &Func, r: Reg) -> Vec<(usize, usize)> {
        (0..func.blocks.len())
            .filter(|&b| self.contains(b))
            .flat_map(|b| func.blocks[b].insts.iter().enumerate().filter(move |(_, i)| i.defs().contains(&r)).map(move |(i, _)| (b, i)))
            .collect()
    }

    /// The header's predecessors outside the loop.
    pub fn entries(&self, cfg: &Cfg) -> Vec<usize> {
        cfg.preds[self.header].iter().copied().filter(|&p| !self.body[p] && cfg.idom[p].is_some()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Arg, Builder, Opcode, RegClass, Term, Type};

    #[test]
    fn dominators_and_loops_of_a_counted_loop() {
        // 0 -> 1 (header) -> 2 (body) -> 1; 1 -> 3 (exit)
        let mut b = Builder::new();
        let p = b.op1(Opcode::Mov(Type::Pred), RegClass::Pred, vec![Arg::imm(1)]);
        let (head, body, exit) = (b.new_block(), b.new_block(), b.new_block());
        b.jump_to(head);
        b.terminate(Term::Branch { pred: p, negate: false, if_true: body, if_false: exit });
        b.switch_to(body);
        b.terminate(Term::Jump(head));
        b.switch_to(exit);
        let f = b.finish();
        let cfg = Cfg::new(&f);
        assert_eq!(cfg.idom, vec![Some(0), Some(0), Some(1), Some(1)]);
        assert!(cfg.dominates(1, 2) && !cfg.dominates(2, 3));
        let loops = cfg.loops();
        assert_eq!(loops.len(), 1);
        assert_eq!((loops[0].header, loops[0].latches.clone()), (1, vec![2]));
        assert_eq!(loops[0].body, vec![false, true, true, false]);
        assert_eq!(loops[0].entries(&cfg), vec![0]);
    }
}
