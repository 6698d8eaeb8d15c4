//! Tests on the constants a kernel reads from outside its body (a module-level `const TILE`),
//! which reach its PTX as [`Piece`]s: the macro cannot know their values, rustc can. The macro
//! writes a test as a call of these `const fn`s, rustc evaluates it to a `Piece::Dec` of 1 or 0
//! while it writes the `PTX` constant, and ptxas folds the compare of two immediates that
//! results. Where every operand is a number the macro evaluates the same functions itself, so
//! the two can never disagree.

use crate::text::Piece;

/// The least and the greatest value of an operand; `None` where they are not known (a piece
/// that is not a number, arithmetic that may wrap).
pub type Bounds = Option<(u128, u128)>;

/// A piece's number; `None` for any other piece.
pub const fn value(p: Piece) -> Option<u64> {
    match p {
        Piece::Dec(v) => Some(v),
        _ => None,
    }
}

/// The bounds of a piece: its number, at least and at most.
pub const fn bounds(p: Piece) -> Bounds {
    match value(p) {
        Some(v) => Some((v as u128, v as u128)),
        None => None,
    }
}

/// An arithmetic step of [`step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Add,
    Sub,
    Mul,
    /// By a constant amount (`b`'s least and greatest value equal).
    Shl,
}

/// The bounds of `a <op> b`, `None` where a value may wrap or exceed `max` (the largest value of
/// the operation's width).
pub const fn step(op: Step, max: u128, a: Bounds, b: Bounds) -> Bounds {
    let (Some(a), Some(b)) = (a, b) else { return None };
    let (lo, hi) = match op {
        Step::Add => match (a.0.checked_add(b.0), a.1.checked_add(b.1)) {
            (Some(lo), Some(hi)) => (lo, hi),
            _ => return None,
        },
        Step::Sub if a.0 >= b.1 => (a.0 - b.1, a.1 - b.0),
        Step::Mul => match (a.0.checked_mul(b.0), a.1.checked_mul(b.1)) {
            (Some(lo), Some(hi)) => (lo, hi),
            _ => return None,
        },
        Step::Shl if b.0 == b.1 && b.0 < 64 && a.1 <= (max >> b.0) => (a.0 << b.0, a.1 << b.0),
        _ => return None,
    };
    if hi <= max {
        Some((lo, hi))
    } else {
        None
    }
}

/// The bounds of a `for` loop's counter on its trips: it starts at `start` and steps by `step`
/// (not zero) while below `end`, so it is at most the last value of `start + i·step` below
/// `end`'s greatest value. Where no end admits a trip the trips never run, and `start` alone is
/// as good a bound as any.
pub const fn trip(start: u128, step: u128, end: Bounds) -> Bounds {
    let Some((_, hi)) = end else { return None };
    if hi <= start || step == 0 {
        return Some((start, start));
    }
    Some((start, start + (hi - 1 - start) / step * step))
}

/// `max / p` as a piece: the largest value whose product with `p` is at most `max` (a test
/// that a product by a constant does not wrap compares the other factor with it). `max` where
/// `p` is 0, and 0 where `p` is not a number, so that every product but by 0 counts as too large.
pub const fn quotient(max: u64, p: Piece) -> Piece<'static> {
    match value(p) {
        Some(0) => Piece::Dec(max),
        Some(v) => Piece::Dec(max / v),
        None => Piece::Dec(0),
    }
}

/// Whether every value of `x` is below every value of `y` (`or_equal`: at most); false where
/// either is not known.
pub const fn below(x: Bounds, y: Bounds, or_equal: bool) -> bool {
    match (x, y) {
        (Some(x), Some(y)) => x.1 < y.0 || or_equal && x.1 == y.0,
        _ => false,
    }
}

