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
    // A template instance needs its template's declaration.
    #[cpp = "twice<int>"]
    fn twice_i(x: i32) -> i32;
    // The declaration must be the instance's template, with as many parameters.
    #[cpp = "twice<int>"]
    #[cpp_template = "template <typename T> T thrice(T)"]
    fn twice_j(x: i32) -> i32;
    #[cpp = "twice<int>"]
    #[cpp_template = "template <typename T> T twice(T, T)"]
    fn twice_k(x: i32) -> i32;
    // A template's declaration with no instance to describe.
    #[cpp_template = "template <typename T> T twice(T)"]
    fn twice_l(x: i32) -> i32;
    // Variables are not declared here.
    static COUNTER: u32;
}

fn main() {}
