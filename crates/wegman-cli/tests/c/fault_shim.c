/* An LD_PRELOAD shim that makes one system call of the nonce store fail,
 * for tests/nonce_faults.rs. It wraps the C library's functions, so the
 * binary under test is the real `wegman`, built as users get it, and every
 * fault goes through the same error paths a failing disk would take.
 *
 * The calls it can fail (the four steps of an update of the state, see
 * crates/wegman-store/src/nonce/files.rs):
 *
 *   write    write, writev, pwrite, pwrite64 on a regular file
 *   fsync    fsync, fdatasync on a regular file
 *   rename   rename, renameat, renameat2
 *   link     link, linkat
 *   dirsync  fsync, fdatasync on a directory
 *
 * Only calls on files in WEGMAN_FAULT_DIR (or on the directory itself)
 * count, and never those on standard input, output or error. Environment:
 *
 *   WEGMAN_FAULT_OP     write | fsync | rename | link | dirsync
 *   WEGMAN_FAULT_NTH    fail the Nth counted call of that kind (1-based); the others pass
 *   WEGMAN_FAULT_ERRNO  EIO | ENOSPC | EDQUOT | EROFS
 *   WEGMAN_FAULT_WHEN   before: the call does nothing and fails;
 *                       after:  the call takes effect, then reports the error
 *                       (write: the first half of the bytes is written and
 *                       that count returned, the next write to the file fails:
 *                       a disk filling up; fsync: the "fsyncgate" report after
 *                       writeback; rename, link: a reply lost after the call)
 *   WEGMAN_FAULT_DIR    absolute, symbolic-link-free directory
 *   WEGMAN_FAULT_LOG    a line "OP NTH ERRNO WHEN" is appended when the fault fires
 *
 * A slow disk instead (scripts/nonce-race): WEGMAN_SLOW_FSYNC_US=N and
 * WEGMAN_FAULT_DIR make every fsync/fdatasync of a file or directory in
 * that directory first sleep a random 0..N microseconds, without faults.
 *
 * Without WEGMAN_FAULT_OP the shim only forwards calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum op { OP_NONE, OP_WRITE, OP_FSYNC, OP_RENAME, OP_DIRSYNC, OP_LINK };

static enum op fault_op = OP_NONE;
static long fault_nth;
static int fault_errno;
static int fault_after;
static long slow_fsync_us;
static char fault_dir[PATH_MAX];
static size_t fault_dir_len;
static long counts[6];
/* After a short write ("after" on write): the file whose next write fails. */
static int poisoned_fd = -1;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned int);
static int (*real_link)(const char *, const char *);
static int (*real_linkat)(int, const char *, int, const char *, int);

static const char *const op_names[] = {"none", "write", "fsync", "rename", "dirsync", "link"};

/* The C library's functions, found on first use (another library's
 * constructor may write before this one runs). */
