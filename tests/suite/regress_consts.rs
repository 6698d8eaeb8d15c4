//! Outside constants of every integer type cast to every scalar type, by a table: for each
//! constant, one kernel whose threads take turns at the 12 targets (and the constant uncast),
//! using the result in the operations whose instruction reads the register's full width
//! (widening, signed and unsigned division, comparison, shifts, min/max). The host runs the
//! same body; outputs compare bit for bit (`body_subset::check_map`). Constants are
//! materialised from rustc's value (`lower/expr.rs`, `constant`): issue 12 found `i8`
//! constants zero-extended there.

// The table casts values to their own type too.
#![allow(clippy::unnecessary_cast)]

use crate::body_subset::check_map;
use ptx_runtime::device::*;
use ptx_runtime::kernel;

macro_rules! const_cast_kernels {
    ($($name:ident: $src:ident = $v:expr;)*) => {
        $(
            pub mod $name {
                use super::*;
                pub const C: $src = $v;

                #[kernel]
                pub fn k(x: &[u64], out: &mut [u64]) {
                    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
                    if i < x.len() {
                        let xv = x[i];
                        out[i] = match i % 13 {
                            0 => { let c = C as i8; let y = xv as i8; (c as i64 as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (c.max(y) as u64).rotate_left(29) ^ ((c >> 3) as u64).rotate_left(37) ^ (c.unsigned_abs() as u64) << 50 }
                            1 => { let c = C as u8; let y = xv as u8; (c as i64 as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (c.max(y) as u64).rotate_left(29) ^ ((c >> 3) as u64).rotate_left(37) }
                            2 => { let c = C as i16; let y = xv as i16; (c as i64 as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (c.max(y) as u64).rotate_left(29) ^ ((c >> 3) as u64).rotate_left(37) }
                            3 => { let c = C as u16; let y = xv as u16; (c as i64 as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (c.max(y) as u64).rotate_left(29) ^ ((c >> 3) as u64).rotate_left(37) }
                            4 => { let c = C as i32; let y = xv as i32; (c as i64 as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (c.max(y) as u64).rotate_left(29) ^ ((c >> 3) as u64).rotate_left(37) }
                            5 => { let c = C as u32; let y = xv as u32; (c as i64 as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (c.max(y) as u64).rotate_left(29) ^ ((c >> 3) as u64).rotate_left(37) }
                            6 => { let c = C as i64; let y = xv as i64; (c as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (c.max(y) as u64).rotate_left(29) ^ ((c >> 3) as u64).rotate_left(37) }
                            7 => { let c = C as u64; let y = xv as u64; c ^ c.wrapping_mul(y).rotate_left(7) ^ ((c < y) as u64) << 63 ^ c.wrapping_div(y | 1).rotate_left(17) ^ c.wrapping_rem(y | 1).rotate_left(23) ^ c.max(y).rotate_left(29) ^ (c >> 3).rotate_left(37) }
                            8 => { let c = C as isize; let y = xv as isize; (c as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.min(y) as u64).rotate_left(29) ^ ((c >> 5) as u64).rotate_left(37) }
                            9 => { let c = C as usize; let y = xv as usize; (c as u64) ^ (c.wrapping_mul(y) as u64).rotate_left(7) ^ ((c < y) as u64) << 63 ^ (c.wrapping_div(y | 1) as u64).rotate_left(17) ^ (c.min(y) as u64).rotate_left(29) ^ ((c >> 5) as u64).rotate_left(37) }
                            10 => { let c = C as f32; let y = xv as f32; (c.to_bits() as u64) ^ ((c * y).to_bits() as u64) << 32 ^ ((c < y) as u64) << 63 }
                            11 => { let c = C as f64; let y = xv as i32 as f64; c.to_bits() ^ (c + y).to_bits().rotate_left(13) ^ ((c >= y) as u64) << 63 }
                            // The constant in its own type, as the context types it.
                            _ => { let v: $src = C; let y = xv as $src; (v as i64 as u64) ^ (v.wrapping_mul(y) as u64).rotate_left(7) ^ ((v < y) as u64) << 63 ^ (v.wrapping_div(y | 1) as u64).rotate_left(17) ^ (v.wrapping_rem(y | 1) as u64).rotate_left(23) ^ (v.max(y) as u64).rotate_left(29) ^ ((v >> 3) as u64).rotate_left(37) ^ (v.count_ones() as u64) << 45 ^ (v == y) as u64 }
                        };
                    }
                }
            }
        )*

        #[test]
        fn outside_constants_cast_to_every_type() {
            let inputs: Vec<u64> = (0..13 * 8u64)
                .map(|k| match k / 13 {
                    0 => 0,
                    1 => 1,
                    2 => u64::MAX,
                    3 => 0x80,
                    4 => 0x8000_0000,
                    5 => 0x7fff,
                    _ => k.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                })
                .collect();
            $( check_map(stringify!($name), $name::k::PTX, &inputs, |x, o| $name::k(x, o), |s, c, i, o| $name::k::launch(s, c, i, o)); )*
        }
    };
}

const_cast_kernels! {
    i8_min: i8 = i8::MIN; i8_max: i8 = i8::MAX; i8_neg: i8 = -1; i8_mid: i8 = -100; i8_one: i8 = 1;
    u8_max: u8 = u8::MAX; u8_high: u8 = 0x81; u8_zero: u8 = 0; u8_mid: u8 = 100;
    i16_min: i16 = i16::MIN; i16_max: i16 = i16::MAX; i16_neg: i16 = -1; i16_byte: i16 = -129; i16_mid: i16 = 0x1234;
    u16_max: u16 = u16::MAX; u16_high: u16 = 0x8081; u16_byte: u16 = 0xff;
    i32_min: i32 = i32::MIN; i32_max: i32 = i32::MAX; i32_neg: i32 = -1; i32_word: i32 = -32769; i32_byte: i32 = 0x1_80;
    u32_max: u32 = u32::MAX; u32_high: u32 = 0x8000_8081; u32_mid: u32 = 1_000_000_007;
    i64_min: i64 = i64::MIN; i64_max: i64 = i64::MAX; i64_neg: i64 = -1; i64_wide: i64 = -0x1_0000_0001; i64_f32: i64 = (1 << 53) + 1;
    u64_max: u64 = u64::MAX; u64_high: u64 = 0x8000_0000_8000_8081; u64_round: u64 = (1 << 63) + (1 << 40) - 1;
    isize_min: isize = isize::MIN; isize_neg: isize = -3; isize_mid: isize = 0x7fff_ffff_ffff;
    usize_max: usize = usize::MAX; usize_high: usize = 0xffff_ff80; usize_one: usize = 1;
}
