//! Constant-time evidence for wegman under valgrind's memcheck ("ctgrind"):
//!
//! * [`client`]: the client requests a harness uses to mark secrets
//!   undefined and outputs defined again (the only `unsafe` here);
//! * [`report`]: what memcheck said about a run (errors, suppressions used,
//!   functions flagged), also as one line the other harnesses' tests print;
//! * [`memcheck`]: running a program under memcheck the project's way;
//! * [`matrix`]: the builds of the Rust API harness (`src/main.rs`) at
//!   opt-levels 1, 2 and 3, clean and with the harness's leaky control, and what
//!   each must show; `tools/ctgrind` and `tests/ctgrind.rs` run them.
//!
//! Used by the harness here, the command line's key-parsing harness
//! (`src/bin/ctgrind_keys.rs`, run by wegman-cli's tests) and the ctgrind tests of
//! wegman-capi and wegman-cli.

#![deny(unsafe_code)]

#[allow(unsafe_code)]
pub mod client;
pub mod matrix;
pub mod memcheck;
pub mod report;

/// The one option both programs take: `Some(true)` for `--quick`,
/// `Some(false)` for no argument, `None` for anything else.
pub fn quick_option() -> Option<bool> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => Some(false),
        [q] if q == "--quick" => Some(true),
        _ => None,
    }
}
