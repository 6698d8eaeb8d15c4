//! An n-body step over a `#[derive(DeviceRepr)]` struct: each thread sums the softened
//! gravitational pull of every body on its own, then advances velocity and position. The
//! small loops over the 3 coordinates unroll, so the vectors stay in registers.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Particle {
    pub pos: [f32; 3],
    pub vel: [f32; 3],
    pub mass: f32,
}

#[kernel]
pub fn nbody_step(bodies: &[Particle], out: &mut [Particle], dt: f32, softening: f32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= bodies.len() {
        return;
    }
    let me = bodies[i];
    let mut acc = [0.0f32; 3];
    for j in 0..bodies.len() {
        let other = bodies[j];
        let mut d = [0.0f32; 3];
        for k in 0..3 {
            d[k] = other.pos[k] - me.pos[k];
        }
        let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening;
        let inv = 1.0 / (d2 * d2.sqrt());
        let s = other.mass * inv;
        for k in 0..3 {
            acc[k] += d[k] * s;
        }
    }
    let mut next = me;
    for k in 0..3 {
        next.vel[k] += acc[k] * dt;
        next.pos[k] += next.vel[k] * dt;
    }
    out[i] = next;
}

pub const PTX: &[(&str, &str)] = &[("nbody_step", nbody_step::PTX)];
const N: usize = 70;
const DT: f32 = 0.01;
const EPS: f32 = 0.05;

fn bodies() -> Vec<Particle> {
    let mut r = Rng::new(9);
    (0..N)
        .map(|_| Particle {
            pos: [r.f32(-1.0, 1.0), r.f32(-1.0, 1.0), r.f32(-1.0, 1.0)],
            vel: [r.f32(-0.1, 0.1), r.f32(-0.1, 0.1), r.f32(-0.1, 0.1)],
            mass: r.f32(0.1, 1.0),
        })
        .collect()
}

fn flat(ps: &[Particle]) -> Vec<f32> {
    ps.iter().flat_map(|p| p.pos.iter().chain(&p.vel).chain([&p.mass]).copied().collect::<Vec<_>>()).collect()
}

fn on_host() -> Vec<Particle> {
    let b = bodies();
    let mut out = b.clone();
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([3, 1, 1], [32, 1, 1], 0, || nbody_step(&b, unsafe { o.get() }, DT, EPS));
    out
}

pub fn check_host() {
    let b = bodies();
    let want: Vec<Particle> = b
        .iter()
        .map(|me| {
            let mut acc = [0.0f32; 3];
            for o in &b {
                let d = [o.pos[0] - me.pos[0], o.pos[1] - me.pos[1], o.pos[2] - me.pos[2]];
                let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS;
                let s = o.mass * (1.0 / (d2 * d2.sqrt()));
                for k in 0..3 {
                    acc[k] += d[k] * s;
                }
            }
            let mut n = *me;
            for k in 0..3 {
                n.vel[k] += acc[k] * DT;
                n.pos[k] += n.vel[k] * DT;
            }
            n
        })
        .collect();
    assert_bits_eq("nbody", &flat(&on_host()), &flat(&want));
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let b = DeviceBuffer::from_slice(stream, &bodies())?;
    let mut out = DeviceBuffer::<Particle>::zeroed(stream, N)?;
    nbody_step::launch(stream, LaunchConfig::new(3, 32), &b, &mut out, DT, EPS)?;
    assert_bits_eq("nbody on the device", &flat(&out.to_vec()?), &flat(&on_host()));
    Ok(())
}
