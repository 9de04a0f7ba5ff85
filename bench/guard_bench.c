/* SPDX-License-Identifier: MIT */
/*
 * bsh-guard-bench (W7): the cost of the pre-spawn guards.
 *  1. typical commands: checks per second and ns per check;
 *  2. for each pattern, a command crafted at its backtracking worst case,
 *     16/32/64/128 KiB long: the whole guard's time at each size (linear
 *     growth means 128 KiB ~ 8x 16 KiB), and PCRE2 alone on the same
 *     input at 16 and 32 KiB for comparison.
 */
#include "harness.h"
#include "internal.h"
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const typical[] = {
    "ls -la",
    "git status",
    "make -j2",
    "npm test",
    "cargo build --release",
    "grep -rn TODO src/ | head -20",
    "python3 -m pytest -x tests/",
    "cd build && cmake .. && make",
    "find . -name '*.c' | xargs wc -l",
    "docker ps -a",
    "rm -rf ./node_modules",
    "curl -sSL https://example.invalid/api | jq .",
    "sed -i 's/foo/bar/g' src/main.c",
    "tar czf out.tgz dist/",
    "echo $PATH",
    "kill -9 12345",
};

/* Per pattern, a unit repeated to length and a tail: near misses that make
 * a backtracking matcher retry from every position, with the tail giving
 * it the characters it requires so that it cannot give up early. None of
 * them is rejected, so the whole guard runs all 20 patterns. */
static const struct {
    const char *unit, *tail;
} crafted[20] = {
    {"rm -rrrrrrrrrrrrrr ", "x/"},
    {"sudo sudo ", "rmx"},
    {"chmod -R 7777 ", "x/"},
    {"chmod -R ugo+rwx ", "x/"},
    {"chown -R a:b ", "x/"},
    {":(){ :", "|"},
    {">>  >  ", "/dev/s"},
    {"mkfsx ", ""},
    {"dd if=x of=", "/dev"},
    {"shred x ", "/dev"},
    {"cryptsetupx ", ""},
    {">  /etc/passw ", ""},
    {"tee -a /etc/x ", ""},
    {"curl x ", "| x"},
    {" bash <(x ", "curl"},
    {"eval $(x ", "curl"},
    {"kill -9 10 ", ""},
    {" shutdownx ", ""},
    {" init 01 ", ""},
    {"nc -zzzzzz ", "|"},
};

static double time_checks(const char *cmd, size_t len, int reps)
{
    double t0 = mono_ms();
    for (int i = 0; i < reps; i++)
        (void)bsh_check(cmd, len, NULL);
    return (mono_ms() - t0) / reps;
}

static void bench_typical(void)
{
    size_t n = sizeof(typical) / sizeof(typical[0]);
    int reps = 20000;
    double t0 = mono_ms();
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i++)
            (void)bsh_check(typical[i], strlen(typical[i]), NULL);
    double ms = mono_ms() - t0;
    double per = ms * 1e6 / ((double)reps * (double)n);
    printf("typical: checks=%zu ns_per_check=%.0f checks_per_s=%.0f\n",
           (size_t)reps * n, per, 1e9 / per);
}

/* Whole units, blanks, then the tail: exactly `len` bytes. */
static char *fill(size_t p, size_t len)
{
    const char *unit = crafted[p].unit, *tail = crafted[p].tail;
    size_t ul = strlen(unit), tl = strlen(tail);
    size_t body = (len - tl) / ul * ul;
    char *s = malloc(len + 1);
    for (size_t i = 0; i < body; i++)
        s[i] = unit[i % ul];
    memset(s + body, ' ', len - tl - body);
    memcpy(s + len - tl, tail, tl + 1);
    return s;
}

static void bench_crafted(void)
{
    static const size_t kib[] = {16, 32, 64, 128};
    double worst128 = 0, worst_ratio = 0;
    for (size_t p = 0; p < 20; p++) {
        double ms[4];
        bool allowed = true;
        for (size_t k = 0; k < 4; k++) {
            char *s = fill(p, kib[k] * 1024);
            allowed &= bsh_check(s, kib[k] * 1024, NULL) == BSH_OK;
            ms[k] = time_checks(s, kib[k] * 1024, 5);
            free(s);
        }
        char *s16 = fill(p, 16 * 1024);
        char *s32 = fill(p, 32 * 1024);
        double t0 = mono_ms();
        (void)linre_oracle_match(p, s16, 16 * 1024);
        double pcre16 = mono_ms() - t0;
        t0 = mono_ms();
        (void)linre_oracle_match(p, s32, 32 * 1024);
        double pcre32 = mono_ms() - t0;
        free(s16);
        free(s32);
        double ratio = ms[3] / ms[0];
        printf("pattern=%zu guard_ms_16k=%.3f 32k=%.3f 64k=%.3f 128k=%.3f "
               "ratio_128k_16k=%.2f pcre2_ms_16k=%.3f pcre2_ms_32k=%.3f "
               "allowed=%d\n",
               p + 1, ms[0], ms[1], ms[2], ms[3], ratio, pcre16, pcre32,
               allowed);
        if (ms[3] > worst128)
            worst128 = ms[3];
        if (ratio > worst_ratio)
            worst_ratio = ratio;
    }
    printf("crafted: worst_128k_ms=%.3f worst_ratio_128k_16k=%.2f\n", worst128,
           worst_ratio);
}

int main(void)
{
    bench_typical();
    bench_crafted();
    return 0;
}
