//! The C peers, reached through hand-written `extern "C"` declarations
//! (linked by `build.rs`). This folder and `tsc.rs` are the only places
//! with `unsafe`; each block states why it is sound, and everything
//! exported from here is a safe function or type.
//!
//! Why no `openssl-sys` / `libsodium-sys`: we call about twenty functions
//! whose prototypes are stable C ABI, and hand-written declarations keep
//! the dependency tree (and what is timed) obvious; `libsodium-sys` would
//! also try to build its own libsodium rather than use the system one.

pub mod openssl;
#[cfg(target_arch = "x86_64")]
pub mod reference;
pub mod sodium;
