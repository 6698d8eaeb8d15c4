//! A PTX emulator with a memcheck: loads PTX text — from `nvcc -ptx`, Triton, ptx-macros or
//! any other producer — and runs its kernels on the CPU with a GPU's semantics: exact integer
//! and correctly rounded float results, warps of 32 lanes stepping together, barriers, shuffles,
//! votes, atomics, `printf`, `malloc`, `__assertfail`, and CUDA's launch limits for the
//! module's `.target`. Every memory access is checked; a fault is an `Err` naming the kernel,
//! block, thread, address and PTX line, never undefined behaviour on the host.
//!
//! Device memory is addressed by 64-bit device addresses, as on a GPU; every `.entry`
//! parameter is passed as its bytes, exactly its declared size, in order:
//!
//! ```
//! use ptx_cpu::CpuDevice;
//!
//! const PTX: &str = r#"
//! .version 7.0
//! .target sm_75
//! .address_size 64
//! .visible .entry add_one(.param .u64 p, .param .u32 n)
//! {
//!     .reg .pred %p;
//!     .reg .b32 %r<4>;
//!     .reg .b64 %rd<4>;
//!     ld.param.u64 %rd1, [p];
//!     ld.param.u32 %r1, [n];
//!     mov.u32 %r2, %tid.x;
//!     setp.ge.u32 %p, %r2, %r1;
//!     @%p ret;
//!     cvta.to.global.u64 %rd2, %rd1;
//!     mul.wide.u32 %rd3, %r2, 4;
//!     add.s64 %rd2, %rd2, %rd3;
//!     ld.global.u32 %r3, [%rd2];
//!     add.u32 %r3, %r3, 1;
//!     st.global.u32 [%rd2], %r3;
//!     ret;
//! }
//! "#;
//!
//! # fn main() -> ptx_cpu::Result<()> {
//! let dev = CpuDevice::new();
//! let module = dev.load_module(PTX)?;
//! let buf = dev.alloc(8 * 4)?;
//! dev.write(buf, &[7u8; 32])?;
//! let n = 8u32;
//! dev.launch(&module, "add_one", [1, 1, 1], [32, 1, 1], 0, &[&buf.to_le_bytes(), &n.to_le_bytes()])?;
//! let mut out = [0u8; 4];
//! dev.read(buf, &mut out)?;
//! assert_eq!(u32::from_le_bytes(out), 0x0707_0708);
//! // One element too few: the memcheck reports the thread and the access.
//! let short = 4u32;
//! let err = dev.launch(&module, "add_one", [1, 1, 1], [32, 1, 1], 0, &[&(buf + 20).to_le_bytes(), &short.to_le_bytes()]);
//! assert!(matches!(err, Err(ptx_cpu::Error::Fault(f)) if f.thread == [3, 0, 0]));
//! # Ok(())
//! # }
//! ```
//!
//! Where the PTX has `.file`/`.loc` line information (nvcc `-lineinfo`), every report names
//! the source `file:line:column` first ([`Fault::source`], [`Site`]). Racecheck, initcheck,
//! synccheck and leakcheck ([`Sanitizers`]) are switched on per device, per launch or by
//! `PTX_SANITIZE`.
//!
//! The API: [`CpuDevice`] (`alloc`/`alloc_uninit`/`free`, `write`/`read`/`copy`, `load_module`,
//! `launch`, settings: heap, stack, watchdog, parallelism, `printf` capture, sanitizers), [`CpuModule`] (entries,
//! their parameters, module variables), [`Error`] and [`Fault`]. `examples/run_ptx.rs` is a
//! command-line runner: a `.ptx` file, an entry, a grid and typed arguments in; the buffers,
//! the `printf` output and the memcheck's report out.
//!
//! How it works: `parse` reads the PTX text into a syntax tree; `decode` resolves names and
//! turns each instruction into a compact operation bound to a lane-vectorized kernel
//! (`program`); `exec` runs the grid — blocks in parallel on host threads, warps of 32 lanes
//! stepping together, every memory access checked. See `docs/cpu-backend.md` (in the
//! repository) for the exact semantics and limits. `ptx-runtime` uses it as its CPU backend.

mod decode;
mod error;
mod exec;
mod heap;
mod lineinfo;
mod link;
mod memory;
mod parse;
mod program;
mod report;
mod sanitize;
pub mod texture;

/// The tensor-core tables (fragment layouts, the documented `mma` arithmetic, the `ldmatrix`
/// layout) that `ptx_runtime::device::mma`'s host definitions share with this backend, so the
/// host run of a body and its CPU-backend run compute the same thing.
#[doc(hidden)]
pub mod tensor {
    pub use crate::exec::matrix::element as matrix_element;
    pub use crate::exec::mma::{layout, multiply, warp_mma};
    pub use crate::program::MmaKind;
}

