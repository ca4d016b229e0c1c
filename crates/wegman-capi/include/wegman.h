/*
 * wegman.h — C interface of wegman (libwegman_c.a / libwegman_c.so).
 *
 * Three families, each described where it is declared:
 *
 *  - Poly1305-AES (first; the rest of this comment is about it),
 *  - the MMH family of Wegman-Carter MACs (wegman_mmh32 ... wegman_mmh64x2),
 *  - CWC-AES authenticated encryption (wegman_cwc_*).
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
 * wegman_poly1305aes_authenticate on up to `threads` threads (one per 4 MiB
 * of message at most, none below 8 MiB), started for the call and joined
 * before it returns: the same tag. m must not change meanwhile. Returns 0,
 * or -1 with out zeroed if r has forbidden bits, a required pointer is NULL
 * or threads is 0.
 */
int wegman_poly1305aes_authenticate_parallel(uint8_t out[16],
                                             const uint8_t key[32],
                                             const uint8_t nonce[16],
                                             const uint8_t *m, size_t len,
                                             size_t threads);

/** wegman_poly1305aes_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_poly1305aes_verify_parallel(const uint8_t tag[16],
                                       const uint8_t key[32],
                                       const uint8_t nonce[16],
                                       const uint8_t *m, size_t len,
                                       size_t threads);

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

/*
 * The MMH family: Wegman-Carter MACs over the MMH/NMH multilinear hashes
 * (Halevi & Krawczyk, FSE 1997), byte-exact to the project's spec. Seven
 * algorithms, each with the same five functions and three constants:
 *
 *   int wegman_ALG(uint8_t *out, const uint8_t key[32],
 *                  const uint8_t nonce[16], const uint8_t *m, size_t len);
 *       Writes the WEGMAN_ALG_BYTES-byte tag of m to out and returns 0; or
 *       returns -1 with WEGMAN_ALG_BYTES zero bytes written to out if a
 *       required pointer is NULL or m is too long for the 16-level tree
 *       (no real message is: the shortest limit, mmh32x4's, is about
 *       3.9e15 bytes). out may overlap the inputs.
 *   int wegman_ALG_verify(const uint8_t *tag, const uint8_t key[32],
 *                         const uint8_t nonce[16], const uint8_t *m,
 *                         size_t len);
 *       0 if the WEGMAN_ALG_BYTES-byte tag authenticates m, else -1 (also
 *       for a NULL required pointer or an over-long m). Constant time in tag.
 *   int wegman_ALG_parallel(uint8_t *out, const uint8_t key[32],
 *                           const uint8_t nonce[16], const uint8_t *m,
 *                           size_t len, size_t threads);
 *   int wegman_ALG_verify_parallel(const uint8_t *tag, const uint8_t key[32],
 *                                  const uint8_t nonce[16], const uint8_t *m,
 *                                  size_t len, size_t threads);
 *       The same on up to `threads` threads (one per 4 MiB of m at most,
 *       none below 8 MiB); -1 also for threads 0. m must not change meanwhile.
 *   size_t wegman_ALG_bytes(void), wegman_ALG_keybytes(void),
 *       wegman_ALG_noncebytes(void): the constants below, for bindings.
 *
 * The key is 32 bytes kp || ks, two independent AES-128 keys (kp encrypts
 * the nonce into the pad, ks expands into the tree's hash keys); any 32
 * random bytes are a valid key. Nonces are 16 bytes and must never repeat
 * under one key: two tags with one pad reveal the difference of two hash
 * values. m may be NULL when len is 0.
 *
 * Forgery odds: one try at a 4-byte mmh32 or nmh32 tag succeeds with
 * probability near 2^-29; use those only where failures are counted and
 * keys are short-lived. For long-term use prefer mmh32x4, mmh64x2 or
 * Poly1305-AES.
 */

