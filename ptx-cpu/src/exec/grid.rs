//! Runs a launch: the grid's blocks shared out to worker threads (`std::thread::scope`), the
//! first error stopping the rest, and `printf` output gathered in block order.

use super::block::Block;
use super::hang::Progress;
use super::launch::{Launch, Outcome};
use crate::error::Error;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub fn run(l: &Launch) -> Outcome {
    let [gx, gy, gz] = l.grid;
    let total = gx as u64 * gy as u64 * gz as u64;
    let workers = (l.workers as u64).min(total).max(1) as u32;
    let shared = Progress::new(workers, total, l.host_writes);
    let next = &shared.next;
    let outputs: Mutex<Vec<(u64, Vec<u8>)>> = Mutex::new(Vec::new());
    let error: Mutex<Option<(u64, Error)>> = Mutex::new(None);
    let counts = AtomicU64::new(0);
    let warp_counts = AtomicU64::new(0);
    let work = |worker: u32| {
        let mut block = Block::new(l, worker, &shared);
        loop {
            if l.abort.load(Ordering::Relaxed) {
                break;
            }
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= total {
                break;
            }
            let ctaid = [(b % gx as u64) as u32, ((b / gx as u64) % gy as u64) as u32, (b / (gx as u64 * gy as u64)) as u32];
            let r = block.run(ctaid);
            let out = std::mem::take(&mut block.out);
            if !out.is_empty() {
                outputs.lock().unwrap_or_else(|e| e.into_inner()).push((b, out));
            }
            if let Err(e) = r {
                l.abort.store(true, Ordering::Relaxed);
                let mut slot = error.lock().unwrap_or_else(|e| e.into_inner());
                if slot.as_ref().is_none_or(|(at, _)| b < *at) {
                    *slot = Some((b, e));
                }
                break;
            }
        }
        shared.done(worker);
        counts.fetch_add(block.thread_insts, Ordering::Relaxed);
        warp_counts.fetch_add(block.warp_insts, Ordering::Relaxed);
    };
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
    let mut outs = outputs.into_inner().unwrap_or_else(|e| e.into_inner());
    outs.sort_by_key(|(b, _)| *b);
    Outcome {
        output: outs.into_iter().flat_map(|(_, o)| o).collect(),
        error: error.into_inner().unwrap_or_else(|e| e.into_inner()).map(|(_, e)| e),
        thread_insts: counts.into_inner(),
        warp_insts: warp_counts.into_inner(),
    }
}
