//! Image processing written in natural Rust, one thread per image row: grayscale as a weighted
//! `zip` of each pixel's channels (`chunks_exact(3)`), a horizontal box blur over `windows(3)`,
//! a per-row histogram of a channel chosen by an enum, the brightness above a threshold through
//! a device function returning `Option` (`flat_map` over the pixels' channels, `filter_map`)
//! and the brightest pixel by `max_by(total_cmp)`. Every output is checked against the same
//! kernels run on the host (bit for bit), and the histogram against a count made here.
//!
//! ```sh
//! cargo run --release --example image_ops
//! ```

use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

pub mod px {
    use ptx_runtime::{device_fn, DeviceRepr};

    /// A colour channel, passed to the kernel as its `u32`.
    #[repr(u32)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Channel {
        Red,
        Green,
        Blue,
    }

    /// How far `v` is above the threshold `t`, if it is.
    #[device_fn]
    pub fn above(v: f32, t: f32) -> Option<f32> {
        if v > t {
            Some(v - t)
        } else {
            None
        }
    }
}

use px::{above, Channel};

const W: usize = 96;
const H: usize = 40;
const BINS: usize = 8;

#[kernel]
pub fn gray_blur(rgb: &[f32], gray: &mut [f32], blur: &mut [f32], width: u32, height: u32) {
    let y = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let w = width as usize;
    if y < height as usize {
        let weights = [0.299f32, 0.587, 0.114];
        let row = &rgb[y * w * 3..(y + 1) * w * 3];
        let g = &mut gray[y * w..(y + 1) * w];
        for (o, p) in g.iter_mut().zip(row.chunks_exact(3)) {
            *o = p.iter().zip(&weights).map(|(c, k)| c * k).sum();
        }
        let b = &mut blur[y * (w - 2)..(y + 1) * (w - 2)];
        for (o, win) in b.iter_mut().zip(g.windows(3)) {
            *o = win.iter().sum::<f32>() / 3.0;
        }
    }
}

#[kernel]
pub fn channel_stats(rgb: &[f32], ch: Channel, t: f32, bins: &mut [u32], bright: &mut [f32], brightest: &mut [u32], width: u32, height: u32) {
    let y = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let w = width as usize;
    if y < height as usize {
        let row = &rgb[y * w * 3..(y + 1) * w * 3];
        let c: usize = match ch {
            Channel::Red => 0,
            Channel::Green => 1,
            Channel::Blue => 2,
        };
        let hist = &mut bins[y * BINS..(y + 1) * BINS];
        for p in row.chunks_exact(3) {
            let bin = ((p[c] * BINS as f32) as usize).min(BINS - 1);
            hist[bin] += 1;
        }
        bright[y] = row.chunks_exact(3).flat_map(|p| p.iter()).filter_map(|v| above(*v, t)).sum();
        if let Some((i, _)) = row.chunks_exact(3).map(|p| p[c]).enumerate().max_by(|a, b| a.1.total_cmp(&b.1)) {
            brightest[y] = i as u32;
        }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// A test image: smooth gradients with a pattern, channels in [0, 1).
fn image() -> Vec<f32> {
    (0..W * H * 3)
        .map(|i| {
            let (p, c) = (i / 3, i % 3);
            let (x, y) = ((p % W) as f32 / W as f32, (p / W) as f32 / H as f32);
            let v = match c {
                0 => x,
                1 => y * 0.7 + ((p * 7919) % 13) as f32 * 0.02,
                _ => (x + y) * 0.5,
            };
            v.fract()
        })
        .collect()
}

fn run() -> ptx_runtime::Result<()> {
    let device = Device::select()?;
    println!("backend: {} ({})", device.kind(), device.name());
    let stream = device.stream();
    let rgb = image();
    let (t, ch) = (0.6f32, Channel::Green);
    let cfg = LaunchConfig::new(H.div_ceil(32) as u32, 32);
    let grid = [H.div_ceil(32) as u32, 1, 1];

    let src = DeviceBuffer::from_slice(&stream, &rgb)?;
    let mut gray = DeviceBuffer::<f32>::zeroed(&stream, W * H)?;
    let mut blur = DeviceBuffer::<f32>::zeroed(&stream, (W - 2) * H)?;
    gray_blur::launch(&stream, cfg, &src, &mut gray, &mut blur, W as u32, H as u32)?;
    let mut bins = DeviceBuffer::<u32>::zeroed(&stream, BINS * H)?;
    let mut bright = DeviceBuffer::<f32>::zeroed(&stream, H)?;
    let mut brightest = DeviceBuffer::<u32>::zeroed(&stream, H)?;
    channel_stats::launch(&stream, cfg, &src, ch, t, &mut bins, &mut bright, &mut brightest, W as u32, H as u32)?;

    // The same kernels on the host.
    let (mut hg, mut hb) = (vec![0.0f32; W * H], vec![0.0f32; (W - 2) * H]);
    let (og, ob) = (host::Disjoint::new(&mut hg), host::Disjoint::new(&mut hb));
    // SAFETY: each thread writes its own row.
    host::run(grid, [32, 1, 1], 0, || gray_blur(&rgb, unsafe { og.get() }, unsafe { ob.get() }, W as u32, H as u32));
    let (mut hbins, mut hbright, mut hmax) = (vec![0u32; BINS * H], vec![0.0f32; H], vec![0u32; H]);
    let (o1, o2, o3) = (host::Disjoint::new(&mut hbins), host::Disjoint::new(&mut hbright), host::Disjoint::new(&mut hmax));
    // SAFETY: each thread writes its own row's bins and its own element of the others.
    host::run(grid, [32, 1, 1], 0, || channel_stats(&rgb, ch, t, unsafe { o1.get() }, unsafe { o2.get() }, unsafe { o3.get() }, W as u32, H as u32));

    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut failed = Vec::new();
    if bits(&gray.to_vec()?) != bits(&hg) {
        failed.push("grayscale");
    }
    if bits(&blur.to_vec()?) != bits(&hb) {
        failed.push("blur");
    }
    if bins.to_vec()? != hbins {
        failed.push("histogram");
    }
    if bits(&bright.to_vec()?) != bits(&hbright) {
        failed.push("brightness above the threshold");
    }
    if brightest.to_vec()? != hmax {
        failed.push("brightest pixel");
    }
    // The histogram, counted here without the kernel: every pixel in one bin.
    for y in 0..H {
        let mut want = [0u32; BINS];
        for x in 0..W {
            let v = rgb[(y * W + x) * 3 + 1];
            want[((v * BINS as f32) as usize).min(BINS - 1)] += 1;
        }
        if hbins[y * BINS..(y + 1) * BINS] != want {
            failed.push("histogram against the count");
            break;
        }
    }
    let mean_gray = hg.iter().sum::<f32>() / hg.len() as f32;
    println!("{W}x{H} image: mean gray {mean_gray:.4}, row 0 green histogram {:?}, brightness above {t} in row 0: {:.3}", &hbins[..BINS], hbright[0]);
    if !failed.is_empty() {
        eprintln!("FAILED: {} differ from the host", failed.join(", "));
        std::process::exit(1);
    }
    println!("verified: grayscale, blur, histogram, threshold and brightest pixel equal to the host");
    Ok(())
}
