//! Hand-written PTX: instruction forms compilers emit less often (carry chains, packs,
//! combined predicates, byte permutes, named barriers), the parameter ABI of the project's own
//! kernels, and what happens with PTX the backend cannot run: `Error::Unsupported` naming the
//! instruction (or, for a function body that does not decode, the construct) and line, for
//! the kernels that can reach it only; `Error::PtxLoad` for malformed module-level text —
//! never a wrong result.

use crate::cpu_harness::{arg, Harness};
use crate::tools::assemble;
use ptx_runtime::cpu::CpuDevice;
use ptx_runtime::cpu::Error as CpuError;
use ptx_runtime::Error;

const FORMS: &str = r#".version 7.8
.target sm_75
.address_size 64

.visible .entry forms(.param .u64 out, .param .u32 x, .param .u32 y)
{
    .reg .pred %p<6>;
    .reg .b16 %h<3>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<4>;

    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [x];
    ld.param.u32 %r2, [y];
    // 64-bit add from 32-bit halves with a carry chain: (x:y) + (y:x).
    add.cc.u32 %r3, %r2, %r1;
    addc.u32 %r4, %r1, %r2;
    st.global.u32 [%rd1+0], %r3;
    st.global.u32 [%rd1+4], %r4;
    // Subtract with borrow: (x:y) - (y:x), high half.
    sub.cc.u32 %r5, %r2, %r1;
    subc.u32 %r6, %r1, %r2;
    st.global.u32 [%rd1+8], %r6;
    // Pack and unpack.
    mov.b64 %rd2, {%r1, %r2};
    mov.b64 {%r7, %r8}, %rd2;
    st.global.u64 [%rd1+16], %rd2;
    st.global.u32 [%rd1+24], %r8;
    mov.b32 %r9, {%h1, %h2};
    // Combined predicates: p = (x < y) && !(x == 7), q = !(x < y) && !(x == 7).
    setp.eq.u32 %p1, %r1, 7;
    setp.lt.and.u32 %p2|%p3, %r1, %r2, !%p1;
    selp.u32 %r10, 1, 0, %p2;
    selp.u32 %r11, 1, 0, %p3;
    st.global.u32 [%rd1+28], %r10;
    st.global.u32 [%rd1+32], %r11;
    // set: all ones or 1.0f.
    set.gt.u32.s32 %r12, %r1, %r2;
    set.gt.f32.s32 %f1, %r1, %r2;
    st.global.u32 [%rd1+36], %r12;
    st.global.f32 [%rd1+40], %f1;
    // Bit fields and permutes.
    bfe.u32 %r13, %r1, 4, 8;
    bfe.s32 %r14, %r2, 28, 8;
    bfi.b32 %r15, %r1, %r2, 8, 12;
    prmt.b32 %r16, %r1, %r2, 0x5140;
    prmt.b32.ecl %r17, %r1, %r2, 2;
    shf.l.clamp.b32 %r18, %r1, %r2, 40;
    shf.r.wrap.b32 %r19, %r1, %r2, 36;
    st.global.v4.u32 [%rd1+48], {%r13, %r14, %r15, %r16};
    st.global.v2.u32 [%rd1+64], {%r17, %r18};
    st.global.u32 [%rd1+72], %r19;
    // 24-bit multiplies, sad, popc/clz/brev/bfind.
    mul24.hi.u32 %r20, %r1, %r2;
    mad24.lo.s32 %r21, %r1, %r2, 5;
    sad.u32 %r22, %r1, %r2, 1000;
    bfind.shiftamt.u32 %r23, %r2;
    st.global.v4.u32 [%rd1+80], {%r20, %r21, %r22, %r23};
    // Saturating conversions and integer saturation.
    cvt.sat.u8.s32 %r24, %r2;
    cvt.rzi.sat.s32.f32 %r25, %f1;
    add.sat.s32 %r26, %r1, 2147483647;
    min.s32 %r27, %r1, %r2;
    st.global.v4.u32 [%rd1+96], {%r24, %r25, %r26, %r27};
    // testp / copysign / slct.
    mov.b32 %f2, %r2;
    testp.subnormal.f32 %p4, %f2;
    selp.u32 %r28, 1, 0, %p4;
    copysign.f32 %f3, %f2, 0f3F800000;
    slct.u32.s32 %r29, %r1, %r2, %r2;
    st.global.u32 [%rd1+112], %r28;
    st.global.f32 [%rd1+116], %f3;
    st.global.u32 [%rd1+120], %r29;
    ret;
}
"#;

