//! Bit fields (§1.3) against nvcc: for each layout, a CUDA C kernel sets every field of the C
//! struct to values from a pattern and stores the struct's bytes; our `#[bitfields]` struct,
//! set by the same values on the host, in registers on the device and in device memory, must
//! have the same bytes, and reading the fields back — nvcc's kernel taking the struct as a
//! parameter, our getters on the host, on a kernel parameter and in device memory — must give
//! the same values. nvcc's PTX runs on the CPU backend; ours on the device `PTX_DEVICE` selects
//! (the GPU where there is one, as `cargo xtask gpu-pack`'s run does), else on the CPU backend;
//! every module goes through ptxas (sm_75 and sm_90).

#![allow(non_snake_case, dead_code)]

use crate::cpu_harness::{nvcc, Harness};
use crate::tools::assemble;
use ptx_runtime::{bitfields, kernel, Device, DeviceBuffer, DeviceRepr, LaunchConfig};

/// The stream our kernels run on: the GPU where there is one (`PTX_DEVICE` chooses), else the
/// CPU backend; the bytes and values must be the same on both. One device for the module's
/// tests, so each kernel is loaded once.
fn stream() -> ptx_runtime::Stream {
    static DEVICE: std::sync::OnceLock<Device> = std::sync::OnceLock::new();
    DEVICE.get_or_init(|| Device::select().unwrap_or_else(|_| Device::cpu())).stream()
}

/// One layout: its names and modules on both sides, and the host's view.
struct Case {
    name: &'static str,
    /// The C declaration and its kernels.
    c: &'static str,
    size: usize,
    align: usize,
    /// The host: bytes of a value set from `vals`, and the values read from bytes.
    host_set: fn(&[i64]) -> Vec<u8>,
    host_get: fn(&[u8]) -> Vec<i64>,
    /// Our kernels, for structs (the body compiler keeps unions out of registers).
    kernels: Option<Kernels>,
}

struct Kernels {
    /// (PTX, entry): set in registers, set in memory, get from a parameter, get from memory.
    set: (&'static str, &'static str),
    set_mem: (&'static str, &'static str),
    get: (&'static str, &'static str),
    get_mem: (&'static str, &'static str),
    /// Runs them through the runtime: (bytes set in registers, bytes set in memory, values
    /// from a parameter, values from memory).
    run: fn(&[i64], &[u8]) -> (Vec<u8>, Vec<u8>, Vec<i64>, Vec<i64>),
}

macro_rules! ctype {
    (i8) => { "signed char" };
    (u8) => { "unsigned char" };
    (i16) => { "short" };
    (u16) => { "unsigned short" };
    (i32) => { "int" };
    (u32) => { "unsigned int" };
    (i64) => { "long long" };
    (u64) => { "unsigned long long" };
}

fn bytes_of<T: DeviceRepr>(v: &T) -> Vec<u8> {
    let mut b = vec![0u8; T::LAYOUT.size];
    v.write_bytes(&mut b);
    b
}

fn from_bytes<T: DeviceRepr>(b: &[u8]) -> T {
    assert_eq!(b.len(), T::LAYOUT.size);
    // SAFETY: every member of these test types is an integer or bytes: any bit pattern is valid.
    unsafe { core::ptr::read_unaligned(b.as_ptr() as *const T) }
}

