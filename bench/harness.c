/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "harness.h"
#include "mono.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--timeout MS] [--repeat N] [--parallel N] [--pty] "
            "[--touch-mb N] [--containment auto|cgroup|session] [--report] "
            "[--sandbox] [--no-limit memory|pids|both] [--pair-sandbox] "
            "[--pair-session] [--session-setup COMMAND] "
            "[--pollfds] "
            "COMMAND\n",
            prog);
    exit(2);
}

void bench_parse(int argc, char **argv, struct bench_args *a)
{
    memset(a, 0, sizeof(*a));
    a->timeout_ms = -1;
    a->repeat = 1;
    a->parallel = 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--pty") == 0) {
            a->pty = true;
            continue;
        }
        if (strcmp(o, "--sandbox") == 0) {
            a->sandbox = true;
            continue;
        }
        if (strcmp(o, "--pair-sandbox") == 0) {
            a->pair_sandbox = true;
            continue;
        }
        if (strcmp(o, "--pair-session") == 0) {
            a->pair_session = true;
            continue;
        }
        if (strcmp(o, "--pollfds") == 0) {
            a->pollfds = true;
            continue;
        }
        if (strcmp(o, "--report") == 0) {
            a->report = true;
            continue;
        }
        if (i + 1 >= argc)
            usage(argv[0]);
        if (strcmp(o, "--session-setup") == 0) {
            a->session_setup = argv[++i];
            continue;
        }
        if (strcmp(o, "--no-limit") == 0) {
            a->no_limit = argv[++i];
            continue;
        }
        if (strcmp(o, "--containment") == 0) {
            a->containment = argv[++i];
            continue;
        }
        long long v = atoll(argv[++i]);
        if (strcmp(o, "--timeout") == 0)
            a->timeout_ms = v;
        else if (strcmp(o, "--repeat") == 0 && v > 0)
            a->repeat = (int)v;
        else if (strcmp(o, "--parallel") == 0 && v > 0)
            a->parallel = (int)v;
        else if (strcmp(o, "--touch-mb") == 0 && v >= 0)
            a->touch_mb = (long)v;
        else
            usage(argv[0]);
    }
    if (i != argc - 1)
        usage(argv[0]);
    a->command = argv[i];
}

void bench_prepare(const struct bench_args *a)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (a->touch_mb > 0) {
        size_t n = (size_t)a->touch_mb << 20;
        char *heap = malloc(n);
        if (heap == NULL) {
            perror("malloc");
            exit(2);
        }
        memset(heap, 1, n); /* kept for the life of the process */
        __asm__ volatile("" : : "r"(heap) : "memory");
    }
}

void bench_chunk(struct bench_run *r, bool is_err, size_t len)
{
    if (is_err) {
        r->chunks_err++;
        r->bytes_err += len;
        if (len > r->max_chunk_err)
            r->max_chunk_err = len;
    } else {
        r->chunks_out++;
        r->bytes_out += len;
        if (len > r->max_chunk_out)
            r->max_chunk_out = len;
    }
}

static void print_opt(const char *key, bool has, int v)
{
    if (has)
        printf(" %s=%d", key, v);
    else
        printf(" %s=none", key);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The middle run's time: one slow run (a noisy neighbour) moves it
 * less than the mean. */
static double median_ms(const struct bench_run *runs, int n)
{
    double *ms = malloc((size_t)n * sizeof(*ms));
    if (ms == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        ms[i] = runs[i].end_ms - runs[i].start_ms;
    double mid = bench_median(ms, n);
    free(ms);
    return mid;
}

static double tv_ms(struct timeval tv)
{
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

void bench_report(const struct bench_args *a, const struct rusage *before,
                  const struct bench_run *runs, int n, double total_ms)
{
    const struct bench_run *last = &runs[n - 1];
    size_t max_out = 0, max_err = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += runs[i].end_ms - runs[i].start_ms;
        if (runs[i].max_chunk_out > max_out)
            max_out = runs[i].max_chunk_out;
        if (runs[i].max_chunk_err > max_err)
            max_err = runs[i].max_chunk_err;
    }
    printf("chunks_out=%llu bytes_out=%llu chunks_err=%llu bytes_err=%llu",
           (unsigned long long)last->chunks_out,
           (unsigned long long)last->bytes_out,
           (unsigned long long)last->chunks_err,
           (unsigned long long)last->bytes_err);
    print_opt("exit_code", last->has_exit, last->exit_code);
    print_opt("signal", last->has_signal, last->signal);
    printf("\n");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double user = tv_ms(ru.ru_utime) - tv_ms(before->ru_utime);
    double sys = tv_ms(ru.ru_stime) - tv_ms(before->ru_stime);
    printf("runs=%d parallel=%d total_ms=%.3f mean_ms=%.3f last_ms=%.3f "
           "max_chunk_out=%zu max_chunk_err=%zu cpu_ms=%.3f rss_kb=%ld "
           "user_ms=%.3f sys_ms=%.3f median_ms=%.3f\n",
           n, a->parallel, total_ms, sum / n, last->end_ms - last->start_ms,
           max_out, max_err, user + sys, ru.ru_maxrss, user, sys,
           median_ms(runs, n));
}

int bench_main(int argc, char **argv, bench_runner *sequential,
               bench_runner *parallel)
{
    struct bench_args a;
    bench_parse(argc, argv, &a);
    bench_prepare(&a);
    int n = a.parallel > 1 ? a.parallel : a.repeat;
    struct bench_run *runs = calloc((size_t)n, sizeof(*runs));
    if (runs == NULL)
        return 2;
    struct rusage before;
    getrusage(RUSAGE_SELF, &before);
    double t0 = mono_ms();
    (a.parallel > 1 ? parallel : sequential)(&a, runs);
    bench_report(&a, &before, runs, n, mono_ms() - t0);
    free(runs);
    return 0;
}
