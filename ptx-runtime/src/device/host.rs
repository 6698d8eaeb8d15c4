//! Running kernel bodies on the host.
//!
//! A `#[kernel]` stays a plain Rust function; the device API reads the calling thread's
//! coordinates from here. [`run`] executes a grid: the blocks one after another, the threads of
//! a block concurrently (one OS thread each), so barriers, warp shuffles and votes and shared
//! memory behave as on the device. This is how a kernel's result on the GPU (or the CPU
//! backend) is checked against the same body run by rustc.
//!
//! Outside [`run`], a body sees a grid of one block of one thread.
//!
//! ```
//! use ptx_runtime::device::{host, thread_idx_x, block_idx_x, block_dim_x};
//!
//! fn scale(x: &[f32], y: &mut [f32]) {
//!     let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
//!     if i < x.len() {
//!         y[i] = 2.0 * x[i];
//!     }
//! }
//!
//! let x: Vec<f32> = (0..100).map(|i| i as f32).collect();
//! let mut y = vec![0.0; 100];
//! let out = host::Disjoint::new(&mut y);
//! // SAFETY: each thread writes only its own element.
//! host::run([4, 1, 1], [32, 1, 1], 0, || scale(&x, unsafe { out.get() }));
//! assert_eq!(y[99], 198.0);
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::{Arc, Condvar, Mutex};

/// Threads of a warp.
pub const WARP_SIZE: u32 = 32;

/// Where the calling thread is in the grid.
#[derive(Clone)]
pub(crate) struct ThreadCtx {
    pub thread: [u32; 3],
    pub block: [u32; 3],
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    pub shared: Option<Arc<BlockState>>,
    /// The grid's barrier, in [`run_cooperative`].
    pub grid: Option<Arc<Exchange>>,
}

impl ThreadCtx {
    const SINGLE: ThreadCtx = ThreadCtx { thread: [0; 3], block: [0; 3], block_dim: [1; 3], grid_dim: [1; 3], shared: None, grid: None };

    /// The thread's index in its block, x fastest (how CUDA forms warps).
    pub fn linear(&self) -> u32 {
        let [x, y, z] = self.thread;
        let [dx, dy, _] = self.block_dim;
        x + dx * (y + dy * z)
    }

    pub fn lane(&self) -> u32 {
        self.linear() % WARP_SIZE
    }
}

thread_local! {
    static CTX: RefCell<ThreadCtx> = const { RefCell::new(ThreadCtx::SINGLE) };
    /// Shared arrays of a body run outside [`run`].
    static LONE_SHARED: RefCell<HashMap<&'static Location<'static>, Box<[u128]>>> = RefCell::new(HashMap::new());
}

pub(crate) fn ctx<R>(f: impl FnOnce(&ThreadCtx) -> R) -> R {
    CTX.with(|c| f(&c.borrow()))
}

/// What the threads of one block share: barriers, warp exchanges, shared memory.
pub(crate) struct BlockState {
    barrier: Exchange,
    warps: Vec<Exchange>,
    statics: Mutex<HashMap<&'static Location<'static>, Box<[u128]>>>,
    dynamic: Box<[u128]>,
    dynamic_bytes: usize,
}

/// A reusable rendezvous of `n` threads that also exchanges one value per thread.
pub(crate) struct Exchange {
    n: usize,
    state: Mutex<ExchangeState>,
    cv: Condvar,
}

struct ExchangeState {
    arrived: usize,
    generation: u64,
    values: Vec<u64>,
    result: Vec<u64>,
    /// A participant panicked: it will never arrive, so nobody may wait for it.
    abandoned: bool,
}

impl Exchange {
    fn new(n: usize) -> Exchange {
        Exchange { n, state: Mutex::new(ExchangeState { arrived: 0, generation: 0, values: vec![0; n], result: vec![0; n], abandoned: false }), cv: Condvar::new() }
    }

    /// Marks the exchange as one a participant will never reach (it panicked) and wakes the
    /// waiters, which then unwind too: on the device a trap ends the whole launch, and here the
    /// threads waiting for the panicked one would otherwise wait forever.
    fn abandon(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.abandoned = true;
        self.cv.notify_all();
    }

    /// Deposits `value` as participant `slot`, waits for all, returns everyone's values.
    fn exchange(&self, slot: usize, value: u64) -> Vec<u64> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.abandoned {
            drop(s);
            abandoned();
        }
        s.values[slot] = value;
        s.arrived += 1;
        let generation = s.generation;
        if s.arrived == self.n {
            s.result = s.values.clone();
            s.arrived = 0;
            s.generation += 1;
            self.cv.notify_all();
            return s.result.clone();
        }
        while s.generation == generation {
            if s.abandoned {
                drop(s);
                abandoned();
            }
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.result.clone()
    }
}

/// Unwinds a thread that waits for a panicked one. `resume_unwind` runs no panic hook, so
/// only the first panic's message is printed.
fn abandoned() -> ! {
    std::panic::resume_unwind(Box::new("another thread of the launch panicked"))
}

