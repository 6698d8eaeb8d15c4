use core::sync::atomic::Ordering;
use ptx_runtime::device::atomic::{self, Scope};
use ptx_runtime::kernel;

#[kernel]
pub fn k(p: *mut f32, b: *mut bool) {
    unsafe {
        atomic::fetch_or(p, 1.0, Ordering::Relaxed, Scope::Device);
        atomic::swap(b, true, Ordering::Relaxed, Scope::Device);
    }
}

fn main() {}
