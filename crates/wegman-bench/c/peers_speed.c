/*
 * peers_speed.c - an independent cross-check of wegman-bench's peer figures.
 *
 * Times the same two Poly1305-AES peer calls as the Rust harness's
 * "poly1305aes authenticate" table, hot key, aligned message, in plain C
 * with the same clock (lfence; rdtsc; lfence), the same batching (a batch
 * lasts >= TARGET_TICKS ticks; ticks per call = batch ticks / batch size)
 * and the same statistic (median of REPS batches, interleaved):
 *
 *   OpenSSL:   EVP AES-128-ECB EncryptInit_ex2(k) + EncryptUpdate(n) = s;
 *              EVP_MAC POLY1305 init(r||s), update(m), final
 *   libsodium: the same OpenSSL AES; crypto_onetimeauth_poly1305(a, m, len, r||s)
 *
 * Build and run (from the repository root):
 *   cc -O2 -o target/peers_speed crates/wegman-bench/c/peers_speed.c -lcrypto -lsodium
 *   target/peers_speed
 *
 * Before timing it checks both against Appendix A of Bernstein's paper
 * (examples 1 and 3) and against each other on random inputs.
 */
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <sodium.h>
#include <x86intrin.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 101
#define TARGET_TICKS 150000ull
#define MAX_LEN 65536

static uint64_t now(void) {
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static void die(const char *what) {
    fprintf(stderr, "peers_speed: %s failed\n", what);
    exit(1);
}

/* The timed state: fetched algorithms and reused contexts, as in the Rust harness. */
static EVP_CIPHER *aes_ecb;
static EVP_CIPHER_CTX *aes_ctx;
static EVP_MAC *mac;
static EVP_MAC_CTX *mac_ctx;

/* s = AES_k(n), the key set up inside the call. */
static void aes_pad(const uint8_t k[16], const uint8_t n[16], uint8_t s[16]) {
    int outl = 0;
    if (EVP_EncryptInit_ex2(aes_ctx, NULL, k, NULL, NULL) != 1) die("EncryptInit_ex2");
    if (EVP_EncryptUpdate(aes_ctx, s, &outl, n, 16) != 1) die("EncryptUpdate");
}

static void openssl_auth(uint8_t a[16], const uint8_t k[16], const uint8_t r[16], const uint8_t n[16],
                         const uint8_t *m, size_t len) {
    uint8_t rs[32];
    size_t outl = 0;
    memcpy(rs, r, 16);
    aes_pad(k, n, rs + 16);
    if (EVP_MAC_init(mac_ctx, rs, 32, NULL) != 1) die("EVP_MAC_init");
    if (EVP_MAC_update(mac_ctx, m, len) != 1) die("EVP_MAC_update");
    if (EVP_MAC_final(mac_ctx, a, &outl, 16) != 1) die("EVP_MAC_final");
}

static void sodium_auth(uint8_t a[16], const uint8_t k[16], const uint8_t r[16], const uint8_t n[16],
                        const uint8_t *m, size_t len) {
    uint8_t rs[32];
    memcpy(rs, r, 16);
    aes_pad(k, n, rs + 16);
    if (crypto_onetimeauth_poly1305(a, m, len, rs) != 0) die("crypto_onetimeauth_poly1305");
}

typedef void (*auth_fn)(uint8_t[16], const uint8_t[16], const uint8_t[16], const uint8_t[16], const uint8_t *, size_t);

static void hex(const char *h, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) die("hex");
        out[i] = (uint8_t)v;
    }
}

/* Appendix A, examples 1 and 3 (k, r, n, m, tag). */
static const char *APPENDIX_A[2][5] = {
    {"ec074c835580741701425b623235add6", "851fc40c3467ac0be05cc20404f3f700", "fb447350c4e868c52ac3275cf9d4327e",
     "f3f6", "f4c633c3044fc145f84f335cb81953de"},
    {"6acb5f61a7176dd320c5c1eb2edcdc74", "48443d0bb0d21109c89a100b5ce2c208", "ae212a55399729595dea458bc621ff0e",
     "663cea190ffb83d89593f3f476b6bc24d7e679107ea26adb8caf6652d0656136", "0ee1c16bb73f0f4fd19881753c01cdbe"},
};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t batch(auth_fn f, uint64_t calls, const uint8_t *k, const uint8_t *r, const uint8_t *n,
                      const uint8_t *m, size_t len, uint8_t *sink) {
    uint8_t a[16];
    uint64_t t0 = now();
    for (uint64_t i = 0; i < calls; i++) {
        f(a, k, r, n, m, len);
        *sink += a[0];
    }
    return now() - t0;
}

