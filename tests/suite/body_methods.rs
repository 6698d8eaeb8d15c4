//! Methods and operators of user types: `#[device_fn]` on inherent and `core::ops` impl blocks
//! (receivers `self`, `&self`, `&mut self`; associated functions and constants; `Self`), run
//! on the host and on the CPU backend and compared, every module through ptxas.

#![allow(clippy::op_ref, clippy::needless_arbitrary_self_type, clippy::needless_return)]

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod geo {
    use core::ops::{Add, AddAssign, Div, Index, IndexMut, Mul, MulAssign, Neg, Sub, SubAssign};
    use ptx_runtime::{device_fn, DeviceRepr};

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Default)]
    pub struct Vec3 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }

    #[device_fn]
    impl Vec3 {
        pub const EPS: f32 = 1e-6;
        pub const UP: Vec3 = Vec3 { x: 0.0, y: 1.0, z: 0.0 };

        pub fn new(x: f32, y: f32, z: f32) -> Vec3 {
            Vec3 { x, y, z }
        }

        pub fn splat(v: f32) -> Self {
            Self::new(v, v, v)
        }

        pub fn dot(self, o: Vec3) -> f32 {
            self.x * o.x + self.y * o.y + self.z * o.z
        }

        pub fn length(&self) -> f32 {
            self.dot(*self).sqrt()
        }

        pub fn normalized(&self) -> Vec3 {
            let l = self.length();
            if l < Self::EPS {
                return *self;
            }
            *self / l
        }

        pub fn cross(&self, o: Vec3) -> Vec3 {
            Vec3::new(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)
        }

        /// `&mut self`, with an early `return`.
        pub fn clamp_len(&mut self, max: f32) {
            let l = self.length();
            if l <= max {
                return;
            }
            self.x *= max / l;
            self.y *= max / l;
            self.z *= max / l;
        }

        /// A receiver written with its type.
        pub fn sum(self: &Self) -> f32 {
            let v = *self;
            v.x + v.y + v.z
        }

        pub fn scale_by(&mut self, s: f32) {
            *self *= s;
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
        type Output = Self;
        fn sub(self, o: Self) -> Self::Output {
            Self::new(self.x - o.x, self.y - o.y, self.z - o.z)
        }
    }

    #[device_fn]
    impl Mul<f32> for Vec3 {
        type Output = Vec3;
        fn mul(self, s: f32) -> Vec3 {
            Vec3::new(self.x * s, self.y * s, self.z * s)
        }
    }

    /// Component-wise: a second `Mul`, picked by the right operand's type.
    #[device_fn]
    impl Mul<Vec3> for Vec3 {
        type Output = Vec3;
        fn mul(self, o: Vec3) -> Vec3 {
            Vec3::new(self.x * o.x, self.y * o.y, self.z * o.z)
        }
    }

    /// A primitive on the left: `2.0 * v`.
    #[device_fn]
    impl Mul<Vec3> for f32 {
        type Output = Vec3;
        fn mul(self, v: Vec3) -> Vec3 {
            v * self
        }
    }

    #[device_fn]
    impl Div<f32> for Vec3 {
        type Output = Vec3;
        fn div(self, s: f32) -> Vec3 {
            self * (1.0 / s)
        }
    }

    #[device_fn]
    impl Neg for Vec3 {
        type Output = Vec3;
        fn neg(self) -> Vec3 {
            Vec3::new(-self.x, -self.y, -self.z)
        }
    }

    #[device_fn]
    impl AddAssign for Vec3 {
        fn add_assign(&mut self, o: Vec3) {
            self.x += o.x;
            self.y += o.y;
            self.z += o.z;
        }
    }

    #[device_fn]
    impl SubAssign for Vec3 {
        fn sub_assign(&mut self, o: Vec3) {
            *self = *self - o;
        }
    }

    #[device_fn]
    impl MulAssign<f32> for Vec3 {
        fn mul_assign(&mut self, s: f32) {
            self.x *= s;
            self.y *= s;
            self.z *= s;
        }
    }

    /// Read-only indexing: on the device `v[i]` is a call returning the element.
    #[device_fn]
    impl Index<usize> for Vec3 {
        type Output = f32;
        fn index(&self, i: usize) -> &Self::Output {
            if i == 0 {
                return &self.x;
            }
            match i {
                1 => &self.y,
                _ => &self.z,
            }
        }
    }

    /// Writing: on the device `v[i] = x` stores through a setter (copy-in/copy-out).
    #[device_fn]
    impl IndexMut<usize> for Vec3 {
        fn index_mut(&mut self, i: usize) -> &mut f32 {
            match i {
                0 => &mut self.x,
                1 => return &mut self.y,
                _ => &mut self.z,
            }
        }
    }

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Default)]
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
}

