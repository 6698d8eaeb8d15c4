//! Aggregates by value and in buffers: a `#[repr(C)]` parameter block passed by value (the ABI's
//! `.param .align 8 .b8 p[32]`) and a buffer of particle structs updated in place.
//!
//! ```sh
//! cargo run --release --example structs
//! ```

use ptx_runtime::device::*;
use ptx_runtime::vector::f32x3;
use ptx_runtime::{kernel, Device, DeviceBuffer, DeviceRepr, LaunchConfig};

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Particle {
    pub pos: f32x3,
    pub vel: f32x3,
    pub mass: f32,
    pub alive: u32,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Step {
    pub dt: f64,
    pub gravity: f32x3,
    pub floor: f32,
    pub bounce: f32,
}

#[kernel]
pub fn step(params: Step, particles: &mut [Particle]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < particles.len() && particles[i].alive != 0 {
        let dt = params.dt as f32;
        let mut p = particles[i];
        p.vel.x += params.gravity.x * dt;
        p.vel.y += params.gravity.y * dt;
        p.vel.z += params.gravity.z * dt;
        p.pos.x += p.vel.x * dt;
        p.pos.y += p.vel.y * dt;
        p.pos.z += p.vel.z * dt;
        if p.pos.y < params.floor {
            p.pos.y = params.floor;
            p.vel.y = -p.vel.y * params.bounce;
        }
        particles[i] = p;
    }
}

/// The same update on the host.
fn host_step(params: Step, p: &mut Particle) {
    if p.alive == 0 {
        return;
    }
    let dt = params.dt as f32;
    p.vel.x += params.gravity.x * dt;
    p.vel.y += params.gravity.y * dt;
    p.vel.z += params.gravity.z * dt;
    p.pos.x += p.vel.x * dt;
    p.pos.y += p.vel.y * dt;
    p.pos.z += p.vel.z * dt;
    if p.pos.y < params.floor {
        p.pos.y = params.floor;
        p.vel.y = -p.vel.y * params.bounce;
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> ptx_runtime::Result<()> {
    let device = Device::select()?;
    println!("backend: {} ({})", device.kind(), device.name());
    println!("Particle: {} bytes, align {}; Step: {} bytes, align {}", Particle::LAYOUT.size, Particle::LAYOUT.align, Step::LAYOUT.size, Step::LAYOUT.align);
    let stream = device.stream();

    let n = 10_000;
    let mut host: Vec<Particle> = (0..n)
        .map(|i| Particle {
            pos: f32x3::new(i as f32 * 0.01, 1.0 + (i % 10) as f32, 0.0),
            vel: f32x3::new(0.5, (i % 3) as f32 - 1.0, 0.25),
            mass: 1.0,
            alive: (i % 11 != 0) as u32,
        })
        .collect();
    let params = Step { dt: 0.01, gravity: f32x3::new(0.0, -9.81, 0.0), floor: 0.0, bounce: 0.8 };

    let mut particles = DeviceBuffer::from_slice(&stream, &host)?;
    for _ in 0..100 {
        step::launch(&stream, LaunchConfig::for_num_elems(n as u32), params, &mut particles)?;
        host.iter_mut().for_each(|p| host_step(params, p));
    }
    let device_result = particles.to_vec()?;
    let wrong = device_result.iter().zip(&host).filter(|(d, h)| d != h).count();
    println!("100 steps of {n} particles: {wrong} differ from the host");
    if wrong != 0 {
        eprintln!("FAILED");
        std::process::exit(1);
    }
    println!("verified: equal to the host after every step");
    Ok(())
}
