// tests/suite/corpus/nbody.rs: one n-body step; each thread sums the softened pull of every
// body on its own, then advances velocity and position.
#include "common.cuh"

// The layout `#[derive(DeviceRepr)]` gives the Rust `#[repr(C)]` struct: 28 bytes, align 4.
struct Particle {
    float pos[3];
    float vel[3];
    float mass;
};

extern "C" __global__ void nbody_step(const Particle* __restrict__ bodies, usize bodies_len, Particle* out, usize out_len, float dt, float softening) {
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= bodies_len) return;
    BOUNDS(i, bodies_len);
    Particle me = bodies[i];
    float acc[3] = {0.0f, 0.0f, 0.0f};
    for (usize j = 0; j < bodies_len; j++) {
        BOUNDS(j, bodies_len);
        Particle other = bodies[j];
        float d[3];
        for (int k = 0; k < 3; k++) d[k] = other.pos[k] - me.pos[k];
        float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening;
        float inv = 1.0f / (d2 * sqrtf(d2));
        float s = other.mass * inv;
        for (int k = 0; k < 3; k++) acc[k] += d[k] * s;
    }
    Particle next = me;
    for (int k = 0; k < 3; k++) {
        next.vel[k] += acc[k] * dt;
        next.pos[k] += next.vel[k] * dt;
    }
    BOUNDS(i, out_len);
    out[i] = next;
}