mod user {
    // Methods are found next to their type: a glob import of its module, or a path through it.
    use super::geo::*;
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;

    /// Methods on locals, slice elements and struct fields; operators; `&mut self` on each kind
    /// of place.
    #[kernel]
    pub fn shade(vs: &[Vec3], rays: &[Ray], out: &mut [Vec3], lens: &mut [f32]) {
        let i = thread_idx_x() as usize;
        let a = vs[i];
        let ra = &vs[i];
        let b = Vec3::splat(0.5);
        let mut c = a + b * 2.0 - -a;
        c += b;
        c -= Vec3::new(0.25, 0.0, 1.0);
        c *= 0.5;
        c.clamp_len(4.0);
        let n = vs[i].normalized();
        let r = rays[i];
        let p = r.at(1.5);
        let mut twice = r;
        twice.dir.scale_by(2.0);
        let q = twice.at(0.5) * (n * Vec3::new(1.0, 2.0, 3.0));
        let up: Vec3 = Vec3::UP;
        let up = 0.5 * up + 2.0 * (a * 0.25);
        out[i] = c + p.cross(q) + n + up * 0.5 + c.cross(Vec3::UP);
        out[i].scale_by(0.5);
        out[i][i % 3] = a[(i + 1) % 3];
        out[i][2] += 0.25;
        out[i][1] *= c[0];
        let slot = &mut out[i];
        slot.scale_by(2.0);
        (*slot).scale_by(0.5);
        lens[i] = Vec3::dot(c, n) + out[i].length() + ra.dot(b) + rays[i].dir.dot(ra.cross(b)) + r.dir.length() + Vec3::EPS + c[i % 3] + vs[i][2] + ra[1] + c.sum();
    }
}

fn inputs() -> (Vec<geo::Vec3>, Vec<geo::Ray>) {
    use geo::{Ray, Vec3};
    let vs: Vec<Vec3> = (0..32).map(|i| Vec3 { x: i as f32 * 0.5 - 4.0, y: (i % 5) as f32, z: if i == 3 { 0.0 } else { 1.0 / (i as f32 + 1.0) } }).collect();
    let vs: Vec<Vec3> = vs.into_iter().enumerate().map(|(i, v)| if i == 8 { Vec3::default() } else { v }).collect();
    let rays = (0..32).map(|i| Ray { origin: Vec3 { x: i as f32, y: 1.0, z: -2.0 }, dir: Vec3 { x: 0.25, y: -(i as f32), z: 3.0 } }).collect();
    (vs, rays)
}

