//! The middle end: [`ast::Module`] → [`Program`].
//!
//! Two passes. [`module_vars`] lays out the module's `.global`/`.const` variables (their images
//! and the pointers in their initializers) so the device can place them; [`decode`] then
//! resolves every name — registers to indices, `.param`/`.local` variables to frame offsets,
//! `.shared` variables to offsets in the block's shared memory, global variables and functions
//! to addresses, labels to instruction indices — and turns each instruction into an [`Op`].
//!
//! An instruction or modifier the executor does not implement becomes [`Op::Unsupported`],
//! reported when a launch could reach it. So does a whole function body that does not decode
//! (an undefined name, a wrong operand count — errors for ptxas too), so that one such body
//! does not take the module's other kernels down with it. What belongs to no one function
//! (module variables, signatures) is an error here.

/// Opcode families, each an `impl FnDecoder` block.
mod arith;
mod bits;
mod control;
mod function;
mod memory;
mod mma;
mod mods;
mod texture;
pub mod types;

use super::parse::ast::{self, FuncKind as AstKind, Init, Linkage, Space, Stmt, VarDecl};
use super::program::*;
use std::collections::HashMap;
use types::T;

/// A decoding error: line and message. Inside a function body it is reported as
/// `Error::Unsupported` when a launch can reach the function; elsewhere it fails the load.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    pub line: u32,
    pub message: String,
    /// The construct the error is about when it is one name (an undefined identifier or
    /// special register, an unknown type): what `Error::Unsupported` then names.
    pub construct: Option<String>,
}

impl DecodeError {
    /// What a launch reports: the construct, or else the whole message.
    pub fn what(&self) -> String {
        self.construct.clone().unwrap_or_else(|| self.message.clone())
    }
}

pub(crate) fn err<X>(line: u32, message: impl Into<String>) -> Result<X, DecodeError> {
    Err(DecodeError { construct: None, line, message: message.into() })
}

/// Bytes and alignment of a declaration (scalar or vector element times array dimensions).
pub fn decl_size(d: &VarDecl) -> Result<(u64, u32), DecodeError> {
    let t = T::parse(&d.ty).ok_or_else(|| DecodeError { construct: Some(format!(".{}", d.ty)), line: d.line, message: format!("unknown type .{}", d.ty) })?;
    let too_big = || DecodeError { construct: None, line: d.line, message: format!("`{}` is larger than {MAX_DECL} bytes", d.name) };
    let elem = t.bytes() as u64 * d.vector as u64;
    let mut n = 1u64;
    for dim in &d.dims {
        let k = match dim {
            Some(k) => *k,
            // `[]`: sized by the initializer (flattened scalars).
            None => d.init.as_ref().map_or(0, |v| v.len() as u64) / d.vector.max(1) as u64,
        };
        n = n.checked_mul(k).ok_or_else(too_big)?;
    }
    let size = elem.checked_mul(n).filter(|s| *s <= MAX_DECL).ok_or_else(too_big)?;
    let align = d.align.unwrap_or(elem.max(1) as u32);
    if !align.is_power_of_two() {
        return err(d.line, format!("`{}`: alignment {align} is not a power of two", d.name));
    }
    Ok((size, align))
}

/// The largest declaration accepted (1 GiB): device memory is host memory here.
pub const MAX_DECL: u64 = 1 << 30;

