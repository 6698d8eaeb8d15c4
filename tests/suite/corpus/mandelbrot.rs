//! Mandelbrot: iterations until escape for each pixel of a `width × height` image.

use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn mandelbrot(out: &mut [u32], width: u32, height: u32, max_iter: u32) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    if x >= width || y >= height {
        return;
    }
    let cr = -2.0 + 3.0 * x as f32 / width as f32;
    let ci = -1.5 + 3.0 * y as f32 / height as f32;
    let mut zr = 0.0f32;
    let mut zi = 0.0f32;
    let mut n = 0;
    while n < max_iter && zr * zr + zi * zi <= 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        n += 1;
    }
    out[(y * width + x) as usize] = n;
}

pub const PTX: &[(&str, &str)] = &[("mandelbrot", mandelbrot::PTX)];
const W: u32 = 48;
const H: u32 = 32;
const MAX: u32 = 200;

fn on_host() -> Vec<u32> {
    let mut out = vec![0; (W * H) as usize];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one pixel per thread.
    host::run([3, 4, 1], [16, 8, 1], 0, || mandelbrot(unsafe { o.get() }, W, H, MAX));
    out
}

pub fn check_host() {
    let mut want = vec![0; (W * H) as usize];
    for y in 0..H {
        for x in 0..W {
            let (cr, ci) = (-2.0 + 3.0 * x as f32 / W as f32, -1.5 + 3.0 * y as f32 / H as f32);
            let (mut zr, mut zi, mut n) = (0.0f32, 0.0f32, 0);
            while n < MAX && zr * zr + zi * zi <= 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                n += 1;
            }
            want[(y * W + x) as usize] = n;
        }
    }
    let got = on_host();
    assert_eq!(got, want);
    assert!(got.contains(&MAX) && got.contains(&1), "the image has both inside and outside points");
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let mut out = DeviceBuffer::<u32>::zeroed(stream, (W * H) as usize)?;
    mandelbrot::launch(stream, LaunchConfig::new((3, 4, 1), (16, 8, 1)), &mut out, W, H, MAX)?;
    assert_eq!(out.to_vec()?, on_host());
    Ok(())
}