/* mmh32: MMH32 (paper Definition 5). 4-byte tag: short-lived links only. */
/** Bytes in an mmh32 tag. Same as wegman_mmh32_bytes(). */
#define WEGMAN_MMH32_BYTES 4U
/** Bytes in an mmh32 key kp || ks. Same as wegman_mmh32_keybytes(). */
#define WEGMAN_MMH32_KEYBYTES 32U
/** Bytes in an mmh32 nonce. Same as wegman_mmh32_noncebytes(). */
#define WEGMAN_MMH32_NONCEBYTES 16U
/** WEGMAN_MMH32_BYTES. */
size_t wegman_mmh32_bytes(void);
/** WEGMAN_MMH32_KEYBYTES. */
size_t wegman_mmh32_keybytes(void);
/** WEGMAN_MMH32_NONCEBYTES. */
size_t wegman_mmh32_noncebytes(void);
/** The 4-byte mmh32 tag of m to out; 0, or -1 with out zeroed. */
int wegman_mmh32(uint8_t *out, const uint8_t key[32], const uint8_t nonce[16],
                 const uint8_t *m, size_t len);
/** 0 if the 4-byte tag authenticates m, else -1. Constant time in tag. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32_verify(const uint8_t *tag, const uint8_t key[32],
                        const uint8_t nonce[16], const uint8_t *m, size_t len);
/** wegman_mmh32 on up to `threads` threads; -1 also for threads 0. */
int wegman_mmh32_parallel(uint8_t *out, const uint8_t key[32],
                          const uint8_t nonce[16], const uint8_t *m, size_t len,
                          size_t threads);
/** wegman_mmh32_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32_verify_parallel(const uint8_t *tag, const uint8_t key[32],
                                 const uint8_t nonce[16], const uint8_t *m,
                                 size_t len, size_t threads);

/* mmh32x2: MMH32, 2-fold Toeplitz. */
/** Bytes in an mmh32x2 tag. Same as wegman_mmh32x2_bytes(). */
#define WEGMAN_MMH32X2_BYTES 8U
/** Bytes in an mmh32x2 key kp || ks. Same as wegman_mmh32x2_keybytes(). */
#define WEGMAN_MMH32X2_KEYBYTES 32U
/** Bytes in an mmh32x2 nonce. Same as wegman_mmh32x2_noncebytes(). */
#define WEGMAN_MMH32X2_NONCEBYTES 16U
/** WEGMAN_MMH32X2_BYTES. */
size_t wegman_mmh32x2_bytes(void);
/** WEGMAN_MMH32X2_KEYBYTES. */
size_t wegman_mmh32x2_keybytes(void);
/** WEGMAN_MMH32X2_NONCEBYTES. */
size_t wegman_mmh32x2_noncebytes(void);
/** The 8-byte mmh32x2 tag of m to out; 0, or -1 with out zeroed. */
int wegman_mmh32x2(uint8_t *out, const uint8_t key[32], const uint8_t nonce[16],
                   const uint8_t *m, size_t len);
/** 0 if the 8-byte tag authenticates m, else -1. Constant time in tag. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32x2_verify(const uint8_t *tag, const uint8_t key[32],
                          const uint8_t nonce[16], const uint8_t *m, size_t len);
/** wegman_mmh32x2 on up to `threads` threads; -1 also for threads 0. */
int wegman_mmh32x2_parallel(uint8_t *out, const uint8_t key[32],
                            const uint8_t nonce[16], const uint8_t *m, size_t len,
                            size_t threads);
/** wegman_mmh32x2_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32x2_verify_parallel(const uint8_t *tag, const uint8_t key[32],
                                   const uint8_t nonce[16], const uint8_t *m,
                                   size_t len, size_t threads);

/* mmh32x3: MMH32, 3-fold Toeplitz. */
/** Bytes in an mmh32x3 tag. Same as wegman_mmh32x3_bytes(). */
#define WEGMAN_MMH32X3_BYTES 12U
/** Bytes in an mmh32x3 key kp || ks. Same as wegman_mmh32x3_keybytes(). */
#define WEGMAN_MMH32X3_KEYBYTES 32U
/** Bytes in an mmh32x3 nonce. Same as wegman_mmh32x3_noncebytes(). */
#define WEGMAN_MMH32X3_NONCEBYTES 16U
/** WEGMAN_MMH32X3_BYTES. */
size_t wegman_mmh32x3_bytes(void);
/** WEGMAN_MMH32X3_KEYBYTES. */
size_t wegman_mmh32x3_keybytes(void);
/** WEGMAN_MMH32X3_NONCEBYTES. */
size_t wegman_mmh32x3_noncebytes(void);
/** The 12-byte mmh32x3 tag of m to out; 0, or -1 with out zeroed. */
int wegman_mmh32x3(uint8_t *out, const uint8_t key[32], const uint8_t nonce[16],
                   const uint8_t *m, size_t len);
