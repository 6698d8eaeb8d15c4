//! A block's barriers (`bar.sync` and its named variants): who has arrived in the current
//! phase, what they wait for, and a `bar.red` reduction's running result.

/// Barriers per block (`bar.sync 0` … `bar.sync 15`).
pub const NBARRIERS: usize = 16;
const NO_PC: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Barrier {
    pub arrived: u32,
    /// Threads expected (`bar.sync a, b`); 0: every thread of the block that has not exited.
    pub expected: u32,
    /// Per warp, the instruction its first thread arrived at in this phase (for `.aligned`).
    pub first_pc: [u32; 32],
    pub popc: u32,
    pub all: bool,
    pub any: bool,
}

impl Barrier {
    pub const IDLE: Barrier = Barrier { arrived: 0, expected: 0, first_pc: [NO_PC; 32], popc: 0, all: true, any: false };
}
