//! The IR between the typed front end and the PTX writer: basic blocks of PTX instructions
//! (typed [`Opcode`]s) over typed virtual registers, in SSA style (a fresh register per value;
//! a mutable local is one register updated with `mov`).

mod bce;
mod builder;
mod combine;
mod const_range;
mod constprop;
mod cse;
mod defer;
mod dom;
mod fast_hash;
mod fold;
mod folded;
mod hoist;
mod iv;
mod licm;
mod narrow;
mod narrow_cmp;
mod narrow_reg;
mod poly;
pub mod contract;
mod inst;
pub mod loc;
mod opcode;
mod path_range;
pub mod opt;
mod range;
mod raise;
mod reassoc;
mod rotate;
mod space;
mod strength;
mod subsume;
mod sym_bound;
mod test_key;
mod trips;
mod unroll;
mod unroll_full;
mod vectorize;
mod version;
mod wide_index;

pub use builder::Builder;
pub use inst::*;
pub use opcode::*;

/// A lowered function body.
#[derive(Default, Debug)]
pub struct Func {
    /// The class of each virtual register, by index.
    pub regs: Vec<RegClass>,
    /// Block 0 is the entry.
    pub blocks: Vec<Block>,
    /// Function-scope declarations: `.local` and `.shared` arrays.
    pub decls: Vec<crate::text::Text>,
    /// What the kernel's launch bounds guarantee (the runtime refuses other launches).
    pub launch: LaunchFacts,
    /// Comparisons the lowering knows to hold on every entry to a block (a `for` loop's
    /// counter below its end at the loop's header), for `bce`.
    pub entry_facts: Vec<EntryFact>,
    /// The `for` loops over ranges, for `defer`.
    pub for_loops: Vec<ForLoop>,
    /// Global addresses of memory no thread writes while the kernel runs (a kernel's `&[T]`
    /// and `&T` parameters after `cvta.to.global`): their loads are `ld.global.nc`, and so may
    /// be loads through pointers made from them (`ir::space`).
    pub read_only: Vec<Reg>,
    /// The source files the instructions' locations name.
    pub files: loc::Files,
    /// Full debug information describes this function: the writer labels its first and last
    /// instruction (`back::ptx::dwarf`).
    pub debug: bool,
    /// Under `debug`, the Rust blocks that bind variables (lexical blocks), outer first.
    pub scopes: Vec<loc::Scope>,
}

/// Facts every thread of a kernel may rely on because the launch checks them, for range
/// analysis: under `block`, `%tid.x < block[0]` (and `%ntid` is the constant shape); under
/// `max_threads`, every `%tid` and `%ntid` component is at most that.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchFacts {
    pub block: Option<[u32; 3]>,
    pub max_threads: Option<u32>,
}

impl LaunchFacts {
    /// The largest `%ntid.<axis>` (0, 1, 2 for x, y, z), so `%tid.<axis>` is below it: the
    /// declared bounds, else the hardware's (1024 in x and y, 64 in z).
    pub fn tid_bound(&self, axis: usize) -> u64 {
        let hardware = [1024, 1024, 64][axis];
        match (self.block, self.max_threads) {
            (Some(b), _) => b[axis] as u64,
            (None, Some(n)) => hardware.min(n as u64),
            _ => hardware,
        }
    }
}

/// `reg < bound`, compared as `ty`, holds whenever `block` is entered: the header of a `for`
/// loop counting up to an excluded end, `reg` its counter.
#[derive(Clone, Debug)]
pub struct EntryFact {
    pub block: BlockId,
    pub reg: Reg,
    pub ty: Type,
    pub bound: Arg,
    /// The counter counts up by one (`a..b`): the passes that reason about every value from
    /// the start to the end, or about the trip count, need that. Not for `step_by` or `rev`,
    /// whose counters stay below `bound` too.
    pub up_by_one: bool,
}

/// A `for` loop over a range: `next` advances the counter and decides whether another trip
/// runs (the target of `continue`); `exit` follows the loop (the target of `break`). The
/// counter, its end and its step are written nowhere else, so the loop makes at most as many
/// trips as its range has values, whatever its body does.
#[derive(Clone, Copy, Debug)]
pub struct ForLoop {
    pub next: BlockId,
    pub exit: BlockId,
}

#[derive(Debug)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Term,
    /// The source location of the terminator (a loop's back edge: the loop's).
    pub term_loc: Option<loc::Loc>,
}

impl Func {
    pub fn class(&self, r: Reg) -> RegClass {
        self.regs[r.0 as usize]
    }

    /// A new register of `class`.
    pub fn fresh(&mut self, class: RegClass) -> Reg {
        self.regs.push(class);
        Reg(self.regs.len() as u32 - 1)
    }

    /// Blocks reachable from the entry, in order.
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![0usize];
        while let Some(b) = stack.pop() {
            if b >= seen.len() || seen[b] {
                continue;
            }
            seen[b] = true;
            for s in self.blocks[b].term.successors() {
                stack.push(s.0 as usize);
            }
        }
        seen
    }
}
