//! CWC-AES, §3 of Kohno, Viega & Whiting, transcribed literally with big
//! integers (see shared/spec/cwc.md for the de-OCR'd notation).

use aes::{Aes128, Aes192, Aes256};
use cipher::{BlockCipherEncrypt, KeyInit};
use num_bigint::BigUint;

/// BC_K(x) for a 16-, 24- or 32-byte AES key.
pub fn bc(key: &[u8], x: &[u8; 16]) -> [u8; 16] {
    let mut b = (*x).into();
    match key.len() {
        16 => Aes128::new(key.try_into().unwrap()).encrypt_block(&mut b),
        24 => Aes192::new(key.try_into().unwrap()).encrypt_block(&mut b),
        32 => Aes256::new(key.try_into().unwrap()).encrypt_block(&mut b),
        n => panic!("AES key length {n}"),
    }
    b.into()
}

/// p = 2^127 - 1.
pub fn p() -> BigUint {
    (BigUint::from(1u8) << 127u32) - 1u8
}

/// tostr(N, 128).
fn tostr128(n: &BigUint) -> [u8; 16] {
    let b = n.to_bytes_be();
    let mut out = [0u8; 16];
    out[16 - b.len()..].copy_from_slice(&b);
    out
}

/// Kh = toint(last 127 bits of BC_K(11 0^126)).
pub fn hash_key(key: &[u8]) -> BigUint {
    let mut x = [0u8; 16];
    x[0] = 0xc0;
    BigUint::from_bytes_be(&bc(key, &x)) % (BigUint::from(1u8) << 127u32)
}

/// CWC-HASH_K(A, σ) = tostr(R, 128).
pub fn hash(key: &[u8], a: &[u8], sigma: &[u8]) -> [u8; 16] {
    let kh = hash_key(key);
    let pad12 = |x: &[u8]| {
        let mut v = x.to_vec();
        while !v.len().is_multiple_of(12) {
            v.push(0);
        }
        v
    };
    let mut x = pad12(a);
    x.extend(pad12(sigma));
    let mut ys: Vec<BigUint> = x.chunks(12).map(BigUint::from_bytes_be).collect();
    ys.push((BigUint::from(a.len()) << 64u32) + BigUint::from(sigma.len()));
    // R = Y_1 Kh^β + ... + Y_β Kh + Y_{β+1} mod p, as a sum of powers
    let beta = ys.len() - 1;
    let p = p();
    let mut r = BigUint::from(0u8);
    for (i, y) in ys.iter().enumerate() {
        r += y * kh.modpow(&BigUint::from(beta - i), &p);
    }
    tostr128(&(r % p))
}

fn counter(nonce: &[u8; 11], i: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0] = 0x80;
    b[1..12].copy_from_slice(nonce);
    b[12..].copy_from_slice(&i.to_be_bytes());
    b
}

/// CWC-CTR_K(N, M).
pub fn ctr(key: &[u8], nonce: &[u8; 11], m: &[u8]) -> Vec<u8> {
    m.chunks(16)
        .enumerate()
        .flat_map(|(i, chunk)| {
            let s = bc(key, &counter(nonce, i as u32 + 1));
            chunk.iter().zip(s).map(|(a, b)| a ^ b).collect::<Vec<u8>>()
        })
        .collect()
}

/// CWC-MAC_K(N, A, σ), first tl bytes.
pub fn mac(key: &[u8], nonce: &[u8; 11], a: &[u8], sigma: &[u8], tl: usize) -> Vec<u8> {
    let e = bc(key, &hash(key, a, sigma));
    let pad = bc(key, &counter(nonce, 0));
    e.iter().zip(pad).map(|(x, y)| x ^ y).take(tl).collect()
}

/// CWC-ENC_K(N, A, M) = σ || τ.
pub fn encrypt(key: &[u8], nonce: &[u8; 11], a: &[u8], m: &[u8], tl: usize) -> Vec<u8> {
    let mut sigma = ctr(key, nonce, m);
    let tau = mac(key, nonce, a, &sigma, tl);
    sigma.extend(tau);
    sigma
}

/// CWC-DEC_K(N, A, C): Some(M) or None for INVALID.
pub fn decrypt(key: &[u8], nonce: &[u8; 11], a: &[u8], c: &[u8], tl: usize) -> Option<Vec<u8>> {
    if c.len() < tl {
        return None;
    }
    let (sigma, tau) = c.split_at(c.len() - tl);
    if mac(key, nonce, a, sigma, tl) != tau {
        return None;
    }
    Some(ctr(key, nonce, sigma))
}
