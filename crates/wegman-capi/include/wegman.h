/*
 * wegman.h — C interface of wegman (libwegman_c.a / libwegman_c.so).
 *
 * Poly1305-AES (D. J. Bernstein, FSE 2005), in two flavours:
 *
 *  - Bernstein's own functions poly1305aes_clamp, poly1305aes_authenticate
 *    and poly1305aes_verify, declared in poly1305aes.h (included below).
 *    They clamp an unclamped key instead of rejecting it.
 *
 *  - wegman_* functions with libsodium's conventions: size_t lengths,
 *    0 on success and -1 on failure, a fixed-size state for streaming.
 *    They REJECT (return -1) a key whose r breaks the paper's section 2
 *    rules instead of clamping it; call poly1305aes_clamp on freshly
 *    generated key bytes first.
 *
 * Keys are 32 bytes key = k || r: the AES-128 key k, then r (16 bytes,
 * little endian; r[3], r[7], r[11], r[15] at most 15 and r[4], r[8], r[12]
 * multiples of 4). Nonces and authenticators are 16 bytes. Never
 * authenticate two different messages with one nonce under the same key:
 * that reveals r (section 3).
 *
 * Pointers: m may be NULL when its length is 0. Every other pointer is
 * required; a NULL one makes a wegman_* function return -1 without
 * reading or writing through it. On failure, functions that produce an
 * authenticator write 16 zero bytes to out (when out is not NULL). Outputs
 * may overlap the one-shot functions' inputs. No function aborts or
 * unwinds into the caller on bad input.
 */
#ifndef WEGMAN_H
#define WEGMAN_H

#include <stddef.h>
#include <stdint.h>

#include "poly1305aes.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define WEGMAN_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define WEGMAN_WARN_UNUSED_RESULT
#endif

#if defined(__cplusplus)
#define WEGMAN_ALIGNAS(n) alignas(n)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define WEGMAN_ALIGNAS(n) _Alignas(n)
#elif defined(__GNUC__) || defined(__clang__)
#define WEGMAN_ALIGNAS(n) __attribute__((aligned(n)))
#else
#error "wegman.h needs C11 _Alignas, C++11 alignas, or GCC/Clang"
#endif

/** Bytes in a key k || r. Same as wegman_poly1305aes_keybytes(). */
#define WEGMAN_POLY1305AES_KEYBYTES 32U
/** Bytes in a nonce. Same as wegman_poly1305aes_noncebytes(). */
#define WEGMAN_POLY1305AES_NONCEBYTES 16U
/** Bytes in an authenticator. Same as wegman_poly1305aes_bytes(). */
#define WEGMAN_POLY1305AES_BYTES 16U
/** sizeof(wegman_poly1305aes_state). Same as wegman_poly1305aes_statebytes(). */
#define WEGMAN_POLY1305AES_STATEBYTES 512U

/** WEGMAN_POLY1305AES_KEYBYTES, for bindings that cannot read macros. */
size_t wegman_poly1305aes_keybytes(void);
/** WEGMAN_POLY1305AES_NONCEBYTES. */
size_t wegman_poly1305aes_noncebytes(void);
/** WEGMAN_POLY1305AES_BYTES. */
size_t wegman_poly1305aes_bytes(void);
/** WEGMAN_POLY1305AES_STATEBYTES. */
size_t wegman_poly1305aes_statebytes(void);

/**
 * out = Poly1305_r(m, AES_k(nonce)) for the len-byte message m.
 * Returns 0, or -1 with out zeroed if r has forbidden bits or a required
 * pointer is NULL.
 */
int wegman_poly1305aes_authenticate(uint8_t out[16],
                                    const uint8_t key[32],
                                    const uint8_t nonce[16],
                                    const uint8_t *m, size_t len);

/**
 * 0 if tag is the authenticator of m under key and nonce; -1 if it is not,
 * if r has forbidden bits, or if a required pointer is NULL. The
 * comparison takes the same time wherever tag differs.
 */
WEGMAN_WARN_UNUSED_RESULT
int wegman_poly1305aes_verify(const uint8_t tag[16],
                              const uint8_t key[32],
                              const uint8_t nonce[16],
                              const uint8_t *m, size_t len);

/**
 * State of a streaming computation. Opaque: keep it anywhere (the stack is
 * fine) but only touch it through the functions below. Its size and
 * alignment are fixed by the ABI. Allocate it on the heap with
 * aligned_alloc(64, sizeof(wegman_poly1305aes_state)), not plain malloc:
 * a state that is not 64-byte aligned is refused with -1. Do not copy a
 * live state; start a second one instead.
 *
 * Life cycle: init, any number of update calls, then exactly one of final
 * or final_verify, which wipe all 512 bytes. update, final and
 * final_verify need a state on which init succeeded (and no final ran
 * since); they return -1 for a zeroed state, a state after final, or one
 * whose init failed. A state of uninitialized memory that never went
 * through init is a caller bug this check is unlikely, but not certain, to
 * catch. A state abandoned before final still holds key-dependent data:
 * finish it or wipe it.
 */
typedef struct wegman_poly1305aes_state {
    WEGMAN_ALIGNAS(64) unsigned char opaque[512];
} wegman_poly1305aes_state;

/**
 * Start authenticating a message under key and nonce. Returns 0, or -1
 * (state wiped) if r has forbidden bits, a pointer is NULL, or st is not
 * 64-byte aligned. May be called on a live state to start over.
 */
int wegman_poly1305aes_init(wegman_poly1305aes_state *st,
                            const uint8_t key[32],
                            const uint8_t nonce[16]);

/**
 * Absorb the next len bytes of the message; any split of a message gives
 * the same result. m must not point into *st. Returns 0, or -1 (state
 * unchanged) if st is not live or m is NULL with len > 0.
 */
int wegman_poly1305aes_update(wegman_poly1305aes_state *st,
                              const uint8_t *m, size_t len);

/**
 * Write the authenticator of everything absorbed to out and wipe *st.
 * Returns 0, or -1 with out zeroed if st is not live or out is NULL.
 * *st is wiped in every case (when st is non-NULL and aligned).
 */
int wegman_poly1305aes_final(wegman_poly1305aes_state *st, uint8_t out[16]);

/**
 * 0 if tag is the authenticator of everything absorbed, -1 if it is not,
 * if st is not live, or if tag is NULL. Constant-time in tag. *st is wiped
 * in every case (when st is non-NULL and aligned).
 */
WEGMAN_WARN_UNUSED_RESULT
int wegman_poly1305aes_final_verify(wegman_poly1305aes_state *st,
                                    const uint8_t tag[16]);

/**
 * The Poly1305 core with any one-time pad s instead of AES_k(n):
 * out = Poly1305_r(m, s) (the paper's "Poly1305-AnotherFunction").
 * r is not clamped: returns -1 with out zeroed if r has forbidden bits or a
 * required pointer is NULL, else 0. Never reuse an s for two messages.
 */
int wegman_poly1305(uint8_t out[16],
                    const uint8_t r[16],
                    const uint8_t s[16],
                    const uint8_t *m, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* WEGMAN_H */
