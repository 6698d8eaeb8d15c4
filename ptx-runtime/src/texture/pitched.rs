//! A pitched 2-D buffer (`cudaMallocPitch`): `height` rows of `width` elements, each row
//! starting [`PITCH_ALIGN`]-aligned, the memory a 2-D texture over linear memory reads
//! (`cudaResourceTypePitch2D`).

use super::format::{from_bytes, to_bytes, TexelFormat};
use crate::backend::MemoryImpl;
use crate::error::{Error, Result};
use crate::stream::Stream;
use std::fmt;
use std::marker::PhantomData;

/// The bytes a row's length is rounded up to, on both backends: what `cudaMallocPitch`
/// returns on current GPUs (512), a multiple of every GPU's texture pitch alignment
/// (`cudaDevAttrTexturePitchAlignment`, 32 or 64). The same pitch on the CPU backend keeps
/// code that computes addresses from it portable.
pub const PITCH_ALIGN: usize = 512;

/// `height` rows of `width` elements of `E`, [`pitch`](Self::pitch) bytes apart; freed when
/// dropped. A kernel addresses element `(x, y)` at `device_address() + y * pitch() + x * size`.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::texture::PitchedBuffer;
/// let stream = ptx_runtime::Device::cpu().stream();
/// let mut image = PitchedBuffer::<f32>::new(&stream, 3, 2)?;
/// assert_eq!(image.pitch(), 512);
/// image.copy_from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// assert_eq!(image.to_vec()?, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// # Ok(())
/// # }
/// ```
pub struct PitchedBuffer<E: TexelFormat> {
    pub(crate) mem: Box<dyn MemoryImpl>,
    width: usize,
    height: usize,
    pitch: usize,
    _elem: PhantomData<E>,
}

impl<E: TexelFormat> PitchedBuffer<E> {
    /// `height` zeroed rows of `width` elements.
    pub fn new(stream: &Stream, width: usize, height: usize) -> Result<Self> {
        if width == 0 || height == 0 {
            return Err(Error::InvalidConfig { reason: format!("a pitched buffer of {width} × {height}: both must be at least 1") });
        }
        let row = width.checked_mul(E::LAYOUT.size).ok_or(Error::OutOfMemory { requested: usize::MAX })?;
        let pitch = row.div_ceil(PITCH_ALIGN).checked_mul(PITCH_ALIGN).ok_or(Error::OutOfMemory { requested: usize::MAX })?;
        let bytes = pitch.checked_mul(height).ok_or(Error::OutOfMemory { requested: usize::MAX })?;
        let mem = stream.inner.alloc_zeroed(bytes)?;
        Ok(PitchedBuffer { mem, width, height, pitch, _elem: PhantomData })
    }

    /// `height` rows of `width` elements holding `data` (row by row, tightly packed).
    pub fn from_slice(stream: &Stream, width: usize, height: usize, data: &[E]) -> Result<Self> {
        let mut b = Self::new(stream, width, height)?;
        b.copy_from_slice(data)?;
        Ok(b)
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Bytes from the start of one row to the next.
    pub fn pitch(&self) -> usize {
        self.pitch
    }

    /// The device address of row 0.
    pub fn device_address(&self) -> u64 {
        self.mem.address()
    }

    /// Copies `data` (`width × height` elements, rows tightly packed) into the rows.
    pub fn copy_from_slice(&mut self, data: &[E]) -> Result<()> {
        self.check_len("copy_from_slice", data.len())?;
        let row = self.width * E::LAYOUT.size;
        let mut bytes = vec![0u8; self.pitch * self.height];
        for (src, dst) in to_bytes(data).chunks_exact(row).zip(bytes.chunks_exact_mut(self.pitch)) {
            dst[..row].copy_from_slice(src);
        }
        self.mem.write(0, &bytes)
    }

    /// The rows' elements, tightly packed, after the work queued before.
    pub fn to_vec(&self) -> Result<Vec<E>> {
        let row = self.width * E::LAYOUT.size;
        let mut bytes = vec![0u8; self.pitch * self.height];
        self.mem.read(0, &mut bytes)?;
        let packed: Vec<u8> = bytes.chunks_exact(self.pitch).flat_map(|r| &r[..row]).copied().collect();
        let mut out = vec![E::default(); self.width * self.height];
        from_bytes(&packed, &mut out);
        Ok(out)
    }

    fn check_len(&self, what: &str, got: usize) -> Result<()> {
        if got != self.width * self.height {
            return Err(Error::InvalidBuffer { reason: format!("{what}: the pitched buffer holds {} × {} elements, the host slice {got}", self.width, self.height) });
        }
        Ok(())
    }
}

impl<E: TexelFormat> fmt::Debug for PitchedBuffer<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PitchedBuffer<{}>[{} × {}, pitch {}]", std::any::type_name::<E>(), self.width, self.height, self.pitch)
    }
}
