//! Loop rotation: a loop that tests its condition at the top (`H: setp; @!p bra exit; body;
//! bra H`) gets a copy of the test at the bottom instead of the jump back (`H: setp; @!p bra
//! exit; B: body; setp; @p bra B`), the shape nvcc's PTX has (NVVM rotates its loops). The
//! header then runs once, as the guard of the first trip.
//!
//! Why: it is the shape nvcc gives ptxas, and ptxas does better with it on some kernels: dot's
//! and softmax's strided loops are two or three SASS instructions shorter on sm_80 and sm_90.
//! It is not all: on sm_90 ptxas still moves the global memory descriptor into uniform
//! registers (`R2UR`) inside some of our loops where nvcc's have none (saxpy, layernorm), which
//! depends on more than the loop's shape (where the loop's invariants are computed, how its
//! addresses are; docs/performance.md).
//!
//! Exact: the latch executed `bra H` and then the header's instructions; it now executes the
//! same instructions itself, writing the same registers, and branches where the header would
//! have. Nothing else moves, and the header stays for the loop's entry (and for any other edge
//! into it). Any block that jumps to any block could take its copy this way; the conditions
//! below only keep the copies small and plain.
//!
//! When: the jump back is an unconditional `Jump(H)` from a block `H` dominates; the header's
//! instructions are few, unguarded and pure (arithmetic, compares, moves, loads: no store,
//! call, barrier or inline PTX, whose labels could not be written twice), and it ends in a
//! conditional branch.

use super::dom::Cfg;
use super::{Func, InstKind, Term};

/// At most this many header instructions are copied: a `for` loop's test is one `setp`, a
/// `while` loop's condition a few more.
const MAX_COPIED: usize = 8;

pub fn run(func: &mut Func) {
    let cfg = Cfg::new(func);
    for l in cfg.loops() {
        let h = l.header;
        let header = &func.blocks[h];
        let duplicable = header.insts.len() <= MAX_COPIED
            && matches!(header.term, Term::Branch { .. })
            && header.insts.iter().all(|i| i.guard.is_none() && matches!(&i.kind, InstKind::Op { opcode, .. } if opcode.is_pure()));
        if !duplicable {
            continue;
        }
        let (insts, term, term_loc) = (header.insts.clone(), header.term.clone(), header.term_loc);
        for &latch in &l.latches {
            if latch == h || !matches!(func.blocks[latch].term, Term::Jump(t) if t.0 as usize == h) {
                continue;
            }
            let b = &mut func.blocks[latch];
            b.insts.extend(insts.iter().cloned());
            b.term = term.clone();
            b.term_loc = term_loc;
        }
    }
}