/// Whether every piece is a number in `lo..=hi`.
pub const fn all_within(pieces: &[Piece], lo: u64, hi: u64) -> bool {
    let mut i = 0;
    while i < pieces.len() {
        match value(pieces[i]) {
            Some(v) if v >= lo && v <= hi => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

/// Whether `a - b` (modulo 2^64) is a multiple of `m`, `m` not zero; false where either is not
/// known.
pub const fn multiple_of_difference(a: Option<u64>, b: Option<u64>, m: u64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.wrapping_sub(b) % m == 0,
        _ => false,
    }
}

/// A test's outcome as the piece rustc writes: `1` or `0`.
pub const fn outcome(ok: bool) -> Piece<'static> {
    Piece::Dec(ok as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX32: u128 = u32::MAX as u128;

    #[test]
    fn steps_are_exact_or_unknown() {
        assert_eq!(step(Step::Add, MAX32, Some((1, 2)), Some((10, 20))), Some((11, 22)));
        assert_eq!(step(Step::Add, MAX32, Some((0, MAX32)), Some((1, 1))), None, "may wrap");
        assert_eq!(step(Step::Sub, MAX32, Some((10, 20)), Some((1, 5))), Some((5, 19)));
        assert_eq!(step(Step::Sub, MAX32, Some((3, 20)), Some((1, 5))), None, "may go below zero");
        assert_eq!(step(Step::Mul, MAX32, Some((2, 15)), Some((16, 16))), Some((32, 240)));
        assert_eq!(step(Step::Mul, u64::MAX as u128, Some((0, u64::MAX as u128)), Some((2, 2))), None);
        assert_eq!(step(Step::Shl, MAX32, Some((1, 15)), Some((4, 4))), Some((16, 240)));
        assert_eq!(step(Step::Shl, MAX32, Some((1, 15)), Some((4, 5))), None, "amount not constant");
        assert_eq!(step(Step::Shl, MAX32, Some((0, 1 << 31)), Some((1, 1))), None, "shifted out");
        assert_eq!(step(Step::Add, MAX32, None, Some((1, 1))), None);
    }

    #[test]
    fn trips_stay_on_their_lattice() {
        // `(0..32).step_by(8)`: 0, 8, 16, 24.
        assert_eq!(trip(0, 8, Some((32, 32))), Some((0, 24)));
        assert_eq!(trip(0, 8, Some((25, 33))), Some((0, 32)));
        assert_eq!(trip(3, 4, Some((20, 20))), Some((3, 19)));
        assert_eq!(trip(0, 1, Some((1, 16))), Some((0, 15)));
        assert_eq!(trip(5, 2, Some((0, 5))), Some((5, 5)), "no trip runs");
        assert_eq!(trip(0, 8, None), None);
    }

    #[test]
    fn tests_on_pieces() {
        let tile = Piece::Dec(16);
        // `ty * TILE + tx < TILE * TILE` for a 16 × 16 block.
        let x = step(Step::Add, MAX32, step(Step::Mul, MAX32, Some((0, 15)), bounds(tile)), Some((0, 15)));
        let y = step(Step::Mul, MAX32, bounds(tile), bounds(tile));
        assert!(below(x, y, false));
        assert!(!below(y, x, true));
        assert!(below(Some((0, 5)), Some((5, 9)), true) && !below(Some((0, 5)), Some((5, 9)), false));
        assert!(!below(bounds(Piece::Str("T")), y, false), "a piece that is not a number");
        assert!(all_within(&[tile, Piece::Dec(1)], 1, 1 << 8));
        assert!(!all_within(&[tile, Piece::Dec(0)], 1, 1 << 8));
        assert!(!all_within(&[Piece::Str("x")], 1, 1 << 8));
        assert!(multiple_of_difference(Some(21), Some(5), 16) && !multiple_of_difference(Some(20), Some(5), 16));
        assert!(multiple_of_difference(Some(3), Some(u64::MAX - 12), 16), "modulo 2^64");
        assert!(!multiple_of_difference(None, Some(0), 4));
        assert!(matches!(outcome(true), Piece::Dec(1)) && matches!(outcome(false), Piece::Dec(0)));
        assert!(matches!(quotient(u64::MAX, tile), Piece::Dec(v) if v == u64::MAX / 16));
        assert!(matches!(quotient(u32::MAX as u64, Piece::Dec(0)), Piece::Dec(v) if v == u32::MAX as u64));
        assert!(matches!(quotient(u64::MAX, Piece::Str("x")), Piece::Dec(0)));
    }
}