/// The module's `.global` and `.const` variables with their initial images.
pub fn module_vars(m: &ast::Module) -> Result<Vec<GlobalVar>, DecodeError> {
    let mut out = Vec::new();
    for d in &m.vars {
        if !matches!(d.space, Space::Global | Space::Const) || d.linkage == Linkage::Extern {
            continue;
        }
        let (size, align) = decl_size(d)?;
        let t = T::parse(&d.ty).ok_or_else(|| DecodeError { construct: Some(format!(".{}", d.ty)), line: d.line, message: format!("unknown type .{}", d.ty) })?;
        let mut init = Vec::new();
        init.try_reserve_exact(size as usize).map_err(|_| DecodeError { construct: None, line: d.line, message: format!("no host memory for `{}`", d.name) })?;
        init.resize(size as usize, 0u8);
        let mut relocs = Vec::new();
        let eb = t.bytes() as usize;
        for (i, v) in d.init.iter().flatten().enumerate() {
            let at = i * eb;
            if at + eb > init.len() {
                return err(d.line, format!("too many initializers for `{}`", d.name));
            }
            let bits: u64 = match v {
                Init::Int(x) => *x as u64,
                Init::Float(x) => float_bits(*x, t),
                Init::F32(b) => {
                    if t == T::F64 {
                        (f32::from_bits(*b) as f64).to_bits()
                    } else {
                        *b as u64
                    }
                }
                Init::F64(b) => {
                    if t == T::F32 {
                        (f64::from_bits(*b) as f32).to_bits() as u64
                    } else {
                        *b
                    }
                }
                Init::Addr { name, generic, offset } => {
                    if eb != 8 {
                        return err(d.line, format!("address of `{name}` in a {eb}-byte initializer"));
                    }
                    relocs.push((at as u64, name.clone(), *offset, *generic));
                    0
                }
            };
            init[at..at + eb].copy_from_slice(&bits.to_le_bytes()[..eb]);
        }
        out.push(GlobalVar { name: d.name.clone(), size, align, init, relocs, constant: d.space == Space::Const });
    }
    Ok(out)
}

/// Bits of a decimal literal in a float (or integer) type.
pub fn float_bits(x: f64, t: T) -> u64 {
    use super::exec::softfloat as sf;
    match t {
        T::F64 => x.to_bits(),
        T::F32 => (x as f32).to_bits() as u64,
        T::F16 | T::F16x2 => sf::encode(sf::decode(x.to_bits(), sf::F64), sf::F16, sf::Rnd::Rn),
        T::Bf16 | T::Bf16x2 => sf::encode(sf::decode(x.to_bits(), sf::F64), sf::BF16, sf::Rnd::Rn),
        _ => x as i64 as u64,
    }
}

/// What a name means inside a function.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sym {
    Reg(Reg, u32),
    /// Offset in the lane's `.local` frame.
    Local(u32),
    /// Offset in the lane's parameter frame.
    FParam(u32, u32),
    /// Offset in the kernel parameter block.
    KParam(u32),
    Shared(u32),
    Global(u64),
    Const(u64),
    Func(u32),
}

/// Module-level names.
pub(crate) struct ModuleSyms {
    pub globals: HashMap<String, Sym>,
    /// Function-scope `.shared` variables: (function, name) → offset.
    pub fn_shared: HashMap<(String, String), u32>,
    pub funcs: HashMap<String, u32>,
    /// Prototypes of every function (rets, params) as declared.
    pub sigs: Vec<(Vec<ParamSlot>, Vec<ParamSlot>)>,
    pub kinds: Vec<FuncKind>,
}

fn round_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Parameter slots laid out in declaration order from offset 0.
fn param_slots(decls: &[VarDecl], start: u32) -> Result<(Vec<ParamSlot>, u32), DecodeError> {
    let mut off = start as u64;
    let mut out = Vec::new();
    for d in decls {
        let (size, align) = decl_size(d)?;
        off = round_up(off, align as u64);
        out.push(ParamSlot { offset: off as u32, size: size as u32, align });
        off += size;
    }
    Ok((out, off as u32))
}

pub fn syscall(name: &str) -> Option<Syscall> {
    Some(match name {
        "vprintf" => Syscall::Vprintf,
        "malloc" => Syscall::Malloc,
        "free" => Syscall::Free,
        "__assertfail" => Syscall::AssertFail,
        _ => return None,
    })
}

