use core::sync::atomic::Ordering;
use ptx_runtime::device::atomic::{self, Scope};
use ptx_runtime::kernel;

#[kernel]
pub fn k(p: *mut u32, out: *mut u32) {
    unsafe {
        *out = atomic::load(p, Ordering::Release, Scope::Device);
        atomic::store(p, 1, Ordering::Acquire, Scope::Block);
        atomic::fence(Ordering::Relaxed, Scope::System);
        *out = atomic::compare_exchange(p, 0, 1, Ordering::SeqCst, Ordering::AcqRel, Scope::Device);
    }
}

fn main() {}
