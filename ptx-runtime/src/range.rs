//! A range of a view's elements (`a..b`, `..`, `a..=b`), checked against the view's length:
//! the one rule device buffers and pinned buffers slice by.

use crate::error::{Error, Result};
use std::ops::{Bound, RangeBounds};

/// `range` of a view of `len` elements as (start, count); `Err(InvalidBuffer)` when it is not
/// within the view.
pub(crate) fn bounds(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::InvalidBuffer { reason: format!("range {start}..{end} out of bounds for a view of {len} elements") });
    }
    Ok((start, end - start))
}
