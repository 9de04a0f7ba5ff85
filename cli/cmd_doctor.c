/* SPDX-License-Identifier: MIT */
/*
 * `bsh doctor [--json]`: what this machine offers bsh, each fact probed
 * (never guessed from a version number), and so which containment and
 * which sandbox layers runs get. The last two come from real runs of
 * `true`: the report of a run says what was used, so doctor cannot claim
 * more than a run gets.
 */
#define _GNU_SOURCE
#include "commands.h"
#include "report_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

struct facts {
    char kernel[65];
    int landlock_abi;
    bool seccomp;
    char cgroup_path[512]; /* this process's cgroup v2 directory, or "" */
    bool cgroup_writable;
    char controllers[256]; /* the cgroup's cgroup.controllers */
    long userns_max;       /* user.max_user_namespaces, -1 unknown */
    long userns_unpriv;    /* kernel.unprivileged_userns_clone, -1 absent */
    bool pidfd, close_range;
    const char *containment;            /* what a run gets */
    bool memory_limit, pids_limit;      /* a run may have them */
    struct bsh_sandbox_report sandbox;  /* what a best-effort run gets */
    struct bsh_sandbox_report readonly; /* the read-only profile's plan */
    bool own_sockets;                   /* unix_diag answers */
    struct bsh_limits sandbox_limits;   /* a sandboxed run's defaults */
};

/* Reads one line of `path` into `buf`, without its newline. */
static void read_line(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) != NULL)
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

/* The number in `path`, or -1. */
static long read_number(const char *path)
{
    char line[32], *end;
    read_line(path, line, sizeof(line));
    errno = 0;
    long v = strtol(line, &end, 10);
    return end == line || errno != 0 ? -1 : v;
}

/* The cgroup v2 directory of this process: the "0::" line of
 * /proc/self/cgroup under the cgroup2 mount. */
static void find_cgroup(struct facts *f)
{
    char line[512], mount[256] = "", rel[256] = "";
    FILE *m = fopen("/proc/self/mountinfo", "r");
    while (m != NULL && fgets(line, sizeof(line), m) != NULL) {
        char *sep = strstr(line, " - cgroup2 ");
        char point[256];
        if (sep != NULL && sscanf(line, "%*s %*s %*s %*s %255s", point) == 1) {
            snprintf(mount, sizeof(mount), "%s", point);
            break;
        }
    }
    if (m != NULL)
        fclose(m);
    FILE *c = fopen("/proc/self/cgroup", "r");
    while (c != NULL && fgets(line, sizeof(line), c) != NULL)
        if (strncmp(line, "0::", 3) == 0 && sscanf(line + 3, "%255s", rel) == 1)
            break;
    if (c != NULL)
        fclose(c);
    if (mount[0] == '\0')
        return;
    snprintf(f->cgroup_path, sizeof(f->cgroup_path), "%s%s", mount,
             strcmp(rel, "/") == 0 ? "" : rel);
    f->cgroup_writable = access(f->cgroup_path, W_OK) == 0;
    char path[600];
    snprintf(path, sizeof(path), "%s/cgroup.controllers", f->cgroup_path);
    read_line(path, f->controllers, sizeof(f->controllers));
}

/* A run of `true` with `o`'s settings, read to its end: the stream (its
 * report says what a run gets), or NULL when the run could not start; *rc
 * is the last bsh_stream_next() result (0: it ended well). */
static struct bsh_stream *run_true(struct bsh_run_opts *o, int *rc)
{
    o->command = "true";
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    if (bsh_run(o, &s, &err) != BSH_OK)
        return NULL;
    struct bsh_item item;
    while ((*rc = bsh_stream_next(s, &item)) == 1)
        ;
    return s;
}

static void try_run(struct facts *f)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.report = true;
    o.sandbox.mode = BSH_SANDBOX_BEST_EFFORT;
    /* A sandbox never makes `/` or a home writable: the probe runs in the
     * temporary directory, wherever doctor was started. */
    const char *tmp = getenv("TMPDIR");
    o.cwd = tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
    int rc;
    struct bsh_stream *s = run_true(&o, &rc);
    const struct bsh_report *r = bsh_stream_report(s);
    f->containment = "unknown (a run failed)";
    if (r != NULL) {
        f->containment =
            r->containment == BSH_CONTAIN_CGROUP ? "cgroup" : "subreaper";
        f->sandbox = r->sandbox;
    }
    bsh_stream_free(s);
}

