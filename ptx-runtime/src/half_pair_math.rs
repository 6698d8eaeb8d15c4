//! The packed pairs' remaining `__half2` / `__nv_bfloat162` operations, lane by lane on the
//! host exactly as the PTX ISA defines the packed instructions the body compiler emits
//! (`lower::half2_math`):
//!
//! | method | CUDA | PTX |
//! |--------|------|-----|
//! | `a.mul_add(b, c)` | `__hfma2` | `fma.rn.f16x2` (each lane rounded once) |
//! | `-a` | `__hneg2` | `neg.f16x2` |
//! | `a.abs()` | `__habs2` | `abs.f16x2` |
//! | `a.min(b)`, `a.max(b)` | `__hmin2`, `__hmax2` | `min.f16x2`, `max.f16x2` |
//! | `a.eq2(b)`, `ne2`, `lt2`, `le2`, `gt2`, `ge2` | `__heq2`, `__hneu2`, `__hlt2`, … | `set.<cmp>.f16x2.f16x2` (1.0 or 0.0 in each lane) |
//! | `a.all_eq(b)`, `all_ne`, `all_lt`, … | `__hbeq2`, `__hbneu2`, `__hblt2`, … | `set.<cmp>.u32.f16x2` + `setp` |
//!
//! `min`/`max` are the ISA's (IEEE 754-2019 `minimumNumber`): a NaN lane gives the other
//! operand's lane, two NaNs the canonical NaN, and `-0.0` is less than `+0.0`. `ne2` and
//! `all_ne` are the unordered `!=` (true when either lane is NaN), as Rust's `!=`; the others
//! are ordered (false on NaN).

use crate::device::HalfMath;
use crate::vector::{bf16x2, f16x2};
use core::ops::Neg;
use half::{bf16, f16};

/// The ISA's `min`/`max` of one lane (`minimumNumber` / `maximumNumber`).
fn min_max<T: Copy + PartialOrd>(x: T, y: T, max: bool, bits: fn(T) -> u16, nan: T) -> T {
    #[allow(clippy::eq_op)]
    let (nx, ny) = (x != x, y != y);
    match (nx, ny) {
        (true, true) => nan,
        (true, false) => y,
        (false, true) => x,
        _ if x == y => {
            // Equal (or ±0): the negative one is the minimum.
            let x_neg = bits(x) & 0x8000 != 0;
            if x_neg != max { x } else { y }
        }
        _ => {
            if (x < y) != max { x } else { y }
        }
    }
}

macro_rules! pair_math {
    ($($v:ident($t:ident)),*) => {$(
        impl $v {
            /// `self × b + c` in each lane, rounded once (CUDA `__hfma2`, PTX `fma.rn.*x2`).
            #[doc(alias = "__hfma2")]
            #[inline]
            pub fn mul_add(self, b: $v, c: $v) -> $v {
                $v { x: HalfMath::mul_add(self.x, b.x, c.x), y: HalfMath::mul_add(self.y, b.y, c.y) }
            }
            /// Each lane's magnitude (CUDA `__habs2`, PTX `abs.*x2`).
            #[doc(alias = "__habs2")]
            #[inline]
            pub fn abs(self) -> $v {
                $v { x: HalfMath::abs(self.x), y: HalfMath::abs(self.y) }
            }
            /// The lane-wise minimum as the PTX ISA defines `min` (CUDA `__hmin2`): a NaN
            /// lane gives the other lane, two NaNs a NaN, `-0.0 < +0.0`.
            #[doc(alias = "__hmin2")]
            #[inline]
            pub fn min(self, o: $v) -> $v {
                let m = |x, y| min_max(x, y, false, $t::to_bits, $t::NAN);
                $v { x: m(self.x, o.x), y: m(self.y, o.y) }
            }
            /// The lane-wise maximum as the PTX ISA defines `max` (CUDA `__hmax2`).
            #[doc(alias = "__hmax2")]
            #[inline]
            pub fn max(self, o: $v) -> $v {
                let m = |x, y| min_max(x, y, true, $t::to_bits, $t::NAN);
                $v { x: m(self.x, o.x), y: m(self.y, o.y) }
            }
        }
        impl Neg for $v {
            type Output = $v;
            /// Each lane's sign flipped (CUDA `__hneg2`, PTX `neg.*x2`).
            #[inline]
            fn neg(self) -> $v {
                $v { x: -self.x, y: -self.y }
            }
        }
        pair_cmp!($v($t): eq2 all_eq "__heq2" "__hbeq2" ==, ne2 all_ne "__hneu2" "__hbneu2" !=, lt2 all_lt "__hlt2" "__hblt2" <,
            le2 all_le "__hle2" "__hble2" <=, gt2 all_gt "__hgt2" "__hbgt2" >, ge2 all_ge "__hge2" "__hbge2" >=);
    )*};
}