/// `layout!(Name set set_mem get get_mem struct|union { members })`, a member being
/// `bits name set_name: T = W;`, `anon _name: T = W;` (C's unnamed bit field) or
/// `field name: T;`.
macro_rules! layout {
    ($name:ident $set:ident $setm:ident $get:ident $getm:ident $kw:tt { $($m:tt)* }) => {
        layout!(@m [vals i s out inp] $name $set $setm $get $getm $kw [] [] [] [] [] [] [] [] $($m)*);
    };
    (@m [$vals:ident $i:ident $s:ident $out:ident $inp:ident] $name:ident $set:ident $setm:ident $get:ident $getm:ident $kw:tt
        [$($f:tt)*] [$($sr:tt)*] [$($sm:tt)*] [$($g:tt)*] [$($gm:tt)*] [$($cd:tt)*] [$($cs:tt)*] [$($cg:tt)*]
        bits $n:ident $sn:ident : $t:tt = $w:literal ; $($rest:tt)*) => {
        layout!(@m [$vals $i $s $out $inp] $name $set $setm $get $getm $kw
            [$($f)* #[bits($w)] pub $n: $t,]
            [$($sr)* $s.$sn($vals[$i] as $t); $i += 1;]
            [$($sm)* $out[0].$sn($vals[$i] as $t); $i += 1;]
            [$($g)* $vals[$i] = $s.$n() as i64; $i += 1;]
            [$($gm)* $vals[$i] = $inp[0].$n() as i64; $i += 1;]
            [$($cd)* ctype!($t), " ", stringify!($n), " : ", stringify!($w), "; ",]
            [$($cs)* "u.s.", stringify!($n), " = vals[i++]; ",]
            [$($cg)* "vals[i++] = s.", stringify!($n), "; ",]
            $($rest)*);
    };
    (@m [$vals:ident $i:ident $s:ident $out:ident $inp:ident] $name:ident $set:ident $setm:ident $get:ident $getm:ident $kw:tt
        [$($f:tt)*] [$($sr:tt)*] [$($sm:tt)*] [$($g:tt)*] [$($gm:tt)*] [$($cd:tt)*] [$($cs:tt)*] [$($cg:tt)*]
        anon $n:ident : $t:tt = $w:literal ; $($rest:tt)*) => {
        layout!(@m [$vals $i $s $out $inp] $name $set $setm $get $getm $kw
            [$($f)* #[bits($w)] $n: $t,]
            [$($sr)*] [$($sm)*] [$($g)*] [$($gm)*]
            [$($cd)* ctype!($t), " : ", stringify!($w), "; ",]
            [$($cs)*] [$($cg)*]
            $($rest)*);
    };
    (@m [$vals:ident $i:ident $s:ident $out:ident $inp:ident] $name:ident $set:ident $setm:ident $get:ident $getm:ident $kw:tt
        [$($f:tt)*] [$($sr:tt)*] [$($sm:tt)*] [$($g:tt)*] [$($gm:tt)*] [$($cd:tt)*] [$($cs:tt)*] [$($cg:tt)*]
        field $n:ident : $t:tt ; $($rest:tt)*) => {
        layout!(@m [$vals $i $s $out $inp] $name $set $setm $get $getm $kw
            [$($f)* pub $n: $t,]
            [$($sr)* $s.$n = $vals[$i] as $t; $i += 1;]
            [$($sm)* $out[0].$n = $vals[$i] as $t; $i += 1;]
            [$($g)* $vals[$i] = unsafe { $s.$n } as i64; $i += 1;]
            [$($gm)* $vals[$i] = unsafe { $inp[0].$n } as i64; $i += 1;]
            [$($cd)* ctype!($t), " ", stringify!($n), "; ",]
            [$($cs)* "u.s.", stringify!($n), " = vals[i++]; ",]
            [$($cg)* "vals[i++] = s.", stringify!($n), "; ",]
            $($rest)*);
    };
    (@kernels union [$vals:ident $i:ident $s:ident $out:ident $inp:ident] $name:ident $set:ident $setm:ident $get:ident $getm:ident
        [$($sr:tt)*] [$($sm:tt)*] [$($g:tt)*] [$($gm:tt)*]) => {
        // Written out below: device code reaches a union through a pointer.
    };
    (@kernels struct [$vals:ident $i:ident $s:ident $out:ident $inp:ident] $name:ident $set:ident $setm:ident $get:ident $getm:ident
        [$($sr:tt)*] [$($sm:tt)*] [$($g:tt)*] [$($gm:tt)*]) => {
        #[kernel]
        pub fn $set($vals: &[i64], $out: &mut [$name]) {
            let mut $s = $name::zeroed();
            let mut $i = 0usize;
            $($sr)*
            let _ = $i;
            $out[0] = $s;
        }

        #[kernel]
        pub fn $setm($vals: &[i64], $out: &mut [$name]) {
            $out[0] = $name::zeroed();
            let mut $i = 0usize;
            $($sm)*
            let _ = $i;
        }

        #[kernel]
        #[allow(unused_unsafe)]
        pub fn $get($s: $name, $vals: &mut [i64]) {
            let mut $i = 0usize;
            $($g)*
            let _ = $i;
        }

        #[kernel]
        #[allow(unused_unsafe)]
        pub fn $getm($inp: &[$name], $vals: &mut [i64]) {
            let mut $i = 0usize;
            $($gm)*
            let _ = $i;
        }

        impl $name {
            const KERNELS: Option<Kernels> = Some(Kernels {
                set: ($set::PTX, $set::ENTRY),
                set_mem: ($setm::PTX, $setm::ENTRY),
                get: ($get::PTX, $get::ENTRY),
                get_mem: ($getm::PTX, $getm::ENTRY),
                run: {
                    fn f($vals: &[i64], bytes: &[u8]) -> (Vec<u8>, Vec<u8>, Vec<i64>, Vec<i64>) {
                        let stream = stream();
                        let one = LaunchConfig::new(1u32, 1u32);
                        let v = DeviceBuffer::from_slice(&stream, $vals).unwrap();
                        let mut $out = DeviceBuffer::<$name>::zeroed(&stream, 1).unwrap();
                        $set::launch(&stream, one, &v, &mut $out).unwrap();
                        let set_reg = bytes_of(&$out.to_vec().unwrap()[0]);
                        let mut $out = DeviceBuffer::<$name>::zeroed(&stream, 1).unwrap();
                        $setm::launch(&stream, one, &v, &mut $out).unwrap();
                        let set_mem = bytes_of(&$out.to_vec().unwrap()[0]);
                        let $s: $name = from_bytes(bytes);
                        let mut got = DeviceBuffer::<i64>::zeroed(&stream, $vals.len()).unwrap();
                        $get::launch(&stream, one, $s, &mut got).unwrap();
                        let from_param = got.to_vec().unwrap();
                        let $inp = DeviceBuffer::from_slice(&stream, &[$s]).unwrap();
                        let mut got = DeviceBuffer::<i64>::zeroed(&stream, $vals.len()).unwrap();
                        $getm::launch(&stream, one, &$inp, &mut got).unwrap();
                        (set_reg, set_mem, from_param, got.to_vec().unwrap())
                    }
                    f
                },
            });
        }
    };
    (@m [$vals:ident $i:ident $s:ident $out:ident $inp:ident] $name:ident $set:ident $setm:ident $get:ident $getm:ident $kw:tt
        [$($f:tt)*] [$($sr:tt)*] [$($sm:tt)*] [$($g:tt)*] [$($gm:tt)*] [$($cd:tt)*] [$($cs:tt)*] [$($cg:tt)*]) => {
        #[bitfields]
        #[derive(Clone, Copy, DeviceRepr)]
        #[repr(C)]
        pub $kw $name { $($f)* }

        layout!(@kernels $kw [$vals $i $s $out $inp] $name $set $setm $get $getm [$($sr)*] [$($sm)*] [$($g)*] [$($gm)*]);

        impl $name {
            const CASE: Case = Case {
                name: stringify!($name),
                c: concat!(
                    stringify!($kw), " ", stringify!($name), " { ", $($cd)* "};\n",
                    "extern \"C\" __global__ void c_set_", stringify!($name), "(const long long *vals, unsigned char *out) {\n",
                    "  union { ", stringify!($kw), " ", stringify!($name), " s; unsigned char b[sizeof(", stringify!($kw), " ", stringify!($name), ")]; } u;\n",
                    "  for (int k = 0; k < (int)sizeof(u.b); k++) u.b[k] = 0;\n",
                    "  int i = 0; ", $($cs)* "(void)i;\n",
                    "  for (int k = 0; k < (int)sizeof(u.b); k++) out[k] = u.b[k];\n}\n",
                    "extern \"C\" __global__ void c_get_", stringify!($name), "(", stringify!($kw), " ", stringify!($name), " s, long long *vals) {\n",
                    "  int i = 0; ", $($cg)* "(void)i;\n}\n",
                    "extern \"C\" __global__ void c_size_", stringify!($name), "(unsigned long long *o) { o[0] = sizeof(", stringify!($kw), " ", stringify!($name), "); o[1] = alignof(", stringify!($kw), " ", stringify!($name), "); }\n",
                ),
                size: <$name as DeviceRepr>::LAYOUT.size,
                align: <$name as DeviceRepr>::LAYOUT.align,
                host_set: {
                    fn f($vals: &[i64]) -> Vec<u8> {
                        let mut $s = $name::zeroed();
                        let mut $i = 0usize;
                        $($sr)*
                        let _ = $i;
                        bytes_of(&$s)
                    }
                    f
                },
                host_get: {
                    #[allow(unused_unsafe, unused_mut)]
                    fn f(b: &[u8]) -> Vec<i64> {
                        let $s: $name = from_bytes(b);
                        let mut $vals = vec![0i64; 64];
                        let mut $i = 0usize;
                        $($g)*
                        $vals.truncate($i);
                        $vals
                    }
                    f
                },
                kernels: <$name>::KERNELS,
            };
        }
    };
}

// The guide's figures 2 to 6.
layout!(Fig2 s2 sm2 g2 gm2 struct { bits j set_j: i32 = 5; bits k set_k: i32 = 6; bits m set_m: i32 = 7; });
layout!(Fig3 s3 sm3 g3 gm3 struct {
    bits s set_s: i16 = 9; bits j set_j: i32 = 9; field c: u8; bits t set_t: i16 = 9; bits u set_u: i16 = 9; field d: u8;
});
layout!(Fig4 s4 sm4 g4 gm4 struct { field c: u8; bits s set_s: i16 = 8; });
layout!(Fig5 s5 sm5 g5 gm5 union { field c: u8; bits s set_s: i16 = 8; });
layout!(Fig6 s6 sm6 g6 gm6 struct {
    field c: u8; anon _z0: i32 = 0; field d: u8; anon _p: i16 = 9; field e: u8; anon _z1: i8 = 0;
});
// Allocation and the storage unit boundary.
layout!(FillInt s7 sm7 g7 gm7 struct { bits a set_a: u32 = 1; bits b set_b: u32 = 31; });
layout!(CrossInt s8 sm8 g8 gm8 struct { bits a set_a: u32 = 30; bits b set_b: u32 = 4; });
layout!(Full64 s9 sm9 g9 gm9 struct { bits a set_a: u64 = 64; bits b set_b: i32 = 3; });
layout!(Wide64 s10 sm10 g10 gm10 struct { field c: u8; bits x set_x: i64 = 40; bits y set_y: u64 = 16; });
layout!(Cross64 s11 sm11 g11 gm11 struct { bits a set_a: i32 = 30; bits b set_b: i64 = 40; });
layout!(Chars s12 sm12 g12 gm12 struct { bits a set_a: i8 = 3; bits b set_b: i8 = 5; bits c set_c: i8 = 1; bits d set_d: u8 = 8; });
layout!(CrossChar s13 sm13 g13 gm13 struct { bits a set_a: u8 = 5; bits b set_b: u8 = 5; bits c set_c: u8 = 7; });
layout!(Shorts s14 sm14 g14 gm14 struct { bits a set_a: i16 = 16; bits b set_b: i16 = 1; bits c set_c: u16 = 15; });
layout!(Sevens s15 sm15 g15 gm15 struct {
    bits a set_a: u32 = 7; bits b set_b: u32 = 7; bits c set_c: u32 = 7; bits d set_d: u32 = 7; bits e set_e: i32 = 4;
});
layout!(Width1 s16 sm16 g16 gm16 struct { bits a set_a: i32 = 1; bits b set_b: i8 = 1; bits c set_c: u16 = 1; });
layout!(Signed64 s17 sm17 g17 gm17 struct { bits a set_a: i64 = 63; bits b set_b: i64 = 1; bits c set_c: i64 = 64; });
layout!(Full32 s18 sm18 g18 gm18 struct { bits a set_a: i32 = 32; bits b set_b: u32 = 32; });
// Sharing storage units with ordinary members.
layout!(MixedUnits s19 sm19 g19 gm19 struct { field a: u8; bits b set_b: i32 = 12; bits c set_c: u16 = 4; field d: i8; });
layout!(IntBetween s20 sm20 g20 gm20 struct { bits a set_a: u32 = 3; field x: i32; bits b set_b: u32 = 29; });
layout!(AfterLong s21 sm21 g21 gm21 struct { field x: i64; bits a set_a: i32 = 1; });
layout!(ShortBetween s22 sm22 g22 gm22 struct { bits a set_a: u8 = 4; field s: u16; bits b set_b: u8 = 4; });
layout!(IntoTail s23 sm23 g23 gm23 struct { field c: u8; bits x set_x: i32 = 24; field d: u8; });
layout!(LongThenBits s24 sm24 g24 gm24 struct { field x: u64; bits a set_a: u32 = 3; field s: i16; bits b set_b: i64 = 50; });
// Zero-width and unnamed bit fields.
layout!(ZeroMid s25 sm25 g25 gm25 struct { bits a set_a: i32 = 3; anon _z: i32 = 0; bits b set_b: i32 = 3; });
layout!(ZeroShort s26 sm26 g26 gm26 struct { field a: u8; anon _z: u16 = 0; field b: u8; });
layout!(ZeroLong s27 sm27 g27 gm27 struct { field a: u8; anon _z: u64 = 0; field b: u8; });
layout!(ZeroTail s28 sm28 g28 gm28 struct { field a: u8; anon _z: i32 = 0; });
layout!(UnnamedLong s29 sm29 g29 gm29 struct { field a: u8; anon _p: u64 = 4; field b: u8; });
layout!(NamedLong s30 sm30 g30 gm30 struct { field a: u8; bits b set_b: u64 = 4; field c: u8; });
layout!(UnnamedGap s31 sm31 g31 gm31 struct { bits a set_a: u16 = 3; anon _p: u16 = 10; bits b set_b: i16 = 3; });
// Bit fields in unions.
layout!(UnionBits s32 sm32 g32 gm32 union { bits a set_a: i32 = 3; bits b set_b: u64 = 40; field c: u8; });
layout!(UnionUnnamed s33 sm33 g33 gm33 union { field c: u8; anon _p: i32 = 20; });
layout!(UnionZero s34 sm34 g34 gm34 union { field c: u16; anon _z: i64 = 0; bits d set_d: i8 = 7; });

// Unions on the device: the members and the bit fields' pointer accessors, in the order the
// macro's statements use (`field` members then bit fields, as declared).
macro_rules! union_kernels {
    ($name:ident $set:ident $get:ident ($vals:ident, $p:ident) set { $($set_body:tt)* } get { $($get_body:tt)* }) => {
        #[kernel]
        pub unsafe fn $set($vals: &[i64], $p: *mut $name) {
            $($set_body)*
        }

        #[kernel]
        pub unsafe fn $get($p: *const $name, $vals: &mut [i64]) {
            $($get_body)*
        }

        impl $name {
            const KERNELS: Option<Kernels> = Some(Kernels {
                set: ($set::PTX, $set::ENTRY),
                set_mem: ($set::PTX, $set::ENTRY),
                get: ($get::PTX, $get::ENTRY),
                get_mem: ($get::PTX, $get::ENTRY),
                run: {
                    fn f(vals: &[i64], bytes: &[u8]) -> (Vec<u8>, Vec<u8>, Vec<i64>, Vec<i64>) {
                        let stream = stream();
                        let one = LaunchConfig::new(1u32, 1u32);
                        let v = DeviceBuffer::from_slice(&stream, vals).unwrap();
                        let mut out = DeviceBuffer::<$name>::zeroed(&stream, 1).unwrap();
                        unsafe { $set::launch(&stream, one, &v, &mut out).unwrap() };
                        let set = bytes_of(&out.to_vec().unwrap()[0]);
                        let inp = DeviceBuffer::from_slice(&stream, &[from_bytes::<$name>(bytes)]).unwrap();
                        let mut got = DeviceBuffer::<i64>::zeroed(&stream, vals.len()).unwrap();
                        unsafe { $get::launch(&stream, one, &inp, &mut got).unwrap() };
                        let got = got.to_vec().unwrap();
                        (set.clone(), set, got.clone(), got)
                    }
                    f
                },
            });
        }
    };
}

union_kernels!(Fig5 us5 ug5 (vals, p) set {
    unsafe { (*p).c = vals[0] as u8 };
    unsafe { Fig5::set_s_at(p, vals[1] as i16) };
} get {
    vals[0] = unsafe { (*p).c } as i64;
    vals[1] = unsafe { Fig5::s_at(p) } as i64;
});
union_kernels!(UnionBits us32 ug32 (vals, p) set {
    unsafe { UnionBits::set_a_at(p, vals[0] as i32) };
    unsafe { UnionBits::set_b_at(p, vals[1] as u64) };
    unsafe { (*p).c = vals[2] as u8 };
} get {
    vals[0] = unsafe { UnionBits::a_at(p) } as i64;
    vals[1] = unsafe { UnionBits::b_at(p) } as i64;
    vals[2] = unsafe { (*p).c } as i64;
});
union_kernels!(UnionZero us34 ug34 (vals, p) set {
    unsafe { (*p).c = vals[0] as u16 };
    unsafe { UnionZero::set_d_at(p, vals[1] as i8) };
} get {
    vals[0] = unsafe { (*p).c } as i64;
    vals[1] = unsafe { UnionZero::d_at(p) } as i64;
});
impl UnionUnnamed {
    // No named bit field: nothing of its own to run on the device.
    const KERNELS: Option<Kernels> = None;
}

const CASES: &[Case] = &[
    Fig2::CASE, Fig3::CASE, Fig4::CASE, Fig5::CASE, Fig6::CASE, FillInt::CASE, CrossInt::CASE, Full64::CASE,
    Wide64::CASE, Cross64::CASE, Chars::CASE, CrossChar::CASE, Shorts::CASE, Sevens::CASE, Width1::CASE,
    Signed64::CASE, Full32::CASE, MixedUnits::CASE, IntBetween::CASE, AfterLong::CASE, ShortBetween::CASE,
    IntoTail::CASE, LongThenBits::CASE, ZeroMid::CASE, ZeroShort::CASE, ZeroLong::CASE, ZeroTail::CASE,
    UnnamedLong::CASE, NamedLong::CASE, UnnamedGap::CASE, UnionBits::CASE, UnionUnnamed::CASE, UnionZero::CASE,
];

/// Values for the members, from a seed: all ones, all zeros, alternating bits, and
/// pseudo-random words (xorshift), so every bit of every field is 0 and 1 in some pattern.
fn patterns(n: usize) -> Vec<Vec<i64>> {
    let mut out = vec![vec![-1i64; n], vec![0; n], vec![0x5555_5555_5555_5555; n], vec![0xAAAA_AAAA_AAAA_AAAAu64 as i64; n]];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..4 {
        out.push(
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as i64
                })
                .collect(),
        );
    }
    out
}

