//! Chapter 4: the atomics ABI — how each (operation, memory order, scope) lowers to PTX.
//!
//! Every row of the guide's five mapping tables (sequentially consistent, release, acquire,
//! acquire-release, relaxed) in its recommended form:
//!
//! | order   | fence          | load                          | store                          | read-modify-write              |
//! |---------|----------------|-------------------------------|--------------------------------|--------------------------------|
//! | SeqCst  | `fence.sc`     | `fence.sc; ld.acquire`        | `fence.sc; st.relaxed`         | `fence.sc; atom.acquire`       |
//! | Release | `fence.release`| —                             | `st.release`                   | `atom.release`                 |
//! | Acquire | `fence.acquire`| `ld.acquire`                  | —                              | `atom.acquire`                 |
//! | AcqRel  | `fence.acq_rel`| —                             | —                              | `atom.acq_rel`                 |
//! | Relaxed | —              | `ld.relaxed`                  | `st.relaxed`                   | `atom.relaxed`                 |
//!
//! each followed by `.<scope>`: `.cta` (block), `.gpu` (device), `.sys` (system). The dashes
//! are the combinations Rust forbids (a Release load, an Acquire store, a Relaxed fence); they
//! are errors. `fence.acquire`/`fence.release` exist only from PTX 8.6 on sm_90; below that the
//! fence is strengthened to `fence.acq_rel`, which the guide's note on monotonic memory orders
//! permits, so a module's `.version` is not raised for it.

use crate::target::{Isa, Target};

/// A memory order, as Rust's `core::sync::atomic::Ordering`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Order {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// Which threads an atomic operation is atomic with respect to (CUDA's `thread_scope_*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Scope {
    /// The threads of one block: `.cta`.
    Block,
    /// All threads of the device: `.gpu`.
    Device,
    /// All threads of the system, host included: `.sys`.
    System,
}

impl Scope {
    pub const fn ptx(self) -> &'static str {
        match self {
            Scope::Block => ".cta",
            Scope::Device => ".gpu",
            Scope::System => ".sys",
        }
    }
}

/// The kind of atomic access.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Access {
    Fence,
    Load,
    Store,
    /// Any read-modify-write: swap, compare-exchange, fetch-add/and/or/xor/min/max, inc/dec.
    Rmw,
}

/// The semantics qualifier of one instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Sem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    /// Only on fences.
    Sc,
}

impl Sem {
    pub const fn ptx(self) -> &'static str {
        match self {
            Sem::Relaxed => ".relaxed",
            Sem::Acquire => ".acquire",
            Sem::Release => ".release",
            Sem::AcqRel => ".acq_rel",
            Sem::Sc => ".sc",
        }
    }
}

/// One instruction of a lowering: a fence, or the access itself with its semantics.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Step {
    Fence(Sem),
    /// The `ld`, `st` or `atom` with this semantics qualifier.
    Access(Sem),
}

/// A combination Rust does not allow.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Forbidden {
    ReleaseLoad,
    AcquireStore,
    RelaxedFence,
}

impl Forbidden {
    pub const fn message(self) -> &'static str {
        match self {
            Forbidden::ReleaseLoad => "a load cannot have `Release` or `AcqRel` ordering (as in `core::sync::atomic`); use `Acquire`, `SeqCst` or `Relaxed`",
            Forbidden::AcquireStore => "a store cannot have `Acquire` or `AcqRel` ordering (as in `core::sync::atomic`); use `Release`, `SeqCst` or `Relaxed`",
            Forbidden::RelaxedFence => "a fence cannot be `Relaxed` (as in `core::sync::atomic::fence`); use `Acquire`, `Release`, `AcqRel` or `SeqCst`",
        }
    }
}

