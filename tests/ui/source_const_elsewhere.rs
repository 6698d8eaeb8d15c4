#![allow(unused)]

// A kernel that a `macro_rules!` of one module writes, in another: the macro read `TILE`
// where the kernel's tokens are written (16), but its body names the `TILE` of the module it
// expands in (32). The expansion's check of what the macro read fails the build at the
// constant, instead of the kernel computing with 16.

mod a {
    pub const TILE: usize = 16;

    #[macro_export]
    macro_rules! scale_kernel {
        () => {
            #[ptx_runtime::kernel]
            pub fn scale(x: &mut [f32]) {
                let i = ptx_runtime::device::thread_idx_x() as usize;
                x[i] *= TILE as f32;
            }
        };
    }
}

mod b {
    pub const TILE: usize = 32;
    crate::scale_kernel!();
}

fn main() {}
