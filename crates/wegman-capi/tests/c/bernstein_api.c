/*
 * A client of Bernstein's Poly1305-AES interface that knows nothing about
 * wegman: it includes only poly1305aes.h and checks the four examples of
 * Appendix A of "The Poly1305-AES message-authentication code" (copied from
 * ../shared/vectors/poly1305aes.json, group "paper-appendix-A"), plus
 * poly1305aes_clamp on an all-0xff key.
 *
 * Prints "bernstein_api: P passed, F failed" and exits 0 iff F == 0.
 */
#include <stdio.h>
#include <string.h>

#include "poly1305aes.h"

struct example {
    const char *name;
    const char *k, *r, *n, *m, *tag; /* hex */
};

static const struct example examples[] = {
    {"A-1 (2-byte message)", "ec074c835580741701425b623235add6", "851fc40c3467ac0be05cc20404f3f700",
     "fb447350c4e868c52ac3275cf9d4327e", "f3f6", "f4c633c3044fc145f84f335cb81953de"},
    {"A-2 (empty message)", "75deaa25c09f208e1dc4ce6b5cad3fbf", "a0f3080000f46400d0c7e9076c834403",
     "61ee09218d29b0aaed7e154a2c5509cc", "", "dd3fab2251f11ac759f0887129cc2ee7"},
    {"A-3 (32-byte message)", "6acb5f61a7176dd320c5c1eb2edcdc74", "48443d0bb0d21109c89a100b5ce2c208",
     "ae212a55399729595dea458bc621ff0e",
     "663cea190ffb83d89593f3f476b6bc24d7e679107ea26adb8caf6652d0656136", "0ee1c16bb73f0f4fd19881753c01cdbe"},
    {"A-4 (63-byte message)", "e1a5668a4d5b66a5f68cc5424ed5982d", "12976a08c4426d0ce8a82407c4f48207",
     "9ae831e743978d3a23527c7128149e3a",
     "ab0812724a7f1e342742cbed374d94d136c6b8795d45b3819830f2c04491faf0"
     "990c62e48b8018b2c3e4a0fa3134cb67fa83e158c994d961c4cb21095c1bf9",
     "5154ad0d2cb26e01274fc51148491f1b"},
};

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decode hex into out (capacity cap); returns the byte count or -1. */
static long unhex(unsigned char *out, size_t cap, const char *hex) {
    size_t len = strlen(hex), i;
    if (len % 2 != 0 || len / 2 > cap) return -1;
    for (i = 0; i < len / 2; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (unsigned char)(hi * 16 + lo);
    }
    return (long)(len / 2);
}

static int check_example(const struct example *ex) {
    unsigned char kr[32], n[16], m[64], tag[16], out[16];
    long mlen;
    const unsigned char *mp;

    if (unhex(kr, 16, ex->k) != 16 || unhex(kr + 16, 16, ex->r) != 16 || unhex(n, 16, ex->n) != 16 ||
        unhex(tag, 16, ex->tag) != 16 || (mlen = unhex(m, sizeof m, ex->m)) < 0) {
        printf("%s: bad test data\n", ex->name);
        return 0;
    }
    /* The empty example passes m = NULL, which Bernstein's API allows for l = 0. */
    mp = mlen == 0 ? NULL : m;

    memset(out, 0, sizeof out);
    poly1305aes_authenticate(out, kr, n, mp, (unsigned int)mlen);
    if (memcmp(out, tag, 16) != 0) {
        printf("%s: poly1305aes_authenticate gave the wrong authenticator\n", ex->name);
        return 0;
    }
    if (poly1305aes_verify(tag, kr, n, mp, (unsigned int)mlen) != 1) {
        printf("%s: poly1305aes_verify rejected the right authenticator\n", ex->name);
        return 0;
    }
    tag[7] ^= 0x20;
    if (poly1305aes_verify(tag, kr, n, mp, (unsigned int)mlen) != 0) {
        printf("%s: poly1305aes_verify accepted an authenticator with a flipped bit\n", ex->name);
        return 0;
    }
    return 1;
}

/* Clamping an all-0xff key must clear exactly the 22 bits of section 2. */
static int check_clamp(void) {
    unsigned char kr[32], want[32];
    memset(kr, 0xff, sizeof kr);
    memset(want, 0xff, sizeof want);
    want[19] = want[23] = want[27] = want[31] = 0x0f;
    want[20] = want[24] = want[28] = 0xfc;
    poly1305aes_clamp(kr);
    if (memcmp(kr, want, sizeof kr) != 0) {
        printf("poly1305aes_clamp: wrong bits cleared\n");
        return 0;
    }
    /* Clamping is idempotent. */
    poly1305aes_clamp(kr);
    if (memcmp(kr, want, sizeof kr) != 0) {
        printf("poly1305aes_clamp: not idempotent\n");
        return 0;
    }
    return 1;
}

int main(void) {
    unsigned passed = 0, failed = 0;
    size_t i;
    for (i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        if (check_example(&examples[i])) passed++;
        else failed++;
    }
    if (!check_clamp()) failed++;
    printf("bernstein_api: %u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
