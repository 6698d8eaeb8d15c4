#![allow(unused)]

use ptx_runtime::device_fn;

pub trait Shape {
    fn area(&self) -> f32;
}

#[device_fn]
pub fn area(shape: &dyn Shape) -> f32 {
    shape.area()
}

fn main() {}
