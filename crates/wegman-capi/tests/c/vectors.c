/*
 * Every vector of poly1305aes.json through the C interface of wegman.h.
 *
 * argv[1] is a text file written by tests/c_api.rs, one vector per line,
 * fields separated by spaces, hex byte strings with "-" for the empty
 * string, '#' starting a comment line:
 *
 *   mac  ID k r n m tag        Poly1305-AES with a valid r
 *   core ID r s m tag          the Poly1305 core, Poly1305_r(m, s)
 *   badr ID k r n m r_clamped  an r the paper forbids
 *
 * mac vectors go through wegman_poly1305aes_authenticate and _verify, the
 * streaming state (on the stack, fed in uneven pieces, both final and
 * final_verify) and Bernstein's poly1305aes_authenticate / _verify; core
 * vectors through wegman_poly1305; badr vectors must be refused by every
 * wegman_* function and clamped by Bernstein's.
 *
 * Prints "vectors: P passed, F failed (M mac, C core, B badr)" and exits 0
 * iff F == 0 and at least one vector was read.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wegman.h"

/* A hex field, decoded. */
struct bytes {
    uint8_t *p; /* NULL when len == 0, so empty messages are passed as NULL */
    size_t len;
};

static void die(const char *what) {
    fprintf(stderr, "vectors: %s\n", what);
    exit(2);
}

/* The next whitespace-separated token, skipping '#' comment lines; NULL at
 * end of file. The caller frees it. */
static char *token(FILE *f) {
    size_t len = 0, cap = 64;
    char *buf;
    int c = fgetc(f);
    for (;;) {
        while (c != EOF && isspace(c)) c = fgetc(f);
        if (c != '#') break;
        while (c != EOF && c != '\n') c = fgetc(f);
    }
    if (c == EOF) return NULL;
    if ((buf = malloc(cap)) == NULL) die("out of memory");
    while (c != EOF && !isspace(c)) {
        if (len + 1 == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL) die("out of memory");
            buf = bigger;
        }
        buf[len++] = (char)c;
        c = fgetc(f);
    }
    buf[len] = '\0';
    return buf;
}

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Read one hex field; if want != 0 it must decode to exactly want bytes. */
static struct bytes field(FILE *f, size_t want) {
    struct bytes b = {NULL, 0};
    char *hex = token(f);
    size_t n, i;
    if (hex == NULL) die("truncated record");
    n = strlen(hex);
    if (strcmp(hex, "-") != 0) {
        if (n % 2 != 0) die("odd-length hex field");
        b.len = n / 2;
        if ((b.p = malloc(b.len)) == NULL) die("out of memory");
        for (i = 0; i < b.len; i++) {
            int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
            if (hi < 0 || lo < 0) die("bad hex digit");
            b.p[i] = (uint8_t)(hi * 16 + lo);
        }
    }
    if (want != 0 && b.len != want) die("field has the wrong length");
    free(hex);
    return b;
}

static unsigned failures_shown;

/* Report a failed check (the first few in detail) and return 0. */
static int fail(const char *id, const char *what) {
    if (failures_shown++ < 20) printf("FAIL %s: %s\n", id, what);
    return 0;
}

static int same16(const uint8_t *a, const uint8_t *b) {
    return memcmp(a, b, 16) == 0;
}

/* Uneven piece sizes for the streaming check, used cyclically. */
static const size_t pieces[] = {1, 15, 0, 17, 16, 2, 31, 64, 3, 100, 5};

