//! Memory: raw pointers, slices and sub-slices, `get_unchecked`, structs (nested, with
//! arrays, from another module, through pointers), unions through pointers, local arrays,
//! native vectors, `bool` and 16-bit float storage; the state spaces each access uses.

// The kernels spell out the language forms under test (a `loop` that breaks with a value at
// once, `x % 1`, index loops, casts to the same type...): the device compiler must handle what
// is written, so clippy's rewrites would test less.
#![allow(clippy::never_loop, clippy::modulo_one, clippy::erasing_op, clippy::identity_op, clippy::needless_range_loop, clippy::manual_is_multiple_of, clippy::unnecessary_cast, clippy::assign_op_pattern, clippy::too_many_arguments, clippy::needless_late_init, clippy::redundant_closure, clippy::manual_range_patterns, clippy::manual_div_ceil)]

use crate::body_subset::Same;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::half::{bf16, f16};
use ptx_runtime::vector::{u8x4, f64x2};
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub mod shapes {
    //! Types defined in another module than the kernels that use them.
    use ptx_runtime::DeviceRepr;

    #[derive(Clone, Copy, Debug, Default, PartialEq, DeviceRepr)]
    #[repr(C)]
    pub struct Point {
        pub x: f32,
        pub y: f32,
    }

    #[derive(Clone, Copy, Debug, Default, PartialEq, DeviceRepr)]
    #[repr(C)]
    pub struct Segment {
        pub a: Point,
        pub b: Point,
        pub weights: [u16; 3],
        pub id: i8,
    }

    /// A tuple struct.
    #[derive(Clone, Copy, Debug, Default, PartialEq, DeviceRepr)]
    #[repr(C)]
    pub struct Pair(pub u32, pub i16);

    #[derive(Clone, Copy, DeviceRepr)]
    #[repr(C)]
    pub union Bits {
        pub f: f32,
        pub u: u32,
    }
}

use shapes::{Bits, Pair, Point, Segment};

impl Same for Segment {
    fn same(&self, o: &Self) -> bool {
        self == o
    }
}

#[kernel]
pub fn pointers(src: *const u32, dst: *mut u32, n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        unsafe {
            let p = src.add(i as usize);
            let q = dst.offset(i as isize);
            let next = if i + 1 < n { *p.add(1) } else { 0 };
            let prev = if i > 0 { p.sub(1).read() } else { 0 };
            q.write(*p * 3 + next - prev);
            if !src.is_null() && i == 0 {
                *dst.add(n as usize) = 1234;
            }
        }
    }
}

#[test]
fn raw_pointers() {
    assemble("pointers", pointers::PTX);
    let src: Vec<u32> = (0..50).map(|i| i * i).collect();
    let want: Vec<u32> = (0..50).map(|i| src[i] * 3 + if i + 1 < 50 { src[i + 1] } else { 0 } - if i > 0 { src[i - 1] } else { 0 }).chain([1234]).collect();
    let mut out = vec![0u32; 51];
    let (sp, dp) = (src.as_ptr() as usize, out.as_mut_ptr() as usize);
    host::run([1, 1, 1], [64, 1, 1], 0, || pointers(sp as *const u32, dp as *mut u32, 50));
    assert_eq!(out, want);
    let stream = crate::body_exec::cpu_stream();
    let s = DeviceBuffer::from_slice(&stream, &src).unwrap();
    let mut d = DeviceBuffer::<u32>::zeroed(&stream, 51).unwrap();
    // SAFETY: the pointers are the buffers' addresses and the kernel stays inside them.
    unsafe { pointers::launch(&stream, LaunchConfig::new(1, 64), &s, &mut d, 50u32).unwrap() };
    assert_eq!(d.to_vec().unwrap(), want);
}

/// `read_volatile` / `write_volatile` are `ld.volatile` / `st.volatile` (never merged, hoisted
/// or removed by ptxas, and never `.nc`), in global and shared memory alike.
#[kernel]
pub fn volatile_access(src: *const u32, dst: *mut u32) {
    let mut stage = unsafe { shared_array::<u32, 64>() };
    let t = thread_idx_x() as usize;
    unsafe {
        let v = src.add(t).read_volatile();
        stage.as_mut_ptr().add(t).write_volatile(v + 1);
        sync_threads();
        let w = stage.as_ptr().add(63 - t).read_volatile();
        dst.add(t).write_volatile(w * 2);
    }
}

