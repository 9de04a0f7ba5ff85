/* SPDX-License-Identifier: MIT */
/*
 * bsh-policy-bench: the cost of the command policy (docs/policy.md).
 *  1. a typical 100-byte command, parsed and decided with the dev policy:
 *     median and p99 in microseconds, alone and with the guards;
 *  2. the tripwire corpus, one command at a time: the policy's MB/s beside
 *     the guards' own;
 *  3. crafted 128 KiB and 256 KiB commands (43k words, 43k `;`-joined
 *     commands, 64k empty strings, 43,690 nested `$(`): time of each, and
 *     the 256/128 ratio (linear: about 2);
 *  4. nesting 100,000 deep, and the peak memory of 1 MiB inputs, each in a
 *     child of its own;
 *  5. loading a 1,000-rule file with 2,000 examples;
 *  6. `bsh_run` of `true` with the policy and without, paired, alternating.
 * Usage: bsh-policy-bench [POLICY_FILE [CORPUS_DIR]] (defaults:
 * tests/policy/dev.rules, tests/data)
 */
#define _GNU_SOURCE
#include "harness.h"

#include <bsh/bsh.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static const char typical[] =
    "cd src && FOO=1 git diff --stat HEAD~3 -- lib/ | head -n 40 > "
    "/tmp/out.txt 2>&1; echo \"done $?\"";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double *v, size_t n, double p)
{
    qsort(v, n, sizeof(*v), cmp_double);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

static struct bsh_policy *load(const char *path)
{
    struct bsh_policy_file f = {.path = path};
    struct bsh_policy_load_opts o = {
        .files = &f, .nfiles = 1, .default_decision = BSH_ASK};
    struct bsh_policy *p = NULL;
    struct bsh_error err;
    if (bsh_policy_load(&o, &p, &err) != BSH_OK) {
        fprintf(stderr, "policy-bench: %s\n", err.text_err);
        exit(1);
    }
    return p;
}

static double decide_us(const struct bsh_policy *p, const char *cmd, size_t len,
                        bool guards)
{
    double t0 = mono_ms();
    if (guards)
        (void)bsh_check(cmd, len, NULL);
    struct bsh_policy_verdict v;
    if (bsh_policy_decide(p, cmd, len, NULL, &v) >= 0)
        bsh_policy_verdict_free(&v);
    return (mono_ms() - t0) * 1000.0;
}

static void bench_typical(const struct bsh_policy *p)
{
    enum { N = 20000 };
    static double alone[N], guarded[N];
    size_t len = strlen(typical);
    for (int i = 0; i < 500; i++) /* warm */
        decide_us(p, typical, len, false);
    for (int i = 0; i < N; i++) {
        alone[i] = decide_us(p, typical, len, false);
        guarded[i] = decide_us(p, typical, len, true);
    }
    printf(
        "typical (%zu bytes): decide p50=%.1f us p99=%.1f us; with the guards "
        "p50=%.1f us p99=%.1f us\n",
        len, percentile(alone, N, 0.5), percentile(alone, N, 0.99),
        percentile(guarded, N, 0.5), percentile(guarded, N, 0.99));
}

/* The commands of the corpus files, one per line after a tab. */
static char **corpus(const char *dir, size_t *n)
{
    static const char *const files[] = {"benign.tsv", "dangerous.tsv"};
    char **out = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t f = 0; f < 2; f++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, files[f]);
        FILE *fp = fopen(path, "r");
        if (fp == NULL) {
            fprintf(stderr, "policy-bench: %s: cannot read\n", path);
            exit(1);
        }
        char line[8192];
        while (fgets(line, sizeof(line), fp) != NULL) {
            char *tab = strchr(line, '\t');
            if (line[0] == '#' || tab == NULL)
                continue;
            tab[strcspn(tab, "\n")] = '\0';
            if (*n == cap) {
                cap = cap ? cap * 2 : 256;
                out = realloc(out, cap * sizeof(*out));
                if (out == NULL)
                    exit(1);
            }
            out[(*n)++] = strdup(tab + 1);
        }
        fclose(fp);
    }
    return out;
}

static void bench_corpus(const struct bsh_policy *p, const char *dir)
{
    size_t n, bytes = 0;
    char **cmds = corpus(dir, &n);
    for (size_t i = 0; i < n; i++)
        bytes += strlen(cmds[i]);
    int rounds = 20;
    double t0 = mono_ms();
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++)
            decide_us(p, cmds[i], strlen(cmds[i]), false);
    double policy_ms = mono_ms() - t0;
    t0 = mono_ms();
    for (int r = 0; r < rounds * 10; r++)
        for (size_t i = 0; i < n; i++)
            (void)bsh_check(cmds[i], strlen(cmds[i]), NULL);
    double guard_ms = (mono_ms() - t0) / 10;
    double mb = (double)bytes * rounds / 1e6;
    printf(
        "corpus (%zu commands, %zu bytes): policy %.2f MB/s, guards %.2f MB/s, "
        "guards/policy %.1fx\n",
        n, bytes, mb / (policy_ms / 1000), mb / (guard_ms / 1000),
        policy_ms / guard_ms);
    for (size_t i = 0; i < n; i++)
        free(cmds[i]);
    free(cmds);
}