#[test]
fn less_common_instruction_forms() {
    assemble("cpu_ptx_forms", FORMS);
    let (x, y) = (0x9234_5678u32, 0x8000_0003u32);
    let mut k = Harness::new(FORMS);
    let out = k.zeroed::<u32>(32);
    k.launch("forms", [1, 1, 1], [1, 1, 1], 0, &[out.ptr(), arg(x), arg(y)]).unwrap();
    let o: Vec<u32> = k.download(out);
    let sum = ((x as u64) << 32 | y as u64).wrapping_add((y as u64) << 32 | x as u64);
    assert_eq!((o[0], o[1]), (sum as u32, (sum >> 32) as u32), "add.cc/addc");
    let diff = ((x as u64) << 32 | y as u64).wrapping_sub((y as u64) << 32 | x as u64);
    assert_eq!(o[2], (diff >> 32) as u32, "sub.cc/subc");
    assert_eq!((o[4], o[5]), (x, y), "mov.b64 pack (low part first)");
    assert_eq!(o[6], y, "mov.b64 unpack");
    let lt = x < y && x != 7;
    assert_eq!((o[7], o[8]), (lt as u32, (x >= y && x != 7) as u32), "setp.lt.and p|q");
    assert_eq!(o[9], if (x as i32) > (y as i32) { u32::MAX } else { 0 }, "set.gt.u32");
    assert_eq!(o[10], if (x as i32) > (y as i32) { 1.0f32.to_bits() } else { 0 }, "set.gt.f32");
    assert_eq!(o[12], (x >> 4) & 0xff, "bfe.u32");
    assert_eq!(o[13], (((y >> 28) as i32) << 28 >> 28) as u32, "bfe.s32 past the top sign-extends");
    assert_eq!(o[14], (y & !(0xfff << 8)) | ((x & 0xfff) << 8), "bfi");
    let b = ((y as u64) << 32 | x as u64).to_le_bytes();
    assert_eq!(o[15], u32::from_le_bytes([b[0], b[4], b[1], b[5]]), "prmt 0x5140");
    assert_eq!(o[16], u32::from_le_bytes([b[0], b[1], b[2], b[2]]), "prmt.ecl");
    assert_eq!(o[17], x, "shf.l.clamp by 40 shifts by 32");
    assert_eq!(o[18], (((y as u64) << 32 | x as u64) >> 4) as u32, "shf.r.wrap by 36 shifts by 4");
    assert_eq!(o[20], (((x & 0xff_ffff) as u64 * (y & 0xff_ffff) as u64) >> 16) as u32, "mul24.hi");
    let (x24, y24) = (((x << 8) as i32 >> 8) as i64, ((y << 8) as i32 >> 8) as i64);
    assert_eq!(o[21], ((x24 * y24) as u32).wrapping_add(5), "mad24.lo");
    assert_eq!(o[22], 1000 + x.abs_diff(y), "sad");
    assert_eq!(o[23], y.leading_zeros(), "bfind.shiftamt");
    assert_eq!(o[24], 0, "cvt.sat.u8 of a negative");
    assert_eq!(o[25], if (x as i32) > (y as i32) { 1 } else { 0 }, "cvt.rzi.sat");
    assert_eq!(o[26], (x as i32).saturating_add(i32::MAX) as u32, "add.sat");
    assert_eq!(o[27], (x as i32).min(y as i32) as u32, "min.s32");
    assert_eq!(o[28], f32::from_bits(y).is_subnormal() as u32, "testp.subnormal");
    assert_eq!(o[29], 1.0f32.copysign(f32::from_bits(y)).to_bits(), "copysign: the second operand with the first one's sign");
    assert_eq!(o[30], if (y as i32) >= 0 { x } else { y }, "slct");
}

const NAMED_BARRIERS: &str = r#".version 7.8
.target sm_75
.address_size 64

// Producer warp 0 fills shared memory and arrives at barrier 1 without waiting; consumer
// warp 1 waits at barrier 1 (64 threads), reads, then both meet at barrier 0.
.visible .entry pc(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 buf[128];

    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra CONSUMER;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.u32 %r3, %r3, %r2;
    mul.lo.u32 %r4, %r1, %r1;
    st.shared.u32 [%r3], %r4;
    bar.arrive 1, 64;
    bra.uni DONE;
CONSUMER:
    bar.sync 1, 64;
    sub.u32 %r5, %r1, 32;
    shl.b32 %r2, %r5, 2;
    mov.u32 %r3, buf;
    add.u32 %r3, %r3, %r2;
    ld.shared.u32 %r6, [%r3];
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
DONE:
    bar.sync 0;
    ret;
}
"#;

#[test]
fn producer_consumer_named_barriers() {
    assemble("cpu_ptx_named_barriers", NAMED_BARRIERS);
    let mut k = Harness::new(NAMED_BARRIERS);
    let out = k.zeroed::<u32>(32);
    k.launch("pc", [4, 1, 1], [64, 1, 1], 0, &[out.ptr()]).unwrap();
    assert_eq!(k.download::<u32>(out), (0..32).map(|i| i * i).collect::<Vec<u32>>());
}

