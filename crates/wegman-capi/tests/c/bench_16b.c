/* 16-byte messages under 1000 keys through Bernstein's C API (target:
 * <= 100 ticks a call): poly1305aes_authenticate with 1000 keys, nonces
 * and messages cycled in a shuffled order, timed with rdtsc over batches
 * of 1000 calls; prints the median and the quartiles of the ticks per
 * call over ROUNDS batches.
 * Beside it, libsodium's crypto_onetimeauth_poly1305 on the same keys and
 * messages (Poly1305 alone, no AES: it does less work) as a reference.
 *
 *   cc -O2 bench_16b.c $(pkg-config --cflags --libs wegman) -lsodium
 *   ./a.out [ROUNDS]
 *
 * Run by tools/capi-16b. */
#include <poly1305aes.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define KEYS 1000
#define LEN 16

static unsigned char kr[KEYS][32], n[KEYS][16], m[KEYS][LEN], out[16];
static unsigned order[KEYS];

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *t, int rounds) {
    qsort(t, rounds, sizeof *t, cmp);
    printf("%-52s median %6.1f ticks/call (quartiles %.1f-%.1f)\n", what, t[rounds / 2], t[rounds / 4],
           t[3 * rounds / 4]);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 2001;
    if (sodium_init() < 0 || rounds < 3) return 1;
    randombytes_buf(kr, sizeof kr);
    randombytes_buf(n, sizeof n);
    randombytes_buf(m, sizeof m);
    for (unsigned i = 0; i < KEYS; i++) {
        poly1305aes_clamp(kr[i]);
        order[i] = i;
    }
    for (unsigned i = KEYS - 1; i > 0; i--) {
        unsigned j = randombytes_uniform(i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    double *w = malloc(rounds * sizeof *w), *s = malloc(rounds * sizeof *s);
    unsigned char acc = 0;
    for (int r = -rounds / 10; r < rounds; r++) { /* the first tenth warms up */
        uint64_t t0 = __rdtsc();
        for (unsigned i = 0; i < KEYS; i++) {
            unsigned k = order[i];
            poly1305aes_authenticate(out, kr[k], n[k], m[k], LEN);
            acc ^= out[0];
        }
        uint64_t t1 = __rdtsc();
        for (unsigned i = 0; i < KEYS; i++) {
            unsigned k = order[i];
            crypto_onetimeauth_poly1305(out, m[k], LEN, kr[k]);
            acc ^= out[0];
        }
        uint64_t t2 = __rdtsc();
        if (r >= 0) {
            w[r] = (double)(t1 - t0) / KEYS;
            s[r] = (double)(t2 - t1) / KEYS;
        }
    }
    report("wegman poly1305aes_authenticate (C API)", w, rounds);
    report("libsodium crypto_onetimeauth_poly1305 (no AES)", s, rounds);
    printf("(checksum %u)\n", acc);
    return 0;
}
