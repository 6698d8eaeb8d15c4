//! `{ ... }`: register declarations, function-scope declarations, then the blocks in order.
//! A jump to the next block is left out; a branch whose target is the next block is inverted.

use super::regs::Names;
use crate::ir::{Arg, BlockId, Func, Imm, InstKind, Sym, Term};
use crate::text::Text;
use quote::quote;


/// The body and how many `.loc` file numbers it holds (see `lineinfo`).
pub fn body_with_locs(func: &Func) -> (Text, usize) {
    let mut locs = super::lineinfo::LocWriter::default();
    let names = Names::new(func);
    let mut t = Text::new();
    t.str("{\n");
    t.str(&names.declarations());
    for d in &func.decls {
        t.str("\t").text(d).str("\n");
    }
    t.str("\n");
    if func.debug {
        t.text(&super::dwarf::func_label("begin")).str(":\n");
    }
    let reachable = func.reachable();
    let order = layout(func, &reachable);
    // Lexical blocks (full debug information): each scope's first and last instruction in
    // this order, labelled `$L__lex_begin<n>_<symbol>` before and `$L__lex_end<n>_<symbol>`
    // after.
    let ranges = if func.debug { scope_ranges(func, &order) } else { Vec::new() };
    let (mut group, mut depth) = (0usize, 0usize);
    // Blocks that an emitted branch names get a label (not those only fallen into).
    let mut targeted = vec![false; func.blocks.len()];
    for (pos, &b) in order.iter().enumerate() {
        let next = order.get(pos + 1).map(|&n| BlockId(n as u32));
        match &func.blocks[b].term {
            Term::Jump(t) if Some(*t) != next => targeted[t.0 as usize] = true,
            Term::Branch { if_true, if_false, .. } => {
                if Some(*if_true) != next {
                    targeted[if_true.0 as usize] = true;
                }
                if Some(*if_false) != next {
                    targeted[if_false.0 as usize] = true;
                }
            }
            _ => {}
        }
    }
    for (pos, &b) in order.iter().enumerate() {
        let block = &func.blocks[b];
        if targeted[b] && b != 0 {
            t.str(&format!("{}:\n", label(BlockId(b as u32))));
        }
        for inst in &block.insts {
            if depth == 0 {
                for (n, _) in ranges.iter().enumerate().filter(|(_, r)| matches!(r, Some((first, _)) if *first == group)) {
                    t.text(&super::dwarf::scope_label("begin", n)).str(":\n");
                }
            }
            if !matches!(inst.kind, InstKind::Decl(_) | InstKind::ParamDecl { .. } | InstKind::ScopeOpen | InstKind::ScopeClose) {
                locs.at(&mut t, inst.loc);
            }
            if let Some((g, neg)) = inst.guard {
                t.str(&format!("\t@{}{} ", if neg { "!" } else { "" }, names.name(g)));
            } else {
                t.str("\t");
            }
            match &inst.kind {
                InstKind::Op { opcode, args, .. } => {
                    let by_constant = super::divide::by_constant(opcode, args);
                    if let Some((op, _)) = &by_constant {
                        t.piece(op.clone());
                    } else {
                        t.str(&super::spell::opcode(opcode));
                    }
                    for (i, a) in args.iter().enumerate() {
                        t.str(if i == 0 { " \t" } else { ", " });
                        if let (Some((_, divisor)), 2) = (&by_constant, i) {
                            t.piece(divisor.clone());
                        } else {
                            arg(&mut t, a, &names);
                        }
                    }
                    t.str(";\n");
                }
                InstKind::Decl(d) => {
                    t.str(d).str(";\n");
                }
                InstKind::ParamDecl { ty, name } => {
                    t.str(&format!(".param {} {name};\n", super::spell::ty(*ty)));
                }
                InstKind::ScopeOpen => {
                    t.str("{\n");
                }
                InstKind::ScopeClose => {
                    t.str("}\n");
                }
                InstKind::Call { ret, target, params } => {
                    t.str("call.uni ");
                    if let Some(r) = ret {
                        t.str(&format!("({r}), "));
                    }
                    sym(&mut t, target);
                    t.str(", (");
                    t.str(&params.join(", "));
                    t.str(");\n");
                }
                InstKind::Raw(text) => {
                    t.text(text);
                }
                InstKind::Asm { template, operands } => {
                    t.str("{\n\t");
                    asm(&mut t, template, operands, &names);
                    t.str("\n\t}\n");
                }
            }
            match inst.kind {
                InstKind::ScopeOpen => depth += 1,
                InstKind::ScopeClose => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 {
                for (n, _) in ranges.iter().enumerate().rev().filter(|(_, r)| matches!(r, Some((_, last)) if *last == group)) {
                    t.text(&super::dwarf::scope_label("end", n)).str(":\n");
                }
                group += 1;
            }
        }
        let next = order.get(pos + 1).map(|&n| BlockId(n as u32));
        if !matches!(block.term, Term::Jump(target) if Some(target) == next) {
            locs.at(&mut t, block.term_loc);
        }
        match &block.term {
            Term::Open | Term::Ret => {
                t.str("\tret;\n");
            }
            Term::Trap => {
                t.str("\ttrap;\n");
            }
            Term::Jump(target) => {
                if Some(*target) != next {
                    t.str(&format!("\tbra.uni \t{};\n", label(*target)));
                }
            }
            Term::Branch { pred, negate, if_true, if_false } => {
                let p = names.name(*pred);
                if Some(*if_true) == next {
                    t.str(&format!("\t@{}{p} bra \t{};\n", if *negate { "" } else { "!" }, label(*if_false)));
                } else {
                    t.str(&format!("\t@{}{p} bra \t{};\n", if *negate { "!" } else { "" }, label(*if_true)));
                    if Some(*if_false) != next {
                        t.str(&format!("\tbra.uni \t{};\n", label(*if_false)));
                    }
                }
            }
        }
    }
    if func.debug {
        t.text(&super::dwarf::func_label("end")).str(":\n");
    }
    t.str("}");
    (t, locs.refs)
}

/// Each lexical block's first and last instruction group in the order `order` (an
/// instruction outside call sequences, or a whole `{ }` call sequence, is one group), or
/// `None` where none of its instructions is reached; see `ir::loc::Scope`.
pub fn scope_ranges(func: &Func, order: &[usize]) -> Vec<Option<(usize, usize)>> {
    let mut ranges: Vec<Option<(usize, usize)>> = vec![None; func.scopes.len()];
    let (mut group, mut depth) = (0usize, 0usize);
    for &b in order {
        // A failed check's stub, laid out last, would stretch the range over everything
        // between: it stays out (a debugger stopped there sees the enclosing scopes).
        let cold = is_cold(func, b);
        for inst in &func.blocks[b].insts {
            if let (Some(l), false) = (inst.loc, cold) {
                for (s, r) in func.scopes.iter().zip(ranges.iter_mut()) {
                    if s.contains(&l) {
                        *r = Some(r.map_or((group, group), |(first, _)| (first, group)));
                    }
                }
            }
            match inst.kind {
                InstKind::ScopeOpen => depth += 1,
                InstKind::ScopeClose => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 {
                group += 1;
            }
        }
    }
    ranges
}

/// The lexical blocks the writer labels (those with a reached instruction).
pub fn labelled_scopes(func: &Func) -> Vec<bool> {
    let reachable = func.reachable();
    let order = layout(func, &reachable);
    scope_ranges(func, &order).iter().map(Option::is_some).collect()
}

fn label(b: BlockId) -> String {
    format!("$L__BB{}", b.0)
}

fn imm(i: &Imm) -> String {
    match i {
        Imm::Int(v) => v.to_string(),
        Imm::F32(bits) => format!("0f{bits:08X}"),
        Imm::F64(bits) => format!("0d{bits:016X}"),
    }
}

fn sym(t: &mut Text, s: &Sym) {
    match s {
        Sym::Param(index) => {
            t.piece(quote!(::ptx_runtime::__private::Piece::ParamName { symbol: __SYMBOL, index: #index }));
        }
        Sym::Retval => {
            t.str("func_retval0");
        }
        Sym::Named(n) => {
            t.str(n);
        }
        Sym::Piece(p) | Sym::Address(p) => {
            t.piece(p.clone());
        }
    }
}

fn arg(t: &mut Text, a: &Arg, names: &Names) {
    match a {
        Arg::Reg(r) => {
            t.str(names.name(*r));
        }
        Arg::Imm(i) => {
            t.str(&imm(i));
        }
        Arg::Sym(s) => sym(t, s),
        Arg::Mem { base, offset } => {
            t.str("[");
            arg(t, base, names);
            if *offset != 0 {
                t.str(&format!("+{offset}"));
            }
            t.str("]");
        }
        Arg::Vec(v) | Arg::Index(v) => {
            let (open, close) = if matches!(a, Arg::Vec(_)) { ("{", "}") } else { ("[", "]") };
            t.str(open);
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    t.str(", ");
                }
                arg(t, x, names);
            }
            t.str(close);
        }
    }
}

/// Substitutes `{n}` in an inline-PTX template; `{{`/`}}` are literal braces.
fn asm(t: &mut Text, template: &str, operands: &[Arg], names: &Names) {
    let mut chars = template.chars().peekable();
    let mut lit = String::new();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                lit.push('}');
            }
            '{' => {
                let mut n = String::new();
                while let Some(&d) = chars.peek() {
                    chars.next();
                    if d == '}' {
                        break;
                    }
                    n.push(d);
                }
                t.str(&lit);
                lit.clear();
                if let Some(op) = n.trim().parse::<usize>().ok().and_then(|i| operands.get(i)) {
                    arg(t, op, names);
                }
            }
            '\n' => lit.push_str("\n\t"),
            c => lit.push(c),
        }
    }
    t.str(&lit);
}

