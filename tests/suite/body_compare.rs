//! `#[derive(PartialEq, PartialOrd)]` on `DeviceRepr` structs: `==`, `!=`, `<`, `<=`, `>`,
//! `>=` in device code compare field by field as the derives do (nested structs and arrays
//! included, lexicographically, a NaN field making the ordering false); run on the host and on
//! the CPU backend for pairs that differ in each field, and compared; the module through ptxas.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

pub mod cmp {
    use ptx_runtime::device::*;
    use ptx_runtime::{kernel, DeviceRepr};

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, PartialOrd)]
    #[repr(C)]
    pub struct Key {
        pub major: u32,
        pub minor: f32,
        pub tag: [u8; 2],
    }

    #[derive(DeviceRepr, Clone, Copy, Debug, PartialEq, PartialOrd)]
    #[repr(C)]
    pub struct Outer {
        pub k: Key,
        pub w: i16,
    }

    #[kernel]
    pub fn compare(a: &[Outer], b: &[Outer], out: &mut [u32]) {
        let i = thread_idx_x() as usize;
        let (x, y) = (a[i], b[i]);
        let mut bits = 0u32;
        if x == y {
            bits |= 1;
        }
        if x != y {
            bits |= 2;
        }
        if x < y {
            bits |= 4;
        }
        if x <= y {
            bits |= 8;
        }
        if x > y {
            bits |= 16;
        }
        if x >= y {
            bits |= 32;
        }
        if x.k == b[i].k {
            bits |= 64;
        }
        if a[i].k < y.k {
            bits |= 128;
        }
        out[i] = bits;
    }
}

#[test]
fn derived_comparisons_run_as_on_the_host() {
    use cmp::{Key, Outer};
    assemble("compare", cmp::compare::PTX);
    let base = Outer { k: Key { major: 3, minor: 1.5, tag: [7, 9] }, w: -2 };
    let vary = |f: &dyn Fn(&mut Outer)| {
        let mut o = base;
        f(&mut o);
        o
    };
    let others = [
        base,
        vary(&|o| o.k.major = 2),
        vary(&|o| o.k.major = 4),
        vary(&|o| o.k.minor = 1.0),
        vary(&|o| o.k.minor = 2.0),
        vary(&|o| o.k.minor = f32::NAN),
        vary(&|o| o.k.minor = -0.0),
        vary(&|o| o.k.tag[0] = 6),
        vary(&|o| o.k.tag[1] = 10),
        vary(&|o| o.w = -3),
        vary(&|o| o.w = 5),
        vary(&|o| {
            o.k.major = 2;
            o.w = 100;
        }),
    ];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for x in &others {
        for y in &others {
            a.push(*x);
            b.push(*y);
        }
    }
    let n = a.len();
    let mut host = vec![0u32; n];
    {
        let o = host::Disjoint::new(&mut host);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || cmp::compare(&a, &b, unsafe { o.get() }));
    }
    // The host run is Rust's derived comparisons.
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let want = (x == y) as u32 | ((x != y) as u32) << 1 | ((x < y) as u32) << 2 | ((x <= y) as u32) << 3 | ((x > y) as u32) << 4 | ((x >= y) as u32) << 5 | ((x.k == y.k) as u32) << 6 | ((x.k < y.k) as u32) << 7;
        assert_eq!(host[i], want, "{x:?} vs {y:?}");
    }
    let stream = crate::body_exec::cpu_stream();
    let (ab, bb) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap());
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    cmp::compare::launch(&stream, LaunchConfig::new(1, n as u32), &ab, &bb, &mut ob).unwrap();
    let d = ob.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(host[i], d[i], "{:?} vs {:?}: host {:08b}, device {:08b}", a[i], b[i], host[i], d[i]);
    }
}
