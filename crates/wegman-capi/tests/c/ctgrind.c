/*
 * Constant-time check of libwegman_c under valgrind's memcheck.
 *
 * Memcheck tracks, bit by bit, which memory and register contents are
 * "undefined", and reports a conditional jump (or a memory address) that
 * depends on undefined bits. Marking the secret inputs undefined before a
 * call therefore turns memcheck into a checker for the constant-time rule:
 * no branch and no memory index may depend on a secret. Arithmetic on
 * secrets is not reported; its results simply come out undefined.
 *
 * For each message length in `lengths`, with pseudo-random key, nonce and
 * message, every C entry point that touches a secret is run twice:
 *
 *  - pass "key":     the key is undefined (kr for Bernstein's functions; k
 *                    and r for the wegman_* ones; r and s for
 *                    wegman_poly1305; all 32 bytes kp || ks for the MMH
 *                    MACs; the whole 16-, 24- or 32-byte CWC-AES key).
 *                    Message lengths stay defined: a MAC may branch on how
 *                    long the message is.
 *  - pass "message": the message bytes are undefined, so the library may not
 *                    branch on their values either. For CWC decryption the
 *                    ciphertext is undefined, which makes the plaintext it
 *                    produces undefined. Associated data and nonces are
 *                    public in both passes.
 *
 * The MMH MACs covered are wegman_mmh32, wegman_nmh32 and wegman_mmh64x2
 * (the three block functions, one with a 2-fold Toeplitz output) with their
 * _verify; CWC-AES is covered through all four functions, decryption with
 * the right tag and with a wrong one, in place and out of place.
 *
 * CWC decryption must act on whether the tag verified, so it branches on a
 * value derived from the secrets: that one bit is public by design. The
 * library takes that branch in a single function, wegman's
 * cwc::key::public_verdict, and tests/ctgrind.supp tells memcheck to expect
 * it there and nowhere else. Its result, the return value of the decrypt
 * functions, is therefore defined; the plaintext is still checked to carry
 * undefined bits. With a wrong tag the output must come back zeroed (the
 * one-pass decryption wrote plaintext to it, then wiped it), with no
 * secret-dependent bit left.
 *
 * Outputs legitimately depend on the secrets. Each one is first checked to
 * still carry undefined bits (proof that the secret really flowed through
 * the computation, i.e. that the pass tested something), then marked defined
 * ("declassified") before this program compares it with the expected value
 * computed beforehand with everything defined.
 *
 * The wegman_* functions reject an r with any of the 22 bits that the
 * paper's section 2 requires to be zero. That check necessarily reveals
 * whether r is valid: one public-by-design bit. Those 22 bits are zero in
 * every valid key and carry no secret, so for the wegman_* functions they
 * stay defined (VALGRIND_SET_VBITS) while the other 106 bits of r and all of
 * k are undefined; the validity check then computes a defined result and
 * memcheck still sees every secret bit of a valid key. Bernstein's functions
 * clamp instead of checking, so for them all 32 bytes of kr are undefined.
 *
 * `ctgrind --leaky` instead runs two deliberately leaky functions on secret
 * data (an early-exit comparison of a secret-dependent tag, and a table
 * lookup indexed by a key byte), the negative control showing that memcheck
 * does report such code in this harness.
 *
 * The program refuses to run outside valgrind, where marking memory
 * undefined does nothing and the run would prove nothing. Exit status: 0
 * if all checks passed (valgrind's --error-exitcode then reports memcheck
 * errors), 2 if a check failed, 3 on a usage or setup error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "wegman.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_X86_CPUID 1
#endif

#define MAX_LEN 1000
static const size_t lengths[] = {0, 1, 15, 16, 17, 63, 64, MAX_LEN};
#define N_LENGTHS (sizeof lengths / sizeof lengths[0])

/* Piece sizes for the streaming calls, used in turn until the message runs
 * out: empty updates, pieces that straddle block boundaries, whole blocks. */