/// nvcc's PTX for every case (`None` without nvcc).
fn nvcc_ptx() -> Option<String> {
    let source: String = CASES.iter().map(|c| c.c).collect();
    nvcc("abi_bitfields", &source)
}

/// nvcc's module for every case, on the CPU backend (`None` without nvcc).
fn nvcc_module() -> Option<Harness> {
    nvcc_ptx().map(|p| Harness::new(&p))
}

/// The first parameter's declaration of `.entry symbol`, its name left out:
/// `.param .align 4 .b8 [12]`.
fn first_param(ptx: &str, symbol: &str) -> String {
    let at = ptx.find(&format!(".entry {symbol}(")).unwrap_or_else(|| panic!("no .entry {symbol}"));
    let line = ptx[at..].lines().nth(1).expect("a parameter line");
    let words: Vec<&str> = line.trim().trim_end_matches(',').split_whitespace().collect();
    let (name, head) = words.split_last().expect("a declaration");
    let len = name.find('[').map_or("", |i| &name[i..]);
    format!("{} {len}", head.join(" "))
}

#[test]
fn at_least_twenty_five_layouts() {
    assert!(CASES.len() >= 25, "{}", CASES.len());
}

#[test]
fn every_module_assembles() {
    for c in CASES {
        let Some(ks) = &c.kernels else { continue };
        for (ptx, entry) in [ks.set, ks.set_mem, ks.get, ks.get_mem] {
            assemble(entry, ptx);
        }
    }
}