#[test]
fn volatile_loads_and_stores() {
    let ptx = volatile_access::PTX;
    assemble("volatile_access", ptx);
    for op in ["ld.volatile.global.u32", "st.volatile.shared.u32", "ld.volatile.shared.u32", "st.volatile.global.u32"] {
        assert!(ptx.contains(op), "no {op} in\n{ptx}");
    }
    assert!(!ptx.contains(".nc"), "a volatile read must not use the non-coherent path:\n{ptx}");
    let src: Vec<u32> = (0..64).map(|i| i * 5).collect();
    let want: Vec<u32> = (0..64).map(|i| (src[63 - i] + 1) * 2).collect();
    let mut out = vec![0u32; 64];
    let (sp, dp) = (src.as_ptr() as usize, out.as_mut_ptr() as usize);
    host::run([1, 1, 1], [64, 1, 1], 0, || volatile_access(sp as *const u32, dp as *mut u32));
    assert_eq!(out, want);
    let stream = crate::body_exec::cpu_stream();
    let s = DeviceBuffer::from_slice(&stream, &src).unwrap();
    let mut d = DeviceBuffer::<u32>::zeroed(&stream, 64).unwrap();
    // SAFETY: the pointers are the buffers' addresses; 64 threads touch 64 elements.
    unsafe { volatile_access::launch(&stream, LaunchConfig::new(1, 64), &s, &mut d).unwrap() };
    assert_eq!(d.to_vec().unwrap(), want);
}

