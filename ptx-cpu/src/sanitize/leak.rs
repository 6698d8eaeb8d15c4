//! Leakcheck: device `malloc` blocks a launch allocated and did not free by its end. Every
//! heap block remembers who allocated it (`heap::Origin`, kept whether or not leakcheck is
//! on: `malloc` is rare); at the end of a launch with leakcheck on, the blocks of that launch
//! still live are reported, the first one as the fault and the total in its detail. Blocks
//! are not freed: CUDA lets a later launch free them, and so does the backend.

use crate::error::{Error, Fault, FaultKind};
use crate::heap::DeviceHeap;
use crate::lineinfo::LineInfo;

/// The leak report of launch `grid_id` of `kernel`, if it leaked.
pub fn check(heap: &DeviceHeap, grid_id: u64, kernel: &str, lines: &LineInfo) -> Option<Error> {
    let leaks = heap.live_from(grid_id);
    let (addr, size, o) = *leaks.first()?;
    let total: u64 = leaks.iter().map(|l| l.1).sum();
    Some(Error::Fault(Fault {
        kind: FaultKind::Leak,
        kernel: kernel.to_owned(),
        block: o.block,
        thread: o.thread,
        address: Some(addr),
        line: Some(o.line as usize),
        source: lines.at(o.line as usize).map(Box::new),
        detail: format!(
            "{size} bytes from device malloc were not freed by the end of the launch ({} block(s), {total} bytes in all, leaked by this launch)",
            leaks.len()
        ),
    }))
}
