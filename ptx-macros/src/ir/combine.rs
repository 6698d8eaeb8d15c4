//! Bounds checks in a row combined into one branch: the stencil's
//! `output[i] = c0 * input[i] + c1 * (input[i - 1] + input[i + 1] + input[i - w] + input[i + w])`
//! checks six indices, each a compare, a branch and a two-instruction stub that sets the line;
//! the first check now compares all six and branches once.
//!
//! A run of checks qualifies when every later check's block is entered only from the one
//! before (the code between is straight: no call, no inline PTX, nothing that leaves but the
//! checks), every check in the run reports the same failure (message and line: they are on one
//! line of source), and each later index is computed from values known at the first check, by
//! arithmetic (no load): that computation is cloned before the first check, which then also
//! fails when a later one would. Failing there instead of a few instructions later is sound for
//! the reason hoisting is (docs/performance.md, "Hoisted bounds checks"): a failed check ends
//! the launch, and the failure reported is the same; no access happens unchecked, since each
//! index is checked before the first access of the run.
//!
//! Checks on different lines (softmax's `x[base + j]`, then `y[base + j] = e`) combine too,
//! where every failure branch of the run is one of the checks combined: the one branch goes to
//! a chain that tests the checks again in the source's order and reports the first that fails,
//! the report Rust would make (each earlier check passed, and nothing between them changes a
//! later index).

use super::dom::Cfg;
use super::hoist::{failure, same_failure, single_defs};
use super::{Arg, Arith, Block, BlockId, Cmp, Func, Inst, InstKind, Opcode, Reg, RegClass, Term, Type};
use super::fast_hash::HashMap;

pub fn run(func: &mut Func) {
    let cfg = Cfg::new(func);
    let (def_count, def_site) = single_defs(func);
    let mut merged = vec![false; func.blocks.len()];
    for &first in &cfg.order {
        if merged[first] {
            continue;
        }
        let Some((q, stub, mut cont)) = bounds_check(func, first, &def_site) else { continue };
        // Registers written after the first check, in the run so far.
        let mut written_after: Vec<bool> = vec![false; func.regs.len()];
        let mut later: Vec<(usize, Inst, Vec<Inst>, usize)> = Vec::new();
        // Met so far: a failure branch left in place (not a bounds check), a check with another
        // report. The two cannot share a run, or the report could be the later one's.
        let (mut kept, mut other) = (false, false);
        let mut prev = first;
        loop {
            let b = cont;
            if cfg.preds[b] != [prev] || merged[b] {
                break;
            }
            let block = &func.blocks[b];
            if block.insts.iter().any(|i| matches!(i.kind, InstKind::Call { .. } | InstKind::Asm { .. } | InstKind::Raw(_))) {
                break;
            }
            let next = match block.term {
                Term::Jump(t) => Some((None, t.0 as usize)),
                Term::Branch { negate: false, if_true, if_false, .. } if failure(func, if_true.0 as usize) => {
                    let check = bounds_check(func, b, &def_site);
                    let kind = FailureBranch::of(check.is_some(), same_failure(func, stub, if_true.0 as usize));
                    if kind.ends_run(kept, other) {
                        break;
                    }
                    kept |= kind.is_kept();
                    other |= kind.reports_other();
                    Some((check, if_false.0 as usize))
                }
                _ => None,
            };
            let Some((check, after)) = next else { break };
            for r in block.insts.iter().flat_map(|i| i.defs()) {
                written_after[r.0 as usize] = true;
            }
            if let Some((p, its_stub, _)) = check {
                let setp = def_site.get(&p).map(|&(db, di)| func.blocks[db].insts[di].clone());
                let computed = setp.as_ref().and_then(|s| {
                    let InstKind::Op { args, .. } = &s.kind else { return None };
                    let mut out = Vec::new();
                    for a in &args[1..] {
                        computation(func, a, &written_after, &def_site, &def_count, &mut out)?;
                    }
                    Some(out)
                });
                match (setp, computed) {
                    (Some(s), Some(c)) => later.push((b, s, c, its_stub)),
                    // A check that cannot move ends the run before it.
                    _ => break,
                }
            }
            prev = b;
            cont = after;
        }
        if later.is_empty() {
            continue;
        }
        // Before the first check's branch: each later index computed again, its comparison,
        // all or-ed with the first.
        // The checks that others of the run decide (`ir::subsume`) stay out of the branch.
        let first_setp = def_site.get(&q).map(|&(db, di)| func.blocks[db].insts[di].clone());
        let decided = match first_setp {
            Some(s) => {
                let setps: Vec<Inst> = std::iter::once(s).chain(later.iter().map(|l| l.1.clone())).collect();
                super::subsume::decided(func, first, &setps, &def_site)
            }
            None => vec![false; later.len() + 1],
        };
        let mut insts = Vec::new();
        let mut map: HashMap<Reg, Arg> = HashMap::default();
        let mut fail = (!decided[0]).then_some(q);
        let mut reports = vec![(q, first_test(func, first, q, &def_site), stub)];
        for (k, (b, setp, computation, its_stub)) in later.iter().enumerate() {
            for inst in computation {
                let mut new = inst.clone();
                let InstKind::Op { args, .. } = &mut new.kind else { continue };
                remap(&mut args[1..], &map);
                let Arg::Reg(d) = args[0] else { continue };
                let nd = func.fresh(func.class(d));
                args[0] = Arg::Reg(nd);
                map.insert(d, Arg::Reg(nd));
                insts.push(new);
            }
            let mut new = setp.clone();
            let p = func.fresh(RegClass::Pred);
            if let InstKind::Op { args, .. } = &mut new.kind {
                remap(&mut args[1..], &map);
                args[0] = Arg::Reg(p);
            }
            insts.push(new.clone());
            reports.push((p, Some(new.clone()), *its_stub));
            fail = match fail {
                _ if decided[k + 1] => fail,
                None => Some(p),
                Some(f) => {
                    let o = func.fresh(RegClass::Pred);
                    insts.push(Inst::op(Opcode::arith(Arith::Or, Type::Pred), 1, vec![Arg::Reg(o), Arg::Reg(f), Arg::Reg(p)]).at(setp.loc));
                    Some(o)
                }
            };
            merged[*b] = true;
            if let Term::Branch { if_false, .. } = func.blocks[*b].term {
                func.blocks[*b].term = Term::Jump(if_false);
            }
        }
        func.blocks[first].insts.extend(insts);
        let target = if reports.iter().all(|&(_, _, s)| same_failure(func, stub, s)) { stub } else { dispatch(func, &reports) };
        if let Term::Branch { pred, if_true, .. } = &mut func.blocks[first].term {
            *pred = fail.unwrap_or(q);
            *if_true = BlockId(target as u32);
        }
    }
}