#[test]
fn methods_and_operators_run_as_on_the_host() {
    let ptx = user::shade::PTX;
    assemble("methods_shade", ptx);
    let (vs, rays) = inputs();
    let (mut out, mut lens) = (vec![geo::Vec3::default(); 32], vec![0.0f32; 32]);
    {
        let (o, l) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut lens));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [32, 1, 1], 0, || user::shade(&vs, &rays, unsafe { o.get() }, unsafe { l.get() }));
    }
    let stream = crate::body_exec::cpu_stream();
    let (vb, rb) = (DeviceBuffer::from_slice(&stream, &vs).unwrap(), DeviceBuffer::from_slice(&stream, &rays).unwrap());
    let mut ob = DeviceBuffer::<geo::Vec3>::zeroed(&stream, 32).unwrap();
    let mut lb = DeviceBuffer::<f32>::zeroed(&stream, 32).unwrap();
    user::shade::launch(&stream, LaunchConfig::new(1, 32), &vb, &rb, &mut ob, &mut lb).unwrap();
    let (dev_out, dev_lens) = (ob.to_vec().unwrap(), lb.to_vec().unwrap());
    for i in 0..32 {
        let (h, d) = (out[i], dev_out[i]);
        assert_eq!((h.x.to_bits(), h.y.to_bits(), h.z.to_bits()), (d.x.to_bits(), d.y.to_bits(), d.z.to_bits()), "thread {i}: host {h:?}, device {d:?}");
        assert_eq!(lens[i].to_bits(), dev_lens[i].to_bits(), "thread {i}: host {}, device {}", lens[i], dev_lens[i]);
    }
}

/// Kept as calls (a `debug` kernel inlines nothing, as nvcc -G): the module carries the methods
/// the kernel reaches and no other.
#[kernel(debug)]
pub fn unused_methods_stay_out(v: &mut [f32]) {
    v[0] = geo::Vec3::new(1.0, 2.0, 2.0).length();
}

/// The same body inlined, as kernels inline small methods by default (`front::inline_method`):
/// `new`, `length` and the `dot` that `length` calls.
#[kernel]
pub fn methods_inlined(v: &mut [f32]) {
    v[0] = geo::Vec3::new(1.0, 2.0, 2.0).length();
}

#[test]
fn a_kernel_carries_the_methods_it_reaches() {
    let ptx = unused_methods_stay_out::PTX;
    assemble("methods_reach", ptx);
    // `new`, `length` and `dot` (called by `length`: methods, as device functions, inline
    // nothing themselves), each defined once; nothing else.
    let funcs = ptx.matches(".visible .func").count();
    assert_eq!(funcs, 6, "three prototypes and three definitions:\n{ptx}");
    for sym in [geo::Vec3::__PTX_SYMBOL__new, geo::Vec3::__PTX_SYMBOL__length, geo::Vec3::__PTX_SYMBOL__dot] {
        assert_eq!(ptx.matches(&format!("{sym}(")).count(), 2, "{sym}:\n{ptx}");
    }
    let mut v = [0.0f32];
    unused_methods_stay_out(&mut v);
    assert_eq!(v[0], 3.0);
    // Inlined: no function, no call; the same result on the device.
    let ptx = methods_inlined::PTX;
    assemble("methods_inlined", ptx);
    assert!(!ptx.contains(".func") && !ptx.contains("call"), "{ptx}");
    let stream = crate::body_exec::cpu_stream();
    let (mut a, mut b) = (DeviceBuffer::<f32>::zeroed(&stream, 1).unwrap(), DeviceBuffer::<f32>::zeroed(&stream, 1).unwrap());
    methods_inlined::launch(&stream, LaunchConfig::new(1, 1), &mut a).unwrap();
    unused_methods_stay_out::launch(&stream, LaunchConfig::new(1, 1), &mut b).unwrap();
    assert_eq!((a.to_vec().unwrap(), b.to_vec().unwrap()), (vec![3.0], vec![3.0]));
}

/// Methods and an operator of a type in another crate, named through its crate.
#[kernel]
pub fn other_crate(cs: &[ptx_devlib::Rgb], out: &mut [ptx_devlib::Rgb]) {
    let i = thread_idx_x() as usize;
    out[i] = cs[i].inverted() + cs[0];
}

