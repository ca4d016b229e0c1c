/*
 * Every vector of cwc.json through the four CWC-AES functions of wegman.h.
 *
 * argv[1] is a text file written by tests/c_api.rs (format: lines.h), one
 * vector per line:
 *
 *   seal    ID key nonce aad pt sealed tag_len   sealed = ciphertext || tag
 *   invalid ID key nonce aad sealed tag_len      decryption must fail
 *
 * A seal vector goes through encryption (detached and combined, each out
 * of place and in place) and decryption (the same four ways), then through
 * decryption with a flipped tag bit, a flipped ciphertext bit, a changed
 * associated data and a shorter tag_len, all of which must fail. An invalid
 * vector is decrypted combined and, when it is at least tag_len long,
 * detached, each out of place and in place.
 *
 * Every output buffer is filled with a canary first and has canary bytes
 * after it: a success must write exactly the output and nothing past it;
 * a decryption refused for its tag must zero the plaintext's place (the
 * one-pass decryption wrote to it before the verdict) and touch nothing
 * past it, one refused before decrypting (shorter than the tag) must leave
 * the whole buffer untouched; both set the returned length to 0.
 *
 * Prints "cwc_vectors: P passed, F failed (S seal, I invalid)" and exits
 * 0 iff F == 0 and at least one vector was read.
 */
#include "lines.h"

#include "wegman.h"

#define CANARY 0xc5
#define GUARD 32 /* canary bytes after every output */

/* A fresh output buffer of len + GUARD canary bytes. */
static uint8_t *canary_buffer(size_t len) {
    uint8_t *p = xmalloc(len + GUARD);
    memset(p, CANARY, len + GUARD);
    return p;
}

/* Are the n bytes at p all canary? */
static int untouched(const uint8_t *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != CANARY) return 0;
    return 1;
}

/* Are the n bytes at p all zero? */
static int zeroed(const uint8_t *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != 0) return 0;
    return 1;
}

/* want (n bytes), then canary bytes up to GUARD further on. */
static int exactly(const uint8_t *p, const uint8_t *want, size_t n) {
    return (n == 0 || memcmp(p, want, n) == 0) && untouched(p + n, GUARD);
}

struct vec {
    const char *id;
    struct bytes key, nonce, aad, pt, sealed;
    size_t tag_len;
};

/* Decryption that must fail, in all four ways: sealed (slen bytes) is
 * ciphertext || tag with a tag_len-byte tag (when slen >= tag_len; shorter
 * inputs only go through the combined function). */
static int decrypt_fails(const struct vec *v, const uint8_t *ad, size_t ad_len, const uint8_t *sealed, size_t slen,
                         size_t tag_len, const char *what) {
    const uint8_t *key = v->key.p, *nonce = v->nonce.p;
    size_t klen = v->key.len, m_len = 12345;
    uint8_t *buf;
    int ok = 1;
    char msg[160];

    /* The plaintext's place: zeroed if the tag was checked, untouched if
     * the input was too short to hold one. */
    size_t clen = slen >= tag_len ? slen - tag_len : 0;

    /* Combined, out of place: m zeroed, nothing past it, *m_len_p zeroed. */
    buf = canary_buffer(slen);
    if (wegman_cwc_decrypt(buf, &m_len, sealed, slen, ad, ad_len, tag_len, nonce, key, klen) != -1 || m_len != 0 ||
        !zeroed(buf, clen) || !untouched(buf + clen, slen - clen + GUARD))
        ok = 0;
    free(buf);

    /* Combined, in place: the ciphertext's place zeroed, the tag kept (all
     * of it kept when shorter than a tag). */
    buf = canary_buffer(slen);
    if (slen > 0) memcpy(buf, sealed, slen);
    if (wegman_cwc_decrypt(buf, NULL, buf, slen, ad, ad_len, tag_len, nonce, key, klen) != -1 || !zeroed(buf, clen) ||
        (slen > clen && memcmp(buf + clen, sealed + clen, slen - clen) != 0) || !untouched(buf + slen, GUARD))
        ok = 0;
    free(buf);

    if (slen >= tag_len) {
        /* Detached, out of place. */
        buf = canary_buffer(clen);
        if (wegman_cwc_decrypt_detached(buf, sealed, clen, sealed + clen, tag_len, ad, ad_len, nonce, key, klen) !=
                -1 ||
            !zeroed(buf, clen) || !untouched(buf + clen, GUARD))
            ok = 0;
        free(buf);
        /* Detached, in place. */
        buf = canary_buffer(slen);
        memcpy(buf, sealed, slen);
        if (wegman_cwc_decrypt_detached(buf, buf, clen, buf + clen, tag_len, ad, ad_len, nonce, key, klen) != -1 ||
            !zeroed(buf, clen) || memcmp(buf + clen, sealed + clen, tag_len) != 0 || !untouched(buf + slen, GUARD))
            ok = 0;
        free(buf);
    }
    if (!ok) {
        snprintf(msg, sizeof msg, "%s: accepted, or left the output other than zeroed", what);
        return fail(v->id, msg);
    }
    return 1;
}