#[test]
fn sizes_and_alignments_match_nvcc() {
    let Some(mut k) = nvcc_module() else { return };
    for c in CASES {
        let o = k.zeroed::<u64>(2);
        k.launch(&format!("c_size_{}", c.name), [1, 1, 1], [1, 1, 1], 0, &[o.ptr()]).unwrap();
        assert_eq!(k.download::<u64>(o), [c.size as u64, c.align as u64], "{}: (size, align) ours vs nvcc's", c.name);
    }
}

/// A bit-field struct passed by value is the `.param .align A .b8 [N]` aggregate nvcc declares.
#[test]
fn parameter_declarations_match_nvcc() {
    let Some(theirs) = nvcc_ptx() else { return };
    let mut compared = 0;
    for c in CASES {
        let Some(ks) = &c.kernels else { continue };
        if c.c.starts_with("union") {
            continue; // our union kernels take a pointer
        }
        let ours = first_param(ks.get.0, ks.get.1);
        assert_eq!(ours, first_param(&theirs, &format!("c_get_{}", c.name)), "{}: the struct parameter", c.name);
        assert_eq!(ours, format!(".param .align {} .b8 [{}]", c.align, c.size), "{}", c.name);
        compared += 1;
    }
    assert!(compared >= 25, "{compared}");
}

