/* SPDX-License-Identifier: MIT */
/*
 * A small TAP producer: plan-less `ok` lines, typed comparisons that print
 * both sides on failure, and a summary that sets the exit status. One
 * process per test program, run by CTest; no fork, no extra fds, no
 * signal handlers, so the tests see the process exactly as a caller would.
 */
#ifndef BSH_TAP_H
#define BSH_TAP_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run, tap_failed;

/* Cases an environment cannot run (tests/cross/qemu_user.skip: what
 * qemu-user does not emulate), named in the file that $BSH_TEST_SKIP
 * names, one per line: source file, TAB, case, TAB, the reason. Such a
 * case runs, but its line is "ok ... # SKIP reason" whatever it found. */
static inline const char *tap_skip_reason(const char *file, const char *what)
{
    static char list[16384];
    static int loaded; /* 0 not yet, 1 loaded, -1 none */
    if (loaded == 0) {
        const char *path = getenv("BSH_TEST_SKIP");
        FILE *f = path != NULL ? fopen(path, "re") : NULL;
        size_t n = f != NULL ? fread(list, 1, sizeof(list) - 1, f) : 0;
        list[n] = '\0';
        loaded = f != NULL ? 1 : -1;
        if (f != NULL)
            fclose(f);
    }
    const char *base = strrchr(file, '/');
    base = base != NULL ? base + 1 : file;
    size_t blen = strlen(base), wlen = strlen(what);
    for (const char *l = list; loaded == 1 && *l != '\0';) {
        const char *end = strchr(l, '\n');
        end = end != NULL ? end : l + strlen(l);
        if (strncmp(l, base, blen) == 0 && l[blen] == '\t' &&
            strncmp(l + blen + 1, what, wlen) == 0 &&
            l[blen + 1 + wlen] == '\t')
            return l + blen + 2 + wlen; /* up to the line's end */
        l = *end != '\0' ? end + 1 : end;
    }
    return NULL;
}

static inline void tap_name(const char *what)
{
    for (const char *p = what; *p != '\0'; p++) /* one line per test */
        fputs(*p == '\n' ? "\\n" : (char[2]){*p, '\0'}, stdout);
}

static inline bool tap_ok(bool cond, const char *file, int line,
                          const char *what)
{
    tap_run++;
    const char *skip_reason = tap_skip_reason(file, what);
    if (skip_reason != NULL) {
        printf("ok %d - ", tap_run);
        tap_name(what);
        printf(" # SKIP %.*s (it %s)\n", (int)strcspn(skip_reason, "\n"),
               skip_reason, cond ? "passed" : "failed");
        fflush(stdout);
        return cond;
    }
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_run);
    tap_name(what);
    printf("\n");
    if (!cond)
        printf("#   failed at %s:%d\n", file, line);
    fflush(stdout);
    return cond;
}

#define ok(cond, what) tap_ok((cond), __FILE__, __LINE__, (what))

#define is_int(got, want, what)                                  \
    do {                                                         \
        long long g_ = (long long)(got), w_ = (long long)(want); \
        if (!ok(g_ == w_, what))                                 \
            printf("#   got %lld, want %lld\n", g_, w_);         \
    } while (0)

#define is_str(got, want, what)                                         \
    do {                                                                \
        const char *g_ = (got), *w_ = (want);                           \
        if (!ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, what)) \
            printf("#   got '%s'\n#  want '%s'\n", g_ ? g_ : "(null)",  \
                   w_ ? w_ : "(null)");                                 \
    } while (0)

/* A passing line marked as skipped, with the reason. */
#define skip(what, reason)                                           \
    do {                                                             \
        tap_run++;                                                   \
        printf("ok %d - %s # SKIP %s\n", tap_run, (what), (reason)); \
    } while (0)

/* valgrind turns the vfork spawn into a fork, so a child-side failure
 * (a bad chdir) can no longer reach the parent's memory. */
#define UNDER_VALGRIND (getenv("BSH_UNDER_VALGRIND") != NULL)

#define diag(...)            \
    do {                     \
        printf("# ");        \
        printf(__VA_ARGS__); \
        printf("\n");        \
    } while (0)

static inline int tap_done(void)
{
    printf("1..%d\n", tap_run);
    if (tap_failed)
        printf("# failed %d of %d\n", tap_failed, tap_run);
    return tap_failed == 0 && tap_run > 0 ? 0 : 1;
}

#endif