/** 0 if the 12-byte tag authenticates m, else -1. Constant time in tag. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32x3_verify(const uint8_t *tag, const uint8_t key[32],
                          const uint8_t nonce[16], const uint8_t *m, size_t len);
/** wegman_mmh32x3 on up to `threads` threads; -1 also for threads 0. */
int wegman_mmh32x3_parallel(uint8_t *out, const uint8_t key[32],
                            const uint8_t nonce[16], const uint8_t *m, size_t len,
                            size_t threads);
/** wegman_mmh32x3_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32x3_verify_parallel(const uint8_t *tag, const uint8_t key[32],
                                   const uint8_t nonce[16], const uint8_t *m,
                                   size_t len, size_t threads);

/* mmh32x4: MMH32, 4-fold Toeplitz. */
/** Bytes in an mmh32x4 tag. Same as wegman_mmh32x4_bytes(). */
#define WEGMAN_MMH32X4_BYTES 16U
/** Bytes in an mmh32x4 key kp || ks. Same as wegman_mmh32x4_keybytes(). */
#define WEGMAN_MMH32X4_KEYBYTES 32U
/** Bytes in an mmh32x4 nonce. Same as wegman_mmh32x4_noncebytes(). */
#define WEGMAN_MMH32X4_NONCEBYTES 16U
/** WEGMAN_MMH32X4_BYTES. */
size_t wegman_mmh32x4_bytes(void);
/** WEGMAN_MMH32X4_KEYBYTES. */
size_t wegman_mmh32x4_keybytes(void);
/** WEGMAN_MMH32X4_NONCEBYTES. */
size_t wegman_mmh32x4_noncebytes(void);
/** The 16-byte mmh32x4 tag of m to out; 0, or -1 with out zeroed. */
int wegman_mmh32x4(uint8_t *out, const uint8_t key[32], const uint8_t nonce[16],
                   const uint8_t *m, size_t len);
/** 0 if the 16-byte tag authenticates m, else -1. Constant time in tag. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32x4_verify(const uint8_t *tag, const uint8_t key[32],
                          const uint8_t nonce[16], const uint8_t *m, size_t len);
/** wegman_mmh32x4 on up to `threads` threads; -1 also for threads 0. */
int wegman_mmh32x4_parallel(uint8_t *out, const uint8_t key[32],
                            const uint8_t nonce[16], const uint8_t *m, size_t len,
                            size_t threads);
/** wegman_mmh32x4_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh32x4_verify_parallel(const uint8_t *tag, const uint8_t key[32],
                                   const uint8_t nonce[16], const uint8_t *m,
                                   size_t len, size_t threads);

/* nmh32: NMH32 (paper Definition 10). 4-byte tag: short-lived links only. */
/** Bytes in an nmh32 tag. Same as wegman_nmh32_bytes(). */
#define WEGMAN_NMH32_BYTES 4U
/** Bytes in an nmh32 key kp || ks. Same as wegman_nmh32_keybytes(). */
#define WEGMAN_NMH32_KEYBYTES 32U
/** Bytes in an nmh32 nonce. Same as wegman_nmh32_noncebytes(). */
#define WEGMAN_NMH32_NONCEBYTES 16U
/** WEGMAN_NMH32_BYTES. */
size_t wegman_nmh32_bytes(void);
/** WEGMAN_NMH32_KEYBYTES. */
size_t wegman_nmh32_keybytes(void);
/** WEGMAN_NMH32_NONCEBYTES. */
size_t wegman_nmh32_noncebytes(void);
/** The 4-byte nmh32 tag of m to out; 0, or -1 with out zeroed. */
int wegman_nmh32(uint8_t *out, const uint8_t key[32], const uint8_t nonce[16],
                 const uint8_t *m, size_t len);