static int check_mac(const char *id, const uint8_t kr[32], const uint8_t n[16], struct bytes m,
                     const uint8_t tag[16]) {
    uint8_t out[16], bad[16];
    wegman_poly1305aes_state st;
    size_t off = 0, i = 0;

    if (wegman_poly1305aes_authenticate(out, kr, n, m.p, m.len) != 0) return fail(id, "authenticate returned -1");
    if (!same16(out, tag)) return fail(id, "authenticate: wrong tag");
    if (wegman_poly1305aes_verify(tag, kr, n, m.p, m.len) != 0) return fail(id, "verify rejected the tag");
    memcpy(bad, tag, 16);
    bad[15] ^= 0x01;
    if (wegman_poly1305aes_verify(bad, kr, n, m.p, m.len) != -1) return fail(id, "verify accepted a bad tag");

    /* The threaded calls (one thread below 8 MiB: the API, not the split;
     * the split is tested in Rust and by capi's in-process tests). */
    memset(out, 0xaa, sizeof out);
    if (wegman_poly1305aes_authenticate_parallel(out, kr, n, m.p, m.len, 3) != 0)
        return fail(id, "authenticate_parallel returned -1");
    if (!same16(out, tag)) return fail(id, "authenticate_parallel: wrong tag");
    if (wegman_poly1305aes_verify_parallel(tag, kr, n, m.p, m.len, 2) != 0)
        return fail(id, "verify_parallel rejected the tag");
    if (wegman_poly1305aes_verify_parallel(bad, kr, n, m.p, m.len, 2) != -1)
        return fail(id, "verify_parallel accepted a bad tag");
    if (wegman_poly1305aes_authenticate_parallel(out, kr, n, m.p, m.len, 0) != -1)
        return fail(id, "authenticate_parallel accepted 0 threads");
    if (wegman_poly1305aes_verify_parallel(tag, kr, n, m.p, m.len, 0) != -1)
        return fail(id, "verify_parallel accepted 0 threads");

    if (wegman_poly1305aes_init(&st, kr, n) != 0) return fail(id, "init returned -1");
    if (wegman_poly1305aes_update(&st, NULL, 0) != 0) return fail(id, "update(NULL, 0) returned -1");
    while (off < m.len) {
        size_t take = pieces[i++ % (sizeof pieces / sizeof pieces[0])];
        if (take > m.len - off) take = m.len - off;
        if (wegman_poly1305aes_update(&st, m.p + off, take) != 0) return fail(id, "update returned -1");
        off += take;
    }
    memset(out, 0, sizeof out);
    if (wegman_poly1305aes_final(&st, out) != 0) return fail(id, "final returned -1");
    if (!same16(out, tag)) return fail(id, "streaming: wrong tag");
    if (wegman_poly1305aes_update(&st, m.p, m.len) != -1) return fail(id, "update after final accepted");

    if (wegman_poly1305aes_init(&st, kr, n) != 0) return fail(id, "init (2) returned -1");
    if (m.len > 0) {
        size_t half = m.len / 3;
        if (wegman_poly1305aes_update(&st, m.p, half) != 0 ||
            wegman_poly1305aes_update(&st, m.p + half, m.len - half) != 0)
            return fail(id, "update (2) returned -1");
    }
    if (wegman_poly1305aes_final_verify(&st, tag) != 0) return fail(id, "final_verify rejected the tag");
    if (wegman_poly1305aes_init(&st, kr, n) != 0) return fail(id, "init (3) returned -1");
    if (wegman_poly1305aes_update(&st, m.p, m.len) != 0) return fail(id, "update (3) returned -1");
    if (wegman_poly1305aes_final_verify(&st, bad) != -1) return fail(id, "final_verify accepted a bad tag");

    memset(out, 0, sizeof out);
    poly1305aes_authenticate(out, kr, n, m.p, (unsigned int)m.len);
    if (!same16(out, tag)) return fail(id, "poly1305aes_authenticate: wrong tag");
    if (poly1305aes_verify(tag, kr, n, m.p, (unsigned int)m.len) != 1) return fail(id, "poly1305aes_verify rejected");
    if (poly1305aes_verify(bad, kr, n, m.p, (unsigned int)m.len) != 0) return fail(id, "poly1305aes_verify accepted");
    return 1;
}

static int check_core(const char *id, const uint8_t r[16], const uint8_t s[16], struct bytes m, const uint8_t tag[16]) {
    uint8_t out[16];
    if (wegman_poly1305(out, r, s, m.p, m.len) != 0) return fail(id, "wegman_poly1305 returned -1");
    if (!same16(out, tag)) return fail(id, "wegman_poly1305: wrong tag");
    return 1;
}

