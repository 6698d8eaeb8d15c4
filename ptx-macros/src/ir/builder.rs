//! Building a [`Func`]: fresh registers, blocks, and instructions appended to the current block.

use super::loc::Loc;
use super::{Arg, Block, BlockId, FpClass, Func, Inst, InstKind, Opcode, Reg, RegClass, Term, Type};

pub struct Builder {
    pub func: Func,
    cur: BlockId,
    /// Counts changes of the current block other than falling into the continuation of a
    /// check: values computed in the same region dominate what follows in it.
    pub region: u64,
    /// Names handed out for function-scope declarations and call parameters.
    next_name: u32,
    /// The source location instructions pushed now take (see [`super::loc`]).
    pub loc: Option<Loc>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        let mut func = Func::default();
        func.blocks.push(Block { insts: Vec::new(), term: Term::Open, term_loc: None });
        Builder { func, cur: BlockId(0), region: 0, next_name: 0, loc: None }
    }

    pub fn reg(&mut self, class: RegClass) -> Reg {
        self.func.regs.push(class);
        Reg(self.func.regs.len() as u32 - 1)
    }

    pub fn class(&self, r: Reg) -> RegClass {
        self.func.class(r)
    }

    /// A fresh suffix for a generated name.
    pub fn fresh(&mut self) -> u32 {
        self.next_name += 1;
        self.next_name - 1
    }

    pub fn new_block(&mut self) -> BlockId {
        self.func.blocks.push(Block { insts: Vec::new(), term: Term::Open, term_loc: None });
        BlockId(self.func.blocks.len() as u32 - 1)
    }

    pub fn current(&self) -> BlockId {
        self.cur
    }

    pub fn switch_to(&mut self, b: BlockId) {
        self.cur = b;
        self.region += 1;
    }

    /// Continues in `b`, which only the current block reaches (the rest of a check): the
    /// region goes on.
    pub fn continue_in(&mut self, b: BlockId) {
        self.cur = b;
    }

    /// Appends an instruction to the entry block (which dominates every block).
    pub fn push_to_entry(&mut self, mut inst: Inst) {
        inst.loc = inst.loc.or(self.loc);
        self.func.blocks[0].insts.push(inst);
    }

    /// Whether the current block still takes instructions (it has not jumped or returned).
    pub fn is_open(&self) -> bool {
        matches!(self.func.blocks[self.cur.0 as usize].term, Term::Open)
    }

    /// Ends the current block, unless it already ended (code after `return`/`break`).
    pub fn terminate(&mut self, term: Term) {
        let b = &mut self.func.blocks[self.cur.0 as usize];
        if matches!(b.term, Term::Open) {
            b.term = term;
            b.term_loc = self.loc;
        }
    }

    /// Makes `span`'s location the current one (unchanged where the span has none) and returns
    /// the one before, to restore.
    pub fn set_loc(&mut self, span: proc_macro2::Span) -> Option<Loc> {
        let before = self.loc;
        if let Some(l) = self.func.files.loc(span) {
            self.loc = Some(l);
        }
        before
    }

    /// Ends the current block with a jump to `b` and continues there.
    pub fn jump_to(&mut self, b: BlockId) {
        self.terminate(Term::Jump(b));
        self.switch_to(b);
    }

    pub fn push(&mut self, mut inst: Inst) {
        inst.loc = inst.loc.or(self.loc);
        // Instructions after a terminator are unreachable; put them in a fresh (dead) block so
        // the block structure stays valid.
        if !self.is_open() {
            let dead = self.new_block();
            self.switch_to(dead);
        }
        self.func.blocks[self.cur.0 as usize].insts.push(inst);
    }

    /// A mark in the current block, for [`Builder::guard_from`].
    pub fn mark(&self) -> (BlockId, usize) {
        (self.cur, self.func.blocks[self.cur.0 as usize].insts.len())
    }

    /// Puts the instructions pushed in the current block since `mark` under `@pred` (the
    /// stores of one variant of an enum, see `lower::enum_store`).
    pub fn guard_from(&mut self, mark: (BlockId, usize), pred: Reg) {
        if mark.0 == self.cur {
            for inst in &mut self.func.blocks[self.cur.0 as usize].insts[mark.1..] {
                inst.guard = Some((pred, false));
            }
        }
    }

    /// `opcode dst, args...` with a fresh destination register of `class`.
    pub fn op1(&mut self, opcode: Opcode, class: RegClass, args: Vec<Arg>) -> Reg {
        let d = self.reg(class);
        let mut all = vec![Arg::Reg(d)];
        all.extend(args);
        self.push(Inst::op(opcode, 1, all));
        d
    }

    /// `testp.<class>.<ty> p, a`. A float immediate is classified here and the predicate set
    /// with `mov.pred`: ptxas 13 crashes (a segmentation fault, sm_75 and sm_90) on some
    /// loops holding a `testp` of an immediate (the differential tester's seed 20261125,
    /// kernel 352), and nvcc never emits one.
    pub fn testp(&mut self, class: FpClass, ty: Type, a: Arg) -> Reg {
        match a.float_imm() {
            Some(v) => {
                let holds = match class {
                    FpClass::NotANumber => v.is_nan(),
                    FpClass::Infinite => v.is_infinite(),
                    FpClass::Finite => v.is_finite(),
                };
                self.op1(Opcode::Mov(Type::Pred), RegClass::Pred, vec![Arg::imm(holds as i64)])
            }
            None => self.op1(Opcode::Testp(class, ty), RegClass::Pred, vec![a]),
        }
    }

    /// `opcode dst, args...` into an existing register.
    pub fn op_into(&mut self, opcode: Opcode, dst: Reg, args: Vec<Arg>) {
        let mut all = vec![Arg::Reg(dst)];
        all.extend(args);
        self.push(Inst::op(opcode, 1, all));
    }

    /// An instruction that defines nothing (stores, barriers).
    pub fn op0(&mut self, opcode: Opcode, args: Vec<Arg>) {
        self.push(Inst::op(opcode, 0, args));
    }

    pub fn decl(&mut self, text: crate::text::Text) {
        self.func.decls.push(text);
    }

    pub fn kind(&mut self, kind: InstKind) {
        self.push(Inst { guard: None, kind, loc: None });
    }

    pub fn finish(mut self) -> Func {
        self.terminate(Term::Ret);
        // Blocks left open were reached only by falling off the end of the function.
        for b in &mut self.func.blocks {
            if matches!(b.term, Term::Open) {
                b.term = Term::Ret;
            }
        }
        self.func
    }
}
