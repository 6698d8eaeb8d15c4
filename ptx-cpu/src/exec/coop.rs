//! A cooperative launch (`cuLaunchCooperativeKernel`): every block of the grid is resident at
//! once, so blocks may wait for each other at a grid barrier.
//!
//! The ordinary launch (`grid`) runs each block to completion on a worker before taking the
//! next; a block spinning on a grid barrier would then wait forever for blocks that have not
//! started. Here each worker takes its share of the blocks up front (block `b` on worker
//! `b mod workers`) and runs them interleaved, one round each in turn (a round: every runnable
//! warp for a time slice, as `block` schedules warps), until all have finished. Each block has
//! its own slot in the launch's `Progress`, so the hang detector sees a grid whose every block
//! spins on a barrier no block can complete, and reports it instead of waiting for the watchdog.
//!
//! The grid workspace cooperative groups synchronise through (`%envreg1:2`, a barrier word at
//! byte 4) is allocated by the caller (`CpuDevice::launch_cooperative`).

use super::block::Block;
use super::hang::Progress;
use super::grid::{on_workers, Results};
use super::launch::{Launch, Outcome};
use std::sync::atomic::Ordering;

pub fn run(l: &Launch) -> Outcome {
    let total = l.blocks();
    let workers = (l.workers as u64).min(total).max(1) as u32;
    // Slot per block; every block starts at once, so none is left unstarted.
    let progress = Progress::new(total as u32, total, l.host_writes);
    progress.next.store(total, Ordering::Release);
    let results = Results::default();
    let work = |worker: u32| {
        let mut blocks: Vec<(u64, Block)> = (worker as u64..total)
            .step_by(workers as usize)
            .map(|b| {
                let mut block = Block::new(l, worker, &progress);
                block.slot = b as u32;
                block.begin(l.ctaid(b));
                (b, block)
            })
            .collect();
        'rounds: while !blocks.is_empty() {
            let mut i = 0;
            while i < blocks.len() {
                if l.any_failed() {
                    break 'rounds;
                }
                let r = match blocks[i].1.own_round() {
                    Ok(false) => {
                        i += 1;
                        continue;
                    }
                    Ok(true) => Ok(()),
                    Err(e) => Err(e),
                };
                let (b, mut block) = blocks.remove(i);
                progress.done(block.slot);
                results.count(&block);
                if !results.block_done(l, b, &mut block, r) {
                    break 'rounds;
                }
            }
        }
        for (_, block) in &blocks {
            progress.done(block.slot);
            results.count(block);
        }
    };
    on_workers(workers, work);
    results.outcome()
}
