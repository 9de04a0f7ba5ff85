/* SPDX-License-Identifier: MIT */
/*
 * The reducer alone, on one core: MB/s over output made in memory, fed in
 * 64 KiB chunks as a run's reads would be. Two kinds of output: "mixed"
 * (coloured text lines with progress frames between them, as npm, pip or
 * cargo print), and "plain" (text lines, the reducer's common case). The
 * text is thrown away after each chunk, as the MCP server keeps only its
 * budget. Prints one line per kind with the median of --repeat passes.
 *
 * Usage: bsh-reduce-bench [--mb N] [--repeat N]
 */
#define _GNU_SOURCE
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* `mb` MiB of output of one kind. */
static unsigned char *make_output(bool mixed, size_t mb, size_t *len)
{
    size_t n = mb << 20, o = 0;
    unsigned char *buf = malloc(n + 256);
    if (buf == NULL)
        exit(1);
    for (unsigned i = 0; o < n; i++) {
        int k;
        if (mixed && i % 4 == 0)
            k = sprintf((char *)buf + o,
                        "\r\x1b[K\x1b[36m[%-20.*s]\x1b[0m %3u%% fetching "
                        "package-%u.tgz",
                        (int)(i % 21), "####################", i % 100, i);
        else if (mixed)
            k = sprintf((char *)buf + o,
                        "\x1b[1;32m   Compiling\x1b[0m crate-%u v0.%u.%u "
                        "(/src/crate-%u)\n",
                        i, i % 10, i % 7, i);
        else
            k = sprintf((char *)buf + o,
                        "test module_%u::case_%u ... ok (%u ms)\n", i % 97, i,
                        i % 13);
        o += (size_t)k;
    }
    *len = o;
    return buf;
}

static double pass_mbs(const unsigned char *buf, size_t len)
{
    struct reducer r;
    struct reduce_text t = {0};
    if (reducer_init(&r) < 0)
        exit(1);
    double t0 = now_s();
    for (size_t i = 0; i < len; i += 65536) {
        reducer_feed(&r, buf + i, len - i < 65536 ? len - i : 65536, &t);
        t.len = t.chars = 0; /* the budget keeps none of it here */
    }
    reducer_finish(&r, &t);
    double secs = now_s() - t0;
    reduce_text_free(&t);
    reducer_release(&r);
    return (double)len / 1e6 / secs;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    size_t mb = 256, repeat = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--mb") == 0)
            mb = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--repeat") == 0)
            repeat = strtoul(argv[i + 1], NULL, 10);
    }
    if (mb == 0 || repeat == 0 || repeat > 101) {
        fprintf(stderr, "usage: bsh-reduce-bench [--mb N] [--repeat N]\n");
        return 2;
    }
    static const char *const kinds[] = {"mixed", "plain"};
    for (int k = 0; k < 2; k++) {
        size_t len;
        unsigned char *buf = make_output(k == 0, mb, &len);
        double v[101];
        for (size_t i = 0; i < repeat; i++)
            v[i] = pass_mbs(buf, len);
        qsort(v, repeat, sizeof(double), cmp_double);
        printf("reduce %s: %zu MiB, median %.0f MB/s (min %.0f, max %.0f)\n",
               kinds[k], mb, v[repeat / 2], v[0], v[repeat - 1]);
        free(buf);
    }
    return 0;
}