static int check_seal(const struct vec *v) {
    const uint8_t *key = v->key.p, *nonce = v->nonce.p, *ad = v->aad.p, *pt = v->pt.p, *sealed = v->sealed.p;
    size_t klen = v->key.len, ad_len = v->aad.len, len = v->pt.len, tl = v->tag_len, slen = v->sealed.len, out_len;
    const uint8_t *ct = sealed, *tag = sealed + len;
    uint8_t *buf, *tbuf;
    int ok;

    if (slen != len + tl) return fail(v->id, "bad vector: sealed length is not pt + tag_len");

    /* Encrypt, detached, out of place. */
    buf = canary_buffer(len);
    tbuf = canary_buffer(tl);
    ok = wegman_cwc_encrypt_detached(buf, tbuf, tl, pt, len, ad, ad_len, nonce, key, klen) == 0 &&
         exactly(buf, ct, len) && exactly(tbuf, tag, tl);
    free(buf), free(tbuf);
    if (!ok) return fail(v->id, "encrypt_detached (out of place)");

    /* Encrypt, detached, in place. */
    buf = canary_buffer(len);
    tbuf = canary_buffer(tl);
    if (len > 0) memcpy(buf, pt, len);
    ok = wegman_cwc_encrypt_detached(buf, tbuf, tl, buf, len, ad, ad_len, nonce, key, klen) == 0 &&
         exactly(buf, ct, len) && exactly(tbuf, tag, tl);
    free(buf), free(tbuf);
    if (!ok) return fail(v->id, "encrypt_detached (in place)");

    /* Encrypt, combined, out of place. */
    buf = canary_buffer(slen);
    out_len = 0;
    ok = wegman_cwc_encrypt(buf, &out_len, pt, len, ad, ad_len, tl, nonce, key, klen) == 0 && out_len == slen &&
         exactly(buf, sealed, slen);
    free(buf);
    if (!ok) return fail(v->id, "encrypt (out of place)");

    /* Encrypt, combined, in place (m at the start of c), no length pointer. */
    buf = canary_buffer(slen);
    if (len > 0) memcpy(buf, pt, len);
    ok = wegman_cwc_encrypt(buf, NULL, buf, len, ad, ad_len, tl, nonce, key, klen) == 0 && exactly(buf, sealed, slen);
    free(buf);
    if (!ok) return fail(v->id, "encrypt (in place)");

    /* Decrypt, detached, out of place. */
    buf = canary_buffer(len);
    ok = wegman_cwc_decrypt_detached(buf, ct, len, tag, tl, ad, ad_len, nonce, key, klen) == 0 && exactly(buf, pt, len);
    free(buf);
    if (!ok) return fail(v->id, "decrypt_detached (out of place)");

    /* Decrypt, detached, in place. */
    buf = canary_buffer(len);
    if (len > 0) memcpy(buf, ct, len);
    ok = wegman_cwc_decrypt_detached(buf, buf, len, tag, tl, ad, ad_len, nonce, key, klen) == 0 && exactly(buf, pt, len);
    free(buf);
    if (!ok) return fail(v->id, "decrypt_detached (in place)");

    /* Decrypt, combined, out of place. */
    buf = canary_buffer(len);
    out_len = 12345;
    ok = wegman_cwc_decrypt(buf, &out_len, sealed, slen, ad, ad_len, tl, nonce, key, klen) == 0 && out_len == len &&
         exactly(buf, pt, len);
    free(buf);
    if (!ok) return fail(v->id, "decrypt (out of place)");

    /* Decrypt, combined, in place: the plaintext replaces the ciphertext,
     * the tag after it stays. */
    buf = canary_buffer(slen);
    memcpy(buf, sealed, slen);
    out_len = 12345;
    ok = wegman_cwc_decrypt(buf, &out_len, buf, slen, ad, ad_len, tl, nonce, key, klen) == 0 && out_len == len &&
         (len == 0 || memcmp(buf, pt, len) == 0) && exactly(buf + len, tag, tl);
    free(buf);
    if (!ok) return fail(v->id, "decrypt (in place)");

    /* Forgeries. */
    {
        uint8_t *bad = xmalloc(slen);
        uint8_t *ad2 = xmalloc(ad_len + 1);
        ok = 1;
        memcpy(bad, sealed, slen);
        bad[len + len % tl] ^= 0x10; /* a bit of the tag */
        ok &= decrypt_fails(v, ad, ad_len, bad, slen, tl, "flipped tag bit");
        if (len > 0) {
            memcpy(bad, sealed, slen);
            bad[len / 2] ^= 0x01; /* a bit of the ciphertext */
            ok &= decrypt_fails(v, ad, ad_len, bad, slen, tl, "flipped ciphertext bit");
        }
        /* Other associated data: one byte more. */
        if (ad_len > 0) memcpy(ad2, ad, ad_len);
        ad2[ad_len] = 0;
        ok &= decrypt_fails(v, ad2, ad_len + 1, sealed, slen, tl, "longer associated data");
        /* The tag length is part of the mode. */
        if (tl > 1) ok &= decrypt_fails(v, ad, ad_len, sealed, slen, tl - 1, "shorter tag_len");
        free(bad), free(ad2);
        if (!ok) return 0;
    }
    return 1;
}