static const size_t pieces[] = {0, 1, 15, 2, 16, 0, 17, 3, 31, 33, 64, 7};
#define N_PIECES (sizeof pieces / sizeof pieces[0])

enum secret { SECRET_KEY, SECRET_MESSAGE };
static const char *const secret_names[] = {"key", "message"};

static unsigned checks, failures;

static void check(int ok, enum secret pass, size_t len, const char *what) {
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL [%s secret, len %zu] %s\n", secret_names[pass], len, what);
    }
}

static void die(const char *why) {
    printf("ctgrind: %s\n", why);
    exit(3);
}

/* ------------------------------------------------------------------------
 * Secret marking. memcheck's V bits: a 1 bit is undefined. */

/* Make n bytes at p undefined: secret. (Under valgrind these requests
 * always succeed; main makes sure we are under valgrind.) */
static void classify(void *p, size_t n) {
    (void)VALGRIND_MAKE_MEM_UNDEFINED(p, n);
}

/* Make n bytes at p defined: public from now on. */
static void declassify(void *p, size_t n) {
    (void)VALGRIND_MAKE_MEM_DEFINED(p, n);
}

/* Make a valid r (16 bytes) undefined except for the 22 bits that section 2
 * fixes to zero. */
static void classify_valid_r(unsigned char *r) {
    unsigned char vbits[16];
    memset(vbits, 0xff, sizeof vbits);
    vbits[3] = vbits[7] = vbits[11] = vbits[15] = 0x0f; /* top four bits are zero */
    vbits[4] = vbits[8] = vbits[12] = 0xfc;             /* bottom two bits are zero */
    if (VALGRIND_SET_VBITS(r, vbits, sizeof vbits) != 1) die("VALGRIND_SET_VBITS failed");
}

/* Does any bit of the n bytes at p depend on a secret? */
static int tainted(const void *p, size_t n) {
    const unsigned char *bytes = p;
    unsigned char vbits[64];
    size_t i, done, take;
    int any = 0;
    for (done = 0; done < n; done += take) {
        take = n - done < sizeof vbits ? n - done : sizeof vbits;
        if (VALGRIND_GET_VBITS(bytes + done, vbits, take) != 1) die("VALGRIND_GET_VBITS failed");
        for (i = 0; i < take; i++) any |= vbits[i] != 0;
    }
    return any;
}

/* A return value, made public. Its address is taken, so it lives in memory
 * where the client request can reach it. */
static int declassify_int(int v) {
    declassify(&v, sizeof v);
    return v;
}

/* ------------------------------------------------------------------------
 * Test data. */

/* A 64-bit linear congruential generator; the top byte is random enough. */
static uint64_t prng = 0x5eed0f3c7a5b1e99u;
static void fill(unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        prng = prng * 6364136223846793005u + 1442695040888963407u;
        p[i] = (unsigned char)(prng >> 56);
    }
}

/* The MMH MACs under test. */
static const struct mmh_alg {
    const char *name, *verify_name;
    int (*mac)(uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, size_t);
    int (*verify)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, size_t);
    size_t bytes;
} mmh_algs[] = {
    {"wegman_mmh32", "wegman_mmh32_verify", wegman_mmh32, wegman_mmh32_verify, WEGMAN_MMH32_BYTES},
    {"wegman_nmh32", "wegman_nmh32_verify", wegman_nmh32, wegman_nmh32_verify, WEGMAN_NMH32_BYTES},
    {"wegman_mmh64x2", "wegman_mmh64x2_verify", wegman_mmh64x2, wegman_mmh64x2_verify, WEGMAN_MMH64X2_BYTES},
};
#define N_MMH (sizeof mmh_algs / sizeof mmh_algs[0])

#define CWC_AD_LEN 21 /* associated data: a partial 12-byte chunk and block */
#define CANARY 0xc5   /* fills a CWC output buffer before a decryption that must fail */