/// Decodes the whole module. `var_addr` gives the device address of each variable from
/// [`module_vars`].
pub fn decode(m: &ast::Module, var_addr: &HashMap<String, u64>) -> Result<Program, DecodeError> {
    // Shared variables: module scope, then each function's, in order; every `.extern .shared`
    // is the one dynamic region. Offsets are assigned per entry after decoding.
    let mut shared_vars = Vec::new();
    let mut dynamic: Option<u32> = None;
    let mut dyn_var = |vars: &mut Vec<SharedVar>, align: u32| -> u32 {
        let i = *dynamic.get_or_insert_with(|| {
            vars.push(SharedVar { name: "(dynamic shared memory)".into(), size: 0, align: 16, dynamic: true });
            (vars.len() - 1) as u32
        });
        vars[i as usize].align = vars[i as usize].align.max(align);
        i
    };
    let mut globals = HashMap::new();
    for d in &m.vars {
        match d.space {
            Space::Shared if d.linkage == Linkage::Extern => {
                let v = dyn_var(&mut shared_vars, d.align.unwrap_or(1));
                globals.insert(d.name.clone(), Sym::Shared(v));
            }
            Space::Shared => {
                let (size, align) = decl_size(d)?;
                shared_vars.push(SharedVar { name: d.name.clone(), size: size as u32, align, dynamic: false });
                globals.insert(d.name.clone(), Sym::Shared((shared_vars.len() - 1) as u32));
            }
            Space::Global | Space::Const => {
                if let Some(&a) = var_addr.get(&d.name) {
                    globals.insert(d.name.clone(), if d.space == Space::Const { Sym::Const(a) } else { Sym::Global(a) });
                }
            }
            _ => return err(d.line, "only .global, .const and .shared variables may be declared at module scope"),
        }
    }
    let mut fn_shared = HashMap::new();
    // Errors inside a function body, kept for the launches that can reach the function (the
    // parser's, then those found here and while decoding the body).
    let mut fn_errors: HashMap<usize, DecodeError> = HashMap::new();
    for (i, f) in m.funcs.iter().enumerate() {
        if let Some(e) = &f.body_error {
            fn_errors.insert(i, DecodeError { line: e.line, message: e.message.clone(), construct: None });
        }
        for s in f.body.iter().flatten() {
            if let Stmt::Decl(d) = s {
                if d.space == Space::Shared {
                    let v = if d.linkage == Linkage::Extern {
                        dyn_var(&mut shared_vars, d.align.unwrap_or(1))
                    } else {
                        match decl_size(d) {
                            Ok((size, align)) => {
                                shared_vars.push(SharedVar { name: d.name.clone(), size: size as u32, align, dynamic: false });
                                (shared_vars.len() - 1) as u32
                            }
                            Err(e) => {
                                fn_errors.entry(i).or_insert(e);
                                continue;
                            }
                        }
                    };
                    fn_shared.insert((f.name.clone(), d.name.clone()), v);
                }
            }
        }
    }

    // Functions: one index per name; a definition replaces a prototype.
    let mut funcs: Vec<Function> = Vec::new();
    let mut bounds = HashMap::new();
    let mut func_idx: HashMap<String, u32> = HashMap::new();
    let mut sigs = Vec::new();
    let mut defs: Vec<Option<usize>> = Vec::new();
    for (i, f) in m.funcs.iter().enumerate() {
        let idx = *func_idx.entry(f.name.clone()).or_insert_with(|| {
            funcs.push(Function {
                name: f.name.clone(),
                kind: FuncKind::Extern,
                line: f.line,
                pc: 0,
                pc_end: 0,
                nregs: 0,
                params: Vec::new(),
                rets: Vec::new(),
                param_frame: 0,
                local_frame: 0,
                local_align: 1,
                kparam_size: 0,
                shared_vars: Vec::new(),
                reserved_smem: false,
            });
            sigs.push((Vec::new(), Vec::new()));
            defs.push(None);
            (funcs.len() - 1) as u32
        }) as usize;
        if f.kind == AstKind::Entry && f.bounds != ptx_abi::launch::LaunchBounds::NONE {
            bounds.insert(idx as u32, f.bounds);
        }
        let (params, rets) = if f.kind == AstKind::Entry {
            let (p, size) = param_slots(&f.params, 0)?;
            funcs[idx].kparam_size = size;
            (p, Vec::new())
        } else {
            let (p, end) = param_slots(&f.params, 0)?;
            let (r, _) = param_slots(&f.rets, end)?;
            (p, r)
        };
        // A prototype after the definition (a linked module's) keeps the definition's slots.
        if f.body.is_some() || defs[idx].is_none() {
            sigs[idx] = (params.clone(), rets.clone());
            funcs[idx].params = params;
            funcs[idx].rets = rets;
            funcs[idx].line = f.line;
        }
        if f.body.is_some() {
            if defs[idx].is_some() {
                return err(f.line, format!("`{}` is defined twice", f.name));
            }
            defs[idx] = Some(i);
            funcs[idx].kind = if f.kind == AstKind::Entry { FuncKind::Entry } else { FuncKind::Func };
        } else if let Some(s) = syscall(&f.name) {
            funcs[idx].kind = FuncKind::Syscall(s);
        }
    }
    for (name, &i) in &func_idx {
        globals.entry(name.clone()).or_insert(Sym::Func(i));
    }
    let syms = ModuleSyms {
        globals,
        fn_shared,
        funcs: func_idx.clone(),
        sigs,
        kinds: funcs.iter().map(|f| f.kind).collect(),
    };

    let mut insts = Vec::new();
    for (idx, def) in defs.iter().enumerate() {
        let Some(i) = *def else { continue };
        let f = &m.funcs[i];
        let pc = insts.len() as u32;
        let decoded = match fn_errors.remove(&i) {
            Some(e) => Err(e),
            None => function::FnDecoder::new(&syms, f, idx as u32, pc).run(f, &mut insts),
        };
        // A body that does not decode becomes one unsupported instruction: the launches that
        // can reach it report the error, the module's other kernels run.
        let info = decoded.unwrap_or_else(|e| {
            insts.truncate(pc as usize);
            insts.push(Inst { op: Op::Unsupported { what: e.what() }, guard: None, line: e.line });
            function::FnInfo { local_align: 1, ..Default::default() }
        });
        let func = &mut funcs[idx];
        func.pc = pc;
        func.pc_end = insts.len() as u32;
        func.nregs = info.nregs;
        func.param_frame = info.param_frame;
        func.local_frame = info.local_frame;
        func.local_align = info.local_align;
        func.shared_vars = info.shared_vars;
        func.reserved_smem = info.reserved_smem;
    }

    let entries = funcs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind == FuncKind::Entry)
        .map(|(i, f)| (f.name.clone(), i as u32))
        .collect::<HashMap<_, _>>();
    let mut prog = Program {
        insts,
        funcs,
        entries,
        func_by_name: func_idx,
        shared_vars,
        shared_layout: HashMap::new(),
        unsupported: HashMap::new(),
        bounds,
    };
    prog.unsupported = reachable_unsupported(&prog);
    for &e in prog.entries.values() {
        let layout = shared_layout(&prog, e);
        if layout.static_size > super::MAX_SHARED_BYTES {
            let f = &prog.funcs[e as usize];
            return err(f.line, format!("`{}` uses {} bytes of static shared memory; the limit is {}", f.name, layout.static_size, super::MAX_SHARED_BYTES));
        }
        prog.shared_layout.insert(e, layout);
    }
    Ok(prog)
}

