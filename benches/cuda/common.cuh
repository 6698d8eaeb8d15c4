// Shared by the CUDA C twins of the corpus kernels (benches/cuda/*.cu).
//
// Each twin does the work its Rust kernel does, so that the comparison measures the
// compilers and not the programs:
// - a Rust slice `&[T]` is a pointer and a length (`const T* __restrict__` for `&[T]`, whose
//   data Rust guarantees nobody writes meanwhile; `T*` for `&mut [T]`);
// - every index Rust checks is checked here with `BOUNDS`, whose failure calls
//   `__assertfail` as our failed checks do (shared arrays are checked too, as
//   `SharedArray` indexing is);
// - `usize` is 64-bit, `u32` is `unsigned`, and integer arithmetic wraps in both;
// - floats: compile with `-fmad=false`, because Rust's `a * b + c` rounds twice.
#include <assert.h>

typedef unsigned long long usize;

#define BOUNDS(i, len) assert((i) < (len))