/// Abandons, when its thread unwinds, every exchange the thread takes part in.
struct AbandonOnPanic {
    block: Option<Arc<BlockState>>,
    grid: Option<Arc<Exchange>>,
}

impl Drop for AbandonOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let Some(b) = &self.block {
                b.barrier.abandon();
                b.warps.iter().for_each(Exchange::abandon);
            }
            if let Some(g) = &self.grid {
                g.abandon();
            }
        }
    }
}

impl BlockState {
    fn new(threads: usize, dynamic_bytes: usize) -> BlockState {
        let warps = (0..threads.div_ceil(WARP_SIZE as usize))
            .map(|w| Exchange::new((threads - w * WARP_SIZE as usize).min(WARP_SIZE as usize)))
            .collect();
        BlockState {
            barrier: Exchange::new(threads),
            warps,
            statics: Mutex::new(HashMap::new()),
            dynamic: vec![0u128; dynamic_bytes.div_ceil(16)].into_boxed_slice(),
            dynamic_bytes,
        }
    }
}

/// `__syncthreads` with a value per thread: every thread's value, in thread order.
pub(crate) fn block_exchange(value: u64) -> Vec<u64> {
    ctx(|c| match &c.shared {
        Some(b) => b.barrier.exchange(c.linear() as usize, value),
        None => vec![value],
    })
}

/// The grid barrier ([`grid_sync`](super::grid_sync)): every thread of the grid, in
/// [`run_cooperative`]; elsewhere it panics, as the device traps outside a cooperative launch.
pub(crate) fn grid_exchange() {
    let (grid, slot) = ctx(|c| {
        let [bx, by, bz] = c.block;
        let [gx, gy, _] = c.grid_dim;
        let threads = c.block_dim.iter().product::<u32>() as usize;
        let block = (bx + gx * (by + gy * bz)) as usize;
        (c.grid.clone(), block * threads + c.linear() as usize)
    });
    match grid {
        Some(g) => {
            g.exchange(slot, 0);
        }
        None => panic!("grid_sync() outside a cooperative launch: run the kernel with host::run_cooperative (on a device, launch it with LaunchConfig::cooperative())"),
    }
}

/// A warp-synchronous exchange: every lane's value, by lane (lanes past the block's end are
/// absent).
pub(crate) fn warp_exchange(value: u64) -> Vec<u64> {
    ctx(|c| match &c.shared {
        Some(b) => b.warps[(c.linear() / WARP_SIZE) as usize].exchange(c.lane() as usize, value),
        None => vec![value],
    })
}

/// The memory of a static shared array declared at `loc` with `bytes` bytes.
pub(crate) fn static_shared(loc: &'static Location<'static>, bytes: usize) -> *mut u8 {
    let alloc = || vec![0u128; bytes.div_ceil(16).max(1)].into_boxed_slice();
    ctx(|c| match &c.shared {
        Some(b) => {
            let mut m = b.statics.lock().unwrap_or_else(|e| e.into_inner());
            m.entry(loc).or_insert_with(alloc).as_mut_ptr() as *mut u8
        }
        None => LONE_SHARED.with(|m| m.borrow_mut().entry(loc).or_insert_with(alloc).as_mut_ptr() as *mut u8),
    })
}

/// Dynamic shared memory: its address and size in bytes.
pub(crate) fn dynamic_shared() -> (*mut u8, usize) {
    ctx(|c| match &c.shared {
        Some(b) => (b.dynamic.as_ptr() as *mut u8, b.dynamic_bytes),
        None => (std::ptr::null_mut(), 0),
    })
}

/// Runs `kernel` as a grid of `grid` blocks of `block` threads, with `dynamic_shared_bytes`
/// of dynamic shared memory per block. Blocks run one after another; the threads of a block
/// run concurrently. A panic in any thread (a failed bounds check, `trap()`) propagates; the
/// threads waiting for it at a barrier or a warp exchange unwind too (silently) instead of
/// waiting forever.
pub fn run(grid: [u32; 3], block: [u32; 3], dynamic_shared_bytes: usize, kernel: impl Fn() + Sync) {
    let threads = crate::Dim3::new(block[0], block[1], block[2]).volume();
    assert!(threads > 0 && threads <= 1024, "a block has 1 to 1024 threads");
    let threads = threads as usize;
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                let state = Arc::new(BlockState::new(threads, dynamic_shared_bytes));
                std::thread::scope(|s| {
                    for t in 0..threads as u32 {
                        let thread = [t % block[0], t / block[0] % block[1], t / (block[0] * block[1])];
                        let ctx = ThreadCtx { thread, block: [bx, by, bz], block_dim: block, grid_dim: grid, shared: Some(state.clone()), grid: None };
                        spawn_gpu_thread(s, ctx, &kernel);
                    }
                });
            }
        }
    }
}

