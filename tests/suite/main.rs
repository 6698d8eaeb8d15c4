//! The integration suite: one test binary (link time matters on small machines), one module
//! per concern.

mod tools;

mod abi_oracle;
mod atomics_oracle;
mod body_calls;
mod body_corpus;
mod body_exec;
mod body_fmad;
mod body_math;
mod body_methods;
mod body_memory;
mod body_opt;
mod body_parallel;
mod body_quality;
mod body_subset;
mod body_values;
mod corpus;
mod cpu_atomics;
mod cpu_cg;
mod cpu_features;
mod cpu_hang;
mod cpu_harness;
mod cpu_math;
mod cpu_memcheck;
mod cpu_nvcc;
mod cpu_ptx;
mod cpu_sregs;
mod cpu_syscalls;
mod cpu_warp;
mod difftest_cases;
mod expansion;
mod gpu;
mod launch_bounds;
mod regress;
mod regress_consts;
mod runtime;
mod runtime_devices;
mod runtime_events;
mod runtime_occupancy;
mod runtime_robust;
mod sys_assert;
mod sys_atomics;
mod sys_heap;
mod sys_printf;