static int check_invalid(const struct vec *v) {
    return decrypt_fails(v, v->aad.p, v->aad.len, v->sealed.p, v->sealed.len, v->tag_len, "invalid vector");
}

int main(int argc, char **argv) {
    FILE *f;
    char *kind;
    unsigned passed = 0, failed = 0, seals = 0, invalids = 0;

    program = "cwc_vectors";
    if (argc != 2) die("usage: cwc_vectors FILE");
    if ((f = fopen(argv[1], "r")) == NULL) die("cannot open the vector file");
    if (wegman_cwc_noncebytes() != WEGMAN_CWC_NONCEBYTES || wegman_cwc_abytes() != WEGMAN_CWC_ABYTES ||
        wegman_cwc_messagebytes_max() != WEGMAN_CWC_MESSAGEBYTES_MAX)
        die("size functions disagree with the header");

    while ((kind = token(f)) != NULL) {
        struct vec v;
        char *id = need_token(f);
        int ok, seal = strcmp(kind, "seal") == 0;
        if (!seal && strcmp(kind, "invalid") != 0) die("unknown record kind");
        v.id = id;
        v.key = field(f, 0);
        v.nonce = field(f, WEGMAN_CWC_NONCEBYTES);
        v.aad = field(f, 0);
        v.pt.p = NULL, v.pt.len = 0;
        if (seal) v.pt = field(f, 0);
        v.sealed = field(f, 0);
        v.tag_len = number(f);
        if (v.key.len < WEGMAN_CWC_KEYBYTES_MIN || v.key.len > WEGMAN_CWC_KEYBYTES_MAX) die("bad key length");
        if (seal) {
            ok = check_seal(&v);
            seals++;
        } else {
            ok = check_invalid(&v);
            invalids++;
        }
        if (ok) passed++;
        else failed++;
        free(v.key.p), free(v.nonce.p), free(v.aad.p), free(v.pt.p), free(v.sealed.p);
        free(kind), free(id);
    }
    fclose(f);
    printf("cwc_vectors: %u passed, %u failed (%u seal, %u invalid)\n", passed, failed, seals, invalids);
    return failed == 0 && passed > 0 ? 0 : 1;
}