/** 0 if the 4-byte tag authenticates m, else -1. Constant time in tag. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_nmh32_verify(const uint8_t *tag, const uint8_t key[32],
                        const uint8_t nonce[16], const uint8_t *m, size_t len);
/** wegman_nmh32 on up to `threads` threads; -1 also for threads 0. */
int wegman_nmh32_parallel(uint8_t *out, const uint8_t key[32],
                          const uint8_t nonce[16], const uint8_t *m, size_t len,
                          size_t threads);
/** wegman_nmh32_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_nmh32_verify_parallel(const uint8_t *tag, const uint8_t key[32],
                                 const uint8_t nonce[16], const uint8_t *m,
                                 size_t len, size_t threads);

/* mmh64: MMH64, 64-bit words, p = 2^64 + 13. */
/** Bytes in an mmh64 tag. Same as wegman_mmh64_bytes(). */
#define WEGMAN_MMH64_BYTES 8U
/** Bytes in an mmh64 key kp || ks. Same as wegman_mmh64_keybytes(). */
#define WEGMAN_MMH64_KEYBYTES 32U
/** Bytes in an mmh64 nonce. Same as wegman_mmh64_noncebytes(). */
#define WEGMAN_MMH64_NONCEBYTES 16U
/** WEGMAN_MMH64_BYTES. */
size_t wegman_mmh64_bytes(void);
/** WEGMAN_MMH64_KEYBYTES. */
size_t wegman_mmh64_keybytes(void);
/** WEGMAN_MMH64_NONCEBYTES. */
size_t wegman_mmh64_noncebytes(void);
/** The 8-byte mmh64 tag of m to out; 0, or -1 with out zeroed. */
int wegman_mmh64(uint8_t *out, const uint8_t key[32], const uint8_t nonce[16],
                 const uint8_t *m, size_t len);
/** 0 if the 8-byte tag authenticates m, else -1. Constant time in tag. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh64_verify(const uint8_t *tag, const uint8_t key[32],
                        const uint8_t nonce[16], const uint8_t *m, size_t len);
/** wegman_mmh64 on up to `threads` threads; -1 also for threads 0. */
int wegman_mmh64_parallel(uint8_t *out, const uint8_t key[32],
                          const uint8_t nonce[16], const uint8_t *m, size_t len,
                          size_t threads);
/** wegman_mmh64_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh64_verify_parallel(const uint8_t *tag, const uint8_t key[32],
                                 const uint8_t nonce[16], const uint8_t *m,
                                 size_t len, size_t threads);

/* mmh64x2: MMH64, 2-fold Toeplitz. */
/** Bytes in an mmh64x2 tag. Same as wegman_mmh64x2_bytes(). */
#define WEGMAN_MMH64X2_BYTES 16U
/** Bytes in an mmh64x2 key kp || ks. Same as wegman_mmh64x2_keybytes(). */
#define WEGMAN_MMH64X2_KEYBYTES 32U
/** Bytes in an mmh64x2 nonce. Same as wegman_mmh64x2_noncebytes(). */
#define WEGMAN_MMH64X2_NONCEBYTES 16U
/** WEGMAN_MMH64X2_BYTES. */
size_t wegman_mmh64x2_bytes(void);
/** WEGMAN_MMH64X2_KEYBYTES. */
size_t wegman_mmh64x2_keybytes(void);
/** WEGMAN_MMH64X2_NONCEBYTES. */
size_t wegman_mmh64x2_noncebytes(void);
/** The 16-byte mmh64x2 tag of m to out; 0, or -1 with out zeroed. */
int wegman_mmh64x2(uint8_t *out, const uint8_t key[32], const uint8_t nonce[16],
                   const uint8_t *m, size_t len);
/** 0 if the 16-byte tag authenticates m, else -1. Constant time in tag. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh64x2_verify(const uint8_t *tag, const uint8_t key[32],
                          const uint8_t nonce[16], const uint8_t *m, size_t len);
/** wegman_mmh64x2 on up to `threads` threads; -1 also for threads 0. */
int wegman_mmh64x2_parallel(uint8_t *out, const uint8_t key[32],
                            const uint8_t nonce[16], const uint8_t *m, size_t len,
                            size_t threads);
