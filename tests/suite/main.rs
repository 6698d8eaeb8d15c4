//! The integration suite: one test binary (link time matters on small machines), one module
//! per concern.

mod tools;

mod abi_oracle;
mod atomics_oracle;
mod body_smoke;
mod expansion;
mod runtime;