/* Whether a run of `true` with limit `l` starts: the limits that cannot
 * be enforced here (no controller in cgroup v2 or v1) are refused. */
static bool limit_works(const struct bsh_limits *l)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.limits = *l;
    int rc = -1;
    struct bsh_stream *s = run_true(&o, &rc);
    bool works = s != NULL && rc == 0;
    bsh_stream_free(s);
    return works;
}

static void gather(struct facts *f)
{
    struct utsname u;
    memset(f, 0, sizeof(*f));
    snprintf(f->kernel, sizeof(f->kernel), "%s",
             uname(&u) == 0 ? u.release : "?");
    f->landlock_abi = bsh_landlock_abi();
    struct bsh_sandbox sb = {.mode = BSH_SANDBOX_BEST_EFFORT};
    struct bsh_sandbox_report probe;
    bsh_sandbox_probe(&sb, &probe);
    struct bsh_sandbox ro = {.mode = BSH_SANDBOX_STRICT, .readonly = true};
    bsh_sandbox_probe(&ro, &f->readonly);
    f->seccomp = (probe.applied & BSH_LAYER_SECCOMP) != 0;
    find_cgroup(f);
    f->userns_max = read_number("/proc/sys/user/max_user_namespaces");
    f->userns_unpriv =
        read_number("/proc/sys/kernel/unprivileged_userns_clone");
    int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    f->pidfd = fd >= 0;
    if (fd >= 0)
        close(fd);
    f->close_range = syscall(SYS_close_range, ~0U, ~0U, 0) == 0;
    try_run(f);
    f->memory_limit =
        limit_works(&(struct bsh_limits){.memory_bytes = 1 << 30});
    f->pids_limit = limit_works(&(struct bsh_limits){.pids = 4096});
    f->own_sockets = bsh_sandbox_own_sockets();
    bsh_sandbox_default_limits(&f->sandbox_limits);
}

/* "4096 processes" or "none (cannot be enforced here)". */
static const char *default_limit(int64_t value, const char *unit, bool enforced,
                                 char *buf, size_t size)
{
    if (enforced)
        snprintf(buf, size, "%lld %s", (long long)value, unit);
    else
        snprintf(buf, size, "none (cannot be enforced here)");
    return buf;
}

static void print_text(const struct facts *f)
{
    printf("bsh %s on Linux %s\n", bsh_version(), f->kernel);
    printf("landlock: ABI %d%s\n", f->landlock_abi,
           f->landlock_abi == 0 ? " (none)" : "");
    printf("seccomp filters: %s\n", f->seccomp ? "yes" : "no");
    if (f->cgroup_path[0] != '\0')
        printf("cgroup v2: %s, %s, controllers: %s\n", f->cgroup_path,
               f->cgroup_writable ? "writable" : "not writable",
               f->controllers[0] ? f->controllers : "none");
    else
        printf("cgroup v2: not mounted\n");
    printf("user namespaces: max %ld%s\n", f->userns_max,
           f->userns_unpriv == 0 ? ", unprivileged ones disabled" : "");
    printf("pidfd: %s\nclose_range: %s\n", f->pidfd ? "yes" : "no",
           f->close_range ? "yes" : "no");
    printf("containment of a run: %s\n", f->containment);
    printf("limits of a run: memory %s, pids %s (cpu, fsize, output: yes)\n",
           f->memory_limit ? "yes" : "no", f->pids_limit ? "yes" : "no");
    printf("sandbox layers of a run:");
    for (unsigned i = 0; i < BSH_SANDBOX_LAYERS; i++)
        printf(" %s %s%s", bsh_sandbox_layer_name(1u << i),
               report_layer_state(&f->sandbox, 1u << i),
               i + 1 < BSH_SANDBOX_LAYERS ? "," : "\n");
    char pids[48], memory[48];
    printf("sandbox defaults of a run: pids %s, memory %s; a private "
           "TMPDIR\n",
           default_limit(f->sandbox_limits.pids, "processes", f->pids_limit,
                         pids, sizeof(pids)),
           default_limit(f->sandbox_limits.memory_bytes, "bytes",
                         f->memory_limit, memory, sizeof(memory)));
    printf("sandbox IPC: SysV IPC and keyrings denied (seccomp; no IPC "
           "namespace); Unix sockets: %s and --sandbox-socket ones, no "
           "datagram sockets\n",
           f->own_sockets ? "the run's own"
                          : "not the run's own (no unix_diag here)");
    printf("--sandbox (strict): %s\n", f->sandbox.missing == 0
                                           ? "available"
                                           : "fails every run here; use "
                                             "--sandbox=best-effort");
    printf("--sandbox-readonly (strict; writable: the run's own TMPDIR "
           "alone; no network; layers:");
    for (unsigned i = 0; i < BSH_SANDBOX_LAYERS; i++)
        printf(" %s", bsh_sandbox_layer_name(1u << i));
    printf("): %s\n", f->readonly.missing == 0
                          ? "available"
                          : "fails every run here (a layer is missing)");
}