/** wegman_mmh64x2_verify on up to `threads` threads; -1 also for threads 0. */
WEGMAN_WARN_UNUSED_RESULT
int wegman_mmh64x2_verify_parallel(const uint8_t *tag, const uint8_t key[32],
                                   const uint8_t nonce[16], const uint8_t *m,
                                   size_t len, size_t threads);

/*
 * CWC-AES authenticated encryption (Kohno, Viega & Whiting, section 3 of
 * "CWC: A high-performance conventional authenticated encryption mode").
 *
 * Keys are 16, 24 or 32 bytes (CWC-AES-128, -192, -256), passed with their
 * length key_len. Nonces are 11 bytes and must NEVER repeat under one key.
 * Tags are tag_len bytes, 1 to WEGMAN_CWC_ABYTES (16, the usual choice;
 * shorter tags are easier to forge); the tag length is part of the mode, so
 * decryption takes the same tag_len that encryption used. The associated
 * data ad and the message are each at most WEGMAN_CWC_MESSAGEBYTES_MAX
 * bytes (2^32 - 1 blocks of 16).
 *
 * Every function returns 0 on success and -1 on failure, and checks every
 * length and pointer before writing anything: on such a failure no
 * ciphertext, tag or plaintext byte is written (only *c_len_p / *m_len_p,
 * set to 0). A decryption refused for its tag leaves m zeroed (below).
 * m, c and ad may be NULL when their length is 0; key, nonce and tag are
 * always required.
 *
 * Buffers: encryption may be in place (c == m); decryption too (m == c).
 * Otherwise the output must not partially overlap the input text (-1).
 * Encryption writes c before it reads ad and before it writes the tag, so c
 * must not overlap ad or tag (-1). Decryption reads the tag, ad, nonce and
 * key before it writes m, so m may overlap them.
 *
 * Decryption makes ONE pass: each ciphertext byte is read once (copied, a
 * few KiB at a time, into a private buffer that is hashed and decrypted),
 * m is only written, never read, and the tag is compared (in constant
 * time) at the end. On a wrong tag m is ZEROED and -1 returned; plaintext
 * written to m before the verdict must not be used until the call returns
 * 0. So if another thread or process changes c meanwhile (shared memory,
 * a shared mmap of a file), a call that returns 0 has written the
 * decryption of a ciphertext whose tag verified, and one that returns -1
 * leaves zeros. tests/concurrent_writer.rs checks this with a thread that
 * flips bytes of c during decryption.
 */
/** Bytes in a nonce. Same as wegman_cwc_noncebytes(). */
#define WEGMAN_CWC_NONCEBYTES 11U
/** Bytes in the longest (and usual) tag. Same as wegman_cwc_abytes(). */
#define WEGMAN_CWC_ABYTES 16U
/** Shortest key (CWC-AES-128). Same as wegman_cwc_keybytes_min(). */
#define WEGMAN_CWC_KEYBYTES_MIN 16U
/** Longest key (CWC-AES-256; 24 bytes also works). Same as wegman_cwc_keybytes_max(). */
#define WEGMAN_CWC_KEYBYTES_MAX 32U
/**
 * Longest message, and longest associated data: 16 * (2^32 - 1) bytes, a
 * 64-bit number. Same as wegman_cwc_messagebytes_max().
 */
#define WEGMAN_CWC_MESSAGEBYTES_MAX 68719476720ULL

/** WEGMAN_CWC_NONCEBYTES. */
size_t wegman_cwc_noncebytes(void);
/** WEGMAN_CWC_ABYTES. */
size_t wegman_cwc_abytes(void);
/** WEGMAN_CWC_KEYBYTES_MIN. */
size_t wegman_cwc_keybytes_min(void);
/** WEGMAN_CWC_KEYBYTES_MAX. */
size_t wegman_cwc_keybytes_max(void);
/** WEGMAN_CWC_MESSAGEBYTES_MAX (a uint64_t: it exceeds a 32-bit size_t). */
uint64_t wegman_cwc_messagebytes_max(void);

