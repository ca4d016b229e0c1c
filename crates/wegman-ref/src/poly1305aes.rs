//! Poly1305-AES, Bernstein 2005 §2, as a literal transcription of the
//! paper's formula and its sample code.

use aes::Aes128;
use cipher::{BlockCipherEncrypt, KeyInit};
use num_bigint::BigUint;

/// p = 2^130 - 5.
pub fn p() -> BigUint {
    (BigUint::from(1u8) << 130u32) - BigUint::from(5u8)
}

/// The integers c_1..c_q of §2 "Conversion and padding".
pub fn chunks(m: &[u8]) -> Vec<BigUint> {
    m.chunks(16)
        .map(|chunk| {
            // chunk as little-endian integer, plus 2^(8 * len)
            BigUint::from_bytes_le(chunk) + (BigUint::from(1u8) << (8 * chunk.len() as u32))
        })
        .collect()
}

/// (c_1 r^q + c_2 r^(q-1) + ... + c_q r) mod 2^130 - 5, computed as the
/// paper writes it: a sum of powers, not Horner's rule.
pub fn m_of_r_mod_p(r: &[u8; 16], m: &[u8]) -> BigUint {
    let p = p();
    let r = BigUint::from_bytes_le(r);
    let c = chunks(m);
    let q = c.len() as u32;
    let mut sum = BigUint::from(0u8);
    for (i, ci) in c.iter().enumerate() {
        sum += ci * r.modpow(&BigUint::from(q - i as u32), &p);
    }
    sum % p
}

/// Poly1305_r(m, s) for any 16-byte s: ((m(r) mod p) + s) mod 2^128,
/// 16 bytes little-endian. Works for any r, valid or not.
pub fn poly1305(r: &[u8; 16], s: &[u8; 16], m: &[u8]) -> [u8; 16] {
    let h = m_of_r_mod_p(r, m) + BigUint::from_bytes_le(s);
    let h = h % (BigUint::from(1u8) << 128u32);
    let mut out = [0u8; 16];
    let bytes = h.to_bytes_le();
    out[..bytes.len()].copy_from_slice(&bytes);
    out
}

/// AES_k(n).
pub fn aes128(k: &[u8; 16], n: &[u8; 16]) -> [u8; 16] {
    let cipher = Aes128::new(&(*k).into());
    let mut block = (*n).into();
    cipher.encrypt_block(&mut block);
    block.into()
}

/// Poly1305_r(m, AES_k(n)).
pub fn poly1305aes(k: &[u8; 16], r: &[u8; 16], n: &[u8; 16], m: &[u8]) -> [u8; 16] {
    poly1305(r, &aes128(k, n), m)
}

/// Whether r meets the §2 restrictions.
pub fn r_is_valid(r: &[u8; 16]) -> bool {
    [3, 7, 11, 15].iter().all(|&i| r[i] < 16) && [4, 8, 12].iter().all(|&i| r[i].is_multiple_of(4))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appendix_a_first_example() {
        // Bernstein 2005, Appendix A, 2-byte message.
        let k = h16("ec074c835580741701425b623235add6");
        let r = h16("851fc40c3467ac0be05cc20404f3f700");
        let n = h16("fb447350c4e868c52ac3275cf9d4327e");
        assert_eq!(aes128(&k, &n), h16("580b3b0f9447bb1e69d095b5928b6dbc"));
        assert_eq!(format!("{:033x}", m_of_r_mod_p(&r, &[0xf3, 0xf6])), "321e58e25a69d7f8f27060770b3f8bb9c");
        assert_eq!(poly1305aes(&k, &r, &n, &[0xf3, 0xf6]), h16("f4c633c3044fc145f84f335cb81953de"));
    }

    fn h16(s: &str) -> [u8; 16] {
        let mut o = [0u8; 16];
        for i in 0..16 {
            o[i] = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        o
    }
}