#[test]
fn methods_of_another_crate() {
    use ptx_devlib::Rgb;
    assemble("methods_other_crate", other_crate::PTX);
    let cs: Vec<Rgb> = (0..16u8).map(|i| Rgb { r: i * 16, g: 200 - i, b: i * 3 }).collect();
    let mut out = vec![Rgb { r: 0, g: 0, b: 0 }; 16];
    {
        let o = host::Disjoint::new(&mut out);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [16, 1, 1], 0, || other_crate(&cs, unsafe { o.get() }));
    }
    for i in 0..16 {
        let c = cs[i];
        assert_eq!(out[i], Rgb { r: (255 - c.r).saturating_add(cs[0].r), g: (255 - c.g).saturating_add(cs[0].g), b: (255 - c.b).saturating_add(cs[0].b) });
    }
    let stream = crate::body_exec::cpu_stream();
    let cb = DeviceBuffer::from_slice(&stream, &cs).unwrap();
    let mut ob = DeviceBuffer::<Rgb>::zeroed(&stream, 16).unwrap();
    other_crate::launch(&stream, LaunchConfig::new(1, 16), &cb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
}

/// The methods' symbols are the ones nvcc gives the C++ members of the same struct in the same
/// namespaces (`const` members for `self`/`&self`, operators by their Itanium names).
#[test]
fn method_symbols_are_nvccs() {
    use geo::Vec3;
    let cuda = r#"
namespace suite { namespace body_methods { namespace geo {
struct Vec3 {
    float x, y, z;
    __device__ Vec3 operator+(Vec3 o) const;
    __device__ Vec3 operator*(float s) const;
    __device__ Vec3 operator*(Vec3 o) const;
    __device__ Vec3 operator-() const;
    __device__ void operator+=(Vec3 o);
    __device__ void operator*=(float s);
    __device__ float operator[](unsigned long i) const;
    __device__ float &operator[](unsigned long i);
};
__device__ __noinline__ Vec3 operator*(float s, Vec3 v) { return Vec3{s * v.x, v.y, v.z}; }
__device__ __noinline__ Vec3 Vec3::operator+(Vec3 o) const { return Vec3{x + o.x, y, z}; }
__device__ __noinline__ Vec3 Vec3::operator*(float s) const { return Vec3{x * s, y, z}; }
__device__ __noinline__ Vec3 Vec3::operator*(Vec3 o) const { return Vec3{x * o.x, y, z}; }
__device__ __noinline__ Vec3 Vec3::operator-() const { return Vec3{-x, y, z}; }
__device__ __noinline__ void Vec3::operator+=(Vec3 o) { x += o.x; }
__device__ __noinline__ void Vec3::operator*=(float s) { x *= s; }
__device__ __noinline__ float Vec3::operator[](unsigned long i) const { return i == 0 ? x : y; }
__device__ __noinline__ float &Vec3::operator[](unsigned long i) { return i == 0 ? x : y; }
}}}
using suite::body_methods::geo::Vec3;
__global__ void k(Vec3 *p) { Vec3 a = p[0]; a += a; a *= 2.0f; p[1] = (-a + a) * 2.0f * a; const Vec3 ca = a; p[2].x = ca[1]; p[3][1] = 2.0f; p[4] = 3.0f * a; }
"#;
    let ours = [Vec3::__PTX_SYMBOL__Add, Vec3::__PTX_SYMBOL__Mul_scalar, Vec3::__PTX_SYMBOL__Mul, Vec3::__PTX_SYMBOL__Neg, Vec3::__PTX_SYMBOL__AddAssign, Vec3::__PTX_SYMBOL__MulAssign_scalar, Vec3::__PTX_SYMBOL__Index_scalar, Vec3::__PTX_SYMBOL__IndexMut_scalar, Vec3::__PTX_SYMBOL__Mul_scalar_lhs];
    assert_eq!(ours[0], "_ZNK5suite12body_methods3geo4Vec3plES2_");
    let Some(theirs) = nvcc_ptx("method_symbols", cuda) else { return };
    for sym in ours {
        // nvcc suffixes functions it keeps internal with `$<n>`.
        let named = |w: &str| w.strip_prefix(sym).is_some_and(|rest| rest.is_empty() || rest.starts_with('(') || rest.starts_with('$'));
        let defined = theirs.lines().any(|l| l.contains(".func") && l.split_whitespace().any(named));
        assert!(defined, "nvcc has no `{sym}`:\n{theirs}");
    }
}