struct fixture {
    size_t len;
    unsigned char kr[32];       /* k || r, r clamped */
    unsigned char n[16];        /* nonce */
    unsigned char r[16], s[16]; /* wegman_poly1305's r (clamped) and pad */
    unsigned char m[MAX_LEN];   /* message (first len bytes) */
    unsigned char tag[16];      /* Poly1305-AES tag, computed with all inputs defined */
    unsigned char bad_tag[16];  /* tag with one bit flipped */
    unsigned char core_tag[16]; /* wegman_poly1305 tag, computed with all inputs defined */

    unsigned char mk[32];               /* MMH key kp || ks */
    unsigned char mmh_tag[N_MMH][16];   /* MMH tags (first bytes), computed with all inputs defined */
    unsigned char mmh_bad[N_MMH][16];   /* ... with one bit flipped */
    size_t ck_len;                      /* CWC key length: 16, 24 or 32 */
    unsigned char ck[32];               /* CWC key (first ck_len bytes) */
    unsigned char cn[11];               /* CWC nonce */
    unsigned char ad[CWC_AD_LEN];       /* CWC associated data (public) */
    unsigned char ct[MAX_LEN];          /* CWC ciphertext of m (first len bytes) */
    unsigned char ctag[16], cbad[16];   /* CWC tag, and with one bit flipped */
};

static void make_fixture(struct fixture *f, size_t len) {
    f->len = len;
    fill(f->kr, sizeof f->kr);
    poly1305aes_clamp(f->kr);
    fill(f->n, sizeof f->n);
    {
        unsigned char ks[32]; /* r is clamped as the r half of a key */
        fill(ks, sizeof ks);
        poly1305aes_clamp(ks);
        memcpy(f->r, ks + 16, 16);
    }
    fill(f->s, sizeof f->s);
    fill(f->m, len);
    poly1305aes_authenticate(f->tag, f->kr, f->n, f->m, (unsigned int)len);
    memcpy(f->bad_tag, f->tag, 16);
    f->bad_tag[len % 16] ^= (unsigned char)(1u << (len % 8));
    if (wegman_poly1305(f->core_tag, f->r, f->s, f->m, len) != 0) die("wegman_poly1305 rejected a clamped r");

    fill(f->mk, sizeof f->mk);
    {
        size_t i;
        for (i = 0; i < N_MMH; i++) {
            const struct mmh_alg *a = &mmh_algs[i];
            if (a->mac(f->mmh_tag[i], f->mk, f->n, f->m, len) != 0) die("MMH MAC failed");
            memcpy(f->mmh_bad[i], f->mmh_tag[i], a->bytes);
            f->mmh_bad[i][len % a->bytes] ^= (unsigned char)(1u << (len % 8));
        }
    }
    f->ck_len = 16 + 8 * (len % 3);
    fill(f->ck, sizeof f->ck);
    fill(f->cn, sizeof f->cn);
    fill(f->ad, sizeof f->ad);
    if (wegman_cwc_encrypt_detached(f->ct, f->ctag, 16, f->m, len, f->ad, CWC_AD_LEN, f->cn, f->ck, f->ck_len) != 0)
        die("CWC encryption failed");
    memcpy(f->cbad, f->ctag, 16);
    f->cbad[(len + 5) % 16] ^= (unsigned char)(1u << (len % 8));
}

/* A copy of the message in a heap block of exactly len bytes (at least one,
 * so that m is never NULL), so that memcheck also flags reads past its end. */
static unsigned char *message_copy(const struct fixture *f) {
    unsigned char *m = malloc(f->len ? f->len : 1);
    if (m == NULL) die("out of memory");
    memcpy(m, f->m, f->len);
    return m;
}

/* ------------------------------------------------------------------------
 * The checks. `out` (16 bytes) or a return value is tainted as the pass
 * requires, then declassified, then compared. */