pub use error::{Error, Fault, FaultKind, Result, Site, SourceLoc};
#[doc(hidden)]
pub use error::write_assert;
#[doc(hidden)]
pub use report::assertion;
use heap::DeviceHeap;
use memory::{GlobalMemory, RegionKind};
use program::{FuncKind, Program, Syscall};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use heap::DEFAULT_HEAP_SIZE;
pub use link::{link, link_partial};
pub use sanitize::{Sanitizers, SANITIZE_ENV};
/// C's `printf` formatting, which `vprintf` uses; `ptx-runtime`'s `printf!` on the host
/// formats with it too.
pub use exec::printf::{format as printf_format, Args as PrintfArgs};

/// Most shared memory one block may use (static plus dynamic) on any architecture; a launch
/// is held to its module's architecture ([`ptx_abi::launch`]).
pub const MAX_SHARED_BYTES: u32 = ptx_abi::launch::MAX_SHARED_BYTES_ANY_ARCH;
/// The architecture a module without a readable `.target sm_XY` is held to (`#[kernel]`'s
/// default target).
pub const DEFAULT_SM: u32 = ptx_abi::target::DEFAULT_SM;
/// The watchdog's default limit per launch: far above any launch of the test suite (the
/// longest takes seconds in a debug build), so it only ends kernels that would never return.
/// Loops the backend can prove endless are reported at once, without waiting for it.
pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(60);
/// The environment variable that sets the watchdog of new devices: seconds (`2.5`), or `off`.
pub const WATCHDOG_ENV: &str = "PTX_CPU_WATCHDOG";
/// Default bytes of local memory per thread (its `.local` frames; call parameters separately).
pub const DEFAULT_STACK_SIZE: u32 = 256 * 1024;

static DEVICE_IDS: AtomicU64 = AtomicU64::new(1);

/// One CPU "device": its global memory, device heap and settings.
pub struct CpuDevice {
    id: u64,
    memory: Arc<GlobalMemory>,
    settings: Mutex<Settings>,
    heap: Mutex<Option<Arc<DeviceHeap>>>,
    captured: Mutex<Vec<u8>>,
    launches: AtomicU64,
    stats: Mutex<LaunchStats>,
    /// Texture and surface objects ([`texture`]).
    objects: Arc<texture::ObjectTable>,
}

/// Counts from the most recent launch on a device.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LaunchStats {
    /// Instructions executed, counted once per thread that executed them (a warp-wide add with
    /// 32 active lanes counts 32; a predicated-off lane counts nothing).
    pub thread_instructions: u64,
    /// Instructions executed, counted once per group of lanes stepping together.
    pub warp_instructions: u64,
    /// Wall-clock time of the launch.
    pub elapsed: Duration,
}

#[derive(Clone)]
struct Settings {
    heap_size: u64,
    stack_size: u32,
    watchdog: Option<Duration>,
    /// An unreadable `PTX_CPU_WATCHDOG`, reported by every launch until `set_watchdog`.
    watchdog_env_error: Option<String>,
    capture_printf: bool,
    workers: u32,
    strict_barriers: bool,
    sanitizers: Sanitizers,
    /// An unreadable `PTX_SANITIZE`, reported by every launch until `set_sanitizers`.
    sanitize_env_error: Option<String>,
}

/// A parsed, decoded module, with its `.global`/`.const` variables placed in device memory.
pub struct CpuModule {
    device: u64,
    program: Program,
    memory: Arc<GlobalMemory>,
    vars: HashMap<String, (u64, u64)>,
    uses_heap: bool,
    /// The compute capability the module targets, whose launch limits the backend enforces.
    sm: u32,
    /// Its `.file`/`.loc` line information, for the source locations of reports.
    lines: lineinfo::LineInfo,
    /// Its failed checks' slots and the words they point at.
    reports: report::Reports,
}

impl Drop for CpuModule {
    fn drop(&mut self) {
        for (addr, _) in self.vars.values() {
            self.memory.free(*addr);
        }
        for addr in self.reports.words() {
            self.memory.free(addr);
        }
    }
}

impl CpuModule {
    /// The `.entry` names.
    pub fn entries(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.program.entries.keys().map(String::as_str).collect();
        v.sort();
        v
    }

    /// The device address and size of a module-scope `.global` or `.const` variable (what
    /// `cuModuleGetGlobal` gives); `write`/`read` reach it there.
    pub fn symbol(&self, name: &str) -> Option<(u64, usize)> {
        self.vars.get(name).map(|&(a, s)| (a, s as usize))
    }

    /// The compute capability whose limits launches of this module are held to: its
    /// `.target sm_XY` (the GPU it was compiled for), else [`DEFAULT_SM`].
    pub fn compute_capability(&self) -> u32 {
        self.sm
    }

