#![allow(unused)]

use ptx_runtime::kernel;

pub struct Model;

impl Model {
    #[kernel]
    pub fn step(&self, out: &mut [f32]) {}
}

fn main() {}
