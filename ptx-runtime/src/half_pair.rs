//! `+ - *` (and `+=`, `-=`, `*=`) on the packed pairs [`f16x2`] and [`bf16x2`] (CUDA's
//! `__half2` / `__nv_bfloat162` with `__hadd2_rn`, `__hsub2_rn`, `__hmul2_rn`): lane by lane
//! with the `half` crate, so the host computes exactly what `add.rn.f16x2` (and the other
//! forms the body compiler emits, `lower::half2`) compute on the device. The pair methods
//! (`mul_add`, `abs`, `min`, `max`, the lane-wise comparisons) are in `half_pair_math`.

use crate::vector::{bf16x2, f16x2};
use core::ops::{Add, AddAssign, Mul, MulAssign, Sub, SubAssign};

macro_rules! lanewise {
    ($($v:ident: $Op:ident $op:ident $OpAssign:ident $op_assign:ident),*) => {$(
        impl $Op for $v {
            type Output = $v;
            #[inline]
            fn $op(self, o: $v) -> $v {
                $v { x: self.x.$op(o.x), y: self.y.$op(o.y) }
            }
        }
        impl $OpAssign for $v {
            #[inline]
            fn $op_assign(&mut self, o: $v) {
                *self = (*self).$op(o);
            }
        }
    )*};
}

lanewise! {
    f16x2: Add add AddAssign add_assign, f16x2: Sub sub SubAssign sub_assign, f16x2: Mul mul MulAssign mul_assign,
    bf16x2: Add add AddAssign add_assign, bf16x2: Sub sub SubAssign sub_assign, bf16x2: Mul mul MulAssign mul_assign
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    #[test]
    fn lanes_are_the_scalar_operations() {
        let h = |x: f32| f16::from_f32(x);
        let (a, b) = (f16x2::new(h(1.5), h(65504.0)), f16x2::new(h(2.25), h(32.0)));
        assert_eq!(a + b, f16x2::new(h(1.5) + h(2.25), h(65504.0) + h(32.0)));
        assert!((a + b).y.is_infinite());
        assert_eq!(a * b, f16x2::new(h(1.5) * h(2.25), h(65504.0) * h(32.0)));
        let mut c = a;
        c -= b;
        assert_eq!(c, f16x2::new(h(-0.75), h(65472.0)));
        let g = |x: f32| bf16::from_f32(x);
        assert_eq!(bf16x2::new(g(1.0), g(3.0)) * bf16x2::new(g(0.5), g(-1.0)), bf16x2::new(g(0.5), g(-3.0)));
    }
}
