//! A small ray tracer written as a Rust programmer would: a `Vec3` with methods and operators,
//! a `Hit` trait over spheres and planes (with a default `shade` method), and a generic device
//! function `nearest<H: Hit>` instantiated for each surface type. It renders a scene on the
//! device, renders it again by running the same kernel body on the host, checks that every
//! pixel is equal, and writes the image as a PNG.
//!
//! ```sh
//! cargo run --release --example raytrace   # writes target/raytrace.png
//! ```

use core::ops::{Add, Mul, Neg, Sub};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, Device, DeviceBuffer, DeviceRepr, LaunchConfig};

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Default)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[device_fn]
impl Vec3 {
    pub fn new(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3 { x, y, z }
    }

    pub fn dot(self, o: Vec3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    pub fn length(self) -> f32 {
        self.dot(self).sqrt()
    }

    pub fn normalized(self) -> Vec3 {
        self * (1.0 / self.length())
    }
}

#[device_fn]
impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

#[device_fn]
impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

#[device_fn]
impl Mul<f32> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: f32) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}

#[device_fn]
impl Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug)]
pub struct Ray {
    pub origin: Vec3,
    pub dir: Vec3,
}

#[device_fn]
impl Ray {
    pub fn at(self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
    pub albedo: Vec3,
}

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug)]
pub struct Plane {
    pub point: Vec3,
    pub normal: Vec3,
    pub albedo: Vec3,
}

/// A surface a ray can hit.
#[device_fn]
pub trait Hit {
    /// The distance along `ray` to the surface, or a negative number for a miss.
    fn hit(&self, ray: Ray) -> f32;
    fn normal_at(&self, p: Vec3) -> Vec3;
    fn albedo(&self) -> Vec3;

    /// Lambert shading toward a point light, with some ambient light.
    fn shade(&self, p: Vec3, light: Vec3) -> Vec3 {
        let d = self.normal_at(p).dot((light - p).normalized());
        self.albedo() * (0.15 + 0.85 * d.max(0.0))
    }
}

#[device_fn]
impl Hit for Sphere {
    fn hit(&self, ray: Ray) -> f32 {
        let oc = ray.origin - self.center;
        let b = oc.dot(ray.dir);
        let c = oc.dot(oc) - self.radius * self.radius;
        let disc = b * b - c;
        if disc < 0.0 {
            return -1.0;
        }
        let s = disc.sqrt();
        let t = -b - s;
        if t > 1e-3 {
            t
        } else {
            -b + s
        }
    }

    fn normal_at(&self, p: Vec3) -> Vec3 {
        (p - self.center) * (1.0 / self.radius)
    }

    fn albedo(&self) -> Vec3 {
        self.albedo
    }
}

#[device_fn]
impl Hit for Plane {
    fn hit(&self, ray: Ray) -> f32 {
        let denom = self.normal.dot(ray.dir);
        if denom.abs() < 1e-6 {
            return -1.0;
        }
        (self.point - ray.origin).dot(self.normal) / denom
    }

    fn normal_at(&self, _p: Vec3) -> Vec3 {
        self.normal
    }

    fn albedo(&self) -> Vec3 {
        self.albedo
    }

    /// A checkerboard: the albedo, darkened on every other square.
    fn shade(&self, p: Vec3, light: Vec3) -> Vec3 {
        let d = self.normal.dot((light - p).normalized());
        let square = (p.x.floor() + p.z.floor()) as i32;
        let k = if square % 2 == 0 { 1.0 } else { 0.55 };
        self.albedo * (k * (0.15 + 0.85 * d.max(0.0)))
    }
}

/// The nearest hit of a ray.
#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug)]
pub struct Nearest {
    pub t: f32,
    pub index: u32,
}

/// The nearest of `objects` along `ray` (`t < 0`: none), for any kind of surface.
#[device_fn]
pub fn nearest<H: Hit>(objects: &[H], ray: Ray) -> Nearest {
    let mut best = Nearest { t: -1.0, index: 0 };
    for i in 0..objects.len() {
        let t = objects[i].hit(ray);
        if t > 1e-3 && (best.t < 0.0 || t < best.t) {
            best = Nearest { t, index: i as u32 };
        }
    }
    best
}