#[test]
fn bytes_and_values_match_nvcc() {
    let Some(mut k) = nvcc_module() else { return };
    let mut checked = 0;
    for c in CASES {
        let n = (c.host_get)(&vec![0u8; c.size]).len();
        for vals in patterns(n) {
            // The bytes: nvcc's kernel, our host setters, our device setters.
            let v = k.upload(&vals);
            let out = k.zeroed::<u8>(c.size);
            k.launch(&format!("c_set_{}", c.name), [1, 1, 1], [1, 1, 1], 0, &[v.ptr(), out.ptr()]).unwrap();
            let theirs: Vec<u8> = k.download(out);
            let ours = (c.host_set)(&vals);
            assert_eq!(ours, theirs, "{}: bytes set on the host vs nvcc's, values {vals:x?}", c.name);
            let device = c.kernels.as_ref().map(|ks| (ks.run)(&vals, &theirs));
            if let Some((reg, mem, _, _)) = &device {
                assert_eq!(reg, &theirs, "{}: bytes set in registers on the device vs nvcc's", c.name);
                assert_eq!(mem, &theirs, "{}: bytes set in device memory vs nvcc's", c.name);
            }
            // The values read back: nvcc's kernel (the struct as a parameter), our getters.
            let mut param = theirs.clone();
            param.resize(c.size, 0);
            let got = k.zeroed::<i64>(n.max(1));
            k.launch(&format!("c_get_{}", c.name), [1, 1, 1], [1, 1, 1], 0, &[param, got.ptr()]).unwrap();
            let read: Vec<i64> = k.download(got)[..n].to_vec();
            assert_eq!((c.host_get)(&theirs), read, "{}: values read on the host vs nvcc's", c.name);
            if let Some((_, _, from_param, from_mem)) = &device {
                assert_eq!(&from_param[..n], &read[..], "{}: values read from a kernel parameter vs nvcc's", c.name);
                assert_eq!(&from_mem[..n], &read[..], "{}: values read from device memory vs nvcc's", c.name);
            }
            checked += 1;
        }
    }
    assert!(checked >= 25 * 8, "{checked}");
}

