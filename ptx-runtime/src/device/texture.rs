//! Texture reads and surface accesses through the typed handles of [`crate::texture`].
//!
//! | here | CUDA | PTX (as nvcc writes it) |
//! |------|------|-----|
//! | [`tex1d_fetch`]`(t, i)` | `tex1Dfetch<T>(t, i)` | `tex.1d.v4.T.s32 {d}, [t, {i}]` |
//! | [`tex1d`]`(t, x)` | `tex1D<T>(t, x)` | `tex.1d.v4.T.f32` |
//! | [`tex2d`]`(t, x, y)` | `tex2D<T>(t, x, y)` | `tex.2d.v4.T.f32 {d}, [t, {x, y}]` |
//! | [`tex3d`]`(t, x, y, z)` | `tex3D<T>(t, x, y, z)` | `tex.3d.v4.T.f32 {d}, [t, {x, y, z, z}]` |
//! | [`tex1d_layered`]`(t, x, layer)` | `tex1DLayered<T>` | `tex.a1d.v4.T.f32 {d}, [t, {layer, x}]` |
//! | [`tex2d_layered`]`(t, x, y, layer)` | `tex2DLayered<T>` | `tex.a2d.v4.T.f32 {d}, [t, {layer, x, y, y}]` |
//! | [`tex1d_lod`], [`tex2d_lod`], [`tex3d_lod`] | `tex2DLod<T>(t, x, y, lod)` | `tex.level.2d.v4.T.f32 ..., lod` |
//! | [`tex2d_grad`]`(t, x, y, dx, dy)` | `tex2DGrad<T>(t, x, y, dx, dy)` | `tex.grad.2d.v4.T.f32 ..., {dx}, {dy}` |
//! | [`tex1d_grad`], [`tex3d_grad`] (`f32x4` gradients) | `tex1DGrad<T>`, `tex3DGrad<T>` | `tex.grad.3d ..., {dx.x, dx.y, dx.z, dx.z}, {dy…}` |
//! | [`tex1d_layered_lod`], [`tex2d_layered_lod`], [`tex1d_layered_grad`], [`tex2d_layered_grad`] | `tex2DLayeredLod<T>` … | `tex.level.a2d …, level`, `tex.grad.a2d …, {dx}, {dy}` |
//! | [`tex_cubemap`]`(t, x, y, z)` | `texCubemap<T>(t, x, y, z)` | `tex.cube.v4.T.f32 {d}, [t, {x, y, z, z}]` |
//! | [`tex_cubemap_lod`], [`tex_cubemap_grad`] | `texCubemapLod<T>`, `texCubemapGrad<T>` | `tex.level.cube`, `tex.grad.cube` |
//! | [`tex_cubemap_layered`]`(t, x, y, z, layer)`, [`tex_cubemap_layered_lod`] | `texCubemapLayered<T>`, `texCubemapLayeredLod<T>` | `tex.acube.v4.T.f32 {d}, [t, {layer, x, y, z}]`, `tex.level.acube` |
//! | [`tex2d_gather`]`(t, x, y, c)` | `tex2Dgather<T4>(t, x, y, c)` | `tld4.{r,g,b,a}.2d.v4.T.f32` |
//! | [`surf2d_read`]`(s, x_bytes, y, b)` | `surf2Dread<T>(s, x, y, mode)` | `suld.b.2d.bN.{trap,clamp,zero} {d}, [s, {x, y}]` |
//! | [`surf2d_write`]`(v, s, x_bytes, y, b)` | `surf2Dwrite(v, s, x, y, mode)` | `sust.b.2d.bN.{trap,clamp,zero} [s, {x, y}], {v}` |
//! | [`surf2d_layered_read`]`(s, x_bytes, y, layer, b)` | `surf2DLayeredread<T>(s, x, y, layer, mode)` | `suld.b.a2d.bN.mode {d}, [s, {layer, x, y, y}]` |
//! | [`surf1d_layered_write`]`(v, s, x_bytes, layer, b)` | `surf1DLayeredwrite(v, s, x, layer, mode)` | `sust.b.a1d.bN.mode [s, {layer, x}], {v}` |
//! | [`tex2d_layered_gather`]`(t, x, y, layer, c)` | (none in CUDA C) | `tld4.{r,g,b,a}.a2d.v4.T.f32 {d}, [t, {layer, x, y, y}]` |
//!
//! `T` is the handle's element type; a gather returns the four texels' component as a vector
//! (`f32x4`, `i32x4`, `u32x4`), the component a literal 0..=3. A 2- or 4-channel texture
//! (`Texture2d<f32x4>`, CUDA's `tex2D<float4>`) reads the same `tex.v4` and returns its first
//! 2 or 4 lanes; a vector surface element (`Surface2d<u8x4>`) moves with `suld.b.v4.b8`. A
//! surface's `x` counts bytes, as in CUDA. The [`Boundary`] is written as a constant.
//!
//! On the host these have no texture memory to read: calling one there stops with a message
//! (run the kernel on the CUDA or CPU backend).

