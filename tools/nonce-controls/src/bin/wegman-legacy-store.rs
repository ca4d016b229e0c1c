//! `wegman keygen` and `wegman tag` on the old nonce store (the crate's
//! documentation): the negative control of `scripts/nonce-race --legacy`.

fn main() -> std::process::ExitCode {
    wegman_nonce_controls::main(wegman_nonce_controls::legacy::Kind::Legacy)
}