/// One GPU thread of [`run`] or [`run_cooperative`]: a host thread in the scope `s` that runs
/// `kernel` with `ctx` as what the device API reports.
fn spawn_gpu_thread<'s, 'e: 's>(s: &'s std::thread::Scope<'s, 'e>, ctx: ThreadCtx, kernel: &'e (impl Fn() + Sync)) {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn_scoped(s, move || {
            let _abandon = AbandonOnPanic { block: ctx.shared.clone(), grid: ctx.grid.clone() };
            CTX.with(|c| *c.borrow_mut() = ctx);
            kernel();
        })
        .expect("spawn a host thread for a GPU thread");
}

/// Most threads [`run_cooperative`] runs at once (one host thread each).
pub const MAX_COOPERATIVE_THREADS: u64 = 4096;

/// [`run`] for a kernel that calls [`grid_sync`](super::grid_sync): every thread of every
/// block runs at once (one host thread each, at most [`MAX_COOPERATIVE_THREADS`]), as a
/// cooperative launch keeps the whole grid resident. A panic in any thread propagates.
pub fn run_cooperative(grid: [u32; 3], block: [u32; 3], dynamic_shared_bytes: usize, kernel: impl Fn() + Sync) {
    let threads = crate::Dim3::new(block[0], block[1], block[2]).volume();
    assert!(threads > 0 && threads <= 1024, "a block has 1 to 1024 threads");
    let blocks = crate::Dim3::new(grid[0], grid[1], grid[2]).volume();
    let total = blocks.saturating_mul(threads);
    assert!(
        blocks > 0 && total <= MAX_COOPERATIVE_THREADS,
        "host::run_cooperative runs every thread of the grid at once: at most {MAX_COOPERATIVE_THREADS} threads, not {total}"
    );
    let threads = threads as usize;
    let barrier = Arc::new(Exchange::new(total as usize));
    std::thread::scope(|s| {
        for b in 0..blocks as u32 {
            let coords = [b % grid[0], b / grid[0] % grid[1], b / (grid[0] * grid[1])];
            let state = Arc::new(BlockState::new(threads, dynamic_shared_bytes));
            for t in 0..threads as u32 {
                let thread = [t % block[0], t / block[0] % block[1], t / (block[0] * block[1])];
                let ctx = ThreadCtx { thread, block: coords, block_dim: block, grid_dim: grid, shared: Some(state.clone()), grid: Some(barrier.clone()) };
                spawn_gpu_thread(s, ctx, &kernel);
            }
        }
    });
}

/// A mutable slice handed to every thread of [`run`], as a kernel's `&mut [T]` output.
///
/// The threads of a kernel write disjoint elements of their outputs; each thread gets the
/// whole slice, as on the device.
pub struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: `get` is unsafe: its caller guarantees the threads' accesses do not race.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    pub fn new(s: &'a mut [T]) -> Self {
        Disjoint { ptr: s.as_mut_ptr(), len: s.len(), _borrow: PhantomData }
    }

    /// The slice.
    ///
    /// # Safety
    /// No element may be written by one thread while another thread reads or writes it
    /// without a barrier (`sync_threads`) between them — the rule for device memory too.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self) -> &'a mut [T] {
        // SAFETY: the pointer and length come from a `&'a mut [T]`; races are excluded by the
        // caller.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{shfl_sync, sync_threads, thread_idx_x};
    use std::sync::mpsc;
    use std::time::Duration;

    /// Runs `f` on a thread of its own and says whether it panicked; `None` if it has not
    /// finished after 20 seconds (the hang these tests exist to catch).
    fn panics_within_time(f: impl FnOnce() + Send + 'static) -> Option<bool> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let _ = tx.send(r.is_err());
        });
        rx.recv_timeout(Duration::from_secs(20)).ok()
    }

    #[test]
    fn a_panic_before_a_barrier_ends_the_run_instead_of_hanging() {
        let r = panics_within_time(|| {
            run([2, 1, 1], [64, 1, 1], 0, || {
                let x = [1u32; 4];
                // Thread 5 fails its check; the other 63 wait for it at the barrier.
                let i = thread_idx_x() as usize;
                let v = if i == 5 { x[i] } else { 0 };
                sync_threads();
                std::hint::black_box(v);
            })
        });
        assert_eq!(r, Some(true), "run must panic (Some(true)), not finish or hang (None)");
    }

    #[test]
    fn a_panic_before_a_shuffle_ends_the_run_instead_of_hanging() {
        let r = panics_within_time(|| {
            run([1, 1, 1], [32, 1, 1], 0, || {
                let x = [1u32; 4];
                let i = thread_idx_x() as usize;
                let v = if i == 31 { x[i] } else { 0 };
                std::hint::black_box(shfl_sync(u32::MAX, v, 0));
            })
        });
        assert_eq!(r, Some(true));
    }

    #[test]
    fn a_run_without_panics_still_completes() {
        let r = panics_within_time(|| {
            run([2, 1, 1], [64, 1, 1], 0, || {
                sync_threads();
                std::hint::black_box(shfl_sync(u32::MAX, thread_idx_x(), 0));
            })
        });
        assert_eq!(r, Some(false));
    }
}