// The example of docs/body-compiler.md, "Bit fields".
#[bitfields]
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Header {
    pub c: u8,
    #[bits(3)]
    pub kind: u32,
    #[bits(5)]
    pub level: i32,
    #[bits(0)]
    _align: u32,
    pub d: u8,
}

#[kernel]
pub fn bump(h: &mut [Header]) {
    let i = ptx_runtime::device::thread_idx_x() as usize;
    if i < h.len() {
        let mut x = h[i];
        x.set_level(x.level() - 1);
        h[i] = x;
        h[i].set_kind(7);
    }
}

/// Ordinary members of every kind the macro lays out (an array, a float, a `bool`) and a
/// requested alignment, next to bit fields.
#[bitfields]
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, align(16))]
pub struct Packet {
    pub tag: [u8; 3],
    #[bits(4)]
    pub ver: u8,
    #[bits(12)]
    pub len: u16,
    pub f: f32,
    pub ok: bool,
    #[bits(7)]
    pub tail: i8,
}

#[kernel]
pub fn fill_packet(out: &mut [Packet], v: i32) {
    let mut p = Packet::zeroed();
    p.tag = [1, 2, 3];
    p.set_ver(v as u8);
    p.set_len(v as u16);
    p.f = 1.5;
    p.ok = true;
    p.set_tail(v as i8);
    out[0] = p;
}

