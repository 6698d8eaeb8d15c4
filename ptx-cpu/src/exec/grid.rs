//! Runs a launch: the grid's blocks shared out to worker threads (`std::thread::scope`), the
//! first failing block stopping those after it, and `printf` output gathered in block order. `Results` and
//! `on_workers` serve the cooperative runner (`coop`) too.

use super::block::Block;
use super::hang::Progress;
use super::launch::{Launch, Outcome};
use crate::error::Error;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub fn run(l: &Launch) -> Outcome {
    let total = l.blocks();
    let workers = (l.workers as u64).min(total).max(1) as u32;
    let shared = Progress::new(workers, total, l.host_writes);
    let next = &shared.next;
    let results = Results::default();
    let work = |worker: u32| {
        let mut block = Block::new(l, worker, &shared);
        loop {
            // Blocks are handed out in order: those before a failed one have all started.
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= total || l.stopped(b) {
                break;
            }
            let r = block.run(l.ctaid(b));
            if !results.block_done(l, b, &mut block, r) {
                break;
            }
        }
        shared.done(worker);
        results.count(&block);
    };
    on_workers(workers, work);
    results.outcome()
}

/// Runs `work(worker)` for each worker, on host threads when there are several.
pub fn on_workers(workers: u32, work: impl Fn(u32) + Sync) {
    if workers == 1 {
        work(0);
    } else {
        std::thread::scope(|s| {
            for w in 0..workers {
                let work = &work;
                s.spawn(move || work(w));
            }
        });
    }
}

/// What the blocks of a launch leave: `printf` output, the first error, counts.
#[derive(Default)]
pub struct Results {
    outputs: Mutex<Vec<(u64, Vec<u8>)>>,
    error: Mutex<Option<(u64, Error)>>,
    counts: AtomicU64,
    warp_counts: AtomicU64,
}

impl Results {
    /// Takes block `b`'s output and result once it has finished or failed; whether the
    /// launch goes on for this worker (a failure stops the blocks after it; the error kept is
    /// the lowest failing block's).
    pub fn block_done(&self, l: &Launch, b: u64, block: &mut Block, r: Result<(), Error>) -> bool {
        let out = std::mem::take(&mut block.out);
        if !out.is_empty() {
            self.outputs.lock().unwrap_or_else(|e| e.into_inner()).push((b, out));
        }
        let Err(e) = r else { return true };
        l.failed.fetch_min(b, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|(at, _)| b < *at) {
            *slot = Some((b, e));
        }
        false
    }

    /// Adds a block's instruction counts.
    pub fn count(&self, block: &Block) {
        self.counts.fetch_add(block.thread_insts, Ordering::Relaxed);
        self.warp_counts.fetch_add(block.warp_insts, Ordering::Relaxed);
    }

    pub fn outcome(self) -> Outcome {
        let mut outs = self.outputs.into_inner().unwrap_or_else(|e| e.into_inner());
        outs.sort_by_key(|(b, _)| *b);
        Outcome {
            output: outs.into_iter().flat_map(|(_, o)| o).collect(),
            error: self.error.into_inner().unwrap_or_else(|e| e.into_inner()).map(|(_, e)| e),
            thread_insts: self.counts.into_inner(),
            warp_insts: self.warp_counts.into_inner(),
        }
    }
}
