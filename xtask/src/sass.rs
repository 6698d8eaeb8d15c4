//! Reading what NVIDIA's tools say about a compiled kernel: `ptxas -v`'s resource report and
//! `cuobjdump -sass`'s disassembly (instructions, loops, memory traffic).

/// `ptxas -v`'s report for one entry function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

/// The entry functions of a `ptxas -v` log, in order, with their resources.
///
/// The log names the entry (`Compiling entry function 'f' for 'sm_90'`), then its properties
/// (`N bytes stack frame, S bytes spill stores, L bytes spill loads`) and registers
/// (`Used R registers`). Device functions' own property lines, which follow, are not entries.
pub fn ptxas_entries(log: &str) -> Vec<(String, Resources)> {
    let mut entries: Vec<(String, Resources)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_owned();
            entries.push((name, Resources::default()));
            current = Some(entries.len() - 1);
        } else if line.contains("Function properties for ") {
            // A device function's properties end the entry's section; the entry's own
            // properties line names the entry.
            let named = line.split("Function properties for ").nth(1).map(str::trim);
            if current.is_some_and(|i| named != Some(entries[i].0.as_str())) {
                current = None;
            }
        } else if let Some(i) = current {
            let r = &mut entries[i].1;
            if let Some(n) = number_before(line, " bytes spill stores") {
                r.spill_stores = n;
            }
            if let Some(n) = number_before(line, " bytes spill loads") {
                r.spill_loads = n;
            }
            if let Some(n) = line.split("Used ").nth(1).and_then(|r| r.split(' ').next()).and_then(|r| r.parse().ok()) {
                r.registers = n;
            }
        }
    }
    entries
}

/// The integer just before `suffix` in `line`.
fn number_before(line: &str, suffix: &str) -> Option<u32> {
    let head = &line[..line.find(suffix)?];
    head.rsplit([' ', ',']).next()?.parse().ok()
}

/// One SASS instruction: its address and its text without the trailing `;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub addr: u32,
    pub text: String,
}

/// The functions of a `cuobjdump -sass` listing, each with its instructions (padding `NOP`s
/// left out). Device functions a kernel calls are listed inside the kernel's section.
pub fn functions(sass: &str) -> Vec<(String, Vec<Instr>)> {
    let mut out: Vec<(String, Vec<Instr>)> = Vec::new();
    for line in sass.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("Function : ") {
            out.push((name.trim().to_owned(), Vec::new()));
            continue;
        }
        // `/*0050*/  IMAD R17, R17, UR38, R0 ;  /* 0x...encoding */`; the encoding's second
        // half is a line of its own with nothing after its comment.
        let Some(rest) = t.strip_prefix("/*") else { continue };
        let Some((addr, body)) = rest.split_once("*/") else { continue };
        let Ok(addr) = u32::from_str_radix(addr.trim(), 16) else { continue };
        let text = body.split("/*").next().unwrap_or_default().trim().trim_end_matches(';').trim();
        if text.is_empty() || text == "NOP" {
            continue;
        }
        if let Some((_, instrs)) = out.last_mut() {
            instrs.push(Instr { addr, text: text.to_owned() });
        }
    }
    out
}

/// The opcode of an instruction, without its predicate (`@!P0 BRA 0x270` -> `BRA`).
fn opcode(text: &str) -> &str {
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or_default();
    if first.starts_with('@') {
        words.next().unwrap_or_default()
    } else {
        first
    }
}

/// The address a branch or call goes to: its first hexadecimal operand.
fn branch_target(text: &str) -> Option<u32> {
    text.split_whitespace().filter_map(|w| w.trim_end_matches(',').strip_prefix("0x")).find_map(|h| u32::from_str_radix(h, 16).ok())
}

/// A loop: the instructions from a backward branch's target to the branch, as indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loop {
    pub first: usize,
    pub last: usize,
}