/**
 * Encrypt the m_len-byte message m into the m_len-byte ciphertext c and
 * write a tag_len-byte tag to tag, authenticating ad too. c may equal m (in
 * place) but must not otherwise overlap it, nor overlap ad or tag.
 * Returns 0, or -1 with nothing written (bad key_len or tag_len, too long
 * an input, a NULL required pointer, forbidden overlap).
 */
int wegman_cwc_encrypt_detached(uint8_t *c,
                                uint8_t *tag, size_t tag_len,
                                const uint8_t *m, size_t m_len,
                                const uint8_t *ad, size_t ad_len,
                                const uint8_t nonce[11],
                                const uint8_t *key, size_t key_len);

/**
 * If the tag_len-byte tag authenticates ad and the c_len-byte ciphertext c,
 * write the c_len-byte plaintext to m and return 0, reading each byte of c
 * once. A wrong tag returns -1 with m zeroed (m == c included); bad
 * lengths, a NULL required pointer or m partially overlapping c return -1
 * with nothing written.
 */
WEGMAN_WARN_UNUSED_RESULT
int wegman_cwc_decrypt_detached(uint8_t *m,
                                const uint8_t *c, size_t c_len,
                                const uint8_t *tag, size_t tag_len,
                                const uint8_t *ad, size_t ad_len,
                                const uint8_t nonce[11],
                                const uint8_t *key, size_t key_len);

/**
 * Combined encryption: write m_len + tag_len bytes, the ciphertext followed
 * by the tag, to c (c may equal m if it has room for the tag). Returns 0 and
 * stores m_len + tag_len in *c_len_p; or -1, with nothing written to c and
 * *c_len_p set to 0. c_len_p may be NULL.
 */
int wegman_cwc_encrypt(uint8_t *c, size_t *c_len_p,
                       const uint8_t *m, size_t m_len,
                       const uint8_t *ad, size_t ad_len,
                       size_t tag_len,
                       const uint8_t nonce[11],
                       const uint8_t *key, size_t key_len);

/**
 * Combined decryption of c = ciphertext || tag (tag_len bytes): if the tag
 * is right, write the c_len - tag_len plaintext bytes to m (m may equal c),
 * store that length in *m_len_p and return 0, reading each byte of c once.
 * Otherwise return -1 and set *m_len_p to 0: m zeroed for a wrong tag,
 * nothing written for the failures of wegman_cwc_decrypt_detached or
 * c_len < tag_len. m_len_p may be NULL.
 */
WEGMAN_WARN_UNUSED_RESULT
int wegman_cwc_decrypt(uint8_t *m, size_t *m_len_p,
                       const uint8_t *c, size_t c_len,
                       const uint8_t *ad, size_t ad_len,
                       size_t tag_len,
                       const uint8_t nonce[11],
                       const uint8_t *key, size_t key_len);

/**
 * wegman_cwc_encrypt and wegman_cwc_decrypt on up to `threads` threads (one
 * per 4 MiB of message at most, none below 8 MiB): the same bytes; -1 also
 * for threads 0. The decryption copies c out twice (once to check the tag,
 * writing nothing; once to decrypt, checking the tag again): m is zeroed
 * and -1 returned unless both checks pass, so a c changed meanwhile can
 * never release other plaintext.
 */
int wegman_cwc_encrypt_parallel(uint8_t *c, size_t *c_len_p,
                                const uint8_t *m, size_t m_len,
                                const uint8_t *ad, size_t ad_len,
                                size_t tag_len,
                                const uint8_t nonce[11],
                                const uint8_t *key, size_t key_len,
                                size_t threads);
WEGMAN_WARN_UNUSED_RESULT
int wegman_cwc_decrypt_parallel(uint8_t *m, size_t *m_len_p,
                                const uint8_t *c, size_t c_len,
                                const uint8_t *ad, size_t ad_len,
                                size_t tag_len,
                                const uint8_t nonce[11],
                                const uint8_t *key, size_t key_len,
                                size_t threads);

#ifdef __cplusplus
}
#endif

#endif /* WEGMAN_H */
