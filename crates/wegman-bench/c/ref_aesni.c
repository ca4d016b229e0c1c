/*
 * A hand-assembled reference for the benchmark, not a library: AES-128_k(n)
 * with AES-NI, the key schedule computed round by round while the block is
 * encrypted, without aeskeygenassist (slow on several cores): pshufb
 * broadcasts RotWord(w3) to every column, aesenclast with rcon in every
 * column applies SubWord and the round constant, and two byte-shifts make
 * the prefix XOR of the previous round key. Round keys stay in registers.
 *
 * With libsodium's Poly1305 on r || s it is the fastest one-shot
 * Poly1305-AES a C programmer can assemble today from public parts, so the
 * benchmark reports wegman against it too ("AES-NI+libsodium (ref)").
 * Compiled by build.rs with -O2 -maes -mssse3; checked against the shared
 * vectors like every contender before anything is timed.
 */
#include <stdint.h>
#include <tmmintrin.h>
#include <wmmintrin.h>

static inline __m128i next_round_key(__m128i k, int rcon)
{
    __m128i t = _mm_shuffle_epi8(k, _mm_set1_epi32(0x0c0f0e0d));
    t = _mm_aesenclast_si128(t, _mm_set1_epi32(rcon));
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    k = _mm_xor_si128(k, _mm_slli_si128(k, 8));
    return _mm_xor_si128(k, t);
}

void wegman_bench_ref_aes128(const uint8_t key[16], const uint8_t in[16], uint8_t out[16])
{
    static const int rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
    __m128i k = _mm_loadu_si128((const __m128i *)key);
    __m128i s = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), k);
    for (int i = 0; i < 9; i++) {
        k = next_round_key(k, rcon[i]);
        s = _mm_aesenc_si128(s, k);
    }
    k = next_round_key(k, rcon[9]);
    _mm_storeu_si128((__m128i *)out, _mm_aesenclast_si128(s, k));
}
