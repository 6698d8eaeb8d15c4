//! The back end: runs a decoded [`Program`](super::program::Program).
//!
//! - `launch` is a launch's configuration; `grid` shares its blocks among host threads;
//!   `coop` runs a cooperative grid's blocks all at once, interleaved;
//!   `block` runs one block's warps and barriers (`barrier`) and reports blocks that cannot
//!   progress; `hang` finds blocks that cycle forever; `warp` holds a warp's lanes and picks
//!   which run together;
//!   `step` interprets instructions for a group of lanes; `frames` does calls and returns;
//!   `warpsync` the warp-synchronous instructions; `memops` memory accesses and memcheck;
//!   `syscall` and `printf` the system calls.
//! - The arithmetic: `int`, `fp`, `cvt` (lane-vectorized kernels over `lanes`), and
//!   `softfloat`, the exact rounding core.

pub mod async_copy;
pub mod barrier;
pub mod block;
pub mod bulk_store;
pub mod coop;
pub mod cvt;
pub mod fp;
pub mod frames;
pub mod grid;
pub mod hang;
pub mod int;
pub mod lanes;
pub mod launch;
pub mod memops;
pub mod matrix;
pub mod mma;
pub mod printf;
pub mod softfloat;
pub mod step;
pub mod syscall;
pub mod texture;
pub mod warp;
pub mod warpsync;
