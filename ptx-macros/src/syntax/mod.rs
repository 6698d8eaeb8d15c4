//! The macro inputs as this crate models them.

pub mod attrs;
pub mod rejected;
pub mod rewrite;
pub mod signature;
pub mod source_index;
pub mod source_skim;
pub mod const_eval;
pub mod crate_root;
pub mod first_token;
pub mod sum_ref;
pub mod types;