/* `unit` repeated to `size` bytes, between `head` and `tail`. */
static char *crafted(const char *head, const char *unit, const char *tail,
                     size_t size)
{
    size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
    char *s = malloc(size + h + t + 1);
    if (s == NULL)
        exit(1);
    memcpy(s, head, h);
    size_t at = h;
    while (at + u <= size) {
        memcpy(s + at, unit, u);
        at += u;
    }
    memcpy(s + at, tail, t);
    s[at + t] = '\0';
    return s;
}

/* Nested `$(`: n openings, then n closings. */
static char *nested(size_t n)
{
    char *s = malloc(n * 3 + 8);
    if (s == NULL)
        exit(1);
    size_t at = 0;
    memcpy(s, "echo ", 5);
    at = 5;
    for (size_t i = 0; i < n; i++) {
        s[at++] = '$';
        s[at++] = '(';
    }
    s[at++] = 'x';
    for (size_t i = 0; i < n; i++)
        s[at++] = ')';
    s[at] = '\0';
    return s;
}

static char *make_case(int which, size_t size)
{
    switch (which) {
    case 0:
        return crafted("echo", " a", "", size);
    case 1:
        return crafted("", "a;", "", size);
    case 2:
        return crafted("echo ", "\"\"", "", size);
    default:
        return nested(size / 3);
    }
}

static const char *const case_names[] = {"43k words", "43k ;-joined commands",
                                         "64k empty strings",
                                         "43,690 nested $("};

static double decide_ms(const struct bsh_policy *p, const char *cmd,
                        enum bsh_decision *d)
{
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t0 = mono_ms();
        struct bsh_policy_verdict v;
        int rc = bsh_policy_decide(p, cmd, strlen(cmd), NULL, &v);
        if (rc >= 0) {
            *d = (enum bsh_decision)rc;
            bsh_policy_verdict_free(&v);
        }
        double t = mono_ms() - t0;
        best = t < best ? t : best;
    }
    return best;
}

static void bench_crafted(const struct bsh_policy *p)
{
    for (int c = 0; c < 4; c++) {
        char *a = make_case(c, 128 << 10), *b = make_case(c, 256 << 10);
        enum bsh_decision da = BSH_ALLOW, db = BSH_ALLOW;
        double ta = decide_ms(p, a, &da), tb = decide_ms(p, b, &db);
        printf("crafted %-22s 128 KiB %7.1f ms (%s), 256 KiB %7.1f ms (%s), "
               "ratio %.2f\n",
               case_names[c], ta, bsh_decision_name(da), tb,
               bsh_decision_name(db), tb / ta);
        free(a);
        free(b);
    }
}

/* Decides `cmd` in a fresh process of this program (--one): its peak RSS
 * in KiB, its time and the decision. */