static void resolve(void) {
    if (real_write) {
        return;
    }
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_rename = dlsym(RTLD_NEXT, "rename");
    real_renameat = dlsym(RTLD_NEXT, "renameat");
    real_renameat2 = dlsym(RTLD_NEXT, "renameat2");
    real_link = dlsym(RTLD_NEXT, "link");
    real_linkat = dlsym(RTLD_NEXT, "linkat");
    __atomic_store_n(&real_write, (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write"), __ATOMIC_SEQ_CST);
}

__attribute__((constructor)) static void init(void) {
    resolve();
    const char *op = getenv("WEGMAN_FAULT_OP");
    const char *nth = getenv("WEGMAN_FAULT_NTH");
    const char *err = getenv("WEGMAN_FAULT_ERRNO");
    const char *when = getenv("WEGMAN_FAULT_WHEN");
    const char *dir = getenv("WEGMAN_FAULT_DIR");
    const char *slow = getenv("WEGMAN_SLOW_FSYNC_US");
    if (slow && dir && strlen(dir) > 0 && strlen(dir) < sizeof fault_dir) {
        slow_fsync_us = atol(slow);
        fault_dir_len = strlen(dir);
        memcpy(fault_dir, dir, fault_dir_len + 1);
        srand((unsigned)getpid());
    }
    if (!op || !nth || !err || !dir) {
        return;
    }
    for (int i = OP_WRITE; i <= OP_LINK; i++) {
        if (strcmp(op, op_names[i]) == 0) {
            fault_op = (enum op)i;
        }
    }
    fault_nth = atol(nth);
    fault_errno = strcmp(err, "ENOSPC") == 0   ? ENOSPC
                  : strcmp(err, "EDQUOT") == 0 ? EDQUOT
                  : strcmp(err, "EROFS") == 0  ? EROFS
                                               : EIO;
    fault_after = when && strcmp(when, "after") == 0;
    fault_dir_len = strlen(dir);
    if (fault_op == OP_NONE || fault_nth < 1 || fault_dir_len == 0 || fault_dir_len >= sizeof fault_dir) {
        fprintf(stderr, "fault_shim: bad WEGMAN_FAULT_* settings\n");
        _exit(99);
    }
    memcpy(fault_dir, dir, fault_dir_len + 1);
}

/* `path` is the fault directory or a name in it. */
static int in_dir(const char *path) {
    return strncmp(path, fault_dir, fault_dir_len) == 0 &&
           (path[fault_dir_len] == '\0' || path[fault_dir_len] == '/');
}

/* The kind of call `fd` makes for `op` (a write or a sync), or OP_NONE if
 * it does not count: not in the directory, or not a file or directory. */
static enum op kind_of_fd(int fd, enum op file_op) {
    char link[64], path[PATH_MAX];
    struct stat st;
    if (fd <= STDERR_FILENO) {
        return OP_NONE; /* the standard streams are never faulted, wherever they lead */
    }
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0 || fstat(fd, &st) != 0) {
        return OP_NONE;
    }
    path[n] = '\0';
    if (!in_dir(path)) {
        return OP_NONE;
    }
    if (S_ISREG(st.st_mode)) {
        return file_op;
    }
    if (S_ISDIR(st.st_mode) && file_op == OP_FSYNC) {
        return OP_DIRSYNC;
    }
    return OP_NONE;
}

/* Count a call of kind `k`; true if it is the one to fail (logged). */
static int fires(enum op k) {
    if (k == OP_NONE || k != fault_op) {
        return 0;
    }
    if (__atomic_add_fetch(&counts[k], 1, __ATOMIC_SEQ_CST) != fault_nth) {
        return 0;
    }
    const char *log = getenv("WEGMAN_FAULT_LOG");
    if (log) {
        char line[128];
        int len = snprintf(line, sizeof line, "%s %ld %d %s\n", op_names[k], fault_nth, fault_errno,
                           fault_after ? "after" : "before");
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd >= 0) {
            (void)real_write(fd, line, (size_t)len);
            close(fd);
        }
    }
    return 1;
}

static int fail(void) {
    errno = fault_errno;
    return -1;
}

/* A write to a counted file: the fault, the failure after a short write,
 * or nothing (returns 0 and the caller forwards the call). */
