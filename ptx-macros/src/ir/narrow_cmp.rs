//! 64-bit comparisons that constants from outside the body make 32-bit or decide, under a test
//! of those constants that ptxas folds.
//!
//! The transpose's tile index `(ty + j) * (T + 1) + tx`, compared with the tile's 1056
//! elements, is a `usize`: 64-bit arithmetic and a 64-bit compare, where nvcc (and ptxas, given
//! 32-bit arithmetic) compares 32 bits. With `T` a piece (a module-level `const`), the macro
//! cannot show that the index is below 2^32; under the assumption that every piece lies in
//! `1..=bound` ([`super::const_range`]) it can. A `setp.<cmp>.u64 p, a, b` whose operands are
//! below 2^32 under the assumption is then also
//!
//! ```text
//! setp.<cmp>.u32  p32, lo(a), lo(b)      // lo: ir::narrow's low halves, exact for any value
//! setp.ne.u32     g, G, 0                // G: a piece, 1 where the pieces are in 1..=bound
//! p = g ? p32 : p64                      // p64: the 64-bit compare as it was
//! ```
//!
//! and one whose outcome the assumed ranges decide (`v`) is `p = g ? v : p64`. The 64-bit
//! compare of two values below 2^32 is the compare of their low halves, so `p` is what it was
//! whatever the constants are. `g` compares two immediates once rustc has written `G`: ptxas
//! folds it before anything else, and keeps one version (the 64-bit arithmetic that only
//! `p64` read is then dead). Each compare tries the bounds of [`BOUNDS`], largest first, and
//! uses the first that proves it, so a kernel with larger constants still gets the guard
//! that holds for it.
//!
//! A compare the assumed ranges do not decide may still be decided for the program's
//! constants: under `#[kernel(block = (16, 16))]`, `ty * TILE + tx < TILE * TILE` holds when
//! `15 * TILE + 15 < TILE * TILE`, a test [`super::sym_bound`] writes for rustc; the compare is
//! then `g ? true : compare` with that test as `g`.
//!
//! It runs after `ir::narrow` (whose choice of what to narrow counts the 64-bit compares as
//! they were) and only on compares that the ranges without the assumption do not decide
//! (`ir::bce` has done those).

use super::{const_range, sym_bound};
use super::trips::Trips;
use super::range::Ranges;
use super::{Arg, Arith, Cmp, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Sym, Term, Type};
use super::fast_hash::{HashMap, HashSet};

/// The bounds assumed for the pieces, tried in this order.
const BOUNDS: [u64; 4] = [1 << 20, 1 << 16, 1 << 12, 1 << 8];

