//! Constant-time evidence for wegman under valgrind's memcheck ("ctgrind"):
//!
//! * [`client`]: the client requests a harness uses to mark secrets
//!   undefined and outputs defined again (the only `unsafe` here);
//! * [`report`]: what memcheck said about a run (errors, suppressions used,
//!   functions flagged), also as one line the harnesses' tests print;
//! * [`memcheck`]: running a program under memcheck the project's way.
//!
//! Used by the command line's key-parsing harness
//! (`crates/wegman-cli/examples/ctgrind_keys.rs`) and the ctgrind tests of
//! wegman-capi and wegman-cli.

#![deny(unsafe_code)]

#[allow(unsafe_code)]
pub mod client;
pub mod memcheck;
pub mod report;