static void print_json(const struct facts *f, FILE *out)
{
    char path[sizeof(f->cgroup_path) * 6 + 3];
    char ctl[sizeof(f->controllers) * 6 + 3];
    quote_json(f->cgroup_path, path);
    quote_json(f->controllers, ctl);
    fprintf(out,
            "{\"bsh\":\"%s\",\"kernel\":\"%s\",\"landlock_abi\":%d,"
            "\"seccomp\":%s,\"cgroup_v2\":{\"path\":%s,\"writable\":%s,"
            "\"controllers\":%s},\"user_namespaces\":{\"max\":%ld,"
            "\"unprivileged\":%s},\"pidfd\":%s,\"close_range\":%s,"
            "\"containment\":\"%s\",\"limits\":{\"memory\":%s,\"pids\":%s},"
            "\"sandbox\":{\"strict\":%s,\"own_sockets\":%s,"
            "\"sysv_ipc\":\"denied\",\"keyrings\":\"denied\","
            "\"default_limits\":{\"pids\":%lld,\"memory\":%lld},"
            "\"layers\":{",
            bsh_version(), f->kernel, f->landlock_abi,
            f->seccomp ? "true" : "false", f->cgroup_path[0] ? path : "null",
            f->cgroup_writable ? "true" : "false", ctl, f->userns_max,
            f->userns_unpriv == 0 ? "false" : "true",
            f->pidfd ? "true" : "false", f->close_range ? "true" : "false",
            f->containment, f->memory_limit ? "true" : "false",
            f->pids_limit ? "true" : "false",
            f->sandbox.missing == 0 ? "true" : "false",
            f->own_sockets ? "true" : "false",
            f->pids_limit ? (long long)f->sandbox_limits.pids : 0LL,
            f->memory_limit ? (long long)f->sandbox_limits.memory_bytes : 0LL);
    for (unsigned i = 0; i < BSH_SANDBOX_LAYERS; i++)
        fprintf(out, "%s\"%s\":\"%s\"", i ? "," : "",
                bsh_sandbox_layer_name(1u << i),
                report_layer_state(&f->sandbox, 1u << i));
    fprintf(out,
            "},\"readonly\":{\"available\":%s,\"writable\":"
            "[\"the run's own TMPDIR\",\"/dev/null\",\"/dev/zero\","
            "\"/dev/full\"],\"network\":false}}}\n",
            f->readonly.missing == 0 ? "true" : "false");
}

int cmd_doctor(const struct cli_args *a)
{
    struct facts f;
    gather(&f);
    if (a->json)
        print_json(&f, stdout);
    else
        print_text(&f);
    return cli_stdout_status();
}

char *doctor_json(void)
{
    struct facts f;
    gather(&f);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL)
        return NULL;
    print_json(&f, out);
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