int main(void) {
    static const size_t LENGTHS[] = {0, 1, 16, 64, 128, 576, 1024, 1500, 8192, 65536};
    static const char *NAMES[2] = {"OpenSSL", "libsodium"};
    static const auth_fn FNS[2] = {openssl_auth, sodium_auth};
    static uint8_t buf[MAX_LEN + 64] __attribute__((aligned(64)));
    uint8_t k[16], r[16], n[16], sink = 0;

    if (sodium_init() < 0) die("sodium_init");
    if (!(aes_ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL))) die("EVP_CIPHER_fetch");
    if (!(aes_ctx = EVP_CIPHER_CTX_new())) die("EVP_CIPHER_CTX_new");
    if (EVP_EncryptInit_ex2(aes_ctx, aes_ecb, NULL, NULL, NULL) != 1) die("EncryptInit_ex2");
    if (EVP_CIPHER_CTX_set_padding(aes_ctx, 0) != 1) die("set_padding");
    if (!(mac = EVP_MAC_fetch(NULL, "POLY1305", NULL))) die("EVP_MAC_fetch");
    if (!(mac_ctx = EVP_MAC_CTX_new(mac))) die("EVP_MAC_CTX_new");

    /* Checks: Appendix A, then OpenSSL = libsodium on random inputs. */
    for (int v = 0; v < 2; v++) {
        uint8_t m[32], want[16], got[16];
        size_t len = strlen(APPENDIX_A[v][3]) / 2;
        hex(APPENDIX_A[v][0], k, 16);
        hex(APPENDIX_A[v][1], r, 16);
        hex(APPENDIX_A[v][2], n, 16);
        hex(APPENDIX_A[v][3], m, len);
        hex(APPENDIX_A[v][4], want, 16);
        for (int c = 0; c < 2; c++) {
            FNS[c](got, k, r, n, m, len);
            if (memcmp(got, want, 16) != 0) {
                fprintf(stderr, "peers_speed: %s disagrees with Appendix A example %d\n", NAMES[c], v == 0 ? 1 : 3);
                return 1;
            }
        }
    }
    randombytes_buf(buf, sizeof buf);
    for (size_t len = 0; len <= 4100; len += 97) {
        uint8_t a[16], b[16];
        randombytes_buf(k, 16);
        randombytes_buf(r, 16);
        randombytes_buf(n, 16);
        r[3] &= 15, r[7] &= 15, r[11] &= 15, r[15] &= 15, r[4] &= 252, r[8] &= 252, r[12] &= 252;
        openssl_auth(a, k, r, n, buf + (len & 3), len);
        sodium_auth(b, k, r, n, buf + (len & 3), len);
        if (memcmp(a, b, 16) != 0) {
            fprintf(stderr, "peers_speed: OpenSSL and libsodium disagree at length %zu\n", len);
            return 1;
        }
    }

    /* The TSC rate against CLOCK_MONOTONIC. */
    struct timespec w0, w1, pause = {0, 200000000};
    clock_gettime(CLOCK_MONOTONIC, &w0);
    uint64_t t0 = now();
    nanosleep(&pause, NULL);
    uint64_t t1 = now();
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double ns = (w1.tv_sec - w0.tv_sec) * 1e9 + (w1.tv_nsec - w0.tv_nsec);
    printf("peers_speed: %s, libsodium %s\n", OpenSSL_version(OPENSSL_VERSION), sodium_version_string());
    printf("checks: Appendix A examples 1 and 3 ok; OpenSSL = libsodium on 43 random inputs\n");
    printf("TSC %.1f MHz; ticks per call, median of %d batches of >= %llu ticks; hot key, aligned message\n",
           (t1 - t0) / ns * 1e3, REPS, TARGET_TICKS);
    printf("%8s | %10s %6s | %10s %6s |\n", "bytes", NAMES[0], "±IQR", NAMES[1], "±IQR");

    /* Wake the core up (an idle core starts at a low clock): 300 ms of calls, untimed. */
    for (uint64_t end = now() + (uint64_t)((t1 - t0) / ns * 3e8); now() < end;) batch(FNS[0], 100, k, r, n, buf, 64, &sink);

    for (size_t li = 0; li < sizeof LENGTHS / sizeof LENGTHS[0]; li++) {
        size_t len = LENGTHS[li];
        uint64_t calls[2];
        double per_call[2][REPS];
        for (int c = 0; c < 2; c++) {
            uint64_t best = UINT64_MAX;
            for (int j = 0; j < 8; j++) {
                uint64_t t = batch(FNS[c], 1, k, r, n, buf, len, &sink);
                if (j >= 2 && t < best) best = t;
            }
            calls[c] = (TARGET_TICKS + best - 1) / (best ? best : 1);
            if (calls[c] < 1) calls[c] = 1;
        }
        for (int rep = 0; rep < REPS; rep++) {
            for (int j = 0; j < 2; j++) {
                int c = (j + rep) % 2;
                batch(FNS[c], 1, k, r, n, buf, len, &sink); /* warm, as the harness's hot regime */
                per_call[c][rep] = (double)batch(FNS[c], calls[c], k, r, n, buf, len, &sink) / calls[c];
            }
        }
        printf("%8zu |", len);
        for (int c = 0; c < 2; c++) {
            qsort(per_call[c], REPS, sizeof(double), cmp_double);
            double med = per_call[c][REPS / 2];
            double iqr = (per_call[c][3 * REPS / 4] - per_call[c][REPS / 4]) / 2 / med * 100;
            printf(" %10.0f %5.0f%% |", med, iqr);
        }
        printf("\n");
    }
    EVP_MAC_CTX_free(mac_ctx);
    EVP_MAC_free(mac);
    EVP_CIPHER_CTX_free(aes_ctx);
    EVP_CIPHER_free(aes_ecb);
    return sink == 255 ? 0 : 0; /* sink only keeps the calls alive */
}
