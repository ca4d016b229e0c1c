//! `wegman keygen` and `wegman tag` on the deliberately broken nonce store
//! (the crate's documentation): the negative control of the CLI's kill and
//! fault tests.

fn main() -> std::process::ExitCode {
    wegman_nonce_controls::main(wegman_nonce_controls::legacy::Kind::Broken)
}