use crate::texture::{Boundary, Surface1d, Surface1dLayered, Surface2d, Surface2dLayered, Surface3d, SurfaceElem, Texel, Texture1d, Texture1dLayered, Texture2d, Texture2dLayered, Texture3d, TextureCubemap, TextureCubemapLayered};
use crate::vector::{f32x2, f32x4};
use ptx_macros::__device_api as device_api;

#[cold]
fn host(name: &str) -> ! {
    panic!("`{name}` reads texture or surface memory, which only exists on a device: launch the kernel on the CUDA or CPU backend instead of calling its body on the host")
}

/// The table below: each entry a public device API function (the body compiler lowers a call
/// by its name) whose host definition stops with [`host`]'s message.
macro_rules! device_only {
    ($($(#[$doc:meta])* pub fn $name:ident<T: $bound:ident>($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;)*) => {$(
        $(#[$doc])*
        #[device_api]
        pub fn $name<T: $bound>($($arg: $ty),*) $(-> $ret)? {
            let _ = ($($arg,)*);
            host(stringify!($name))
        }
    )*};
}

device_only! {
    /// `tex1Dfetch<T>(t, i)`: element `i` of a texture over linear memory, no filtering.
    pub fn tex1d_fetch<T: Texel>(t: Texture1d<T>, i: i32) -> T;
    /// `tex1D<T>(t, x)`.
    pub fn tex1d<T: Texel>(t: Texture1d<T>, x: f32) -> T;
    /// `tex2D<T>(t, x, y)`.
    pub fn tex2d<T: Texel>(t: Texture2d<T>, x: f32, y: f32) -> T;
    /// `tex3D<T>(t, x, y, z)`.
    pub fn tex3d<T: Texel>(t: Texture3d<T>, x: f32, y: f32, z: f32) -> T;
    /// `tex1DLayered<T>(t, x, layer)`.
    pub fn tex1d_layered<T: Texel>(t: Texture1dLayered<T>, x: f32, layer: i32) -> T;
    /// `tex2DLayered<T>(t, x, y, layer)`.
    pub fn tex2d_layered<T: Texel>(t: Texture2dLayered<T>, x: f32, y: f32, layer: i32) -> T;
    /// `tex1DLod<T>(t, x, level)`.
    pub fn tex1d_lod<T: Texel>(t: Texture1d<T>, x: f32, level: f32) -> T;
    /// `tex2DLod<T>(t, x, y, level)`.
    pub fn tex2d_lod<T: Texel>(t: Texture2d<T>, x: f32, y: f32, level: f32) -> T;
    /// `tex3DLod<T>(t, x, y, z, level)`.
    pub fn tex3d_lod<T: Texel>(t: Texture3d<T>, x: f32, y: f32, z: f32, level: f32) -> T;
    /// `tex2DGrad<T>(t, x, y, dx, dy)`: the level from the coordinates' derivatives.
    pub fn tex2d_grad<T: Texel>(t: Texture2d<T>, x: f32, y: f32, dx: f32x2, dy: f32x2) -> T;
    /// `tex1DGrad<T>(t, x, dx, dy)`: the level from the coordinate's derivatives.
    pub fn tex1d_grad<T: Texel>(t: Texture1d<T>, x: f32, dx: f32, dy: f32) -> T;
    /// `tex3DGrad<T>(t, x, y, z, dx, dy)`: the gradients' `w` lanes are not read.
    pub fn tex3d_grad<T: Texel>(t: Texture3d<T>, x: f32, y: f32, z: f32, dx: f32x4, dy: f32x4) -> T;
    /// `tex1DLayeredLod<T>(t, x, layer, level)`.
    pub fn tex1d_layered_lod<T: Texel>(t: Texture1dLayered<T>, x: f32, layer: i32, level: f32) -> T;
    /// `tex2DLayeredLod<T>(t, x, y, layer, level)`.
    pub fn tex2d_layered_lod<T: Texel>(t: Texture2dLayered<T>, x: f32, y: f32, layer: i32, level: f32) -> T;
    /// `tex1DLayeredGrad<T>(t, x, layer, dx, dy)`.
    pub fn tex1d_layered_grad<T: Texel>(t: Texture1dLayered<T>, x: f32, layer: i32, dx: f32, dy: f32) -> T;
    /// `tex2DLayeredGrad<T>(t, x, y, layer, dx, dy)`.
    pub fn tex2d_layered_grad<T: Texel>(t: Texture2dLayered<T>, x: f32, y: f32, layer: i32, dx: f32x2, dy: f32x2) -> T;
    /// `texCubemap<T>(t, x, y, z)`: the face the direction `(x, y, z)` points at, sampled where
    /// it meets it (the CUDA programming guide's cubemap table; docs/textures.md).
    pub fn tex_cubemap<T: Texel>(t: TextureCubemap<T>, x: f32, y: f32, z: f32) -> T;
    /// `texCubemapLod<T>(t, x, y, z, level)`.
    pub fn tex_cubemap_lod<T: Texel>(t: TextureCubemap<T>, x: f32, y: f32, z: f32, level: f32) -> T;
    /// `texCubemapGrad<T>(t, x, y, z, dx, dy)`: the gradients of the direction (`w` not read).
    pub fn tex_cubemap_grad<T: Texel>(t: TextureCubemap<T>, x: f32, y: f32, z: f32, dx: f32x4, dy: f32x4) -> T;
    /// `texCubemapLayered<T>(t, x, y, z, layer)`: cube `layer` of a layered cube map.
    pub fn tex_cubemap_layered<T: Texel>(t: TextureCubemapLayered<T>, x: f32, y: f32, z: f32, layer: i32) -> T;
    /// `texCubemapLayeredLod<T>(t, x, y, z, layer, level)`.
    pub fn tex_cubemap_layered_lod<T: Texel>(t: TextureCubemapLayered<T>, x: f32, y: f32, z: f32, layer: i32, level: f32) -> T;
    /// `tex2Dgather<T4>(t, x, y, comp)`: component `comp` (a literal 0..=3: r, g, b, a) of the
    /// four texels bilinear filtering at `(x, y)` would read, in the order `tld4` gives them.
    pub fn tex2d_gather<T: Texel>(t: Texture2d<T>, x: f32, y: f32, comp: u32) -> T::V4;
    /// `surf1Dread<T>(s, x_bytes, mode)`.
    pub fn surf1d_read<T: SurfaceElem>(s: Surface1d<T>, x_bytes: i32, boundary: Boundary) -> T;
    /// `surf2Dread<T>(s, x_bytes, y, mode)`.
    pub fn surf2d_read<T: SurfaceElem>(s: Surface2d<T>, x_bytes: i32, y: i32, boundary: Boundary) -> T;
    /// `surf3Dread<T>(s, x_bytes, y, z, mode)`.
    pub fn surf3d_read<T: SurfaceElem>(s: Surface3d<T>, x_bytes: i32, y: i32, z: i32, boundary: Boundary) -> T;
    /// `surf1Dwrite(v, s, x_bytes, mode)`.
    pub fn surf1d_write<T: SurfaceElem>(v: T, s: Surface1d<T>, x_bytes: i32, boundary: Boundary);
    /// `surf2Dwrite(v, s, x_bytes, y, mode)`.
    pub fn surf2d_write<T: SurfaceElem>(v: T, s: Surface2d<T>, x_bytes: i32, y: i32, boundary: Boundary);
    /// `surf3Dwrite(v, s, x_bytes, y, z, mode)`.
    pub fn surf3d_write<T: SurfaceElem>(v: T, s: Surface3d<T>, x_bytes: i32, y: i32, z: i32, boundary: Boundary);
    /// `tld4.comp.a2d`: component `comp` (a literal 0..=3) of the four texels bilinear filtering at
    /// `(x, y)` of layer `layer` would read. The PTX ISA has this form; CUDA C has no
    /// `tex2DLayered` gather, so the lowering follows the ISA (the layer first, the coordinate
    /// vector padded to four lanes as `tex.a2d`'s).
    pub fn tex2d_layered_gather<T: Texel>(t: Texture2dLayered<T>, x: f32, y: f32, layer: i32, comp: u32) -> T::V4;
    /// `surf1DLayeredread<T>(s, x_bytes, layer, mode)`.
    pub fn surf1d_layered_read<T: SurfaceElem>(s: Surface1dLayered<T>, x_bytes: i32, layer: i32, boundary: Boundary) -> T;
    /// `surf2DLayeredread<T>(s, x_bytes, y, layer, mode)`.
    pub fn surf2d_layered_read<T: SurfaceElem>(s: Surface2dLayered<T>, x_bytes: i32, y: i32, layer: i32, boundary: Boundary) -> T;
    /// `surf1DLayeredwrite(v, s, x_bytes, layer, mode)`.
    pub fn surf1d_layered_write<T: SurfaceElem>(v: T, s: Surface1dLayered<T>, x_bytes: i32, layer: i32, boundary: Boundary);
    /// `surf2DLayeredwrite(v, s, x_bytes, y, layer, mode)`.
    pub fn surf2d_layered_write<T: SurfaceElem>(v: T, s: Surface2dLayered<T>, x_bytes: i32, y: i32, layer: i32, boundary: Boundary);
}