impl Loop {
    fn contains(&self, other: &Loop) -> bool {
        self.first <= other.first && other.last <= self.last && self != other
    }
}

/// Every loop of a function: a `BRA` whose target is below its own address closes one. (A
/// `BRA` to itself, the trap after the last `EXIT`, is no loop.)
pub fn loops(instrs: &[Instr]) -> Vec<Loop> {
    let mut found = Vec::new();
    for (last, ins) in instrs.iter().enumerate() {
        if !opcode(&ins.text).starts_with("BRA") {
            continue;
        }
        let Some(target) = branch_target(&ins.text) else { continue };
        if target >= ins.addr {
            continue;
        }
        if let Some(first) = instrs.iter().position(|i| i.addr >= target) {
            found.push(Loop { first, last });
        }
    }
    found
}

/// The innermost loop that does the kernel's main work: among loops holding no other loop,
/// the one that moves the most global memory, then the one with the most instructions,
/// counted by [`with_callees`] (nvcc inlines each `assert`'s call sequence, so instruction
/// counts alone would pick a shared-memory reduction loop over a grid-stride loop). `None`
/// for straight-line code.
pub fn hot_inner_loop(instrs: &[Instr]) -> Option<Loop> {
    let all = loops(instrs);
    all.iter()
        .filter(|l| !all.iter().any(|o| l.contains(o)))
        .max_by_key(|l| {
            let body = with_callees(instrs, **l);
            (global_bytes(&body), body.len(), l.first)
        })
        .copied()
}

/// The instructions of a loop with those of the device functions it calls out of line on its
/// main path (each once, transitively). ptxas places called functions after the kernel's own
/// code, so a function runs from a call target to the next call target or the end of the
/// listing. A predicated call, or one that a forward branch inside the loop jumps over
/// (ptxas's slow path of a division or a square root), is conditional and counts as itself.
pub fn with_callees(instrs: &[Instr], l: Loop) -> Vec<Instr> {
    let target = |i: &Instr| if opcode(&i.text).starts_with("CALL.REL") { branch_target(&i.text) } else { None };
    let mut starts: Vec<u32> = instrs.iter().filter_map(target).collect();
    starts.sort();
    starts.dedup();
    let mut body: Vec<Instr> = instrs[l.first..=l.last].to_vec();
    let end_of_loop = instrs[l.last].addr;
    let skipped = |call: u32| {
        body.iter().any(|b| b.addr < call && opcode(&b.text).starts_with("BRA") && branch_target(&b.text).is_some_and(|t| call < t && t <= end_of_loop))
    };
    let mut pending: Vec<u32> = body.iter().filter(|i| !i.text.starts_with('@') && !skipped(i.addr)).filter_map(target).collect();
    let mut done = Vec::new();
    while let Some(start) = pending.pop() {
        if done.contains(&start) {
            continue;
        }
        done.push(start);
        let end = starts.iter().copied().find(|&s| s > start).unwrap_or(u32::MAX);
        let callee: Vec<Instr> = instrs.iter().filter(|i| i.addr >= start && i.addr < end).cloned().collect();
        pending.extend(callee.iter().filter_map(target));
        body.extend(callee);
    }
    body
}

/// Bytes of global and shared memory that the instructions read or write once each (the local
/// memory of spills is left out): the work one trip through a loop does, whatever its unrolling
/// or vector width.
/// An asynchronous copy (`LDGSTS`, `cp.async`) reads global and writes shared memory: both
/// count. A matrix load from shared memory (`LDSM`, `ldmatrix`) moves 4 bytes per thread and
/// matrix.
pub fn memory_bytes(instrs: &[Instr]) -> u32 {
    instrs.iter().map(|i| access_bytes(opcode(&i.text), &["LDG", "STG", "LDS", "STS", "LD", "ST"]) + 2 * access_bytes(opcode(&i.text), &["LDGSTS"]) + matrix_bytes(opcode(&i.text))).sum()
}

