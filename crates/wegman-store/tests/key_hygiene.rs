//! Key hygiene of the nonce store's printable surface: the `Debug` of a
//! key's binding (an HMAC key derived from the key) must show no piece of
//! 1,000 random keys (see `wegman_testkit::leak_scan`: raw, hex,
//! byte lists, decimal words).

use rand::{RngCore, SeedableRng};
use wegman_store::nonce::KeyBinding;
use wegman_testkit::leak_scan;

const KEYS: usize = 1000;

#[test]
fn no_key_byte_in_a_key_bindings_debug() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6b65_7973);
    for i in 0..KEYS {
        let mut raw = [0u8; 32];
        rng.fill_bytes(&mut raw);
        let text = format!("{:?}", KeyBinding::derive("poly1305aes", &raw));
        if let Some(found) = leak_scan::shows(&text, &raw) {
            panic!("key {i}: {found} in {text:?}");
        }
    }
}
