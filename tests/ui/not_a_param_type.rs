#![allow(unused)]

use ptx_runtime::kernel;

pub struct Config {
    pub scale: f32,
}

#[kernel]
pub fn apply(config: Config, out: &mut [f32]) {}

fn main() {}