/// The functions an entry can reach: through direct calls, and through any function whose
/// address is taken (indirect calls).
fn reachable(p: &Program, entry: u32) -> Vec<u32> {
    let address_taken = address_taken(p);
    let mut seen = vec![false; p.funcs.len()];
    let mut stack = vec![entry];
    let mut out = Vec::new();
    while let Some(f) = stack.pop() {
        if std::mem::replace(&mut seen[f as usize], true) {
            continue;
        }
        out.push(f);
        let func = &p.funcs[f as usize];
        for inst in p.insts.get(func.pc as usize..func.pc_end as usize).unwrap_or(&[]) {
            match &inst.op {
                Op::Call { target: CallTarget::Direct(g), .. } => stack.push(*g),
                Op::Call { target: CallTarget::Indirect(_), .. } => stack.extend(address_taken.iter().copied()),
                _ => {}
            }
        }
    }
    out
}

fn address_taken(p: &Program) -> Vec<u32> {
    let mut out = Vec::new();
    for inst in &p.insts {
        if let Op::Alu { a: Src::Imm(v), .. } = &inst.op {
            if *v >= FUNC_BASE && *v < FUNC_BASE + (p.funcs.len() as u64) * 16 && (*v - FUNC_BASE).is_multiple_of(16) {
                out.push(((*v - FUNC_BASE) / 16) as u32);
            }
        }
    }
    out
}