struct pass {
    enum secret secret;
    size_t len;
    int expect_taint; /* outputs must carry undefined bits */
};

/* n output bytes (a tag, a ciphertext, a plaintext). */
static void check_output(const struct pass *p, unsigned char *out, const unsigned char *want, size_t n,
                         const char *what) {
    char msg[160];
    if (p->expect_taint && n > 0) {
        snprintf(msg, sizeof msg, "%s: output does not depend on the secret", what);
        check(tainted(out, n), p->secret, p->len, msg);
    }
    declassify(out, n);
    snprintf(msg, sizeof msg, "%s: wrong output", what);
    check(n == 0 || memcmp(out, want, n) == 0, p->secret, p->len, msg);
}

static void check_tag(const struct pass *p, unsigned char out[16], const unsigned char want[16], const char *what) {
    check_output(p, out, want, 16, what);
}

static void check_verdict(const struct pass *p, int got, int want, const char *what) {
    char msg[160];
    if (p->expect_taint) {
        snprintf(msg, sizeof msg, "%s: verdict does not depend on the secret", what);
        check(tainted(&got, sizeof got), p->secret, p->len, msg);
    }
    got = declassify_int(got);
    snprintf(msg, sizeof msg, "%s: returned %d, expected %d", what, got, want);
    check(got == want, p->secret, p->len, msg);
}

/* A return value that may depend only on public data (success of a call
 * on valid inputs). */
static void check_status(const struct pass *p, int got, const char *what) {
    char msg[160];
    got = declassify_int(got);
    snprintf(msg, sizeof msg, "%s: returned %d, expected 0", what, got);
    check(got == 0, p->secret, p->len, msg);
}

/* A decryption that must have failed: -1, and the n bytes of out still the
 * canary, and defined. */
static void check_wiped(const struct pass *p, int got, const unsigned char *out, size_t n, const char *what) {
    char msg[160];
    size_t i;
    int zero = 1;
    got = declassify_int(got);
    snprintf(msg, sizeof msg, "%s: returned %d, expected -1", what, got);
    check(got == -1, p->secret, p->len, msg);
    snprintf(msg, sizeof msg, "%s: left secret-dependent data in the output", what);
    check(!tainted(out, n), p->secret, p->len, msg);
    for (i = 0; i < n; i++) zero &= out[i] == 0;
    snprintf(msg, sizeof msg, "%s: did not zero the output", what);
    check(zero, p->secret, p->len, msg);
}

/* The MMH MACs: tag, verify with the right and with a wrong tag. key holds
 * the (secret in the key pass) MMH key, m the message. */
static void run_mmh(const struct pass *p, const struct fixture *f, const unsigned char key[32],
                    const unsigned char *m) {
    size_t i;
    for (i = 0; i < N_MMH; i++) {
        const struct mmh_alg *a = &mmh_algs[i];
        unsigned char out[16];
        char what[80];
        check_status(p, a->mac(out, key, f->n, m, f->len), a->name);
        check_output(p, out, f->mmh_tag[i], a->bytes, a->name);
        snprintf(what, sizeof what, "%s (right tag)", a->verify_name);
        check_verdict(p, a->verify(f->mmh_tag[i], key, f->n, m, f->len), 0, what);
        snprintf(what, sizeof what, "%s (wrong tag)", a->verify_name);
        check_verdict(p, a->verify(f->mmh_bad[i], key, f->n, m, f->len), -1, what);
    }
}

/* CWC-AES. key holds the CWC key and m the plaintext (each secret in its
 * pass); ct is the ciphertext, undefined in the message pass. out and
 * sealed are heap blocks of len + 16 bytes, what the combined functions
 * use, so that memcheck also sees an access past their end. */
