//! The nonce store's negative control for the kill and fault tests
//! (`tests/nonce_kill.rs`, `tests/nonce_faults.rs`): `wegman keygen` and
//! `wegman tag` on the deliberately broken store of the dev-only crate
//! `tools/nonce-controls`. An example so that `cargo test` builds it with
//! the workspace's other targets; never shipped.

fn main() -> std::process::ExitCode {
    wegman_nonce_controls::main(wegman_nonce_controls::legacy::Kind::Broken)
}
