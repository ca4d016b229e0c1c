//! The `wegman` command's building blocks, as a library: key files, nonce
//! stores, manifests, and the `tag` and `check` commands. The binary
//! (`src/main.rs`) uses them, and so do the Python bindings
//! (`crates/wegman-py`), so that a key, its nonce store and its manifests
//! mean the same thing whichever of the two wrote them.

pub mod algs;
pub mod check;
pub mod hexarg;
pub mod input;
pub mod keyfile;
pub mod manifest;
pub mod out;
pub mod parallel;
pub mod progress;
pub mod tag;