static int check_bad_r(const char *id, const uint8_t kr[32], const uint8_t n[16], struct bytes m,
                       const uint8_t r_clamped[16]) {
    static const uint8_t zero[16];
    uint8_t out[16], want[16], clamped[32];
    wegman_poly1305aes_state st;

    memset(out, 0xaa, sizeof out);
    if (wegman_poly1305aes_authenticate(out, kr, n, m.p, m.len) != -1) return fail(id, "authenticate accepted bad r");
    if (!same16(out, zero)) return fail(id, "authenticate left a tag behind");
    if (wegman_poly1305aes_init(&st, kr, n) != -1) return fail(id, "init accepted bad r");
    if (wegman_poly1305aes_update(&st, m.p, m.len) != -1) return fail(id, "update after failed init accepted");
    if (wegman_poly1305(out, kr + 16, zero, m.p, m.len) != -1) return fail(id, "wegman_poly1305 accepted bad r");

    /* Bernstein's functions clamp: same result as the explicitly clamped key. */
    memcpy(clamped, kr, 32);
    poly1305aes_clamp(clamped);
    if (memcmp(clamped + 16, r_clamped, 16) != 0 || memcmp(clamped, kr, 16) != 0)
        return fail(id, "poly1305aes_clamp disagrees with r_clamped");
    if (wegman_poly1305aes_authenticate(want, clamped, n, m.p, m.len) != 0) return fail(id, "clamped key refused");
    if (wegman_poly1305aes_verify(want, kr, n, m.p, m.len) != -1) return fail(id, "verify accepted bad r");
    poly1305aes_authenticate(out, kr, n, m.p, (unsigned int)m.len);
    if (!same16(out, want)) return fail(id, "poly1305aes_authenticate did not clamp");
    if (poly1305aes_verify(want, kr, n, m.p, (unsigned int)m.len) != 1) return fail(id, "poly1305aes_verify did not clamp");
    return 1;
}

int main(int argc, char **argv) {
    FILE *f;
    char *kind;
    unsigned passed = 0, failed = 0, macs = 0, cores = 0, badrs = 0;

    if (argc != 2) die("usage: vectors FILE");
    if ((f = fopen(argv[1], "r")) == NULL) die("cannot open the vector file");
    if (wegman_poly1305aes_keybytes() != WEGMAN_POLY1305AES_KEYBYTES) die("keybytes mismatch");

    while ((kind = token(f)) != NULL) {
        char *id = token(f);
        int ok;
        if (id == NULL) die("truncated record");
        if (strcmp(kind, "mac") == 0 || strcmp(kind, "badr") == 0) {
            struct bytes k = field(f, 16), r = field(f, 16), n = field(f, 16), m = field(f, 0), last = field(f, 16);
            uint8_t kr[32];
            memcpy(kr, k.p, 16);
            memcpy(kr + 16, r.p, 16);
            if (kind[0] == 'm') {
                ok = check_mac(id, kr, n.p, m, last.p);
                macs++;
            } else {
                ok = check_bad_r(id, kr, n.p, m, last.p);
                badrs++;
            }
            free(k.p), free(r.p), free(n.p), free(m.p), free(last.p);
        } else if (strcmp(kind, "core") == 0) {
            struct bytes r = field(f, 16), s = field(f, 16), m = field(f, 0), tag = field(f, 16);
            ok = check_core(id, r.p, s.p, m, tag.p);
            cores++;
            free(r.p), free(s.p), free(m.p), free(tag.p);
        } else {
            die("unknown record kind");
        }
        if (ok) passed++;
        else failed++;
        free(kind);
        free(id);
    }
    fclose(f);
    printf("vectors: %u passed, %u failed (%u mac, %u core, %u badr)\n", passed, failed, macs, cores, badrs);
    return failed == 0 && passed > 0 ? 0 : 1;
}