/// Bytes of global (and generic) memory the instructions read or write once each.
pub fn global_bytes(instrs: &[Instr]) -> u32 {
    instrs.iter().map(|i| access_bytes(opcode(&i.text), &["LDG", "STG", "LD", "ST", "LDGSTS"])).sum()
}

/// `LDSM.16.M88.4` (`ldmatrix.x4`; `.MT88` with `.trans`) and `STSM` (`stmatrix`): 4 bytes per
/// thread for each of the 1, 2 or 4 matrices.
fn matrix_bytes(op: &str) -> u32 {
    let mut parts = op.split('.');
    if !matches!(parts.next(), Some("LDSM" | "STSM")) {
        return 0;
    }
    4 * parts.last().and_then(|n| n.parse::<u32>().ok()).filter(|n| matches!(n, 1 | 2 | 4)).unwrap_or(1)
}

fn access_bytes(op: &str, counted: &[&str]) -> u32 {
    let mut parts = op.split('.');
    let base = parts.next().unwrap_or_default();
    if !counted.contains(&base) {
        return 0;
    }
    let mut bytes = 4;
    for p in parts {
        bytes = match p {
            "U8" | "S8" => 1,
            "U16" | "S16" => 2,
            "64" => 8,
            "128" => 16,
            "256" => 32,
            _ => bytes,
        };
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "ptxas info    : 98 bytes gmem, 32 bytes cmem[4]
ptxas info    : Compiling entry function 'softmax' for 'sm_80'
ptxas info    : Function properties for softmax
    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 24 registers, used 1 barriers, 512 bytes smem, 388 bytes cmem[0]
ptxas info    : Compile time = 18.037 ms
ptxas info    : Function properties for exp_f32
    0 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'saxpy' for 'sm_80'
ptxas info    : Function properties for saxpy
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 18 registers, used 0 barriers
";

    #[test]
    fn ptxas_log_gives_each_entry_its_own_resources() {
        let e = ptxas_entries(LOG);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0], ("softmax".to_owned(), Resources { registers: 24, spill_stores: 8, spill_loads: 12 }));
        assert_eq!(e[1], ("saxpy".to_owned(), Resources { registers: 18, spill_stores: 0, spill_loads: 0 }));
    }

    const SASS: &str = "
	code for sm_90
		Function : saxpy
	.headerflags	@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)\"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                           /* 0x00000a00ff017b82 */
                                                                                    /* 0x000e220000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                               /* 0x0000000000007919 */
                                                                                    /* 0x000e620000002500 */
        /*0020*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;        /* 0x0000000000007919 */
                                                                                    /* 0x000e620000002500 */
        /*0030*/                   LDS R6, [R0] ;                                   /* 0x0000000000007919 */
                                                                                    /* 0x000e620000002500 */
        /*0040*/              @!P0 BRA 0x20 ;                                       /* 0x0000000000408947 */
                                                                                    /* 0x001fea0003800000 */
        /*0050*/                   STG.E.U8 desc[UR4][R2.64], R6 ;                  /* 0x0000000000007919 */
                                                                                    /* 0x000e620000002500 */
        /*0060*/                   BRA 0x10 ;                                       /* 0x0000000000408947 */
                                                                                    /* 0x001fea0003800000 */
        /*0070*/                   EXIT ;                                           /* 0x000000000000794d */
                                                                                    /* 0x000fea0003800000 */
        /*0080*/                   BRA 0x80;                                        /* 0xfffffffc00fc7947 */
                                                                                    /* 0x000fc0000383ffff */
        /*0090*/                   NOP;                                             /* 0x0000000000007918 */
                                                                                    /* 0x000fc00000000000 */
		Function : other
        /*0000*/                   EXIT ;                                           /* 0x000000000000794d */
                                                                                    /* 0x000fea0003800000 */