    /// How many blocks of `entry` with `block_threads` threads and `dynamic` bytes of dynamic
    /// shared memory one SM of the module's architecture holds at once, as CUDA's
    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` counts them from the limits table
    /// ([`ptx_abi::launch::SM_LIMITS`]), the entry's static shared memory and launch bounds.
    /// Registers are not counted: the emulator has no register allocation, so a kernel that
    /// a GPU limits by registers gets a higher number here than there.
    pub fn max_active_blocks(&self, entry: &str, block_threads: u32, dynamic: u32) -> Result<u32> {
        let (static_bytes, bounds) = self.occupancy_inputs(entry)?;
        Ok(ptx_abi::launch::max_active_blocks(self.sm, entry, &bounds, block_threads, static_bytes, dynamic)?)
    }

    /// The block size that keeps the most threads of `entry` resident per SM, and how many
    /// blocks of it fit (`(block_threads, blocks_per_sm)`), as CUDA's
    /// `cudaOccupancyMaxPotentialBlockSize` picks it; registers are not counted (see
    /// [`max_active_blocks`](Self::max_active_blocks)).
    pub fn max_potential_block_size(&self, entry: &str, dynamic: u32) -> Result<(u32, u32)> {
        let (static_bytes, bounds) = self.occupancy_inputs(entry)?;
        Ok(ptx_abi::launch::max_potential_block_size(self.sm, entry, &bounds, static_bytes, dynamic)?)
    }

    /// The entry's static shared memory and launch bounds.
    fn occupancy_inputs(&self, entry: &str) -> Result<(u32, ptx_abi::launch::LaunchBounds)> {
        let Some(&e) = self.program.entries.get(entry) else {
            return Err(Error::InvalidConfig { reason: format!("the module has no kernel `{entry}` (its kernels: {})", self.entries().join(", ")) });
        };
        let static_bytes = self.program.shared_layout.get(&e).map_or(0, |l| l.static_size);
        Ok((static_bytes, self.program.bounds.get(&e).copied().unwrap_or_default()))
    }

    /// An entry's parameters as (size, alignment) in declaration order.
    pub fn entry_params(&self, entry: &str) -> Option<Vec<(usize, usize)>> {
        let f = &self.program.funcs[*self.program.entries.get(entry)? as usize];
        Some(f.params.iter().map(|p| (p.size as usize, p.align as usize)).collect())
    }
}

impl Default for CpuDevice {
    fn default() -> Self {
        CpuDevice::new()
    }
}

impl CpuDevice {
    /// A device with empty memory, an 8 MiB heap, 256 KiB of local memory per thread, a
    /// watchdog of [`DEFAULT_WATCHDOG`] (or what `PTX_CPU_WATCHDOG` says), `printf` to
    /// standard output, and one worker per host core.
    pub fn new() -> CpuDevice {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        let (watchdog, watchdog_env_error) = match std::env::var(WATCHDOG_ENV) {
            Ok(v) => match parse_watchdog(&v) {
                Some(w) => (w, None),
                None => (Some(DEFAULT_WATCHDOG), Some(format!("{WATCHDOG_ENV}={v:?}: expected a number of seconds or `off`"))),
            },
            Err(_) => (Some(DEFAULT_WATCHDOG), None),
        };
        let (sanitizers, sanitize_env_error) = match Sanitizers::from_env() {
            Ok(s) => (s, None),
            Err(e) => (Sanitizers::NONE, Some(e)),
        };
        CpuDevice {
            id: DEVICE_IDS.fetch_add(1, Ordering::Relaxed),
            memory: Arc::new(GlobalMemory::new()),
            settings: Mutex::new(Settings {
                heap_size: DEFAULT_HEAP_SIZE,
                stack_size: DEFAULT_STACK_SIZE,
                watchdog,
                watchdog_env_error,
                capture_printf: false,
                workers,
                strict_barriers: false,
                sanitizers,
                sanitize_env_error,
            }),
            heap: Mutex::new(None),
            captured: Mutex::new(Vec::new()),
            launches: AtomicU64::new(0),
            stats: Mutex::new(LaunchStats::default()),
            objects: Arc::default(),
        }
    }

    /// This device's identity, unique in the process (modules and memory belong to one).
    pub fn id(&self) -> u64 {
        self.id
    }

    fn settings(&self) -> std::sync::MutexGuard<'_, Settings> {
        self.settings.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates `bytes` of zeroed device memory; the address is 256-byte aligned, never 0.
    pub fn alloc(&self, bytes: usize) -> Result<u64> {
        self.memory.alloc(bytes as u64, RegionKind::Alloc).map(|r| r.base).ok_or(Error::OutOfMemory { requested: bytes })
    }

    /// Allocates `bytes` of device memory whose contents count as never written, as
    /// `cudaMalloc`'s are: they read as zeros, but with initcheck on
    /// ([`set_sanitizers`](Self::set_sanitizers)) a kernel's load of a byte that neither the
    /// host nor a kernel has written is an `Uninitialized` fault.
    pub fn alloc_uninit(&self, bytes: usize) -> Result<u64> {
        self.memory.alloc_with(bytes as u64, RegionKind::Alloc, true).map(|r| r.base).ok_or(Error::OutOfMemory { requested: bytes })
    }

    /// Switches the sanitizers (racecheck, initcheck, synccheck, leakcheck) on or off for
    /// this device's launches; all are off unless `PTX_SANITIZE` says otherwise (see the
    /// `Sanitizers` type and `docs/cpu-backend.md` for what each finds and costs).
    pub fn set_sanitizers(&self, sanitizers: Sanitizers) {
        let mut s = self.settings();
        s.sanitizers = sanitizers;
        s.sanitize_env_error = None;
    }

    /// The sanitizers this device's launches run.
    pub fn sanitizers(&self) -> Sanitizers {
        self.settings().sanitizers
    }

    /// Frees an allocation from [`alloc`](Self::alloc) (not a module variable or heap block).
    pub fn free(&self, addr: u64) -> Result<()> {
        let table = self.memory.snapshot();
        match table.iter().find(|r| r.base == addr) {
            Some(r) if r.kind == RegionKind::Alloc => {
                self.memory.free(addr);
                Ok(())
            }
            _ => Err(Error::InvalidBuffer { reason: format!("free of {addr:#x}, which is not an allocation") }),
        }
    }

    /// Copies host bytes to device memory (an allocation or a module variable).
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        let table = self.memory.snapshot();
        let r = host_region(&table, addr, data.len())?;
        r.write_bytes(addr - r.base, data);
        self.memory.host_writes.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Copies device memory (an allocation or a module variable) to the host.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        let table = self.memory.snapshot();
        let r = host_region(&table, addr, out.len())?;
        r.read_bytes(addr - r.base, out);
        Ok(())
    }

    /// Copies `bytes` between device addresses (each range inside one allocation).
    pub fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        // Both ranges are checked before the staging buffer is sized by `bytes`.
        let table = self.memory.snapshot();
        host_region(&table, src, bytes)?;
        host_region(&table, dst, bytes)?;
        let mut tmp = vec![0u8; bytes];
        self.read(src, &mut tmp)?;
        self.write(dst, &tmp)
    }

    /// Sets the size of the device heap `malloc` allocates from (CUDA's
    /// `cudaLimitMallocHeapSize`, 8 MiB by default). Fails while blocks from the current heap
    /// are still allocated.
    pub fn set_heap_size(&self, bytes: usize) -> Result<()> {
        let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = heap.as_ref() {
            if h.live_blocks() > 0 {
                return Err(Error::InvalidConfig { reason: "the device heap cannot be resized while device-malloc'd blocks are live".into() });
            }
            self.memory.free(h.region.base);
            *heap = None;
        }
        self.settings().heap_size = bytes as u64;
        Ok(())
    }

    /// The size of the device heap, in bytes (see [`set_heap_size`](CpuDevice::set_heap_size)).
    pub fn heap_size(&self) -> usize {
        self.settings().heap_size as usize
    }

    /// Sets the bytes of local memory each thread may use (its `.local` variables and call
    /// frames); deeper recursion faults as a stack overflow.
    pub fn set_stack_size(&self, bytes: usize) {
        self.settings().stack_size = bytes.min(u32::MAX as usize) as u32;
    }

    /// Ends a launch that runs longer than `limit` (wall-clock) with a `Deadlock` fault;
    /// `None` turns the watchdog off. On by default ([`DEFAULT_WATCHDOG`], or
    /// `PTX_CPU_WATCHDOG`), so no launch hangs forever: a loop whose state never repeats (a
    /// counter spinning until a flag no thread writes) cannot be told from a slow one, while
    /// loops that provably never end are reported at once.
    pub fn set_watchdog(&self, limit: Option<Duration>) {
        let mut s = self.settings();
        s.watchdog = limit;
        s.watchdog_env_error = None;
    }

    /// The watchdog's limit (see [`set_watchdog`](Self::set_watchdog)).
    pub fn watchdog(&self) -> Option<Duration> {
        self.settings().watchdog
    }

    /// With `true`, `printf` output is kept for [`take_printf_output`](Self::take_printf_output)
    /// instead of going to standard output after each launch.
    pub fn set_printf_capture(&self, capture: bool) {
        self.settings().capture_printf = capture;
    }

    /// The captured `printf` output so far (blocks in order of their linear index, each block's
    /// output in the order its threads printed), emptying the buffer.
    pub fn take_printf_output(&self) -> String {
        let v = std::mem::take(&mut *self.captured.lock().unwrap_or_else(|e| e.into_inner()));
        String::from_utf8_lossy(&v).into_owned()
    }

    /// With `true`, a `bar.sync` without a thread count that completes only because some
    /// threads of the block exited before reaching it is a `BarrierDivergence` fault. By
    /// default exited threads do not hold a barrier up, as on the GPU, so the common
    /// `if (i >= n) return; … __syncthreads();` works; CUDA calls it undefined behaviour, and
    /// strict mode finds it.
    pub fn set_strict_barriers(&self, strict: bool) {
        self.settings().strict_barriers = strict;
    }

    /// Host threads that run blocks in parallel (default: the machine's parallelism).
    pub fn set_parallelism(&self, threads: usize) {
        self.settings().workers = threads.clamp(1, 1024) as u32;
    }

    /// How many host threads run a launch's blocks.
    pub fn parallelism(&self) -> usize {
        self.settings().workers as usize
    }

    /// Parses and decodes a module, placing its `.global`/`.const` variables (initialized) in
    /// device memory for as long as the module lives. Malformed module-level PTX is
    /// `Error::PtxLoad` with the line; instructions the backend does not implement, and
    /// function bodies that do not decode, are reported by the launches that can reach them.
    pub fn load_module(&self, ptx: &str) -> Result<Arc<CpuModule>> {
        let ast = parse::parse(ptx).map_err(|e| Error::PtxLoad { log: format!("line {}: {}", e.line, e.message) })?;
        let load_err = |e: decode::DecodeError| Error::PtxLoad { log: format!("line {}: {}", e.line, e.message) };
        let vars = decode::module_vars(&ast).map_err(load_err)?;
        let mut module = CpuModule {
            device: self.id,
            program: Program {
                insts: Vec::new(),
                funcs: Vec::new(),
                entries: HashMap::new(),
                func_by_name: HashMap::new(),
                shared_vars: Vec::new(),
                shared_layout: HashMap::new(),
                unsupported: HashMap::new(),
                bounds: HashMap::new(),
            },
            memory: self.memory.clone(),
            vars: HashMap::new(),
            uses_heap: false,
            sm: target_sm(&ast.target),
            lines: lineinfo::LineInfo::scan(ptx),
            reports: report::Reports::default(),
        };
        let mut regions = HashMap::new();
        for v in &vars {
            if v.align as u64 > memory::ALLOC_ALIGN {
                return Err(Error::PtxLoad { log: format!("`{}`: alignment {} exceeds the {} bytes device memory guarantees", v.name, v.align, memory::ALLOC_ALIGN) });
            }
            let r = self
                .memory
                .alloc(v.size, RegionKind::Var { name: v.name.clone(), constant: v.constant })
                .ok_or(Error::OutOfMemory { requested: v.size as usize })?;
            module.vars.insert(v.name.clone(), (r.base, v.size));
            regions.insert(v.name.clone(), r);
        }
        let addrs: HashMap<String, u64> = module.vars.iter().map(|(k, v)| (k.clone(), v.0)).collect();
        module.program = decode::decode(&ast, &addrs).map_err(load_err)?;
        for v in &vars {
            let mut image = v.init.clone();
            for (off, sym, addend, _generic) in &v.relocs {
                let target = match (addrs.get(sym), module.program.func_by_name.get(sym)) {
                    (Some(&a), _) => a,
                    (None, Some(&f)) => program::func_address(f),
                    _ => return Err(Error::PtxLoad { log: format!("initializer of `{}` refers to unknown symbol `{sym}`", v.name) }),
                };
                let val = target.wrapping_add(*addend as u64);
                let slot = (*off as usize).checked_add(8).and_then(|end| image.get_mut(*off as usize..end));
                let Some(slot) = slot else {
                    return Err(Error::PtxLoad { log: format!("initializer of `{}`: a symbol address at byte {off} is past its end", v.name) });
                };
                slot.copy_from_slice(&val.to_le_bytes());
            }
            regions[&v.name].write_bytes(0, &image);
        }
        for (name, &e) in &module.program.entries {
            let static_bytes = module.program.shared_layout.get(&e).map_or(0, |l| l.static_size);
            ptx_abi::launch::check_static_shared(name, static_bytes as u64)?;
        }
        module.reports = report::Reports::arm(ptx, &module.vars, &self.memory)?;
        module.uses_heap = module.program.funcs.iter().any(|f| matches!(f.kind, FuncKind::Syscall(Syscall::Malloc) | FuncKind::Syscall(Syscall::Free)));
        Ok(Arc::new(module))
    }

    /// Links PTX modules (a name for messages, and the text) with [`link`] and loads the
    /// result: `.extern` functions and variables resolve across the modules, and unresolved
    /// or duplicate symbols are an `Err(Error::Link)` naming them.
    pub fn link_modules(&self, inputs: &[(&str, &str)]) -> Result<Arc<CpuModule>> {
        self.load_module(&link(inputs)?)
    }

    /// Runs `entry` over the grid and returns when every block has finished, or with the
    /// first error (a fault names the kernel, block, thread, address and PTX line).
    ///
    /// `params` holds each `.entry` parameter's bytes in declaration order, each exactly its
    /// declared size (little-endian; a slice is `{u64 address, u64 length}`); they are laid
    /// out at the declaration's offsets. `printf` output is written (or captured) when the
    /// launch ends, also when it fails.
    pub fn launch(
        &self,
        module: &CpuModule,
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared_bytes: u32,
        params: &[&[u8]],
    ) -> Result<()> {
        self.launch_opt_in(module, entry, grid, block, (dynamic_shared_bytes, None), params)
    }

    /// [`launch`](Self::launch) with an opt-in to more than 48 KiB of shared memory:
    /// `shared` is (dynamic bytes, the most dynamic bytes the launch opts in to), as CUDA's
    /// `cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, max)` allows up to
    /// the module architecture's limit ([`ptx_abi::launch::SHARED_OPT_IN`]).
    pub fn launch_opt_in(
        &self,
        module: &CpuModule,
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        shared: (u32, Option<u32>),
        params: &[&[u8]],
    ) -> Result<()> {
        let sanitizers = self.settings().sanitizers;
        self.launch_with_sanitizers(module, entry, grid, block, shared, params, sanitizers)
    }

    /// [`launch_opt_in`](Self::launch_opt_in) running `sanitizers` instead of the device's
    /// ([`set_sanitizers`](Self::set_sanitizers)): what a runtime stream with sanitizers of
    /// its own uses.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_with_sanitizers(
        &self,
        module: &CpuModule,
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        shared: (u32, Option<u32>),
        params: &[&[u8]],
        sanitizers: Sanitizers,
    ) -> Result<()> {
        self.launch_with(module, entry, grid, block, shared, params, sanitizers, false)
    }

    /// A cooperative launch (CUDA's `cuLaunchCooperativeKernel`): every block of the grid is
    /// resident at once, so blocks may wait for each other — cooperative groups'
    /// `this_grid().sync()`, whose barrier word lives in a grid workspace the kernel finds at
    /// `%envreg1:%envreg2` (set here, 0 in an ordinary launch). The blocks run interleaved, a
    /// time slice each in turn, never one after another. Arguments as
    /// [`launch_opt_in`](Self::launch_opt_in), under the device's sanitizers; `Err(InvalidConfig)` for a
    /// grid larger than the device holds at once: [`CpuModule::max_active_blocks`] per "SM",
    /// one SM per worker thread ([`parallelism`](Self::parallelism)), as CUDA refuses a grid
    /// its SMs cannot hold.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_cooperative(
        &self,
        module: &CpuModule,
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        shared: (u32, Option<u32>),
        params: &[&[u8]],
    ) -> Result<()> {
        ptx_abi::launch::check_dims(grid, block)?;
        let threads = block.iter().product::<u32>();
        let per_sm = module.max_active_blocks(entry, threads, shared.0)? as u64;
        let most = per_sm * self.parallelism() as u64;
        let blocks = grid.iter().map(|&d| d as u64).product::<u64>();
        if blocks > most {
            return Err(Error::InvalidConfig {
                reason: format!(
                    "a cooperative launch of `{entry}` with {blocks} blocks of {threads} threads: at most {most} can be resident at once ({per_sm} per SM × {} SMs, one per worker thread)",
                    self.parallelism()
                ),
            });
        }
        // Read before the call: the settings' guard must not live through the launch.
        let sanitizers = self.settings().sanitizers;
        self.launch_with(module, entry, grid, block, shared, params, sanitizers, true)
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_with(
        &self,
        module: &CpuModule,
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        shared: (u32, Option<u32>),
        params: &[&[u8]],
        sanitizers: Sanitizers,
        cooperative: bool,
    ) -> Result<()> {
        let (dynamic_shared_bytes, max_dynamic) = shared;
        if module.device != self.id {
            return Err(Error::InvalidConfig { reason: "the module was loaded on another device".into() });
        }
        let prog = &module.program;
        let Some(&e) = prog.entries.get(entry) else {
            return Err(Error::InvalidConfig { reason: format!("the module has no kernel `{entry}` (its kernels: {})", module.entries().join(", ")) });
        };
        ptx_abi::launch::check_dims(grid, block)?;
        if let Some(b) = prog.bounds.get(&e) {
            ptx_abi::launch::check_bounds(entry, block, b)?;
        }
        let layout = prog.shared_layout.get(&e).cloned().unwrap_or_default();
        ptx_abi::launch::check_shared(module.sm, layout.static_size, dynamic_shared_bytes, max_dynamic)?;
        let shared_size = layout.static_size as u64 + dynamic_shared_bytes as u64;
        let f = &prog.funcs[e as usize];
        if params.len() != f.params.len() {
            return Err(Error::InvalidConfig { reason: format!("`{entry}` takes {} parameter(s), {} given", f.params.len(), params.len()) });
        }
        let mut kparams = vec![0u8; f.kparam_size as usize];
        for (i, (p, slot)) in params.iter().zip(&f.params).enumerate() {
            if p.len() != slot.size as usize {
                return Err(Error::InvalidConfig {
                    reason: format!("parameter {i} of `{entry}` is {} bytes, {} given", slot.size, p.len()),
                });
            }
            let at = slot.offset as usize;
            let Some(dst) = kparams.get_mut(at..at + p.len()) else {
                return Err(Error::InvalidConfig { reason: format!("parameter {i} of `{entry}` lies outside the parameter space") });
            };
            dst.copy_from_slice(p);
        }
        if let Some((what, line)) = prog.unsupported.get(&e) {
            return Err(Error::Unsupported { instruction: what.clone(), line: *line as usize });
        }
        let settings = self.settings().clone();
        if let Some(reason) = settings.watchdog_env_error.clone().or(settings.sanitize_env_error.clone()) {
            return Err(Error::InvalidConfig { reason });
        }
        let heap = if module.uses_heap { Some(self.heap(&settings)?) } else { None };
        // Cooperative groups' grid workspace: `{ u32 size; u32 barrier; }`, zeroed.
        let workspace = if cooperative { Some(Workspace(&self.memory, self.alloc(8)?)) } else { None };
        let l = exec::launch::Launch {
            prog,
            entry: e,
            kernel: entry,
            grid,
            block,
            dyn_shared: dynamic_shared_bytes,
            shared_size: (shared_size + layout.reserved as u64) as u32,
            reserved_shared: layout.reserved,
            shared_offsets: layout.offsets,
            kparams,
            table: self.memory.snapshot(),
            heap,
            objects: &self.objects,
            stack_bytes: settings.stack_size,
            deadline: settings.watchdog.and_then(|d| Instant::now().checked_add(d)),
            strict_barriers: settings.strict_barriers,
            workers: settings.workers,
            grid_id: self.launches.fetch_add(1, Ordering::Relaxed) + 1,
            failed: AtomicU64::new(u64::MAX),
            host_writes: &self.memory.host_writes,
            lines: &module.lines,
            sanitize: sanitizers,
            grid_workspace: workspace.as_ref().map_or(0, |w| w.1),
        };
        let start = Instant::now();
        let outcome = if cooperative { exec::coop::run(&l) } else { exec::grid::run(&l) };
        drop(workspace);
        *self.stats.lock().unwrap_or_else(|e| e.into_inner()) = LaunchStats {
            thread_instructions: outcome.thread_insts,
            warp_instructions: outcome.warp_insts,
            elapsed: start.elapsed(),
        };
        if !outcome.output.is_empty() {
            if settings.capture_printf {
                self.captured.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&outcome.output);
            } else {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(&outcome.output);
                let _ = out.flush();
            }
        }
        let leak = match (&outcome.error, &l.heap) {
            (None, Some(h)) if sanitizers.leak => sanitize::leak::check(h, l.grid_id, entry, &module.lines),
            _ => None,
        };
        outcome.error.map(|e| module.reports.error(&self.memory, e)).or(leak).map_or(Ok(()), Err)
    }

    /// Counts from the most recent launch (instruction totals for throughput measurements).
    pub fn last_launch_stats(&self) -> LaunchStats {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn heap(&self, s: &Settings) -> Result<Arc<DeviceHeap>> {
        let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = heap.as_ref() {
            return Ok(h.clone());
        }
        let h = Arc::new(DeviceHeap::new(&self.memory, s.heap_size).ok_or(Error::OutOfMemory { requested: s.heap_size as usize })?);
        *heap = Some(h.clone());
        Ok(h)
    }
}

/// A cooperative launch's grid workspace, freed when the launch ends.
struct Workspace<'a>(&'a GlobalMemory, u64);

impl Drop for Workspace<'_> {
    fn drop(&mut self) {
        self.0.free(self.1);
    }
}

/// A `PTX_CPU_WATCHDOG` value: `off` (or `0`), or seconds; `None` when it is neither.
fn parse_watchdog(v: &str) -> Option<Option<Duration>> {
    match v.trim() {
        "off" | "none" | "0" => Some(None),
        s => s.parse::<f64>().ok().and_then(|secs| Duration::try_from_secs_f64(secs).ok()).map(|d| (!d.is_zero()).then_some(d)),
    }
}

/// The compute capability a `.target` names (`sm_90a` → 90), else [`DEFAULT_SM`].
fn target_sm(target: &[String]) -> u32 {
    target
        .iter()
        .find_map(|t| {
            let digits: String = t.strip_prefix("sm_")?.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .unwrap_or(DEFAULT_SM)
}

/// The allocation or variable the host may access at `[addr, addr + len)`.
fn host_region(table: &[Arc<memory::Region>], addr: u64, len: usize) -> Result<&Arc<memory::Region>> {
    match memory::find(table, addr, len as u64) {
        Some(r) if r.kind != RegionKind::Heap => Ok(r),
        _ => Err(Error::InvalidBuffer { reason: format!("{len} bytes at {addr:#x} are not inside one device allocation") }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn _device_and_module_are_thread_safe() {
        fn check<T: Send + Sync>() {}
        check::<CpuDevice>();
        check::<CpuModule>();
    }

    /// A module in nvcc's style touching most of the machinery: calls, shared and local
    /// memory, atomics, shuffles, printf, malloc.
    const SAMPLE: &str = r#".version 7.8
.target sm_75
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.global .align 1 .b8 $str[6] = {37, 100, 32, 37, 100};
.global .align 8 .u64 tab[1] = {f};
.func (.param .b32 r) f(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [x];
    mul.lo.s32 %r2, %r1, %r1;
    st.param.b32 [r], %r2;
    ret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
    .local .align 8 .b8 __local_depot0[16];
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .shared .align 4 .b8 sh[256];
    mov.u64 %rd9, __local_depot0;
    cvta.local.u64 %rd10, %rd9;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, sh;
    add.s32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r2;
    bar.sync 0;
    ld.shared.u32 %r6, [%r5];
    shfl.sync.bfly.b32 %r7, %r6, 1, 31, -1;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r7;
    .param .b32 retval0;
    call.uni (retval0), f, (param0);
    ld.param.b32 %r8, [retval0];
    }
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    atom.global.add.u32 %r9, [%rd3], %r8;
    st.local.v2.u32 [%rd9], {%r2, %r8};
    setp.eq.u32 %p2, %r2, 0;
    @!%p2 bra DONE;
    mov.u64 %rd4, $str;
    cvta.global.u64 %rd5, %rd4;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd5;
    .param .b64 param1;
    st.param.b64 [param1], %rd10;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    }
    {
    .param .b64 param0;
    st.param.b64 [param0], 32;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd6, [retval0];
    }
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd6;
    call.uni free, (param0);
    }
DONE:
    ret;
}
"#;

    /// Loads and runs every entry; whether the module loaded.
    fn try_run(d: &CpuDevice, buf: u64, ptx: &str) -> bool {
        let Ok(m) = d.load_module(ptx) else { return false };
        for e in m.entries() {
            let params: Vec<Vec<u8>> = m
                .entry_params(e)
                .unwrap_or_default()
                .iter()
                .map(|&(size, _)| if size == 8 { buf.to_le_bytes().to_vec() } else { vec![40; size] })
                .collect();
            let p: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
            let _ = d.launch(&m, e, [2, 1, 1], [64, 1, 1], 0, &p);
        }
        true
    }

    #[test]
    fn sample_runs() {
        let d = CpuDevice::new();
        d.set_printf_capture(true);
        let buf = d.alloc(4096).unwrap();
        let m = d.load_module(SAMPLE).unwrap();
        d.launch(&m, "k", [1, 1, 1], [64, 1, 1], 0, &[&buf.to_le_bytes(), &40u32.to_le_bytes()]).unwrap();
        let mut out = [0u8; 160];
        d.read(buf, &mut out).unwrap();
        for t in 0..40u32 {
            let v = u32::from_le_bytes(out[t as usize * 4..t as usize * 4 + 4].try_into().unwrap());
            assert_eq!(v, (t ^ 1) * (t ^ 1), "thread {t}");
        }
        assert_eq!(d.take_printf_output(), "0 1");
    }

    /// Truncated and corrupted PTX never panics: every outcome is `Ok` or an `Err`.
    #[test]
    fn hostile_ptx_never_panics() {
        let d = CpuDevice::new();
        d.set_printf_capture(true);
        d.set_watchdog(Some(std::time::Duration::from_millis(50)));
        d.set_parallelism(1);
        let buf = d.alloc(4096).unwrap();
        for cut in (0..SAMPLE.len()).step_by(11) {
            let _ = try_run(&d, buf, &SAMPLE[..cut]);
        }
        let lines: Vec<&str> = SAMPLE.lines().collect();
        for skip in 0..lines.len() {
            let text: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, l)| *l).collect();
            let _ = try_run(&d, buf, &text.join("\n"));
        }
        let mut loaded = 0;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let replacements = b"0123456789%.,;:[]{}()<>-+!@_xXabefprsuv \n";
        let digits: Vec<usize> = SAMPLE.bytes().enumerate().filter(|(_, b)| b.is_ascii_digit()).map(|(i, _)| i).collect();
        for i in 0..1500 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut bytes = SAMPLE.as_bytes().to_vec();
            if i % 2 == 0 {
                // A different register, offset, size or constant: still well-formed PTX.
                let at = digits[(seed % digits.len() as u64) as usize];
                bytes[at] = b'0' + (seed >> 40) as u8 % 10;
            } else {
                let at = (seed % bytes.len() as u64) as usize;
                bytes[at] = replacements[(seed >> 32) as usize % replacements.len()];
            }
            loaded += try_run(&d, buf, &String::from_utf8_lossy(&bytes)) as u32;
        }
        assert!(loaded > 500, "only {loaded} corrupted modules loaded: the launches were barely exercised");
        let _ = d.take_printf_output();
    }

    #[test]
    fn watchdog_setting() {
        assert_eq!(parse_watchdog("off"), Some(None));
        assert_eq!(parse_watchdog(" 0 "), Some(None));
        assert_eq!(parse_watchdog("2.5"), Some(Some(Duration::from_millis(2500))));
        assert_eq!(parse_watchdog("120"), Some(Some(Duration::from_secs(120))));
        for bad in ["", "-1", "soon", "NaN", "1e400"] {
            assert_eq!(parse_watchdog(bad), None, "{bad}");
        }
        if std::env::var_os(WATCHDOG_ENV).is_none() {
            assert_eq!(CpuDevice::new().watchdog(), Some(DEFAULT_WATCHDOG), "on by default");
        }
    }

    #[test]
    fn memory_round_trip_and_bounds() {
        let d = CpuDevice::new();
        let a = d.alloc(10).unwrap();
        assert_eq!(a % memory::ALLOC_ALIGN, 0);
        d.write(a + 2, &[1, 2, 3]).unwrap();
        let mut out = [9u8; 6];
        d.read(a, &mut out).unwrap();
        assert_eq!(out, [0, 0, 1, 2, 3, 0]);
        assert!(d.write(a + 8, &[0; 3]).is_err());
        let b = d.alloc(4).unwrap();
        d.copy(b, a + 2, 3).unwrap();
        d.free(a).unwrap();
        assert!(d.read(a, &mut out).is_err());
        assert!(d.free(a).is_err());
    }
}