/// A failure branch met in a run, after its first check.
#[derive(Clone, Copy, PartialEq, Debug)]
enum FailureBranch {
    /// A bounds check reporting what the first check reports (the same line): combined.
    Check,
    /// A bounds check on another line: combined, its report chosen by the report chain.
    CheckOtherLine,
    /// Another failure (a division by zero) with the first check's report: left in place.
    Kept,
    /// Another failure with another report: the run ends before it.
    KeptOtherLine,
}

impl FailureBranch {
    fn of(bounds_check: bool, same_report: bool) -> FailureBranch {
        match (bounds_check, same_report) {
            (true, true) => FailureBranch::Check,
            (true, false) => FailureBranch::CheckOtherLine,
            (false, true) => FailureBranch::Kept,
            (false, false) => FailureBranch::KeptOtherLine,
        }
    }

    /// Whether the run ends before this branch, given what came before it in the run: a check
    /// on another line after a kept branch, or a kept branch after a check on another line,
    /// would be reported after it though it fails first (or the other way round).
    fn ends_run(self, kept_before: bool, other_line_before: bool) -> bool {
        match self {
            FailureBranch::Check => false,
            FailureBranch::CheckOtherLine => kept_before,
            FailureBranch::Kept => other_line_before,
            FailureBranch::KeptOtherLine => true,
        }
    }

    fn is_kept(self) -> bool {
        matches!(self, FailureBranch::Kept | FailureBranch::KeptOtherLine)
    }

    fn reports_other(self) -> bool {
        matches!(self, FailureBranch::CheckOtherLine | FailureBranch::KeptOtherLine)
    }
}