#[kernel]
pub fn slices(x: &[i32], out: &mut [i32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= out.len() {
        return;
    }
    let window = &x[i..i + 4];
    let rest = &x[i..];
    let head = &x[..=i];
    let mut s = window[0] + window[3] + rest.len() as i32 * 1000 + head.len() as i32 * 100000;
    if !window.is_empty() {
        s += unsafe { *window.get_unchecked(2) };
    }
    unsafe {
        *out.get_unchecked_mut(i) = s + *x.as_ptr().add(i + 1);
    }
}

#[test]
fn slices_and_sub_slices() {
    assemble("slices", slices::PTX);
    let x: Vec<i32> = (0..64).map(|v| v * 7 - 100).collect();
    let n = 60;
    let want: Vec<i32> = (0..n).map(|i| x[i] + x[i + 3] + (64 - i as i32) * 1000 + (i as i32 + 1) * 100000 + x[i + 2] + x[i + 1]).collect();
    let mut out = vec![0; n];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [64, 1, 1], 0, || slices(&x, unsafe { o.get() }));
    assert_eq!(out, want);
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<i32>::zeroed(&stream, n).unwrap();
    slices::launch(&stream, LaunchConfig::new(1, 64), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
}

#[kernel]
pub fn segments(segs: &mut [Segment], origin: Point, bits: *const Bits, out_bits: *mut u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= segs.len() {
        return;
    }
    let s = segs[i];
    let mid = Point { x: (s.a.x + s.b.x) * 0.5 - origin.x, y: (s.a.y + s.b.y) * 0.5 - origin.y };
    let Segment { a, weights, .. } = s;
    let mut t = Segment { a: mid, ..s };
    t.b.x = a.x + weights[0] as f32;
    t.weights[1] = weights[1].wrapping_mul(2);
    t.weights[2] += 1;
    t.id = s.id.wrapping_neg();
    segs[i] = t;
    segs[i].b.y = segs[i].b.y * 2.0;
    unsafe {
        // Union fields read through a pointer.
        let u = bits.add(i);
        *out_bits.add(i) = (*u).u ^ ((*u).f as u32);
    }
}

fn segment_inputs() -> Vec<Segment> {
    (0..40)
        .map(|i| {
            let f = i as f32;
            Segment { a: Point { x: f, y: -f }, b: Point { x: f * 0.5, y: 3.0 }, weights: [i as u16, 60000 + i as u16, 7], id: i as i8 - 20 }
        })
        .collect()
}

#[test]
fn structs_nested_with_arrays_and_unions() {
    assemble("segments", segments::PTX);
    let origin = Point { x: 1.0, y: -2.0 };
    let bits: Vec<Bits> = (0..40).map(|i| Bits { f: i as f32 * 1.5 }).collect();
    let mut host_segs = segment_inputs();
    let mut host_bits = vec![0u32; 40];
    let (bp, ob) = (bits.as_ptr() as usize, host_bits.as_mut_ptr() as usize);
    let so = host::Disjoint::new(&mut host_segs);
    // SAFETY: one element per thread; the pointers are valid for 40 elements.
    host::run([1, 1, 1], [64, 1, 1], 0, || segments(unsafe { so.get() }, origin, bp as *const Bits, ob as *mut u32));
    let s0 = segment_inputs()[5];
    assert_eq!(host_segs[5].a, Point { x: (s0.a.x + s0.b.x) * 0.5 - 1.0, y: (s0.a.y + s0.b.y) * 0.5 + 2.0 });
    assert_eq!(host_segs[5].b, Point { x: 5.0 + 5.0, y: 6.0 });
    assert_eq!(host_segs[5].weights, [5, 60005u16.wrapping_mul(2), 8]);
    assert_eq!(host_segs[5].id, 15);
    assert_eq!(host_bits[2], 3.0f32.to_bits() ^ 3);
    let stream = crate::body_exec::cpu_stream();
    let mut sb = DeviceBuffer::from_slice(&stream, &segment_inputs()).unwrap();
    let bb = DeviceBuffer::from_slice(&stream, &bits).unwrap();
    let mut outb = DeviceBuffer::<u32>::zeroed(&stream, 40).unwrap();
    // SAFETY: the pointers are the buffers', 40 elements each.
    unsafe { segments::launch(&stream, LaunchConfig::new(1, 64), &mut sb, origin, &bb, &mut outb).unwrap() };
    assert_eq!(sb.to_vec().unwrap(), host_segs);
    assert_eq!(outb.to_vec().unwrap(), host_bits);
}

#[kernel]
pub fn storage(flags: &[bool], halves: &[f16], brains: &[bf16], bytes: &[u8x4], wide: &[f64x2], out_flags: &mut [bool], out_h: &mut [f16], out_b: &mut [bf16], out_v: &mut [u8x4], out_w: &mut [f64x2]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= flags.len() {
        return;
    }
    out_flags[i] = !flags[i] || i % 3 == 0;
    let h = halves[i].to_f32();
    out_h[i] = f16::from_f32(h * 2.0 + 0.25);
    out_b[i] = bf16::from_f32(brains[i].to_f32() - 1.0);
    let v = bytes[i];
    out_v[i] = u8x4::new(v.w, v.z.wrapping_add(1), v.y, v.x);
    let w = wide[i];
    out_w[i] = f64x2::new(w.y, w.x * w.y);
}

#[test]
fn bool_half_and_vector_storage() {
    assemble("storage", storage::PTX);
    let n = 33;
    let flags: Vec<bool> = (0..n).map(|i| i % 2 == 0).collect();
    let halves: Vec<f16> = (0..n).map(|i| f16::from_f32(i as f32 * 0.3 - 4.0)).collect();
    let brains: Vec<bf16> = (0..n).map(|i| bf16::from_f32(i as f32 * 1.7e3 - 9.0)).collect();
    let bytes: Vec<u8x4> = (0..n).map(|i| u8x4::new(i as u8, 255 - i as u8, 200 + i as u8, 7)).collect();
    let wide: Vec<f64x2> = (0..n).map(|i| f64x2::new(i as f64 / 3.0, 1.0 - i as f64)).collect();
    let mut of = vec![false; n];
    let mut oh = vec![f16::ZERO; n];
    let mut ob = vec![bf16::ZERO; n];
    let mut ov = vec![u8x4::default(); n];
    let mut ow = vec![f64x2::default(); n];
    {
        let (a, b, c, d, e) = (host::Disjoint::new(&mut of), host::Disjoint::new(&mut oh), host::Disjoint::new(&mut ob), host::Disjoint::new(&mut ov), host::Disjoint::new(&mut ow));
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [64, 1, 1], 0, || unsafe { storage(&flags, &halves, &brains, &bytes, &wide, a.get(), b.get(), c.get(), d.get(), e.get()) });
    }
    assert_eq!(oh[3], f16::from_f32(halves[3].to_f32() * 2.0 + 0.25));
    let ptx = storage::PTX;
    assert!(ptx.contains("ld.global.nc.v4.u8") && ptx.contains("st.global.v2.f64"), "{ptx}");
    let stream = crate::body_exec::cpu_stream();
    let up = |s: &ptx_runtime::Stream| {
        (
            DeviceBuffer::from_slice(s, &flags).unwrap(),
            DeviceBuffer::from_slice(s, &halves).unwrap(),
            DeviceBuffer::from_slice(s, &brains).unwrap(),
            DeviceBuffer::from_slice(s, &bytes).unwrap(),
            DeviceBuffer::from_slice(s, &wide).unwrap(),
        )
    };
    let (f, h, b, v, w) = up(&stream);
    let mut df = DeviceBuffer::<bool>::zeroed(&stream, n).unwrap();
    let mut dh = DeviceBuffer::<f16>::zeroed(&stream, n).unwrap();
    let mut db = DeviceBuffer::<bf16>::zeroed(&stream, n).unwrap();
    let mut dv = DeviceBuffer::<u8x4>::zeroed(&stream, n).unwrap();
    let mut dw = DeviceBuffer::<f64x2>::zeroed(&stream, n).unwrap();
    storage::launch(&stream, LaunchConfig::new(1, 64), &f, &h, &b, &v, &w, &mut df, &mut dh, &mut db, &mut dv, &mut dw).unwrap();
    assert_eq!(df.to_vec().unwrap(), of);
    assert_eq!(dh.to_vec().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>(), oh.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    assert_eq!(db.to_vec().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>(), ob.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    assert_eq!(dv.to_vec().unwrap(), ov);
    assert_eq!(dw.to_vec().unwrap(), ow);
}

#[kernel]
pub fn local_arrays(x: &[u32], out: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    // Indexed with constants only: registers.
    let mut r = [x[i], x[i] + 1, x[i] + 2, 0];
    r[3] = r[0] ^ r[2];
    // Indexed at run time: local memory.
    let mut table = [0u32; 8];
    for k in 0..8 {
        table[k] = x[(i + k) % x.len()];
    }
    let j = (x[i] % 8) as usize;
    table[j] = table[j].wrapping_mul(r[3]);
    let (lo, hi) = (table[j], table[7 - j]);
    let pair = (lo, hi);
    out[i] = pair.0.wrapping_add(pair.1) ^ r[1];
}

#[test]
fn local_arrays_in_registers_and_local_memory() {
    assemble("local_arrays", local_arrays::PTX);
    let ptx = local_arrays::PTX;
    assert!(ptx.contains(".local .align 4 .b8") && ptx.contains("st.local.u32") && ptx.contains("ld.local.u32"), "{ptx}");
    let x: Vec<u32> = (0..70).map(|v| v * 97 + 13).collect();
    let mut out = vec![0; 70];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([2, 1, 1], [64, 1, 1], 0, || local_arrays(&x, unsafe { o.get() }));
    for i in 0..70 {
        let r3 = x[i] ^ (x[i] + 2);
        let mut t: Vec<u32> = (0..8).map(|k| x[(i + k) % 70]).collect();
        let j = (x[i] % 8) as usize;
        t[j] = t[j].wrapping_mul(r3);
        assert_eq!(out[i], t[j].wrapping_add(t[7 - j]) ^ (x[i] + 1));
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 70).unwrap();
    local_arrays::launch(&stream, LaunchConfig::new(2, 64), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
}

/// Struct update syntax, tuple structs, array patterns and whole-array copies.
#[kernel]
pub fn struct_forms(x: &[Segment], out: &mut [Segment], pairs: &mut [Pair]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    let s = x[i];
    let moved = Segment { a: Point { y: s.a.y + 1.0, ..s.a }, id: s.id.wrapping_add(1), ..s };
    let [w0, _, w2] = moved.weights;
    let mut copy = moved.weights;
    copy[1] = w0 ^ w2;
    let mut seg = moved;
    seg.weights = copy;
    out[i] = seg;
    let p = Pair(w0 as u32 * 3, s.id as i16 - 2);
    let Pair(a, b) = p;
    pairs[i] = Pair(a + 1, b);
    pairs[i].0 += p.0;
}

#[test]
fn struct_update_tuple_structs_and_array_patterns() {
    assemble("struct_forms", struct_forms::PTX);
    let x: Vec<Segment> = (0..40).map(|k| Segment { a: Point { x: k as f32, y: -(k as f32) }, b: Point { x: 0.5, y: k as f32 * 2.0 }, weights: [k as u16, 7 * k as u16, 300 + k as u16], id: k as i8 - 20 }).collect();
    let want: Vec<Segment> = x.iter().map(|s| Segment { a: Point { x: s.a.x, y: s.a.y + 1.0 }, b: s.b, weights: [s.weights[0], s.weights[0] ^ s.weights[2], s.weights[2]], id: s.id + 1 }).collect();
    let want_pairs: Vec<Pair> = x.iter().map(|s| Pair(s.weights[0] as u32 * 6 + 1, s.id as i16 - 2)).collect();
    let mut out = vec![Segment::default(); 40];
    let mut pairs = vec![Pair::default(); 40];
    let (o, p) = (host::Disjoint::new(&mut out), host::Disjoint::new(&mut pairs));
    // SAFETY: one element of each output per thread.
    host::run([1, 1, 1], [64, 1, 1], 0, || struct_forms(&x, unsafe { o.get() }, unsafe { p.get() }));
    assert_eq!((&out, &pairs), (&want, &want_pairs));
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<Segment>::zeroed(&stream, 40).unwrap();
    let mut pb = DeviceBuffer::<Pair>::zeroed(&stream, 40).unwrap();
    struct_forms::launch(&stream, LaunchConfig::new(1, 64), &xb, &mut ob, &mut pb).unwrap();
    assert_eq!((ob.to_vec().unwrap(), pb.to_vec().unwrap()), (want, want_pairs));
}

#[kernel]
pub fn bounds(x: &[u32], i: u32, out: &mut [u32]) {
    out[0] = x[i as usize];
}

#[test]
fn an_index_out_of_bounds_stops_the_kernel() {
    assemble("bounds", bounds::PTX);
    assert!(bounds::PTX.contains("trap;"), "{}", bounds::PTX);
    let x = [1u32, 2, 3];
    let mut out = [0u32];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| bounds(&x, 3, &mut out)));
    assert!(r.is_err(), "the host panics as Rust does");
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    bounds::launch(&stream, LaunchConfig::new(1, 1), &xb, 2u32, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [3]);
    // A failed check reports Rust's panic message and the indexing's location (`__assertfail`).
    match bounds::launch(&stream, LaunchConfig::new(1, 1), &xb, 3u32, &mut ob) {
        Err(ptx_runtime::Error::Assert { message, file, line, function, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_memory.rs"), "{file}");
            let want = include_str!("body_memory.rs").lines().position(|l| l.contains("out[0] = x[i as usize];")).unwrap() + 1;
            assert_eq!(line as usize, want);
            assert!(function.ends_with("body_memory::bounds"), "{function}");
        }
        other => panic!("expected a failed assertion, got {other:?}"),
    }
}

#[test]
fn state_spaces() {
    // Kernel slices are global memory; `&[T]` data is read through the non-coherent path.
    let p = crate::corpus::saxpy::saxpy::PTX;
    assert!(p.contains("cvta.to.global.u64") && p.contains("ld.global.nc.f32") && p.contains("st.global.f32"), "{p}");
    // `*const T` is read-only on the non-coherent path only when the kernel writes nothing.
    assert!(!pointers::PTX.contains("ld.global.nc"), "{}", pointers::PTX);
}