static void run_cwc(const struct pass *p, const struct fixture *f, const unsigned char *key, const unsigned char *m,
                    const unsigned char *ct) {
    size_t len = f->len, klen = f->ck_len, c_len = 0;
    unsigned char tag[16];
    unsigned char *out = malloc(len + 16), *sealed = malloc(len + 16);
    if (out == NULL || sealed == NULL) die("out of memory");

    /* Encryption, detached and combined. */
    check_status(p, wegman_cwc_encrypt_detached(out, tag, 16, m, len, f->ad, CWC_AD_LEN, f->cn, key, klen),
                 "wegman_cwc_encrypt_detached");
    check_output(p, out, f->ct, len, "wegman_cwc_encrypt_detached (ciphertext)");
    check_output(p, tag, f->ctag, 16, "wegman_cwc_encrypt_detached (tag)");
    check_status(p, wegman_cwc_encrypt(out, &c_len, m, len, f->ad, CWC_AD_LEN, 16, f->cn, key, klen),
                 "wegman_cwc_encrypt");
    check(c_len == len + 16, p->secret, len, "wegman_cwc_encrypt: wrong length");
    check_output(p, out, f->ct, len, "wegman_cwc_encrypt (ciphertext)");
    check_output(p, out + len, f->ctag, 16, "wegman_cwc_encrypt (tag)");

    /* Decryption with the right tag: out of place, then in place. */
    check_status(p, wegman_cwc_decrypt_detached(out, ct, len, f->ctag, 16, f->ad, CWC_AD_LEN, f->cn, key, klen),
                 "wegman_cwc_decrypt_detached");
    check_output(p, out, f->m, len, "wegman_cwc_decrypt_detached");
    memcpy(out, ct, len);
    check_status(p, wegman_cwc_decrypt_detached(out, out, len, f->ctag, 16, f->ad, CWC_AD_LEN, f->cn, key, klen),
                 "wegman_cwc_decrypt_detached (in place)");
    check_output(p, out, f->m, len, "wegman_cwc_decrypt_detached (in place)");
    memcpy(sealed, ct, len);
    memcpy(sealed + len, f->ctag, 16);
    check_status(p, wegman_cwc_decrypt(out, &c_len, sealed, len + 16, f->ad, CWC_AD_LEN, 16, f->cn, key, klen),
                 "wegman_cwc_decrypt");
    check_output(p, out, f->m, len, "wegman_cwc_decrypt");

    /* Decryption with a wrong tag: the output zeroed. */
    memset(out, CANARY, len);
    check_wiped(p, wegman_cwc_decrypt_detached(out, ct, len, f->cbad, 16, f->ad, CWC_AD_LEN, f->cn, key, klen),
                    out, len, "wegman_cwc_decrypt_detached (wrong tag)");
    memcpy(sealed + len, f->cbad, 16);
    memset(out, CANARY, len);
    check_wiped(p, wegman_cwc_decrypt(out, &c_len, sealed, len + 16, f->ad, CWC_AD_LEN, 16, f->cn, key, klen),
                    out, len, "wegman_cwc_decrypt (wrong tag)");
    free(out);
    free(sealed);
}

/* Streaming: init, the pieces, then final or final_verify. */
static void stream(const struct pass *p, const unsigned char key[32], const unsigned char n[16], const unsigned char *m,
                  wegman_poly1305aes_state *st) {
    size_t done = 0, i = 0;
    check_status(p, wegman_poly1305aes_init(st, key, n), "wegman_poly1305aes_init");
    while (done < p->len || i == 0) {
        size_t take = pieces[i % N_PIECES];
        if (take > p->len - done) take = p->len - done;
        check_status(p, wegman_poly1305aes_update(st, m + done, take), "wegman_poly1305aes_update");
        done += take;
        i++;
    }
}

