// Tensor-core fragments carry their shape, role and element type: an A fragment passed as B,
// and an f16 fragment mixed with a bf16 one, are type errors (a wrong layout does not compile).
use ptx_runtime::device::mma::*;
use ptx_runtime::half::{bf16, f16};

fn a_as_b(a: FragmentA<M16N8K16, f16>, c: FragmentC<f32>) -> FragmentC<f32> {
    mma_sync(a, a, c)
}

fn f16_with_bf16(a: FragmentA<M16N8K16, f16>, b: FragmentB<M16N8K16, bf16>, c: FragmentC<f32>) -> FragmentC<f32> {
    mma_sync(a, b, c)
}

fn main() {}