static long child_peak_kib(const char *policy, const char *cmd, int *decision,
                           double *ms)
{
    char path[] = "/tmp/bsh-policy-bench-XXXXXX";
    int fd = mkstemp(path);
    size_t len = strlen(cmd);
    if (fd < 0 || write(fd, cmd, len) != (ssize_t)len)
        exit(1);
    close(fd);
    int out[2];
    if (pipe(out) != 0)
        exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        execl("/proc/self/exe", "bsh-policy-bench", "--one", policy, path,
              (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char buf[128] = "";
    ssize_t n = read(out[0], buf, sizeof(buf) - 1);
    close(out[0]);
    int status;
    waitpid(pid, &status, 0);
    unlink(path);
    long kib = -1;
    *decision = -200;
    if (n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        sscanf(buf, "%d %lf %ld", decision, ms, &kib);
    return kib;
}

/* --one POLICY FILE: decides FILE's text; prints decision, ms, peak KiB. */
static int one(const char *policy, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (f == NULL)
        return 1;
    static char text[(1 << 20) + 1];
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    struct bsh_policy *p = load(policy);
    double t0 = mono_ms();
    struct bsh_policy_verdict v;
    int d = bsh_policy_decide(p, text, len, NULL, &v);
    if (d >= 0)
        bsh_policy_verdict_free(&v);
    double ms = mono_ms() - t0;
    bsh_policy_free(p);
    /* VmHWM: this program's own peak (ru_maxrss would keep the forked
     * parent's from before exec) */
    long hwm = -1;
    FILE *st = fopen("/proc/self/status", "r");
    char line[256];
    while (st != NULL && fgets(line, sizeof(line), st) != NULL)
        if (sscanf(line, "VmHWM: %ld kB", &hwm) == 1)
            break;
    if (st != NULL)
        fclose(st);
    printf("%d %.1f %ld\n", d, ms, hwm);
    return 0;
}

static void bench_memory(const char *policy)
{
    int d;
    double ms;
    long kib;
    char *s;
    for (int c = -1; c < 8; c++) {
        const char *what;
        if (c < 0) {
            s = nested(100000);
            what = "nesting 100,000 deep";
        } else if (c < 4) {
            s = make_case(c, (1 << 20) - 64);
            what = case_names[c];
        } else {
            /* the largest of each kind under the token bound */
            static const char *const near[] = {
                "149k words", "74k ;-joined commands", "74k empty strings",
                "18k echo \"$(a)\""};
            what = near[c - 4];
            s = c == 4   ? crafted("echo", " a", "", 2 * 149000)
                : c == 5 ? crafted("", "a;", "", 2 * 74000)
                : c == 6 ? crafted("echo ", "\"\"", "", 2 * 74000)
                         : crafted("", "echo \"$(a)\" ", "", 12 * 18000);
        }
        kib = child_peak_kib(policy, s, &d, &ms);
        printf("memory %-26s %7zu bytes: %s in %.1f ms, peak %ld KiB\n", what,
               strlen(s),
               d >= 0 ? bsh_decision_name((enum bsh_decision)d) : "FAILED", ms,
               kib);
        free(s);
    }
}

static void bench_load(void)
{
    size_t cap = 1 << 20, at = 0;
    char *text = malloc(cap);
    if (text == NULL)
        exit(1);
    for (int i = 0; i < 1000; i++)
        at += (size_t)snprintf(
            text + at, cap - at,
            "prefix_rule(pattern = [\"tool%d\", [\"run\", \"test\"]], "
            "decision = \"%s\", match = [\"tool%d run x\"], "
            "not_match = [\"tool%d build\"])\n",
            i,
            i % 3 == 0   ? "forbidden"
            : i % 3 == 1 ? "prompt"
                         : "allow",
            i, i);
    enum { N = 21 };
    double t[N];
    for (int r = 0; r < N; r++) {
        double t0 = mono_ms();
        struct bsh_policy *p = NULL;
        if (bsh_policy_parse(text, at, "bench.rules", BSH_ASK, &p, NULL) !=
            BSH_OK)
            exit(1);
        t[r] = mono_ms() - t0;
        bsh_policy_free(p);
    }
    printf("load: 1000 rules, 2000 examples (%zu bytes): median %.2f ms\n", at,
           percentile(t, N, 0.5));
    free(text);
}

static double run_true_ms(const struct bsh_policy *p)
{
    struct bsh_run_opts o;
    bsh_run_opts_init(&o);
    o.command = "true";
    o.containment = BSH_CONTAIN_SESSION;
    o.policy = p;
    double t0 = mono_ms();
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    if (bsh_run(&o, &s, &err) != BSH_OK)
        exit(1);
    struct bsh_item it;
    while (bsh_stream_next(s, &it) > 0)
        ;
    bsh_stream_free(s);
    return mono_ms() - t0;
}

static void bench_run(const struct bsh_policy *p)
{
    enum { N = 200 };
    double ratio[N], with[N], without[N];
    for (int i = 0; i < 10; i++)
        run_true_ms(NULL);
    for (int i = 0; i < N; i++) {
        if (i % 2 == 0) {
            without[i] = run_true_ms(NULL);
            with[i] = run_true_ms(p);
        } else {
            with[i] = run_true_ms(p);
            without[i] = run_true_ms(NULL);
        }
        ratio[i] = with[i] / without[i];
    }
    printf("bsh_run true: without a policy %.3f ms, with %.3f ms (medians), "
           "paired ratio %.3f\n",
           percentile(without, N, 0.5), percentile(with, N, 0.5),
           percentile(ratio, N, 0.5));
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--one") == 0)
        return one(argv[2], argv[3]);
    const char *policy = argc > 1 ? argv[1] : "tests/policy/dev.rules";
    const char *dir = argc > 2 ? argv[2] : "tests/data";
    struct bsh_policy *p = load(policy);
    bench_typical(p);
    bench_corpus(p, dir);
    bench_crafted(p);
    bench_memory(policy);
    bench_load();
    bench_run(p);
    bsh_policy_free(p);
    return 0;
}
