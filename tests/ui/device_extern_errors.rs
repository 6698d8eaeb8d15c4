#![allow(unused)]

use ptx_runtime::device_extern;

#[device_extern]
extern "C" {
    // A template cannot be declared generically: one function per instance.
    fn twice<T>(x: T) -> T;
    // One symbol per function.
    #[cpp = "geo::scale"]
    #[link_name = "_ZN3geo5scaleEf"]
    fn scale(x: f32) -> f32;
    // A slice has no C++ mangling.
    #[cpp = "geo::sum"]
    fn sum(xs: &[f32]) -> f32;
    // Not a qualified name.
    #[cpp = "twice<int>"]
    fn twice_i(x: i32) -> i32;
    // Variables are not declared here.
    static COUNTER: u32;
}

fn main() {}
