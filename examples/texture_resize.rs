//! Bilinear image scaling through a texture: an 8-bit greyscale image in a CUDA array, read
//! by a `Texture2d<f32>` with normalized coordinates, linear filtering, clamping at the edges
//! and normalized-float reads (texels in [0, 1]). Every output pixel is checked against a host
//! reference that filters as the CUDA programming guide specifies (texture fetching, linear
//! filtering: weights in 9-bit fixed point with 8 fractional bits), within 1/256 of the range.
//! Runs on the GPU when there is one, otherwise on the CPU backend (`PTX_DEVICE=cpu|cuda`).
//!
//! ```sh
//! cargo run --release --example texture_resize
//! ```

use ptx_runtime::device::*;
use ptx_runtime::texture::{AddressMode, Array2d, FilterMode, Texture2d, TextureDesc};
use ptx_runtime::{kernel, BackendKind, Device, DeviceBuffer, LaunchConfig};

/// `out[y * w + x]` = the texture at the centre of output pixel (x, y), in normalized
/// coordinates, so the image is stretched to `w × h` whatever its own size.
#[kernel]
pub fn resize(src: Texture2d<f32>, out: &mut [f32], w: u32, h: u32) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    if x < w && y < h {
        let u = (x as f32 + 0.5) / w as f32;
        let v = (y as f32 + 0.5) / h as f32;
        out[(y * w + x) as usize] = tex2d(src, u, v);
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

const IN_W: usize = 64;
const IN_H: usize = 48;
const OUT_W: u32 = 101;
const OUT_H: u32 = 77;

/// A test image with smooth gradients and hard edges.
fn image() -> Vec<u8> {
    let mut img = vec![0u8; IN_W * IN_H];
    for y in 0..IN_H {
        for x in 0..IN_W {
            let ramp = (x * 255 / (IN_W - 1)) as u8;
            let checker = if (x / 8 + y / 8) % 2 == 0 { 0 } else { 96 };
            img[y * IN_W + x] = ramp / 2 + checker + (y as u8 & 31);
        }
    }
    img
}

/// The texture unit's bilinear filter for one fetch at normalized `(u, v)`: the texel-space
/// coordinate less one half, split into the texel index (floor) and a fraction held in
/// 9-bit fixed point with 8 fractional bits; indices clamped to the image.
fn bilinear(img: &[u8], u: f32, v: f32) -> f64 {
    let texel = |x: i64, y: i64| {
        let (x, y) = (x.clamp(0, IN_W as i64 - 1) as usize, y.clamp(0, IN_H as i64 - 1) as usize);
        f64::from(img[y * IN_W + x]) / 255.0
    };
    let split = |c: f32, n: usize| {
        let t = f64::from(c) * n as f64 - 0.5;
        let i = t.floor();
        let frac = ((t - i) * 256.0).round() / 256.0;
        (i as i64, frac)
    };
    let (i, a) = split(u, IN_W);
    let (j, b) = split(v, IN_H);
    (1.0 - a) * (1.0 - b) * texel(i, j) + a * (1.0 - b) * texel(i + 1, j) + (1.0 - a) * b * texel(i, j + 1) + a * b * texel(i + 1, j + 1)
}

fn run() -> ptx_runtime::Result<()> {
    let device = Device::select()?;
    println!("backend: {} ({})", device.kind(), device.name());
    if device.kind() == BackendKind::Cpu {
        println!("(no GPU in use: the CPU backend executes the same PTX and filters as the texture unit does)");
    }
    let stream = device.stream();

    let img = image();
    let array = Array2d::<u8>::from_slice(&stream, (IN_W, IN_H), &img)?;
    let texture = TextureDesc::new()
        .address_mode(AddressMode::Clamp)
        .filter(FilterMode::Linear)
        .normalized_coords(true)
        .normalized_float()
        .array(&stream, &array)?;
    let mut out = DeviceBuffer::<f32>::zeroed(&stream, (OUT_W * OUT_H) as usize)?;
    let config = LaunchConfig::new((OUT_W.div_ceil(16), OUT_H.div_ceil(16), 1), (16, 16, 1));
    resize::launch(&stream, config, &texture, &mut out, OUT_W, OUT_H)?;
    let got = out.to_vec()?;

    let mut worst = 0f64;
    for y in 0..OUT_H {
        for x in 0..OUT_W {
            // The same f32 arithmetic as the kernel's.
            let u = (x as f32 + 0.5) / OUT_W as f32;
            let v = (y as f32 + 0.5) / OUT_H as f32;
            let diff = (f64::from(got[(y * OUT_W + x) as usize]) - bilinear(&img, u, v)).abs();
            worst = worst.max(diff);
        }
    }
    println!("scaled {IN_W}×{IN_H} to {OUT_W}×{OUT_H}: largest difference from the host reference {worst:.6} (of a range of 1)");
    if worst > 1.0 / 256.0 {
        eprintln!("FAILED: a pixel differs from the host's bilinear filter by more than 1/256");
        std::process::exit(1);
    }
    let (min, max) = got.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    println!("verified: every pixel within 1/256 of the reference (output range {min:.3}..{max:.3})");
    Ok(())
}