pub fn run(func: &mut Func) {
    // The candidates first, each filter before the analysis the next needs: most functions
    // have no 64-bit compare on an outside constant, and everything below costs a pass or more
    // over the function (bench-compile).
    let compares: Vec<(usize, usize, Cmp, Arg, Arg)> = func
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(b, block)| block.insts.iter().enumerate().filter_map(move |(i, inst)| compare(inst).map(|(c, x, y)| (b, i, c, x, y))))
        .collect();
    if compares.is_empty() {
        return;
    }
    let exact = Ranges::compute(func);
    let pieces_of = const_range::Pieces::new(func);
    let candidates: Vec<_> = compares
        .into_iter()
        .filter(|(_, _, cmp, x, y)| exact.decide(*cmp, Type::U64, x, y).is_none())
        .filter_map(|(b, i, cmp, x, y)| {
            let pieces = pieces_of.of(func, &[x.clone(), y.clone()]);
            (!pieces.is_empty()).then_some((b, i, cmp, x, y, pieces))
        })
        .collect();
    if candidates.is_empty() {
        return;
    }
    // The ranges under each assumed bound: computed once, when a compare first needs them.
    let mut assumed: Vec<Option<Ranges>> = BOUNDS.iter().map(|_| None).collect();
    let piece = const_range::piece_reg(func);
    let as_reg = |a: &Arg| match a {
        Arg::Sym(Sym::Piece(_)) => Arg::Reg(piece),
        _ => a.clone(),
    };
    let mut uses: HashMap<Reg, usize> = HashMap::default();
    let mut widened: HashSet<Reg> = HashSet::default();
    for block in &func.blocks {
        for inst in &block.insts {
            for r in inst.uses() {
                *uses.entry(r).or_insert(0) += 1;
            }
            if let (InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U64, Type::U32), args, .. }, None) = (&inst.kind, inst.guard) {
                if let Arg::Reg(d) = args[0] {
                    widened.insert(d);
                }
            }
        }
        if let Term::Branch { pred, .. } = block.term {
            *uses.entry(pred).or_insert(0) += 1;
        }
    }
    // An operand whose low half costs nothing beside its 64-bit value, or whose 64-bit value
    // only this compare reads (it is then computed in 32 bits alone); else narrowing computes
    // both widths (the matmul's `row < n` before its loop: 209 -> 216 SASS instructions on
    // sm_80).
    // Read otherwise only by conversions (an index's truncation to a shared address, `k as
    // f32`): narrowed in a loop. Not an operand that arithmetic reads too (`y` of `y * w + x`
    // in a loop: ptxas then issued the transpose-shaped `body_defer` kernel's second load
    // after its first shared store).
    let mut readers: HashMap<Reg, Vec<Opcode>> = HashMap::default();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let InstKind::Op { opcode, .. } = &inst.kind {
            for r in inst.uses() {
                readers.entry(r).or_default().push(*opcode);
            }
        }
    }
    let converted = |a: &Arg| match a {
        Arg::Reg(r) => readers.get(r).is_some_and(|os| os.iter().all(|o| matches!(o, Opcode::Cvt(..) | Opcode::Setp(..)))),
        _ => true,
    };
    let cfg = super::dom::Cfg::new(func);
    let loops = cfg.loops();
    let in_loop = |b: usize| loops.iter().any(|l| l.contains(b));
    let cheap = |a: &Arg| match a {
        Arg::Reg(r) => uses.get(r) == Some(&1) || widened.contains(r),
        _ => true,
    };
    let (_, single) = super::hoist::single_defs(func);
    let trips = Trips::find(func, &cfg, &loops);
    let facts = sym_bound::Facts { func, exact: &exact, single: &single, trips: &trips };
    // The compares to rewrite, found first, rewritten from the last (positions stay valid).
    let mut sites: Vec<(usize, usize, Rewrite)> = Vec::new();
    for (b, i, cmp, x, y, pieces) in candidates {
        let (xr, yr) = (as_reg(&x), as_reg(&y));
        let outcome = |r: &Ranges| {
            if let Some(v) = r.decide(cmp, Type::U64, &xr, &yr) {
                return Some(Outcome::Decided(v));
            }
            let below = |a: &Arg| r.of(a, 64).is_some_and(|r| r.hi <= u32::MAX as u64);
            let narrow = below(&xr) && below(&yr) && (cheap(&x) || in_loop(b) && converted(&x)) && (cheap(&y) || in_loop(b) && converted(&y));
            narrow.then_some(Outcome::Narrow)
        };
        // The smallest bound first: a smaller assumption gives each register a range inside
        // the one a larger gives, so what it does not decide or narrow no bound does, and the
        // larger bounds' analyses are then not needed for this compare.
        let smallest = BOUNDS.len() - 1;
        let mut found = None;
        if outcome(assumed[smallest].get_or_insert_with(|| const_range::assuming(func, BOUNDS[smallest]))).is_some() {
            for (&bound, r) in BOUNDS.iter().zip(&mut assumed) {
                if let Some(o) = outcome(r.get_or_insert_with(|| const_range::assuming(func, bound))) {
                    found = Some((bound, o));
                    break;
                }
            }
        }
        let mut rw = Rewrite { narrow: None, decided: Vec::new() };
        match found {
            Some((bound, Outcome::Decided(v))) => rw.decided.push((const_range::guard(&pieces, bound), v)),
            Some((bound, Outcome::Narrow)) => rw.narrow = Some(const_range::guard(&pieces, bound)),
            None => {}
        }
        // Not decided for every small constant: perhaps for the program's, from the
        // operands' bounds as expressions of the constants (a declared block's
        // `ty * TILE + tx < TILE * TILE`).
        if rw.decided.is_empty() {
            if let Some(g) = symbolic(&facts, (b, i), cmp, &x, &y) {
                rw.decided.push((g, matches!(cmp, Cmp::Lt | Cmp::Le)));
            }
        }
        if rw.narrow.is_some() || !rw.decided.is_empty() {
            sites.push((b, i, rw));
        }
    }
    for (b, i, rw) in sites.into_iter().rev() {
        rewrite(func, b, i, rw);
    }
}

/// What a compare becomes: `g ? compare32 : compare64` under `narrow`'s guard, then
/// `g ? v : that` for each decided `(g, v)`.
struct Rewrite {
    narrow: Option<Arg>,
    decided: Vec<(Arg, bool)>,
}

/// For an order compare `x <cmp> y`: the test, evaluated by rustc, that every value of `x` is
/// below every value of `y` (at most, for `<=` and `>`), where the compare is then true (`<`,
/// `<=`) or false (`>=`, `>`), from [`sym_bound::bounds`]. Only `x` below `y` is tried: the
/// bounds checks' direction.
fn symbolic(facts: &sym_bound::Facts, at: (usize, usize), cmp: Cmp, x: &Arg, y: &Arg) -> Option<Arg> {
    let or_equal = match cmp {
        Cmp::Lt | Cmp::Ge => false,
        Cmp::Le | Cmp::Gt => true,
        _ => return None,
    };
    // `y` first: a bounds check's length is a parameter, without bounds, and `x` is then not
    // followed.
    let by = sym_bound::bounds(facts, y, at, 0)?;
    let bx = sym_bound::bounds(facts, x, at, 0)?;
    sym_bound::below(&bx, &by, or_equal)
}

