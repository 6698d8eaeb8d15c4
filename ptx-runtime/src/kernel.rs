//! Kernels as the runtime sees them, and the per-device cache of loaded modules.

use crate::config::LaunchBounds;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A kernel's PTX module and entry symbol. Each `#[kernel]` defines one as a `static`, whose
/// address identifies the kernel: its module is loaded once per device on first launch.
#[derive(Debug)]
pub struct Kernel {
    pub ptx: &'static str,
    pub entry: &'static str,
    /// The declared launch bounds, checked before every launch on either backend.
    pub bounds: LaunchBounds,
}

impl Kernel {
    pub const fn new(ptx: &'static str, entry: &'static str) -> Kernel {
        Kernel { ptx, entry, bounds: LaunchBounds::NONE }
    }

    /// The kernel with launch bounds (those its PTX's `.reqntid`/`.maxntid` state).
    pub const fn with_bounds(self, bounds: LaunchBounds) -> Kernel {
        Kernel { bounds, ..self }
    }

    fn key(&'static self) -> usize {
        self as *const Kernel as usize
    }
}

/// Loaded modules of one device, by kernel.
pub(crate) struct ModuleCache<M> {
    loaded: Mutex<HashMap<usize, Arc<M>>>,
}

impl<M> Default for ModuleCache<M> {
    fn default() -> Self {
        ModuleCache { loaded: Mutex::new(HashMap::new()) }
    }
}

impl<M> ModuleCache<M> {
    /// The kernel's loaded module, loading it with `load` the first time.
    pub fn get_or_load<E>(&self, kernel: &'static Kernel, load: impl FnOnce() -> Result<M, E>) -> Result<Arc<M>, E> {
        let mut map = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = map.get(&kernel.key()) {
            return Ok(m.clone());
        }
        let m = Arc::new(load()?);
        map.insert(kernel.key(), m.clone());
        Ok(m)
    }

    /// Makes `module` the kernel's module from now on (a linked module), replacing the one
    /// loaded before, if any.
    pub fn insert(&self, kernel: &'static Kernel, module: Arc<M>) {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner()).insert(kernel.key(), module);
    }

    /// How many modules are loaded.
    pub fn len(&self) -> usize {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Every loaded module, for cleanup.
    pub fn drain(&self) -> Vec<Arc<M>> {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, m)| m).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static A: Kernel = Kernel::new(".version 6.3", "a");
    static B: Kernel = Kernel::new(".version 6.3", "b");

    #[test]
    fn each_kernel_loads_once_per_cache() {
        let cache = ModuleCache::<usize>::default();
        let loads = AtomicUsize::new(0);
        let load = || -> Result<usize, ()> { Ok(loads.fetch_add(1, Ordering::Relaxed)) };
        for _ in 0..3 {
            cache.get_or_load(&A, load).unwrap();
            cache.get_or_load(&B, load).unwrap();
        }
        assert_eq!(loads.load(Ordering::Relaxed), 2);
        assert_eq!(cache.len(), 2);
        // A failed load is not cached: the next launch tries again.
        let other = ModuleCache::<usize>::default();
        assert!(other.get_or_load(&A, || Err::<usize, ()>(())).is_err());
        assert_eq!(other.len(), 0);
    }
}
