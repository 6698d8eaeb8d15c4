//! Ray casting against spheres, written as a Rust programmer would: a `Vec3` with methods and
//! `core::ops` operators (`#[device_fn]` on the impl blocks), a `Ray` with `at`, a `Sphere`
//! with `hit`. Each thread shades one pixel: the nearest hit's Lambert term, or a sky gradient.

use super::{assert_bits_eq, assert_close};
use core::ops::{Add, AddAssign, Mul, Neg, Sub};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[device_fn]
impl Vec3 {
    pub fn new(x: f32, y: f32, z: f32) -> Self {
        Self { x, y, z }
    }

    pub fn dot(self, o: Vec3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    pub fn length(&self) -> f32 {
        self.dot(*self).sqrt()
    }

    pub fn unit(self) -> Vec3 {
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
        self * -1.0
    }
}

#[device_fn]
impl AddAssign for Vec3 {
    fn add_assign(&mut self, o: Vec3) {
        *self = *self + o;
    }
}

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    pub origin: Vec3,
    pub dir: Vec3,
}

#[device_fn]
impl Ray {
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

#[repr(C)]
#[derive(DeviceRepr, Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
}

#[device_fn]
impl Sphere {
    /// The nearest `t > 0.001` where `ray` meets the sphere, or a negative number.
    pub fn hit(&self, ray: Ray) -> f32 {
        let oc = ray.origin - self.center;
        let a = ray.dir.dot(ray.dir);
        let half_b = oc.dot(ray.dir);
        let c = oc.dot(oc) - self.radius * self.radius;
        let disc = half_b * half_b - a * c;
        if disc < 0.0 {
            return -1.0;
        }
        let root = disc.sqrt();
        let near = (-half_b - root) / a;
        if near > 0.001 {
            return near;
        }
        (-half_b + root) / a
    }
}

pub const W: usize = 24;
pub const H: usize = 16;

#[kernel]
pub fn shade(spheres: &[Sphere], light: Vec3, out: &mut [Vec3]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= out.len() {
        return;
    }
    let (px, py) = ((i % W) as f32, (i / W) as f32);
    let dir = Vec3::new(px / W as f32 * 2.0 - 1.0, 1.0 - py / H as f32 * 2.0, -1.0);
    let ray = Ray { origin: Vec3::new(0.0, 0.0, 1.0), dir: dir.unit() };
    let mut best = -1.0f32;
    let mut which = 0usize;
    for s in 0..spheres.len() {
        let t = spheres[s].hit(ray);
        if t > 0.001 && (best < 0.0 || t < best) {
            best = t;
            which = s;
        }
    }
    let mut color = Vec3::new(0.05, 0.05, 0.1);
    if best > 0.0 {
        let p = ray.at(best);
        let n = (p - spheres[which].center).unit();
        let lambert = n.dot(-light).max(0.0);
        color += Vec3::new(0.9, 0.6, 0.3) * lambert;
    } else {
        color += Vec3::new(0.5, 0.7, 1.0) * (0.5 * (ray.dir.y + 1.0));
    }
    out[i] = color;
}

pub const PTX: &[(&str, &str)] = &[("shade", shade::PTX)];

fn scene() -> (Vec<Sphere>, Vec3) {
    let s = |x: f32, y: f32, z: f32, r: f32| Sphere { center: Vec3 { x, y, z }, radius: r };
    let spheres = vec![s(0.0, 0.0, -1.5, 0.6), s(-0.9, 0.3, -2.0, 0.4), s(0.8, -0.4, -1.2, 0.3), s(0.0, -100.6, -1.5, 100.0)];
    let l = Vec3 { x: 1.0, y: -1.0, z: -0.6 };
    let n = (l.x * l.x + l.y * l.y + l.z * l.z).sqrt();
    (spheres, Vec3 { x: l.x / n, y: l.y / n, z: l.z / n })
}

fn flat(v: &[Vec3]) -> Vec<f32> {
    v.iter().flat_map(|c| [c.x, c.y, c.z]).collect()
}

fn on_host() -> Vec<Vec3> {
    let (spheres, light) = scene();
    let mut out = vec![Vec3 { x: 0.0, y: 0.0, z: 0.0 }; W * H];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([3, 1, 1], [128, 1, 1], 0, || shade(&spheres, light, unsafe { o.get() }));
    out
}

/// The same scene with plain `[f32; 3]` arithmetic, no methods or operators.
pub fn check_host() {
    let (spheres, light) = scene();
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let unit = |a: [f32; 3]| {
        let k = 1.0 / dot(a, a).sqrt();
        [a[0] * k, a[1] * k, a[2] * k]
    };
    let mut want = Vec::new();
    for i in 0..W * H {
        let (px, py) = ((i % W) as f32, (i / W) as f32);
        let dir = unit([px / W as f32 * 2.0 - 1.0, 1.0 - py / H as f32 * 2.0, -1.0]);
        let origin = [0.0, 0.0, 1.0];
        let mut best = -1.0f32;
        let mut which = 0;
        for (k, s) in spheres.iter().enumerate() {
            let c = [s.center.x, s.center.y, s.center.z];
            let oc = [origin[0] - c[0], origin[1] - c[1], origin[2] - c[2]];
            let (a, hb, cc) = (dot(dir, dir), dot(oc, dir), dot(oc, oc) - s.radius * s.radius);
            let disc = hb * hb - a * cc;
            if disc < 0.0 {
                continue;
            }
            let near = (-hb - disc.sqrt()) / a;
            let t = if near > 0.001 { near } else { (-hb + disc.sqrt()) / a };
            if t > 0.001 && (best < 0.0 || t < best) {
                best = t;
                which = k;
            }
        }
        let color = if best > 0.0 {
            let p = [origin[0] + dir[0] * best, origin[1] + dir[1] * best, origin[2] + dir[2] * best];
            let c = spheres[which].center;
            let n = unit([p[0] - c.x, p[1] - c.y, p[2] - c.z]);
            let l = dot(n, [-light.x, -light.y, -light.z]).max(0.0);
            [0.05 + 0.9 * l, 0.05 + 0.6 * l, 0.1 + 0.3 * l]
        } else {
            let s = 0.5 * (dir[1] + 1.0);
            [0.05 + 0.5 * s, 0.05 + 0.7 * s, 0.1 + 1.0 * s]
        };
        want.extend(color);
    }
    let got = flat(&on_host());
    // The reference groups `-light` and `* -1.0` differently, so compare closely, not bitwise.
    assert_close("spheres", &got, &want, 1e-5);
    // Both kinds of pixel occur.
    assert!(got.chunks(3).any(|c| c[2] > 0.5) && got.chunks(3).any(|c| c[0] > 0.3 && c[2] < 0.3));
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (spheres, light) = scene();
    let sb = DeviceBuffer::from_slice(stream, &spheres)?;
    let mut out = DeviceBuffer::<Vec3>::zeroed(stream, W * H)?;
    shade::launch(stream, LaunchConfig::new(3, 128), &sb, light, &mut out)?;
    assert_bits_eq("spheres on the device", &flat(&out.to_vec()?), &flat(&on_host()));
    Ok(())
}