fn shared_layout(p: &Program, entry: u32) -> SharedLayout {
    let mut used = vec![false; p.shared_vars.len()];
    let mut reserved = 0;
    for f in reachable(p, entry) {
        let f = &p.funcs[f as usize];
        for &v in &f.shared_vars {
            used[v as usize] = true;
        }
        if f.reserved_smem {
            reserved = RESERVED_SMEM_BYTES;
        }
    }
    // Offsets are counted from the kernel's own first byte, then moved past the reserved
    // region when there is one.
    let mut offsets = vec![u32::MAX; p.shared_vars.len()];
    let mut off = 0u64;
    for (i, v) in p.shared_vars.iter().enumerate() {
        if used[i] && !v.dynamic {
            off = round_up(off, v.align as u64);
            offsets[i] = off as u32;
            off += v.size as u64;
        }
    }
    let dyn_align = p.shared_vars.iter().filter(|v| v.dynamic).map(|v| v.align as u64).max().unwrap_or(16).max(16);
    let static_size = round_up(off, dyn_align).min(u32::MAX as u64) as u32;
    for (i, v) in p.shared_vars.iter().enumerate() {
        if v.dynamic {
            offsets[i] = static_size;
        }
    }
    for o in offsets.iter_mut().filter(|o| **o != u32::MAX) {
        *o = o.saturating_add(reserved);
    }
    SharedLayout { offsets, static_size, reserved }
}

/// For each entry, the first unsupported instruction (or call of an undefined function) it
/// can reach through direct calls, and through any function whose address is taken.
fn reachable_unsupported(p: &Program) -> HashMap<u32, (String, u32)> {
    let mut address_taken = Vec::new();
    for inst in &p.insts {
        let mut note = |s: &Src| {
            if let Src::Imm(v) = s {
                if *v >= FUNC_BASE && *v < FUNC_BASE + (p.funcs.len() as u64) * 16 && (*v - FUNC_BASE).is_multiple_of(16) {
                    address_taken.push(((*v - FUNC_BASE) / 16) as u32);
                }
            }
        };
        if let Op::Alu { a, .. } = &inst.op {
            note(a);
        }
    }
    let mut out = HashMap::new();
    for &e in p.entries.values() {
        let mut seen = vec![false; p.funcs.len()];
        let mut stack = vec![e];
        let mut found = None;
        while let Some(f) = stack.pop() {
            if std::mem::replace(&mut seen[f as usize], true) {
                continue;
            }
            let func = &p.funcs[f as usize];
            if func.kind == FuncKind::Extern {
                found = Some((format!("call of `{}`, which this module declares but does not define", func.name), func.line));
                break;
            }
            for inst in &p.insts[func.pc as usize..func.pc_end as usize] {
                match &inst.op {
                    Op::Unsupported { what } => {
                        found = Some((what.clone(), inst.line));
                        break;
                    }
                    Op::Call { target: CallTarget::Direct(g), .. } => stack.push(*g),
                    Op::Call { target: CallTarget::Indirect(_), .. } => stack.extend(address_taken.iter().copied()),
                    _ => {}
                }
            }
            if found.is_some() {
                break;
            }
        }
        if let Some(x) = found {
            out.insert(e, x);
        }
    }
    out
}
