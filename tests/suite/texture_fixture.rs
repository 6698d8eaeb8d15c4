//! What the runtime texture tests (`runtime_texture*.rs`) share: the device they run on, the
//! launch shape, the kernels that read one texel per thread, running a kernel into a fresh
//! output buffer and reading it back, and putting every kernel through ptxas.

use ptx_runtime::{Device, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

pub mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::texture::*;
    use ptx_runtime::vector::{f32x2, f32x4, i32x2};

    /// One thread per texel of a `w × h` image: the texel at its centre, unnormalized.
    #[kernel(instances(f32, u32, f32x4, i32x2))]
    pub fn read2d<T: Texel>(t: Texture2d<T>, out: &mut [T], w: u32) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            out[i as usize] = tex2d(t, (i % w) as f32 + 0.5, (i / w) as f32 + 0.5);
        }
    }

    /// One thread per element of a texture over linear memory: `tex1d_fetch` of it.
    #[kernel(instances(i32, f32x2))]
    pub fn fetch1d<T: Texel>(t: Texture1d<T>, out: &mut [T]) {
        let i = block_idx_x() * block_dim_x() + thread_idx_x();
        if (i as usize) < out.len() {
            out[i as usize] = tex1d_fetch(t, i as i32);
        }
    }
}

/// The GPU where there is one (`PTX_DEVICE` chooses), else the CPU backend: the same reads
/// must give the same texels on both.
pub fn stream() -> Stream {
    Device::select().unwrap_or_else(|_| Device::cpu()).stream()
}

/// One thread per element of `n`.
pub fn all(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

/// Runs `launch` into a zeroed buffer of `n` elements and returns what it wrote.
pub fn read_back<T: DeviceRepr>(s: &Stream, n: usize, launch: impl FnOnce(&mut DeviceBuffer<T>) -> Result<()>) -> Vec<T> {
    let mut out = DeviceBuffer::<T>::zeroed(s, n).unwrap();
    launch(&mut out).unwrap();
    out.to_vec().unwrap()
}

/// Every `(name, ptx)` through ptxas.
pub fn assemble_each(kernels: &[(&str, &str)]) {
    for (name, ptx) in kernels {
        crate::tools::assemble(name, ptx);
    }
}

#[test]
fn the_shared_kernels_assemble() {
    use k::{fetch1d, read2d};
    use ptx_runtime::vector::{f32x2, f32x4, i32x2};
    assemble_each(&[
        ("rt_tex_read2d", <read2d::Instances as read2d::Instance<f32>>::PTX),
        ("rt_tex_read2d_u", <read2d::Instances as read2d::Instance<u32>>::PTX),
        ("rt_tex_read2d_f32x4", <read2d::Instances as read2d::Instance<f32x4>>::PTX),
        ("rt_tex_read2d_i32x2", <read2d::Instances as read2d::Instance<i32x2>>::PTX),
        ("rt_tex_fetch1d", <fetch1d::Instances as fetch1d::Instance<i32>>::PTX),
        ("rt_tex_fetch1d_f32x2", <fetch1d::Instances as fetch1d::Instance<f32x2>>::PTX),
    ]);
}