/// The bounds check `block` ends with (`setp.ge.u64 p, idx, len` in it, `@p bra` to a failure
/// block): its predicate, failure block and continuation.
fn bounds_check(func: &Func, block: usize, def_site: &super::hoist::DefSites) -> Option<(Reg, usize, usize)> {
    let Term::Branch { pred, negate: false, if_true, if_false } = func.blocks[block].term else { return None };
    if !failure(func, if_true.0 as usize) {
        return None;
    }
    let &(b, i) = def_site.get(&pred)?;
    let inst = &func.blocks[b].insts[i];
    let ok = b == block && inst.guard.is_none() && matches!(&inst.kind, InstKind::Op { opcode: Opcode::Setp(Cmp::Ge, Type::U64), args, .. } if args.len() == 3);
    ok.then_some((pred, if_true.0 as usize, if_false.0 as usize))
}

/// The instructions (operands first) that compute `a` from values that hold at the first
/// check: registers not written since, or written once since by arithmetic on such values.
fn computation(func: &Func, a: &Arg, written_after: &[bool], def_site: &super::hoist::DefSites, def_count: &[usize], out: &mut Vec<Inst>) -> Option<()> {
    match a {
        Arg::Imm(_) => Some(()),
        Arg::Sym(super::Sym::Named(n)) => (!n.starts_with("%clock") && !n.starts_with("%globaltimer")).then_some(()),
        Arg::Sym(_) => Some(()),
        Arg::Reg(r) if !written_after[r.0 as usize] => Some(()),
        Arg::Reg(r) => {
            if def_count[r.0 as usize] != 1 || out.len() > 16 {
                return None;
            }
            let &(b, i) = def_site.get(r)?;
            let inst = &func.blocks[b].insts[i];
            let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
            if inst.guard.is_some() || !opcode.is_pure() || !matches!(opcode, Opcode::Arith(..) | Opcode::Cvt(..) | Opcode::Mov(_)) {
                return None;
            }
            for a in &args[1..] {
                computation(func, a, written_after, def_site, def_count, out)?;
            }
            if !out.iter().any(|i| i.defs().contains(r)) {
                out.push(inst.clone());
            }
            Some(())
        }
        _ => None,
    }
}

/// Checks on several lines combined: the failure reported is the first, in the source's order,
/// whose own comparison fails, as in Rust. A chain of blocks, one branch per check, the last
/// jumping to its report; returns the first block. Each comparison is made again there where
/// its operands allow (so that its predicate need not stay live on the hot path).
fn dispatch(func: &mut Func, reports: &[(Reg, Option<Inst>, usize)]) -> usize {
    let start = func.blocks.len();
    for (k, (p, setp, report)) in reports.iter().enumerate() {
        let mut insts = Vec::new();
        let term = if k + 1 == reports.len() {
            Term::Jump(BlockId(*report as u32))
        } else {
            let mut pred = *p;
            if let Some(mut again) = setp.clone() {
                if let InstKind::Op { args, .. } = &mut again.kind {
                    pred = func.fresh(RegClass::Pred);
                    args[0] = Arg::Reg(pred);
                    insts.push(again);
                }
            }
            Term::Branch { pred, negate: false, if_true: BlockId(*report as u32), if_false: BlockId((start + k + 1) as u32) }
        };
        func.blocks.push(Block { insts, term, term_loc: None });
    }
    start
}

/// The first check's comparison, to be made again after its block: where no later instruction
/// of the block writes its operands.
fn first_test(func: &Func, first: usize, q: Reg, def_site: &super::hoist::DefSites) -> Option<Inst> {
    let &(b, i) = def_site.get(&q)?;
    if b != first {
        return None;
    }
    let setp = func.blocks[b].insts[i].clone();
    let InstKind::Op { args, .. } = &setp.kind else { return None };
    let operands: Vec<Reg> = args[1..].iter().filter_map(|a| if let Arg::Reg(r) = a { Some(*r) } else { None }).collect();
    let rewritten = func.blocks[first].insts[i + 1..].iter().any(|l| l.defs().iter().any(|d| operands.contains(d)));
    (!rewritten).then_some(setp)
}

fn remap(args: &mut [Arg], map: &HashMap<Reg, Arg>) {
    for a in args {
        if let Arg::Reg(r) = a {
            if let Some(v) = map.get(r) {
                *a = v.clone();
            }
        }
    }
}

