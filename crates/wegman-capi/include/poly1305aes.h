/*
 * poly1305aes.h — Bernstein's original Poly1305-AES C interface, served by
 * libwegman_c. A program written against Bernstein's software includes this
 * header and links against libwegman_c.a without other changes.
 *
 * Poly1305-AES: D. J. Bernstein, "The Poly1305-AES message-authentication
 * code", FSE 2005. A key is 32 bytes kr = k || r: the AES-128 key k
 * (kr[0..15]) followed by the 16-byte little-endian r (kr[16..31]).
 *
 * Clamping: the paper (section 2) requires r[3], r[7], r[11], r[15] to be
 * at most 15 and r[4], r[8], r[12] to be multiples of 4. Bernstein's
 * functions require a kr that satisfies this (one passed through
 * poly1305aes_clamp). Here, poly1305aes_authenticate and poly1305aes_verify
 * given an unclamped kr behave exactly as if poly1305aes_clamp had been
 * applied to a copy of it first. The prefixed functions of wegman.h reject
 * such a key instead.
 *
 * m may be NULL when l == 0. Other pointers must not be NULL; if one is,
 * nothing is read through it: poly1305aes_clamp does nothing,
 * poly1305aes_authenticate writes 16 zero bytes to out (if out is not NULL)
 * and poly1305aes_verify returns 0.
 */
#ifndef WEGMAN_POLY1305AES_COMPAT_H
#define WEGMAN_POLY1305AES_COMPAT_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Turn any 32 bytes into a valid key: clear the top 4 bits of kr[19],
 * kr[23], kr[27], kr[31] and the bottom 2 bits of kr[20], kr[24], kr[28].
 * The AES key kr[0..15] is left unchanged.
 */
void poly1305aes_clamp(unsigned char kr[32]);

/**
 * out = Poly1305_r(m, AES_k(n)): the authenticator of the l-byte message m
 * under key kr = k || r and nonce n. Never use one nonce for two different
 * messages under the same key. out may overlap the inputs.
 */
void poly1305aes_authenticate(unsigned char out[16],
                              const unsigned char kr[32],
                              const unsigned char n[16],
                              const unsigned char m[],
                              unsigned int l);

/**
 * 1 if a is the authenticator of the l-byte message m under kr and n,
 * otherwise 0. The comparison takes the same time wherever a differs.
 */
int poly1305aes_verify(const unsigned char a[16],
                       const unsigned char kr[32],
                       const unsigned char n[16],
                       const unsigned char m[],
                       unsigned int l);

#ifdef __cplusplus
}
#endif

#endif /* WEGMAN_POLY1305AES_COMPAT_H */