/// A kernel from the project's own macro, with a slice parameter: `{address, length}`.
#[ptx_runtime::kernel]
pub fn takes_a_slice(_n: u32, _out: &mut [f32]) {}

#[test]
fn own_kernels_load_and_take_slices_by_the_abi() {
    let ptx = takes_a_slice::PTX;
    assemble("cpu_ptx_own", ptx);
    let mut k = Harness::new(ptx);
    let out = k.zeroed::<f32>(4);
    assert_eq!(k.module.entry_params(takes_a_slice::ENTRY), Some(vec![(4, 4), (16, 8)]));
    k.launch(takes_a_slice::ENTRY, [1, 1, 1], [32, 1, 1], 0, &[arg(4u32), out.slice()]).unwrap();
    let err = k.launch(takes_a_slice::ENTRY, [1, 1, 1], [32, 1, 1], 0, &[arg(4u32), out.ptr()]).unwrap_err();
    assert!(matches!(err, Error::InvalidConfig { .. }), "an 8-byte pointer for a 16-byte slice: {err}");
}

const UNSUPPORTED: &str = r#".version 7.8
.target sm_75
.address_size 64

.visible .entry fine(.param .u64 out)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], 1;
    ret;
}

.visible .entry textures(.param .u64 out, .param .u64 tex)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [tex];
    mov.u32 %r1, 0;
    mov.f32 %f1, 0f3F000000;
    sust.p.2d.b32.trap [%rd2, {%r1, %r1}], {%r1};
    st.global.f32 [%rd1], %f1;
    ret;
}
"#;

#[test]
fn unsupported_instructions_are_reported_before_running() {
    assemble("cpu_ptx_unsupported", UNSUPPORTED);
    let dev = CpuDevice::new();
    let m = dev.load_module(UNSUPPORTED).unwrap();
    let out = dev.alloc(4).unwrap();
    dev.launch(&m, "fine", [1, 1, 1], [1, 1, 1], 0, &[&out.to_le_bytes()]).unwrap();
    let err = dev.launch(&m, "textures", [1, 1, 1], [1, 1, 1], 0, &[&out.to_le_bytes(), &0u64.to_le_bytes()]).unwrap_err();
    // (A formatted surface store: the CPU backend executes `sust.b` only, as nvcc emits no other.)
    let line = UNSUPPORTED.lines().position(|l| l.contains("sust.p.2d")).unwrap() + 1;
    match err {
        CpuError::Unsupported { instruction, line: l } => {
            assert!(instruction.starts_with("sust.p.2d"), "{instruction}");
            assert_eq!(l, line);
        }
        e => panic!("{e:?}"),
    }
    // Nothing ran: the output still holds the first kernel's 1.
    let mut b = [0u8; 4];
    dev.read(out, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 1);
    // An unknown modifier is unsupported too, never ignored.
    let odd = UNSUPPORTED.replace("st.global.u32 [%rd1], 1;", "add.foo.s32 %rd1, %rd1, 1;");
    let m = dev.load_module(&odd).unwrap();
    let err = dev.launch(&m, "fine", [1, 1, 1], [1, 1, 1], 0, &[&out.to_le_bytes()]).unwrap_err();
    assert!(matches!(&err, CpuError::Unsupported { instruction, .. } if instruction.contains(".foo")), "{err:?}");
}

#[test]
fn malformed_module_syntax_is_a_load_error() {
    let dev = CpuDevice::new();
    // A body without its closing brace: where one function ends is unknown.
    let syntax = UNSUPPORTED.replace("ret;\n}\n\n.visible", "ret;\n\n.visible");
    assert!(matches!(dev.load_module(&syntax), Err(CpuError::PtxLoad { .. })));
    assert!(matches!(dev.load_module("garbage"), Err(CpuError::PtxLoad { .. })));
    let bad_directive = UNSUPPORTED.replace(".address_size 64", ".address_size 64\n.frobnicate 3;");
    match dev.load_module(&bad_directive) {
        Err(CpuError::PtxLoad { log }) => assert!(log.starts_with("line 4:") && log.contains(".frobnicate"), "{log}"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}

/// One entry that is fine and, beside it, functions whose bodies hold what the backend cannot
/// decode (malformed for ptxas too, so this module is not assembled).
const BROKEN_BODIES: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry fine(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, WARP_SZ;
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry unknown_sreg(.param .u64 out)
{
    .reg .b32 %r<2>;
    mov.u32 %r1, %no_such_sreg;
    ret;
}

.visible .entry undefined_register(.param .u64 out)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd9, [out];
    ret;
}

.visible .entry bad_operand(.param .u64 out)
{
    .reg .b32 %r<2>;
    add.s32 %r1, %r1, ];
    ret;
}

.visible .entry bad_type(.param .u64 out)
{
    .reg .b99 %x;
    ret;
}

.func helper()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, NOT_A_NAME;
    ret;
}

