use core::sync::atomic::Ordering;
use ptx_runtime::device::atomic::{self, Scope};
use ptx_runtime::kernel;

#[kernel]
pub fn k(p: *mut u32, strong: bool) {
    let order = if strong { Ordering::SeqCst } else { Ordering::Relaxed };
    let scope = Scope::Device;
    unsafe {
        atomic::fetch_add(p, 1, order, Scope::Device);
        atomic::fetch_add(p, 1, Ordering::Relaxed, scope);
    }
}

fn main() {}
