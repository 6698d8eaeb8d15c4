#![allow(unused)]

use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Stream};

// A generic kernel without its instances.
#[kernel]
pub fn fill<T: Copy>(out: &mut [T], value: T) {}

#[kernel(instances(f32, f64))]
pub fn scale<T: Copy + core::ops::Mul<Output = T>>(a: T, x: &mut [T]) {}

// `instances` on a kernel that has no parameters to instantiate.
#[kernel(instances(f32))]
pub fn plain(x: &mut [f32]) {}

fn launch_undeclared(stream: &Stream, x: &mut DeviceBuffer<u32>) {
    let _ = scale::launch::<u32>(stream, LaunchConfig::new(1, 1), 2, x);
}

fn main() {}