const PACKET_C: &str = r#"
struct __align__(16) Packet { unsigned char tag[3]; unsigned char ver : 4; unsigned short len : 12; float f; bool ok; signed char tail : 7; };
extern "C" __global__ void c_packet(int v, unsigned char *out, unsigned long long *layout) {
    union { Packet p; unsigned char b[sizeof(Packet)]; } u;
    for (int k = 0; k < (int)sizeof(u.b); k++) u.b[k] = 0;
    u.p.tag[0] = 1; u.p.tag[1] = 2; u.p.tag[2] = 3;
    u.p.ver = v; u.p.len = v; u.p.f = 1.5f; u.p.ok = true; u.p.tail = v;
    for (int k = 0; k < (int)sizeof(u.b); k++) out[k] = u.b[k];
    layout[0] = sizeof(Packet); layout[1] = alignof(Packet);
    layout[2] = offsetof(Packet, f); layout[3] = offsetof(Packet, ok);
}
"#;

#[test]
fn the_documented_example_runs_as_documented() {
    assert_eq!((Header::LAYOUT.size, Header::LAYOUT.align, core::mem::offset_of!(Header, d)), (8, 4, 4));
    assemble(bump::ENTRY, bump::PTX);
    let mut h = Header::zeroed();
    h.set_level(-16);
    h.set_kind(2);
    h.c = 9;
    h.d = 10;
    let stream = stream();
    let mut buf = DeviceBuffer::from_slice(&stream, &[h]).unwrap();
    bump::launch(&stream, LaunchConfig::new(1u32, 32u32), &mut buf).unwrap();
    let out = buf.to_vec().unwrap()[0];
    // -16 - 1 wraps to 15 in 5 bits, as C's assignment to `int level : 5` does.
    assert_eq!((out.c, out.kind(), out.level(), out.d), (9, 7, 15, 10));
    let mut host = h;
    host.set_level(host.level() - 1);
    host.set_kind(7);
    assert_eq!(bytes_of(&out), bytes_of(&host));
}