static void run_pass(const struct fixture *f, enum secret secret) {
    struct pass p = {secret, f->len, secret == SECRET_KEY || f->len > 0};
    unsigned char kr[32], key[32], r[16], s[16], out[16], mk[32], ck[32];
    unsigned char *m = message_copy(f), *ct = malloc(f->len ? f->len : 1);
    wegman_poly1305aes_state st;

    if (ct == NULL) die("out of memory");
    memcpy(kr, f->kr, 32);  /* for Bernstein's functions */
    memcpy(key, f->kr, 32); /* for the wegman_* functions */
    memcpy(r, f->r, 16);
    memcpy(s, f->s, 16);
    memcpy(mk, f->mk, 32);
    memcpy(ck, f->ck, 32);
    memcpy(ct, f->ct, f->len);
    if (secret == SECRET_KEY) {
        classify(kr, 32);
        classify(key, 16);
        classify_valid_r(key + 16);
        classify_valid_r(r);
        classify(s, 16);
        classify(mk, 32);
        classify(ck, f->ck_len);
    } else {
        classify(m, f->len);
        classify(ct, f->len);
    }

    /* Bernstein's interface. */
    poly1305aes_authenticate(out, kr, f->n, m, (unsigned int)f->len);
    check_tag(&p, out, f->tag, "poly1305aes_authenticate");
    check_verdict(&p, poly1305aes_verify(f->tag, kr, f->n, m, (unsigned int)f->len), 1,
                  "poly1305aes_verify (right tag)");
    check_verdict(&p, poly1305aes_verify(f->bad_tag, kr, f->n, m, (unsigned int)f->len), 0,
                  "poly1305aes_verify (wrong tag)");

    /* One-shot wegman_*. */
    check_status(&p, wegman_poly1305aes_authenticate(out, key, f->n, m, f->len), "wegman_poly1305aes_authenticate");
    check_tag(&p, out, f->tag, "wegman_poly1305aes_authenticate");
    check_verdict(&p, wegman_poly1305aes_verify(f->tag, key, f->n, m, f->len), 0,
                  "wegman_poly1305aes_verify (right tag)");
    check_verdict(&p, wegman_poly1305aes_verify(f->bad_tag, key, f->n, m, f->len), -1,
                  "wegman_poly1305aes_verify (wrong tag)");

    /* Streaming wegman_*, state on the stack. */
    stream(&p, key, f->n, m, &st);
    check_status(&p, wegman_poly1305aes_final(&st, out), "wegman_poly1305aes_final");
    check_tag(&p, out, f->tag, "wegman_poly1305aes_final");
    stream(&p, key, f->n, m, &st);
    check_verdict(&p, wegman_poly1305aes_final_verify(&st, f->tag), 0, "wegman_poly1305aes_final_verify (right tag)");
    stream(&p, key, f->n, m, &st);
    check_verdict(&p, wegman_poly1305aes_final_verify(&st, f->bad_tag), -1,
                  "wegman_poly1305aes_final_verify (wrong tag)");

    /* The Poly1305 core with caller-supplied r and s. */
    check_status(&p, wegman_poly1305(out, r, s, m, f->len), "wegman_poly1305");
    check_tag(&p, out, f->core_tag, "wegman_poly1305");

    run_mmh(&p, f, mk, m);
    run_cwc(&p, f, ck, m, ct);

    free(m);
    free(ct);
}

/* poly1305aes_clamp on a wholly undefined kr: no branch, no index, and the
 * bits it clears become defined zeros while every other bit stays secret. */
static void run_clamp(const struct fixture *f) {
    struct pass p = {SECRET_KEY, f->len, 1};
    unsigned char raw[32], kr[32], vbits[32], want[32];
    int i, precise = 1;

    fill(raw, sizeof raw);
    memcpy(want, raw, 32);
    poly1305aes_clamp(want);
    memcpy(kr, raw, 32);
    classify(kr, 32);
    poly1305aes_clamp(kr);
    if (VALGRIND_GET_VBITS(kr, vbits, 32) != 1) die("VALGRIND_GET_VBITS failed");
    for (i = 0; i < 32; i++) {
        int j = i - 16; /* index into r */
        unsigned char v = 0xff;
        if (j == 3 || j == 7 || j == 11 || j == 15) v = 0x0f;
        if (j == 4 || j == 8 || j == 12) v = 0xfc;
        precise &= vbits[i] == v;
    }
    check(precise, p.secret, p.len, "poly1305aes_clamp: cleared bits not exactly the defined ones");
    declassify(kr, 32);
    check(memcmp(kr, want, 32) == 0, p.secret, p.len, "poly1305aes_clamp: wrong result");
}