.visible .entry calls_helper(.param .u64 out)
{
    call helper, ();
    ret;
}
"#;

#[test]
fn a_body_that_does_not_decode_rejects_only_the_kernels_that_reach_it() {
    let dev = CpuDevice::new();
    let m = dev.load_module(BROKEN_BODIES).unwrap();
    let out = dev.alloc(4).unwrap();
    dev.launch(&m, "fine", [1, 1, 1], [1, 1, 1], 0, &[&out.to_le_bytes()]).unwrap();
    let mut b = [0u8; 4];
    dev.read(out, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 32, "WARP_SZ");
    let line_of = |s: &str| BROKEN_BODIES.lines().position(|l| l.contains(s)).unwrap() + 1;
    for (entry, construct, at) in [
        ("unknown_sreg", "%no_such_sreg", "%no_such_sreg"),
        ("undefined_register", "%rd9", "%rd9"),
        ("bad_operand", "bad operand `]`", "%r1, ]"),
        ("bad_type", ".b99", ".b99"),
        ("calls_helper", "NOT_A_NAME", "NOT_A_NAME"),
    ] {
        match dev.launch(&m, entry, [1, 1, 1], [1, 1, 1], 0, &[&out.to_le_bytes()]) {
            Err(CpuError::Unsupported { instruction, line }) => {
                assert!(instruction.contains(construct), "{entry}: {instruction}");
                assert_eq!(line, line_of(at), "{entry}: {instruction}");
            }
            other => panic!("{entry}: {other:?}"),
        }
    }
    // The good kernel still runs after the others were refused.
    dev.write(out, &[0; 4]).unwrap();
    dev.launch(&m, "fine", [1, 1, 1], [1, 1, 1], 0, &[&out.to_le_bytes()]).unwrap();
    dev.read(out, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 32);
}

const SPECIAL: &str = r#".version 7.8
.target sm_75
.address_size 64

// Threads 40.. exit at once; the others still meet at the barrier (exited threads do not
// hold it up), then report special registers.
.visible .entry special(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<4>;

    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 40;
    @%p1 exit;
    mov.u64 %rd2, %clock64;
    bar.sync 0;
    mov.u64 %rd3, %clock64;
    mul.wide.u32 %rd4, %r1, 32;
    add.u64 %rd5, %rd1, %rd4;
    mov.u32 %r2, %laneid;
    mov.u32 %r3, %warpid;
    mov.u32 %r4, %lanemask_lt;
    mov.u32 %r5, %dynamic_smem_size;
    setp.gt.u64 %p2, %rd3, %rd2;
    selp.u32 %r6, 1, 0, %p2;
    setp.lt.u32 %p3, %r1, 100;
    vote.sync.uni.pred %p3, %p3, 0xffffffff;
    activemask.b32 %r7;
    mov.u64 %rd6, %globaltimer;
    setp.ne.u64 %p2, %rd6, 0;
    selp.u32 %r8, 1, 0, %p2;
    selp.u32 %r9, 1, 0, %p3;
    div.full.f32 %f1, 0f3F800000, 0f40400000;
    mov.b32 %r10, %f1;
    st.global.v4.u32 [%rd5], {%r2, %r3, %r4, %r5};
    st.global.v4.u32 [%rd5+16], {%r6, %r7, %r8, %r10};
    ret;
}

.visible .entry stop(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 3;
    @%p1 brkpt;
    ret;
}
"#;

#[test]
fn special_registers_exit_and_breakpoints() {
    assemble("cpu_ptx_special", SPECIAL);
    let mut k = Harness::new(SPECIAL);
    let out = k.zeroed::<u32>(64 * 8);
    k.launch("special", [1, 1, 1], [64, 1, 1], 24, &[out.ptr()]).unwrap();
    let o: Vec<u32> = k.download(out);
    for t in 0..64usize {
        let r = &o[t * 8..t * 8 + 8];
        if t >= 40 {
            assert!(r.iter().all(|v| *v == 0), "thread {t} exited before writing");
            continue;
        }
        let active = if t < 32 { u32::MAX } else { 0xff };
        assert_eq!(&r[..4], &[t as u32 % 32, t as u32 / 32, (1u32 << (t % 32)) - 1, 24], "thread {t}");
        assert_eq!(r[4], 1, "%clock64 advances across the barrier");
        assert_eq!(r[5], active, "activemask: the warp's live lanes");
        assert_eq!(r[6], 1, "%globaltimer is a real time");
        assert_eq!(r[7], (1.0f32 / 3.0).to_bits(), "div.full.f32");
    }
    let f = crate::cpu_harness::fault(k.launch("stop", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!((f.kind, f.thread), (ptx_runtime::FaultKind::Trap, [3, 0, 0]), "{f}");
}
