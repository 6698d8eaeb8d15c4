//! Loop-invariant arithmetic moved before the loop: an instruction without side effects whose
//! operands the loop does not write computes the same value on every trip, so it is computed
//! once, at the end of the block that enters the loop.
//!
//! What this is for: `hoist` puts the check of an inner `for` loop (the tiled matmul's `k`
//! loop over a tile) before that loop, which is itself inside the tile loop; the check's
//! indices and comparisons (`ty * TILE + TILE - 1 < 256`, ...) read only values the tile loop
//! does not change, but ptxas recomputed them on every tile. Here they leave the tile loop too,
//! and only the branch on their result stays.
//!
//! Which instructions: unguarded, pure (`Opcode::is_pure`: arithmetic, comparisons, moves,
//! conversions; not loads), writing one register that nothing else writes, not reading a clock.
//! Every register operand is written nowhere in the loop, or by an instruction moved already.
//! Moving it is sound: it has no effect but its result; the block it moves to dominates the
//! loop, so the one write still comes before every read (all of which were dominated by the
//! write in the loop); and its operands hold the same values there as on every trip, since
//! the loop does not write them and the loop is entered only from that block. Where the
//! instruction would not have run (a loop that makes no trip, a branch in the loop not
//! taken), it computes a value nobody reads; PTX's arithmetic does not trap (an integer
//! division by zero gives an unspecified value), so that is harmless.

use super::dom::Cfg;
use super::{Arg, Func, InstKind, Reg, Sym};
use super::fast_hash::{HashMap, HashSet};

/// Special registers that may change while a thread runs (PTX ISA, "Special Registers": the
/// clocks, timers and counters, and `%warpid`/`%smid`, which the ISA calls volatile).
const VARYING: [&str; 5] = ["%clock", "%globaltimer", "%pm", "%warpid", "%smid"];

pub fn run(func: &mut Func) {
    let cfg = Cfg::new(func);
    let mut loops = cfg.loops();
    // Inner loops first: what leaves an inner loop may then leave the outer one.
    loops.sort_by_key(|l| l.body.iter().filter(|&&b| b).count());
    let mut defs: HashMap<Reg, usize> = HashMap::default();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        for r in inst.defs() {
            *defs.entry(r).or_insert(0) += 1;
        }
    }
    for l in &loops {
        let [pre] = l.entries(&cfg)[..] else { continue };
        if cfg.preds[l.header].iter().filter(|&&p| !l.contains(p)).count() != 1 {
            continue;
        }
        // Registers written in the loop.
        let mut written: HashSet<Reg> = HashSet::default();
        for (b, block) in func.blocks.iter().enumerate() {
            if l.contains(b) {
                for r in block.insts.iter().flat_map(|i| i.defs()) {
                    written.insert(r);
                }
            }
        }
        let mut moved = Vec::new();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &cfg.order {
                if !l.contains(b) {
                    continue;
                }
                let mut i = 0;
                while i < func.blocks[b].insts.len() {
                    let inst = &func.blocks[b].insts[i];
                    let invariant = match &inst.kind {
                        InstKind::Op { opcode, defs: 1, args } => {
                            inst.guard.is_none()
                                && opcode.is_pure()
                                && !matches!(opcode, super::Opcode::Ld(_))
                                && matches!(args[0], Arg::Reg(d) if defs.get(&d) == Some(&1))
                                && args[1..].iter().all(|a| match a {
                                    Arg::Reg(r) => !written.contains(r),
                                    Arg::Imm(_) => true,
                                    Arg::Sym(Sym::Named(n)) => !VARYING.iter().any(|v| n.starts_with(v)),
                                    Arg::Sym(Sym::Piece(_) | Sym::Param(_)) => true,
                                    _ => false,
                                })
                        }
                        _ => false,
                    };
                    if invariant {
                        let inst = func.blocks[b].insts.remove(i);
                        for r in inst.defs() {
                            written.remove(&r);
                        }
                        moved.push(inst);
                        changed = true;
                    } else {
                        i += 1;
                    }
                }
            }
        }
        func.blocks[pre].insts.extend(moved);
    }
}
