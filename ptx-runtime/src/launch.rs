//! Launching a kernel on a stream, with its encoded arguments.

use crate::arg::Args;
use crate::config::LaunchConfig;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::stream::Stream;

impl Stream {
    /// Launches `kernel` with arguments already encoded. The launchers `#[kernel]` generates
    /// (`k::launch`) call this; use it directly only to launch a [`Kernel`] by hand. The
    /// configuration is checked against CUDA's limits and the kernel's launch bounds first.
    pub fn launch_kernel(&self, kernel: &'static Kernel, config: LaunchConfig, args: Args<'_>) -> Result<()> {
        config.validate()?;
        crate::limits::check_bounds(kernel.entry, config.block.to_array(), &kernel.bounds)?;
        self.note_capture_buffers(&args.uses);
        if config.cooperative {
            self.check_co_resident(kernel, &config)?;
            return self.inner.launch_cooperative(kernel, &config, args.params());
        }
        self.inner.launch(kernel, &config, args.params())
    }
}
