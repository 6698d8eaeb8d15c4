use super::*;
use crate::CpuDevice;

const CALLER: &str = r#".version 7.0
.target sm_75
.address_size 64
.file 1 "caller.rs"
.extern .func (.param .b32 r) add_one(.param .b32 a);
.extern .global .align 4 .u32 bias;
.global .align 4 .u32 local_tab[2] = {10, 20};
.visible .entry k(.param .u64 p)
{
 .reg .b32 %r<5>;
 .reg .b64 %rd<3>;
 .loc 1 7 3
 ld.param.u64 %rd1, [p];
 ld.global.u32 %r1, [bias];
 { .param .b32 a0; st.param.b32 [a0], %r1; .param .b32 r0; call.uni (r0), add_one, (a0); ld.param.b32 %r2, [r0]; }
 ld.global.u32 %r3, [local_tab+4];
 add.s32 %r4, %r2, %r3;
 st.global.u32 [%rd1], %r4;
 ret;
}
"#;

const CALLEE: &str = r#".version 7.8
.target sm_80
.address_size 64
.file 1 "callee.cu"
.visible .global .align 4 .u32 bias = 5;
.global .align 4 .u32 local_tab[2] = {1000, 2000};
.visible .func (.param .b32 q) add_one(.param .b32 b)
{
 .reg .b32 %r<4>;
 .loc 1 3 9
 ld.param.b32 %r1, [b];
 ld.global.u32 %r3, [local_tab];
 add.s32 %r2, %r1, %r3;
 st.param.b32 [q], %r2;
 ret;
}
"#;

fn run(text: &str) -> u32 {
    let d = CpuDevice::new();
    let m = d.load_module(text).unwrap();
    let buf = d.alloc(4).unwrap();
    d.launch(&m, "k", [1, 1, 1], [1, 1, 1], 0, &[&buf.to_le_bytes()]).unwrap();
    let mut out = [0u8; 4];
    d.read(buf, &mut out).unwrap();
    u32::from_le_bytes(out)
}

#[test]
fn resolves_functions_and_variables_and_keeps_private_names_apart() {
    let text = link(&[("caller", CALLER), ("callee", CALLEE)]).unwrap();
    // bias 5 + 1000 (the callee's own table) + 20 (the caller's).
    assert_eq!(run(&text), 1025, "{text}");
    assert!(text.contains(".target sm_80") && text.contains(".version 7.8"), "{text}");
    assert!(text.contains(".file 2 \"callee.cu\"") && text.contains(".loc 2 3 9"), "{text}");
    // Either order.
    assert_eq!(run(&link(&[("callee", CALLEE), ("caller", CALLER)]).unwrap()), 1025);
}

#[test]
fn unresolved_duplicate_and_mismatched_symbols_are_errors() {
    let Err(Error::Link { log }) = link(&[("caller", CALLER)]) else { panic!("linked") };
    assert!(log.contains("unresolved symbol `add_one`") && log.contains("unresolved symbol `bias`"), "{log}");
    // Loading the caller alone is fine; launching reaches the missing function.
    assert!(link_partial(&[("caller", CALLER)]).is_ok());

    let other = CALLEE.replace("add.s32 %r2, %r1, %r3", "sub.s32 %r2, %r1, %r3");
    let Err(Error::Link { log }) = link(&[("caller", CALLER), ("a", CALLEE), ("b", &other)]) else { panic!("linked") };
    assert!(log.contains("duplicate symbol `add_one`") && log.contains("`a` (line 7) and `b` (line 7)"), "{log}");
    assert!(log.contains("duplicate symbol `bias`"), "{log}");

    let wide = CALLEE.replace(".param .b32 b)", ".param .b64 b)");
    let Err(Error::Link { log }) = link(&[("caller", CALLER), ("callee", &wide)]) else { panic!("linked") };
    assert!(log.contains("`add_one` is declared in `caller` (line 5) with return sizes [4] and parameter sizes [4]"), "{log}");
    assert!(log.contains("parameter sizes [8]"), "{log}");

    assert!(matches!(link(&[]), Err(Error::Link { .. })));
    assert!(matches!(link(&[("bad", ".version 7.0\n.target sm_75\n.address_size 64\n.global .u32 ;")]), Err(Error::Link { .. })));
}

#[test]
fn identical_copies_and_weak_definitions() {
    // The same function text in two modules (two kernels sharing a device function) links.
    let weak = CALLEE.replace(".visible .func", ".weak .func").replace(".visible .global .align 4 .u32 bias = 5;", "");
    let text = link(&[("caller", CALLER), ("callee", CALLEE), ("copy", CALLEE.replace(".visible .global .align 4 .u32 bias = 5;", "").as_str()), ("weak", &weak)]).unwrap();
    assert_eq!(run(&text), 1025, "{text}");
    // A weak definition alone resolves.
    let text = link(&[("caller", CALLER), ("weak", &weak), ("bias", ".version 7.0\n.target sm_75\n.address_size 64\n.visible .global .align 4 .u32 bias = 7;\n")]).unwrap();
    assert_eq!(run(&text), 1027, "{text}");
}

/// Truncated and corrupted modules never make the linker panic: every outcome is `Ok` (text
/// the emulator then loads or refuses) or an `Err`.
#[test]
fn hostile_modules_never_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let replacements = b"0123456789%.,;:[]{}()<>-+!@_xXabefprsuv \n\"/*";
    let mut linked = 0;
    for i in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let (mut a, mut b) = (CALLER.as_bytes().to_vec(), CALLEE.as_bytes().to_vec());
        let target = if i % 2 == 0 { &mut a } else { &mut b };
        match i % 3 {
            0 => target.truncate((seed % target.len() as u64) as usize),
            _ => {
                let at = (seed % target.len() as u64) as usize;
                target[at] = replacements[(seed >> 32) as usize % replacements.len()];
            }
        }
        let (a, b) = (String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
        if let Ok(text) = link(&[("caller", &a), ("callee", &b)]) {
            linked += 1;
            let _ = crate::parse::parse(&text);
        }
        let _ = link_partial(&[("callee", &b), ("caller", &a)]);
    }
    assert!(linked > 500, "only {linked} corrupted pairs linked: the text edits were barely exercised");
}
