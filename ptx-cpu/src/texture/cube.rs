//! Cube-map fetches (`tex.cube`, `tex.acube`; CUDA's `texCubemap`, `texCubemapLayered`): the
//! face and the face coordinates of a direction, by the CUDA C++ Programming Guide's table
//! "Cubemap Fetch".
//!
//! The major axis is the component of largest magnitude `m`; its sign picks the face:
//!
//! | major axis | face | s | t |
//! |------------|------|---|---|
//! | +x | 0 | −z | −y |
//! | −x | 1 | +z | −y |
//! | +y | 2 | +x | +z |
//! | −y | 3 | +x | −z |
//! | +z | 4 | +x | −y |
//! | −z | 5 | −x | −y |
//!
//! and the face is sampled as a 2-D texture at the normalized coordinates
//! `((s / m + 1) / 2, (t / m + 1) / 2)`. A cube map's array holds the faces as layers 0-5 (a
//! layered cube map's cube `c` as layers `6c` to `6c + 5`). Where two magnitudes are equal the
//! table does not say; here x wins over y and z, and y over z.

/// The signs and axes of `s`, `t` for each face: `(axis, sign)` of s, then of t.
const FACES: [[(usize, f64); 2]; 6] = [
    [(2, -1.0), (1, -1.0)],
    [(2, 1.0), (1, -1.0)],
    [(0, 1.0), (2, 1.0)],
    [(0, 1.0), (2, -1.0)],
    [(0, 1.0), (1, -1.0)],
    [(0, -1.0), (1, -1.0)],
];

/// The face a direction selects and its major axis.
pub fn face(c: [f64; 3]) -> (usize, usize) {
    let a = c.map(f64::abs);
    let axis = if a[0] >= a[1] && a[0] >= a[2] {
        0
    } else if a[1] >= a[2] {
        1
    } else {
        2
    };
    (2 * axis + (c[axis] < 0.0) as usize, axis)
}

/// The face of direction `c` and the normalized coordinates on it, with the gradients of those
/// coordinates for gradients `d` of the direction (the quotient rule on `(s / m + 1) / 2`).
pub fn project(c: [f64; 3], d: &[[f64; 3]]) -> (usize, [f64; 2], Vec<[f64; 2]>) {
    let (f, axis) = face(c);
    let m = c[axis].abs();
    let dm = |g: &[f64; 3]| g[axis] * c[axis].signum();
    let comp = |g: &[f64; 3], k: usize| FACES[f][k].1 * g[FACES[f][k].0];
    let st = [0, 1].map(|k| (comp(&c, k) / m + 1.0) / 2.0);
    let grads = d.iter().map(|g| [0, 1].map(|k| (comp(g, k) * m - comp(&c, k) * dm(g)) / (2.0 * m * m))).collect();
    (f, st, grads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_table() {
        // The centre of each face, and a point off centre on each.
        let dirs = [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]];
        for (f, d) in dirs.iter().enumerate() {
            let (face, st, _) = project(*d, &[]);
            assert_eq!((face, st), (f, [0.5, 0.5]));
        }
        assert_eq!(project([2.0, 1.0, 0.5], &[]).1, [(-0.25 + 1.0) / 2.0, (-0.5 + 1.0) / 2.0]);
        assert_eq!(project([-0.5, -2.0, 1.0], &[]).1, [(-0.25 + 1.0) / 2.0, (-0.5 + 1.0) / 2.0]);
        assert_eq!(project([0.5, 1.0, -2.0], &[]).1, [(-0.25 + 1.0) / 2.0, (-0.5 + 1.0) / 2.0]);
        // The gradient along s of face 4 (+z): moving x by dx at z = 1 moves s by dx / 2.
        let (_, _, g) = project([0.0, 0.0, 1.0], &[[0.5, 0.0, 0.0]]);
        assert_eq!(g[0], [0.25, 0.0]);
    }
}