/// The steps `access` with `order` lowers to, in order (at most two).
pub const fn lower(access: Access, order: Order) -> Result<&'static [Step], Forbidden> {
    use Step::{Access as A, Fence as F};
    Ok(match (access, order) {
        (Access::Fence, Order::SeqCst) => &[F(Sem::Sc)],
        (Access::Fence, Order::AcqRel) => &[F(Sem::AcqRel)],
        (Access::Fence, Order::Acquire) => &[F(Sem::Acquire)],
        (Access::Fence, Order::Release) => &[F(Sem::Release)],
        (Access::Fence, Order::Relaxed) => return Err(Forbidden::RelaxedFence),
        (Access::Load, Order::SeqCst) => &[F(Sem::Sc), A(Sem::Acquire)],
        (Access::Load, Order::Acquire) => &[A(Sem::Acquire)],
        (Access::Load, Order::Relaxed) => &[A(Sem::Relaxed)],
        (Access::Load, Order::Release | Order::AcqRel) => return Err(Forbidden::ReleaseLoad),
        (Access::Store, Order::SeqCst) => &[F(Sem::Sc), A(Sem::Relaxed)],
        (Access::Store, Order::Release) => &[A(Sem::Release)],
        (Access::Store, Order::Relaxed) => &[A(Sem::Relaxed)],
        (Access::Store, Order::Acquire | Order::AcqRel) => return Err(Forbidden::AcquireStore),
        (Access::Rmw, Order::SeqCst) => &[F(Sem::Sc), A(Sem::Acquire)],
        (Access::Rmw, Order::AcqRel) => &[A(Sem::AcqRel)],
        (Access::Rmw, Order::Acquire) => &[A(Sem::Acquire)],
        (Access::Rmw, Order::Release) => &[A(Sem::Release)],
        (Access::Rmw, Order::Relaxed) => &[A(Sem::Relaxed)],
    })
}

/// The semantics a fence is emitted with on `target`: `fence.acquire` and `fence.release` need
/// sm_90 and PTX 8.6, so elsewhere they are strengthened to `acq_rel`.
pub const fn fence_sem(sem: Sem, target: Target, isa: Isa) -> Sem {
    let has_one_sided = target.sm >= 90 && (isa.major > 8 || (isa.major == 8 && isa.minor >= 6));
    match sem {
        Sem::Acquire | Sem::Release if !has_one_sided => Sem::AcqRel,
        s => s,
    }
}

/// A compare-exchange has one semantics in PTX: the success order, strengthened by the failure
/// order when that is stronger (failure may not be `Release`/`AcqRel`, as in Rust).
pub const fn cas_order(success: Order, failure: Order) -> Result<Order, Forbidden> {
    match failure {
        Order::Release | Order::AcqRel => Err(Forbidden::ReleaseLoad),
        Order::SeqCst => Ok(Order::SeqCst),
        Order::Acquire => Ok(match success {
            Order::Relaxed => Order::Acquire,
            Order::Release => Order::AcqRel,
            s => s,
        }),
        Order::Relaxed => Ok(success),
    }
}

/// `.sem` and `.scope` qualifiers need PTX 6.0 and sm_70, below every target we emit for.
pub const ATOMICS_ISA: Isa = Isa::new(6, 0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_combinations_are_rust_s() {
        assert_eq!(lower(Access::Load, Order::Release), Err(Forbidden::ReleaseLoad));
        assert_eq!(lower(Access::Load, Order::AcqRel), Err(Forbidden::ReleaseLoad));
        assert_eq!(lower(Access::Store, Order::Acquire), Err(Forbidden::AcquireStore));
        assert_eq!(lower(Access::Fence, Order::Relaxed), Err(Forbidden::RelaxedFence));
    }

    #[test]
    fn fences_strengthen_below_sm90() {
        let sm75 = Target::DEFAULT;
        assert_eq!(fence_sem(Sem::Acquire, sm75, sm75.min_isa()), Sem::AcqRel);
        let sm90 = Target { sm: 90, suffix: None };
        assert_eq!(fence_sem(Sem::Release, sm90, Isa::new(7, 8)), Sem::AcqRel);
        assert_eq!(fence_sem(Sem::Release, sm90, Isa::new(8, 6)), Sem::Release);
        assert_eq!(fence_sem(Sem::Sc, sm75, sm75.min_isa()), Sem::Sc);
    }

    #[test]
    fn compare_exchange_takes_the_stronger_order() {
        assert_eq!(cas_order(Order::Relaxed, Order::Acquire), Ok(Order::Acquire));
        assert_eq!(cas_order(Order::Release, Order::Acquire), Ok(Order::AcqRel));
        assert_eq!(cas_order(Order::Release, Order::Relaxed), Ok(Order::Release));
        assert_eq!(cas_order(Order::Acquire, Order::SeqCst), Ok(Order::SeqCst));
        assert!(cas_order(Order::SeqCst, Order::Release).is_err());
    }
}