static int write_fault(int fd, size_t len, ssize_t *ret, size_t *short_len) {
    if (fault_op != OP_WRITE) {
        return 0;
    }
    enum op k = kind_of_fd(fd, OP_WRITE);
    int poisoned = fd;
    if (k == OP_WRITE &&
        __atomic_compare_exchange_n(&poisoned_fd, &poisoned, -1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        *ret = fail();
        return 1;
    }
    if (!fires(k)) {
        return 0;
    }
    if (fault_after && len > 1) {
        __atomic_store_n(&poisoned_fd, fd, __ATOMIC_SEQ_CST);
        *short_len = len / 2;
        return 2;
    }
    *ret = fail();
    return 1;
}

ssize_t write(int fd, const void *buf, size_t len) {
    resolve();
    ssize_t ret;
    size_t short_len;
    switch (write_fault(fd, len, &ret, &short_len)) {
    case 1: return ret;
    case 2: return real_write(fd, buf, short_len);
    default: return real_write(fd, buf, len);
    }
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off) {
    resolve();
    ssize_t ret;
    size_t short_len;
    switch (write_fault(fd, len, &ret, &short_len)) {
    case 1: return ret;
    case 2: return real_pwrite(fd, buf, short_len, off);
    default: return real_pwrite(fd, buf, len, off);
    }
}

/* The same function as pwrite on the 64-bit systems this shim is for. */
ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off) {
    return pwrite(fd, buf, len, (off_t)off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
    resolve();
    size_t len = 0;
    for (int i = 0; i < cnt; i++) {
        len += iov[i].iov_len;
    }
    ssize_t ret;
    size_t short_len;
    switch (write_fault(fd, len, &ret, &short_len)) {
    case 1: return ret;
    /* a short write of the first buffer's first half, or of one byte */
    case 2: return real_write(fd, iov[0].iov_base, iov[0].iov_len > 1 ? iov[0].iov_len / 2 : iov[0].iov_len);
    default: return real_writev(fd, iov, cnt);
    }
}

static int sync_call(int (*real)(int), int fd) {
    if (slow_fsync_us > 0 && kind_of_fd(fd, OP_FSYNC) != OP_NONE) {
        usleep((useconds_t)(rand() % slow_fsync_us));
    }
    if (fault_op != OP_FSYNC && fault_op != OP_DIRSYNC) {
        return real(fd);
    }
    if (!fires(kind_of_fd(fd, OP_FSYNC))) {
        return real(fd);
    }
    if (fault_after) {
        (void)real(fd);
    }
    return fail();
}

int fsync(int fd) {
    resolve();
    return sync_call(real_fsync, fd);
}

int fdatasync(int fd) {
    resolve();
    return sync_call(real_fdatasync, fd);
}

/* Whether a rename or link (`k`) of `path` relative to `dirfd` is the one
 * to fail: its absolute path, for the directory test. */
static int name_call_counts(enum op k, int dirfd, const char *path) {
    if (fault_op != k) {
        return 0;
    }
    char base[PATH_MAX], full[2 * PATH_MAX + 2];
    if (path[0] == '/') {
        return fires(in_dir(path) ? k : OP_NONE);
    }
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) {
            return 0;
        }
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t n = readlink(link, base, sizeof base - 1);
        if (n <= 0) {
            return 0;
        }
        base[n] = '\0';
    }
    snprintf(full, sizeof full, "%s/%s", base, path);
    return fires(in_dir(full) ? k : OP_NONE);
}

int rename(const char *from, const char *to) {
    resolve();
    if (!name_call_counts(OP_RENAME, AT_FDCWD, from)) {
        return real_rename(from, to);
    }
    if (fault_after && real_rename(from, to) != 0) {
        return -1;
    }
    return fail();
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    resolve();
    if (!name_call_counts(OP_RENAME, fromfd, from)) {
        return real_renameat(fromfd, from, tofd, to);
    }
    if (fault_after && real_renameat(fromfd, from, tofd, to) != 0) {
        return -1;
    }
    return fail();
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
    resolve();
    if (!name_call_counts(OP_RENAME, fromfd, from)) {
        return real_renameat2(fromfd, from, tofd, to, flags);
    }
    if (fault_after && real_renameat2(fromfd, from, tofd, to, flags) != 0) {
        return -1;
    }
    return fail();
}

int link(const char *from, const char *to) {
    resolve();
    if (!name_call_counts(OP_LINK, AT_FDCWD, to)) {
        return real_link(from, to);
    }
    if (fault_after && real_link(from, to) != 0) {
        return -1;
    }
    return fail();
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags) {
    resolve();
    if (!name_call_counts(OP_LINK, tofd, to)) {
        return real_linkat(fromfd, from, tofd, to, flags);
    }
    if (fault_after && real_linkat(fromfd, from, tofd, to, flags) != 0) {
        return -1;
    }
    return fail();
}
