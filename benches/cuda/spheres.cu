// tests/suite/corpus/spheres.rs: ray casting against spheres, written as a CUDA C++ programmer
// writes it: a `Vec3` with member operators, a `Ray` with `at`, a `Sphere` with `hit`, all
// `__device__` member functions that nvcc inlines (the Rust kernel's are `#[device_fn] impl`
// methods and `core::ops` operators).
#include "common.cuh"

struct Vec3 {
    float x, y, z;
    __device__ float dot(Vec3 o) const { return x * o.x + y * o.y + z * o.z; }
    __device__ float length() const { return sqrtf(dot(*this)); }
    __device__ Vec3 operator+(Vec3 o) const { return Vec3{x + o.x, y + o.y, z + o.z}; }
    __device__ Vec3 operator-(Vec3 o) const { return Vec3{x - o.x, y - o.y, z - o.z}; }
    __device__ Vec3 operator*(float s) const { return Vec3{x * s, y * s, z * s}; }
    __device__ Vec3 operator-() const { return *this * -1.0f; }
    __device__ void operator+=(Vec3 o) { *this = *this + o; }
    __device__ Vec3 unit() const { return *this * (1.0f / length()); }
};

struct Ray {
    Vec3 origin, dir;
    __device__ Vec3 at(float t) const { return origin + dir * t; }
};

struct Sphere {
    Vec3 center;
    float radius;
    // The nearest `t > 0.001` where `ray` meets the sphere, or a negative number.
    __device__ float hit(Ray ray) const {
        Vec3 oc = ray.origin - center;
        float a = ray.dir.dot(ray.dir);
        float half_b = oc.dot(ray.dir);
        float c = oc.dot(oc) - radius * radius;
        float disc = half_b * half_b - a * c;
        if (disc < 0.0f) return -1.0f;
        float root = sqrtf(disc);
        float near = (-half_b - root) / a;
        if (near > 0.001f) return near;
        return (-half_b + root) / a;
    }
};

#define W 24
#define H 16

extern "C" __global__ void shade(const Sphere* __restrict__ spheres, usize spheres_len, Vec3 light, Vec3* out, usize out_len) {
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= out_len) return;
    float px = (float)(i % W), py = (float)(i / W);
    Vec3 dir = Vec3{px / (float)W * 2.0f - 1.0f, 1.0f - py / (float)H * 2.0f, -1.0f};
    Ray ray = Ray{Vec3{0.0f, 0.0f, 1.0f}, dir.unit()};
    float best = -1.0f;
    usize which = 0;
    for (usize s = 0; s < spheres_len; s++) {
        BOUNDS(s, spheres_len);
        float t = spheres[s].hit(ray);
        if (t > 0.001f && (best < 0.0f || t < best)) {
            best = t;
            which = s;
        }
    }
    Vec3 color = Vec3{0.05f, 0.05f, 0.1f};
    if (best > 0.0f) {
        Vec3 p = ray.at(best);
        BOUNDS(which, spheres_len);
        Vec3 n = (p - spheres[which].center).unit();
        float lambert = fmaxf(n.dot(-light), 0.0f);
        color += Vec3{0.9f, 0.6f, 0.3f} * lambert;
    } else {
        color += Vec3{0.5f, 0.7f, 1.0f} * (0.5f * (ray.dir.y + 1.0f));
    }
    BOUNDS(i, out_len);
    out[i] = color;
}
