//! The body of a kernel or device function, lowered from Rust: what the PTX writer consumes.

/// A lowered body: instructions in order.
pub struct Body {
    pub insts: Vec<Inst>,
}

pub enum Inst {
    /// Copy parameter `index` into the return value, whole (`func_retval0`).
    ReturnParam { index: usize },
    /// Return to the caller (or end the thread, in a kernel).
    Ret,
}
