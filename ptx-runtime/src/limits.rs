//! Launch limits: the one table both backends check a launch against, `ptx_abi::launch` (the
//! CPU emulator uses it too). Its refusals (`LaunchError`) become this crate's `Error` by `?`.

pub use ptx_abi::launch::{
    check_bounds, check_dims, check_max_dynamic, check_shared, check_static_shared, max_active_blocks, max_potential_block_size,
    max_shared_opt_in, sm_limits, LaunchError, SmLimits, DEFAULT_MAX_SHARED_BYTES, MAX_BLOCK, MAX_GRID, MAX_SHARED_BYTES_ANY_ARCH,
    MAX_THREADS_PER_BLOCK, SHARED_OPT_IN, SM_LIMITS,
};