";

    #[test]
    fn the_hot_loop_moves_global_memory_before_it_is_long() {
        let ins = |addr: u32, text: &str| Instr { addr, text: text.to_owned() };
        let code = [
            ins(0x00, "LDG.E R0, [R2.64]"),
            ins(0x10, "@P0 BRA 0x0"),
            ins(0x20, "LDS R4, [R5]"),
            ins(0x30, "STS [R5], R4"),
            ins(0x40, "IADD3 R5, R5, 0x4, RZ"),
            ins(0x50, "@P1 BRA 0x20"),
        ];
        assert_eq!(hot_inner_loop(&code), Some(Loop { first: 0, last: 1 }));
    }

    #[test]
    fn a_loop_counts_the_functions_it_calls_once_each() {
        let ins = |addr: u32, text: &str| Instr { addr, text: text.to_owned() };
        let code = [
            ins(0x00, "CALL.REL.NOINC 0x40"),
            ins(0x10, "CALL.REL.NOINC 0x40"),
            // A slow path that the loop jumps over: not followed.
            ins(0x18, "@!P1 BRA 0x20"),
            ins(0x1c, "CALL.REL.NOINC 0x90"),
            ins(0x1e, "@P2 CALL.REL.NOINC 0x90"),
            ins(0x20, "@P0 BRA 0x0"),
            ins(0x30, "EXIT"),
            // exp: calls tail, returns.
            ins(0x40, "FMUL R0, R0, R1"),
            ins(0x50, "CALL.REL.NOINC 0x70"),
            ins(0x60, "RET.REL.NODEC R8 0x0"),
            // tail
            ins(0x70, "FADD R0, R0, R1"),
            ins(0x80, "RET.REL.NODEC R6 0x0"),
            // slow path
            ins(0x90, "MUFU.RCP R0, R0"),
            ins(0xa0, "RET.REL.NODEC R6 0x0"),
        ];
        let l = hot_inner_loop(&code).expect("a loop");
        assert_eq!(with_callees(&code, l).len(), 6 + 3 + 2);
    }

    #[test]
    fn sass_listing_splits_into_functions_without_padding() {
        let f = functions(SASS);
        assert_eq!(f.iter().map(|(n, i)| (n.as_str(), i.len())).collect::<Vec<_>>(), [("saxpy", 9), ("other", 1)]);
        assert_eq!(f[0].1[4], Instr { addr: 0x40, text: "@!P0 BRA 0x20".to_owned() });
    }

    #[test]
    fn loops_are_backward_branches_and_the_hot_one_is_innermost() {
        let f = functions(SASS);
        let instrs = &f[0].1;
        // 0x40 -> 0x20 (inner), 0x60 -> 0x10 (outer); 0x80 -> 0x80 is the trap, not a loop.
        assert_eq!(loops(instrs), [Loop { first: 2, last: 4 }, Loop { first: 1, last: 6 }]);
        let hot = hot_inner_loop(instrs).expect("a loop");
        assert_eq!(hot, Loop { first: 2, last: 4 });
        assert_eq!(memory_bytes(&instrs[hot.first..=hot.last]), 16 + 4);
        assert_eq!(memory_bytes(instrs), 16 + 4 + 1);
        assert_eq!(global_bytes(instrs), 16 + 1);
        assert_eq!(hot_inner_loop(&f[1].1), None);
    }

    #[test]
    fn async_copies_and_matrix_loads_count_their_bytes() {
        let ins = |text: &str| Instr { addr: 0, text: text.to_owned() };
        let code = [ins("LDGSTS.E.BYPASS.128 [R31], desc[UR40][R16.64]"), ins("LDSM.16.M88.4 R8, [R8]"), ins("LDSM.16.MT88.2 R4, [R4]"), ins("STSM.16.M88 [R2], R4")];
        assert_eq!(memory_bytes(&code), 2 * 16 + 16 + 8 + 4);
        assert_eq!(global_bytes(&code), 16);
    }
}
