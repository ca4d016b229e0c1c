/*
 * Reading the line-per-vector files that tests/c_api.rs writes for
 * mmh_vectors.c and cwc_vectors.c: whitespace-separated tokens, '#' starts
 * a comment line, hex byte strings with "-" for the empty string.
 *
 * Not a public header: only those two programs include it. The functions
 * are static inline so that one that a program does not use is no warning.
 */
#ifndef WEGMAN_TEST_LINES_H
#define WEGMAN_TEST_LINES_H

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hex field, decoded. */
struct bytes {
    uint8_t *p; /* NULL when len == 0, so empty inputs are passed as NULL */
    size_t len;
};

/* The program's name, for messages; set by main. */
static const char *program = "vectors";

static inline void die(const char *what) {
    fprintf(stderr, "%s: %s\n", program, what);
    exit(2);
}

static inline void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (p == NULL) die("out of memory");
    return p;
}

/* The next whitespace-separated token, skipping '#' comment lines; NULL at
 * end of file. The caller frees it. */
static inline char *token(FILE *f) {
    size_t len = 0, cap = 64;
    char *buf;
    int c = fgetc(f);
    for (;;) {
        while (c != EOF && isspace(c)) c = fgetc(f);
        if (c != '#') break;
        while (c != EOF && c != '\n') c = fgetc(f);
    }
    if (c == EOF) return NULL;
    buf = xmalloc(cap);
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

/* The next token, which must be there. */
static inline char *need_token(FILE *f) {
    char *t = token(f);
    if (t == NULL) die("truncated record");
    return t;
}

/* The next token as a decimal size. */
static inline size_t number(FILE *f) {
    char *t = need_token(f), *end;
    unsigned long v = strtoul(t, &end, 10);
    if (*t == '\0' || *end != '\0') die("bad number");
    free(t);
    return (size_t)v;
}

static inline int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Read one hex field; if want != 0 it must decode to exactly want bytes. */
static inline struct bytes field(FILE *f, size_t want) {
    struct bytes b = {NULL, 0};
    char *hex = need_token(f);
    size_t n = strlen(hex), i;
    if (strcmp(hex, "-") != 0) {
        if (n % 2 != 0) die("odd-length hex field");
        b.len = n / 2;
        b.p = xmalloc(b.len);
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
static inline int fail(const char *id, const char *what) {
    if (failures_shown++ < 20) printf("FAIL %s: %s\n", id, what);
    return 0;
}

#endif /* WEGMAN_TEST_LINES_H */