#[derive(Clone, Copy)]
enum Outcome {
    Decided(bool),
    Narrow,
}

/// An unguarded `setp.<cmp>.u64 p, a, b` (integer order, unsigned).
fn compare(inst: &Inst) -> Option<(Cmp, Arg, Arg)> {
    let InstKind::Op { opcode: Opcode::Setp(cmp, Type::U64), defs: 1, args } = &inst.kind else { return None };
    if inst.guard.is_some() || args.len() != 3 || !matches!(cmp, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge) {
        return None;
    }
    let operand = |a: &Arg| matches!(a, Arg::Reg(_) | Arg::Imm(Imm::Int(_)) | Arg::Sym(Sym::Piece(_)));
    // A compare of two constants ptxas folds by itself (`debug_assert!`'s `cfg!` test).
    let reg = matches!(args[1], Arg::Reg(_)) || matches!(args[2], Arg::Reg(_));
    (reg && operand(&args[1]) && operand(&args[2])).then(|| (*cmp, args[1].clone(), args[2].clone()))
}

fn rewrite(func: &mut Func, b: usize, i: usize, rw: Rewrite) {
    let inst = func.blocks[b].insts[i].clone();
    let Some((cmp, x, y)) = compare(&inst) else { return };
    let InstKind::Op { args, .. } = &inst.kind else { return };
    let Arg::Reg(p) = args[0] else { return };
    let loc = inst.loc;
    let mut out: Vec<Inst> = Vec::new();
    let pred_op = |op| Opcode::arith(op, Type::Pred);
    let p64 = func.fresh(RegClass::Pred);
    let mut wide = inst.clone();
    if let InstKind::Op { args, .. } = &mut wide.kind {
        args[0] = Arg::Reg(p64);
    }
    // `setp.ne.u32 g, G, 0` and its negation.
    let test = |func: &mut Func, out: &mut Vec<Inst>, guard: Arg| {
        let g = func.fresh(RegClass::Pred);
        out.push(Inst::op(Opcode::Setp(Cmp::Ne, Type::U32), 1, vec![Arg::Reg(g), guard, Arg::imm(0)]));
        let ng = func.fresh(RegClass::Pred);
        out.push(Inst::op(pred_op(Arith::Not), 1, vec![Arg::Reg(ng), Arg::Reg(g)]));
        (g, ng)
    };
    let mut value = p64;
    if let Some(guard) = rw.narrow {
        let Some((low, lows)) = super::narrow::low_halves(func, (b, i), &[x, y]) else { return };
        out.extend(low);
        let p32 = func.fresh(RegClass::Pred);
        out.push(Inst::op(Opcode::Setp(cmp, Type::U32), 1, vec![Arg::Reg(p32), lows[0].clone(), lows[1].clone()]));
        out.push(wide);
        let (g, ng) = test(func, &mut out, guard);
        let (t1, t2, v) = (func.fresh(RegClass::Pred), func.fresh(RegClass::Pred), func.fresh(RegClass::Pred));
        out.push(Inst::op(pred_op(Arith::And), 1, vec![Arg::Reg(t1), Arg::Reg(g), Arg::Reg(p32)]));
        out.push(Inst::op(pred_op(Arith::And), 1, vec![Arg::Reg(t2), Arg::Reg(ng), Arg::Reg(p64)]));
        out.push(Inst::op(pred_op(Arith::Or), 1, vec![Arg::Reg(v), Arg::Reg(t1), Arg::Reg(t2)]));
        value = v;
    } else {
        out.push(wide);
    }
    for (guard, outcome) in rw.decided {
        let (g, ng) = test(func, &mut out, guard);
        let v = func.fresh(RegClass::Pred);
        out.push(match outcome {
            true => Inst::op(pred_op(Arith::Or), 1, vec![Arg::Reg(v), Arg::Reg(value), Arg::Reg(g)]),
            false => Inst::op(pred_op(Arith::And), 1, vec![Arg::Reg(v), Arg::Reg(value), Arg::Reg(ng)]),
        });
        value = v;
    }
    // The last result is the compare's own register.
    if let Some(InstKind::Op { args, .. }) = out.last_mut().map(|i| &mut i.kind) {
        args[0] = Arg::Reg(p);
    }
    let out: Vec<Inst> = out.into_iter().map(|i| i.at(loc)).collect();
    func.blocks[b].insts.splice(i..=i, out);
}