#[test]
fn arrays_floats_bools_and_requested_alignment_match_nvcc() {
    assemble(fill_packet::ENTRY, fill_packet::PTX);
    let Some(ptx) = nvcc("abi_bitfields_packet", PACKET_C) else { return };
    let mut k = Harness::new(&ptx);
    let stream = stream();
    for v in [0i32, -1, 0x5a5, 0x7fff_ffff, -0x40, 0x123] {
        let out = k.zeroed::<u8>(Packet::LAYOUT.size);
        let layout = k.zeroed::<u64>(4);
        k.launch("c_packet", [1, 1, 1], [1, 1, 1], 0, &[v.to_le_bytes().to_vec(), out.ptr(), layout.ptr()]).unwrap();
        let theirs: Vec<u8> = k.download(out);
        let l: Vec<u64> = k.download(layout);
        let ours_layout = [Packet::LAYOUT.size, Packet::LAYOUT.align, core::mem::offset_of!(Packet, f), core::mem::offset_of!(Packet, ok)];
        assert_eq!(l, ours_layout.map(|x| x as u64), "(size, align, offset of f, offset of ok)");
        let mut buf = DeviceBuffer::<Packet>::zeroed(&stream, 1).unwrap();
        fill_packet::launch(&stream, LaunchConfig::new(1u32, 1u32), &mut buf, v).unwrap();
        assert_eq!(bytes_of(&buf.to_vec().unwrap()[0]), theirs, "v = {v:#x}");
        let p: Packet = from_bytes(&theirs);
        assert_eq!((p.ver(), p.len(), p.tail()), ((v & 0xf) as u8, (v & 0xfff) as u16, ((v << 25) >> 25) as i8));
    }
}

/// A bit-field struct defined in another module, and `#[bitfields]` written below the derive.
mod elsewhere {
    use ptx_runtime::{bitfields, DeviceRepr};

    #[derive(Clone, Copy, DeviceRepr)]
    #[bitfields]
    #[repr(C)]
    pub struct Flags {
        #[bits(1)]
        pub on: u8,
        #[bits(6)]
        pub level: i8,
        pub count: u16,
    }
}

#[kernel]
pub fn toggle(f: &mut [elsewhere::Flags], n: u16) {
    let mut x = elsewhere::Flags::zeroed();
    x.set_on(1 - f[0].on());
    x.set_level(f[0].level() - 40);
    x.count = f[0].count + n;
    f[0] = x;
}

#[test]
fn another_module_and_either_attribute_order() {
    assemble(toggle::ENTRY, toggle::PTX);
    let mut x = elsewhere::Flags::zeroed();
    x.set_level(5);
    x.count = 7;
    let stream = stream();
    let mut buf = DeviceBuffer::from_slice(&stream, &[x]).unwrap();
    toggle::launch(&stream, LaunchConfig::new(1u32, 1u32), &mut buf, 3).unwrap();
    let y = buf.to_vec().unwrap()[0];
    // 5 - 40 = -35 wraps to 29 in 6 bits.
    assert_eq!((y.on(), y.level(), y.count), (1, 29, 10));
    assert_eq!((elsewhere::Flags::LAYOUT.size, elsewhere::Flags::LAYOUT.align), (4, 2));
}