#[device_fn]
pub fn sky(ray: Ray) -> Vec3 {
    let t = 0.5 * (ray.dir.y + 1.0);
    Vec3::new(1.0, 1.0, 1.0) * (1.0 - t) + Vec3::new(0.5, 0.7, 1.0) * t
}

/// An RGBA pixel, little-endian (`R` in the lowest byte).
#[device_fn]
pub fn pack(c: Vec3) -> u32 {
    let r = (c.x.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
    let g = (c.y.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
    let b = (c.z.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
    r | g << 8 | b << 16 | 255 << 24
}

#[kernel]
pub fn render(spheres: &[Sphere], planes: &[Plane], width: u32, height: u32, light: Vec3, out: &mut [u32]) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    if x >= width || y >= height {
        return;
    }
    let u = ((x as f32 + 0.5) / width as f32 * 2.0 - 1.0) * (width as f32 / height as f32);
    let v = 1.0 - (y as f32 + 0.5) / height as f32 * 2.0;
    let ray = Ray { origin: Vec3::new(0.0, 1.0, -4.0), dir: Vec3::new(u, v - 0.15, 1.6).normalized() };
    let s = nearest(spheres, ray);
    let p = nearest(planes, ray);
    let mut color = sky(ray);
    if s.t > 0.0 && (p.t < 0.0 || s.t < p.t) {
        color = spheres[s.index as usize].shade(ray.at(s.t), light);
    } else if p.t > 0.0 {
        let hit = ray.at(p.t);
        color = planes[p.index as usize].shade(hit, light);
        // In the shadow of a sphere: something lies between the point and the light.
        let to_light = light - hit;
        let blocker = nearest(spheres, Ray { origin: hit, dir: to_light.normalized() });
        if blocker.t > 0.0 && blocker.t < to_light.length() {
            color = color * 0.35;
        }
    }
    out[(y * width + x) as usize] = pack(color);
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::select()?;
    println!("backend: {} ({})", device.kind(), device.name());
    let stream = device.stream();
    let v = Vec3::new;
    let spheres = [
        Sphere { center: v(0.0, 1.0, 0.0), radius: 1.0, albedo: v(0.9, 0.25, 0.2) },
        Sphere { center: v(-2.1, 0.7, 0.8), radius: 0.7, albedo: v(0.2, 0.6, 0.9) },
        Sphere { center: v(1.9, 0.5, -0.6), radius: 0.5, albedo: v(0.95, 0.8, 0.25) },
    ];
    let planes = [Plane { point: v(0.0, 0.0, 0.0), normal: v(0.0, 1.0, 0.0), albedo: v(0.85, 0.85, 0.85) }];
    let light = v(-3.0, 6.0, -3.0);
    let (width, height) = (160u32, 120u32);
    let n = (width * height) as usize;

    let sb = DeviceBuffer::from_slice(&stream, &spheres)?;
    let pb = DeviceBuffer::from_slice(&stream, &planes)?;
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n)?;
    let grid = (width.div_ceil(16), height.div_ceil(16));
    render::launch(&stream, LaunchConfig::new(grid, (16, 16)), &sb, &pb, width, height, light, &mut ob)?;
    let image = ob.to_vec()?;

    // The same kernel body on the host, thread by thread.
    let mut host = vec![0u32; n];
    {
        let out = host::Disjoint::new(&mut host);
        // SAFETY: each thread writes only its own pixel.
        host::run([grid.0, grid.1, 1], [16, 16, 1], 0, || render(&spheres, &planes, width, height, light, unsafe { out.get() }));
    }
    let differ = image.iter().zip(&host).filter(|(d, h)| d != h).count();
    println!("{width}x{height} pixels: {differ} differ from the host");
    if differ != 0 {
        return Err("the device image differs from the host's".into());
    }

    let bytes: Vec<u8> = image.iter().flat_map(|p| p.to_le_bytes()).collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("raytrace.png");
    let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&bytes)?;

    // Read it back: the file holds the image.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path)?));
    let mut reader = decoder.read_info()?;
    let mut back = vec![0u8; reader.output_buffer_size().ok_or("png: no output size")?];
    let info = reader.next_frame(&mut back)?;
    if (info.width, info.height) != (width, height) || back[..info.buffer_size()] != bytes[..] {
        return Err("the PNG read back differs from the image".into());
    }
    println!("verified: equal to the host; wrote {}", path.display());
    Ok(())
}
