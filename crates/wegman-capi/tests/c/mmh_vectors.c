/*
 * Every vector of group "mac" of mmh.json through the MMH functions of
 * wegman.h.
 *
 * argv[1] is a text file written by tests/c_api.rs (format: lines.h), one
 * vector per line:
 *
 *   mac ID ALG key nonce m tag      ALG one of mmh32 ... mmh64x2
 *
 * Each goes through wegman_ALG (the right tag, also with out == m) and
 * wegman_ALG_verify (the tag accepted; with any one of its bits flipped, or
 * the message changed, rejected).
 *
 * Prints "mmh_vectors: P passed, F failed (N mmh32, ...)" and exits 0 iff
 * F == 0 and at least one vector was read.
 */
#include "lines.h"

#include "wegman.h"

typedef int (*mac_fn)(uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, size_t);
typedef int (*verify_fn)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, size_t);
typedef int (*mac_par_fn)(uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, size_t, size_t);
typedef int (*verify_par_fn)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, size_t, size_t);

struct alg {
    const char *name;
    mac_fn mac;
    verify_fn verify;
    mac_par_fn mac_parallel;
    verify_par_fn verify_parallel;
    size_t (*bytes)(void);
    size_t (*keybytes)(void);
    size_t (*noncebytes)(void);
    size_t macro_bytes; /* WEGMAN_ALG_BYTES */
    unsigned seen;
};

#define ALG(name, NAME)                                                                                            \
    {#name,                                                                                                        \
     wegman_##name,                                                                                                \
     wegman_##name##_verify,                                                                                       \
     wegman_##name##_parallel,                                                                                     \
     wegman_##name##_verify_parallel,                                                                              \
     wegman_##name##_bytes,                                                                                        \
     wegman_##name##_keybytes,                                                                                     \
     wegman_##name##_noncebytes,                                                                                   \
     WEGMAN_##NAME##_BYTES,                                                                                        \
     0}

static struct alg algs[] = {
    ALG(mmh32, MMH32), ALG(mmh32x2, MMH32X2), ALG(mmh32x3, MMH32X3), ALG(mmh32x4, MMH32X4),
    ALG(nmh32, NMH32), ALG(mmh64, MMH64),     ALG(mmh64x2, MMH64X2),
};
#define N_ALGS (sizeof algs / sizeof algs[0])

static int check(const char *id, const struct alg *a, const uint8_t key[32], const uint8_t nonce[16], struct bytes m,
                 const uint8_t *tag) {
    size_t n = a->bytes(), bit;
    uint8_t out[16], bad[16];

    memset(out, 0xaa, sizeof out);
    if (a->mac(out, key, nonce, m.p, m.len) != 0) return fail(id, "mac returned -1");
    if (memcmp(out, tag, n) != 0) return fail(id, "mac: wrong tag");
    if (n < sizeof out && out[n] != 0xaa) return fail(id, "mac wrote past the tag");
    if (a->verify(tag, key, nonce, m.p, m.len) != 0) return fail(id, "verify rejected the tag");

    /* The threaded calls (one thread below 8 MiB: the API; the split is
     * tested in Rust). 0 threads is refused. */
    memset(out, 0xaa, sizeof out);
    if (a->mac_parallel(out, key, nonce, m.p, m.len, 3) != 0) return fail(id, "mac_parallel returned -1");
    if (memcmp(out, tag, n) != 0) return fail(id, "mac_parallel: wrong tag");
    if (a->verify_parallel(tag, key, nonce, m.p, m.len, 2) != 0) return fail(id, "verify_parallel rejected the tag");
    if (a->mac_parallel(out, key, nonce, m.p, m.len, 0) != -1) return fail(id, "mac_parallel accepted 0 threads");
    if (a->verify_parallel(tag, key, nonce, m.p, m.len, 0) != -1) return fail(id, "verify_parallel accepted 0 threads");

    /* Every single-bit change of the tag is rejected. */
    for (bit = 0; bit < 8 * n; bit++) {
        memcpy(bad, tag, n);
        bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        if (a->verify(bad, key, nonce, m.p, m.len) != -1) return fail(id, "verify accepted a flipped tag bit");
    }
    if (m.len > 0) {
        m.p[m.len - 1] ^= 0x01;
        if (a->verify(tag, key, nonce, m.p, m.len) != -1) {
            m.p[m.len - 1] ^= 0x01;
            return fail(id, "verify accepted a changed message");
        }
        m.p[m.len - 1] ^= 0x01;
    }

    /* The tag may be written over the message it authenticates. */
    if (m.len >= n) {
        uint8_t *copy = xmalloc(m.len);
        int ok;
        memcpy(copy, m.p, m.len);
        ok = a->mac(copy, key, nonce, copy, m.len) == 0 && memcmp(copy, tag, n) == 0 &&
             memcmp(copy + n, m.p + n, m.len - n) == 0;
        free(copy);
        if (!ok) return fail(id, "mac with out == m");
    }
    return 1;
}

int main(int argc, char **argv) {
    FILE *f;
    char *kind;
    unsigned passed = 0, failed = 0;
    size_t i;

    program = "mmh_vectors";
    if (argc != 2) die("usage: mmh_vectors FILE");
    if ((f = fopen(argv[1], "r")) == NULL) die("cannot open the vector file");
    for (i = 0; i < N_ALGS; i++) {
        if (algs[i].bytes() != algs[i].macro_bytes || algs[i].keybytes() != 32 || algs[i].noncebytes() != 16)
            die("size functions disagree with the header");
    }

    while ((kind = token(f)) != NULL) {
        char *id = need_token(f), *name = need_token(f);
        struct alg *a = NULL;
        struct bytes key, nonce, m, tag;
        if (strcmp(kind, "mac") != 0) die("unknown record kind");
        for (i = 0; i < N_ALGS; i++)
            if (strcmp(name, algs[i].name) == 0) a = &algs[i];
        if (a == NULL) die("unknown algorithm");
        key = field(f, WEGMAN_MMH32_KEYBYTES);
        nonce = field(f, WEGMAN_MMH32_NONCEBYTES);
        m = field(f, 0);
        tag = field(f, a->bytes());
        if (check(id, a, key.p, nonce.p, m, tag.p)) passed++;
        else failed++;
        a->seen++;
        free(key.p), free(nonce.p), free(m.p), free(tag.p);
        free(kind), free(id), free(name);
    }
    fclose(f);
    printf("mmh_vectors: %u passed, %u failed (", passed, failed);
    for (i = 0; i < N_ALGS; i++) printf("%s%u %s", i ? ", " : "", algs[i].seen, algs[i].name);
    printf(")\n");
    return failed == 0 && passed > 0 ? 0 : 1;
}