/* ------------------------------------------------------------------------
 * The negative control: code that is NOT constant time. */

/* Early-exit comparison: how long it runs reveals how much of a matches. */
__attribute__((noinline)) static int leaky_equal(const unsigned char *a, const unsigned char *b, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* Secret-indexed load: which cache line it touches reveals idx. */
__attribute__((noinline)) static unsigned char leaky_lookup(const unsigned char table[256], unsigned char idx) {
    return table[idx];
}

static void run_leaky(void) {
    struct fixture f;
    unsigned char kr[32], out[16], table[256];
    int eq, i;
    unsigned char t;

    make_fixture(&f, 64);
    memcpy(kr, f.kr, 32);
    classify(kr, 32);

    /* 1: the tag computed under a secret key, compared with early exit.
     * Also shows that secrecy flows from the key through AES and Poly1305
     * into the tag. */
    poly1305aes_authenticate(out, kr, f.n, f.m, (unsigned int)f.len);
    eq = declassify_int(leaky_equal(out, f.tag, 16));

    /* 2: a table lookup at a secret index. */
    for (i = 0; i < 256; i++) table[i] = (unsigned char)i;
    t = leaky_lookup(table, kr[16]);
    declassify(&t, 1);
    declassify(kr, 32);

    printf("ctgrind --leaky: ran the leaky comparison (equal=%d) and lookup (%s)\n", eq,
           t == kr[16] ? "ok" : "wrong");
}

/* ------------------------------------------------------------------------ */

/* What the program (and so the aes crate's run-time detection) sees. */
static void print_cpu(void) {
#ifdef HAVE_X86_CPUID
    unsigned a = 0, b = 0, c1 = 0, d = 0, b7 = 0, c7 = 0;
    int aes, vaes, avx512f;
    __get_cpuid(1, &a, &b, &c1, &d);
    __get_cpuid_count(7, 0, &a, &b7, &c7, &d);
    aes = (c1 >> 25) & 1;
    vaes = (c7 >> 9) & 1;
    avx512f = (b7 >> 16) & 1;
    printf("ctgrind: cpuid: aes=%d vaes=%d avx512f=%d\n", aes, vaes, avx512f);
#else
    printf("ctgrind: cpuid: not an x86 CPU\n");
#endif
}

int main(int argc, char **argv) {
    struct fixture *f;
    size_t i;
    int leaky = argc == 2 && strcmp(argv[1], "--leaky") == 0;

    if (argc > 2 || (argc == 2 && !leaky)) {
        fprintf(stderr, "usage: %s [--leaky]\n", argv[0]);
        return 3;
    }
    if (!RUNNING_ON_VALGRIND) die("must run under valgrind --tool=memcheck (nothing is checked otherwise)");
    print_cpu();
    if (leaky) {
        run_leaky();
        return 0;
    }

    f = malloc(sizeof *f);
    if (f == NULL) die("out of memory");
    for (i = 0; i < N_LENGTHS; i++) {
        make_fixture(f, lengths[i]);
        run_pass(f, SECRET_KEY);
        run_pass(f, SECRET_MESSAGE);
        run_clamp(f);
    }
    free(f);
    printf("ctgrind: %u passed, %u failed (%zu lengths, secret key and secret message)\n", checks - failures, failures,
           N_LENGTHS);
    return failures ? 2 : 0;
}