/// Methods that stay calls in a kernel that inlines the others (`front::inline_method`).
pub mod rec {
    use ptx_runtime::{device_fn, DeviceRepr};

    #[repr(C)]
    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, Default)]
    pub struct Counter {
        pub step: u32,
    }

    pub const LIMIT: u32 = 1000;

    #[device_fn]
    impl Counter {
        /// Private: a kernel in another module could not name it.
        const SCALE: u32 = 3;

        /// Reads the private constant: a call, which reads it where it is visible.
        pub fn scaled(self, v: u32) -> u32 {
            v * Self::SCALE * self.step
        }

        /// CUDA's `__noinline__`: a call.
        #[inline(never)]
        pub fn twice(self, n: u32) -> u32 {
            2 * n * self.step
        }

        /// Reads a constant of its module, which a kernel elsewhere could not name: a call.
        pub fn capped(self, v: u32) -> u32 {
            if v > LIMIT {
                LIMIT
            } else {
                v * self.step
            }
        }

        /// `mut self` and a `mut` parameter, assigned in the inlined body.
        pub fn stepped(mut self, mut n: u32) -> u32 {
            self.step += 1;
            n *= self.step;
            n
        }

        /// Inlined; a failed check reports this line and this method.
        pub fn at(self, i: u32) -> u32 {
            assert!(i < 8, "past the counter"); // MARK: counter check
            i * self.step
        }
    }
}

#[kernel]
pub fn counters(c: rec::Counter, out: &mut [u32], i: u32) {
    out[0] = c.twice(5);
    out[1] = c.capped(5000);
    out[2] = c.at(i);
    out[3] = c.scaled(2);
    out[4] = c.stepped(5);
}

#[test]
fn methods_kept_as_calls_and_a_check_in_an_inlined_one() {
    let ptx = counters::PTX;
    assemble("counters", ptx);
    let called = |sym: &str| ptx.lines().any(|l| l.contains("call") && l.contains(&format!(" {sym},")));
    assert!(called(rec::Counter::__PTX_SYMBOL__twice) && called(rec::Counter::__PTX_SYMBOL__capped) && called(rec::Counter::__PTX_SYMBOL__scaled), "{ptx}");
    assert!(!ptx.contains(rec::Counter::__PTX_SYMBOL__at) && !ptx.contains(rec::Counter::__PTX_SYMBOL__stepped), "`at` and `stepped` are inlined:\n{ptx}");
    let c = rec::Counter { step: 3 };
    let mut host = [0u32; 5];
    counters(c, &mut host, 5);
    assert_eq!(host, [30, 1000, 15, 18, 20]);
    let stream = crate::body_exec::cpu_stream();
    let mut out = DeviceBuffer::<u32>::zeroed(&stream, 5).unwrap();
    counters::launch(&stream, LaunchConfig::new(1, 1), c, &mut out, 5).unwrap();
    assert_eq!(out.to_vec().unwrap(), host);
    match counters::launch(&stream, LaunchConfig::new(1, 1), c, &mut out, 9) {
        Err(ptx_runtime::Error::Assert { message, line, function, .. }) => {
            let want = include_str!("body_methods.rs").lines().position(|l| l.trim_end().ends_with("// MARK: counter check")).unwrap() as u32 + 1;
            assert_eq!((message.as_str(), line), ("past the counter", want));
            assert!(function.ends_with("body_methods::rec::Counter::at"), "{function}");
        }
        other => panic!("expected the check's Error::Assert, got {other:?}"),
    }
}