macro_rules! pair_cmp {
    ($v:ident($t:ident): $($lanes:ident $all:ident $cuda:literal $cuda_all:literal $op:tt),*) => {
        impl $v {$(
            /// Lane-wise `self
            #[doc = stringify!($op)]
            /// o`: `1.0` in each lane where it holds, `0.0` where not (CUDA
            #[doc = $cuda]
            /// ).
            #[doc(alias = $cuda)]
            #[inline]
            pub fn $lanes(self, o: $v) -> $v {
                let f = |c: bool| if c { $t::ONE } else { $t::ZERO };
                $v { x: f(self.x $op o.x), y: f(self.y $op o.y) }
            }
            /// Whether `self
            #[doc = stringify!($op)]
            /// o` holds in both lanes (CUDA
            #[doc = $cuda_all]
            /// ).
            #[doc(alias = $cuda_all)]
            #[inline]
            pub fn $all(self, o: $v) -> bool {
                (self.x $op o.x) && (self.y $op o.y)
            }
        )*}
    };
}

pair_math!(f16x2(f16), bf16x2(bf16));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_follow_the_isa() {
        let h = |b: u16| f16::from_bits(b);
        let p = |x: u16, y: u16| f16x2::new(h(x), h(y));
        // +0 / -0: min is -0, max is +0, in either order.
        assert_eq!(p(0x0000, 0x8000).min(p(0x8000, 0x0000)), p(0x8000, 0x8000));
        assert_eq!(p(0x0000, 0x8000).max(p(0x8000, 0x0000)), p(0x0000, 0x0000));
        // One NaN: the other lane; two: a NaN.
        let one = 0x3c00;
        assert_eq!(p(0x7e00, one).min(p(one, 0x7e01)), p(one, one));
        assert!(p(0x7e00, 0).max(p(0xfe00, 0)).x.is_nan());
        assert_eq!(p(one, 0xbc00).max(p(0x4000, 0xc000)), p(0x4000, 0xbc00));
        let g = |x: f32| bf16::from_f32(x);
        assert_eq!(bf16x2::new(g(1.0), g(-2.0)).min(bf16x2::new(g(3.0), g(f32::NAN))), bf16x2::new(g(1.0), g(-2.0)));
    }

    #[test]
    fn comparisons_give_one_or_zero_per_lane() {
        let h = |x: f32| f16::from_f32(x);
        let (a, b) = (f16x2::new(h(1.0), h(f32::NAN)), f16x2::new(h(2.0), h(0.0)));
        assert_eq!(a.lt2(b), f16x2::new(f16::ONE, f16::ZERO));
        assert_eq!(a.ne2(b), f16x2::new(f16::ONE, f16::ONE));
        assert!(a.all_ne(b) && !a.all_lt(b) && !a.all_eq(a));
        assert_eq!((-a.abs()).x, h(-1.0));
        assert_eq!(a.mul_add(b, b).x, h(4.0));
    }
}