/// A block laid out after all others: a trap, or a jump to one (a failed check's stub).
fn is_cold(func: &Func, b: usize) -> bool {
    let traps = |b: usize| matches!(func.blocks[b].term, Term::Trap);
    b != 0 && (traps(b) || matches!(func.blocks[b].term, Term::Jump(t) if traps(t.0 as usize)))
}

/// Block order: traces that fall through to the earliest-created successor not placed yet
/// (the `then` of an `if`, the body of a loop, the code after a passed check), and cold blocks
/// (those that end in `trap` — a failed check's report, a `panic!` — and those
/// that only jump to one) last.
///
/// A new trace starts at the first successor not placed yet of the blocks laid out so far, in
/// their order, so that every block comes after one of its predecessors. Started instead at the
/// earliest-created block left, a loop's exit created before the code leading to it was laid
/// out above that code, reached by a backward jump; ptxas 13.5 crashed on such a layout
/// (difftest seed 20261304, kernel 289: two rotated `while` loops, the second laid out first).
fn layout(func: &Func, reachable: &[bool]) -> Vec<usize> {
    let n = func.blocks.len();
    let cold = |b: usize| is_cold(func, b);
    let mut placed = vec![false; n];
    let mut order: Vec<usize> = Vec::new();
    // The first successor of `b` not placed yet, by creation.
    let next = |placed: &[bool], b: usize| func.blocks[b].term.successors().into_iter().map(|s| s.0 as usize).filter(|&s| !placed[s] && !cold(s)).min();
    // Blocks of `order` before `scan` have every successor placed (or cold).
    let mut scan = 0;
    let mut start = Some(0);
    while let Some(mut b) = start {
        loop {
            placed[b] = true;
            order.push(b);
            match next(&placed, b) {
                Some(s) => b = s,
                None => break,
            }
        }
        start = None;
        while start.is_none() && scan < order.len() {
            start = next(&placed, order[scan]);
            if start.is_none() {
                scan += 1;
            }
        }
        start = start.or_else(|| (0..n).find(|&b| reachable[b] && !placed[b] && !cold(b)));
    }
    order.extend((0..n).filter(|&b| reachable[b] && cold(b)));
    order
}
