use ptx_runtime::kernel;

// Constants the macro cannot read from the source (a `const fn`'s values): rustc evaluates them.
const fn unread<V>(v: V) -> V {
    v
}
const BIG: i64 = unread(1 << 40);
const REPS: usize = unread(3);
const SMALL: i32 = unread(7);

// Nothing in the body fixes the type of `x * BIG` or of the loop's range: rustc knows the
// constants' types, the device compiler only has Rust's fallback `i32`. A wrong guess must be an
// error, not arithmetic in `i32` (`x * BIG` would be 0 on the device).
#[kernel]
pub fn k(out: &mut [u64]) {
    let x = 5;
    out[0] = (x * BIG) as u64;
    let mut n = 0;
    for _ in 0..REPS {
        n += 1;
    }
    out[1] = n as u64;
    // A right guess is fine.
    let y = 3;
    out[2] = (y * SMALL) as u64;
}

fn main() {}
