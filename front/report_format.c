/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "report_format.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t quote_json(const char *s, char *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < len;) {
        if (p[i] == '"' || p[i] == '\\') {
            out[o++] = '\\';
            out[o++] = (char)p[i++];
        } else if (p[i] < 0x20) {
            o += (size_t)sprintf(out + o, "\\u%04x", p[i++]);
        } else {
            const char *c;
            size_t n;
            size_t k = utf8_repair(p + i, len - i, &c, &n);
            if (c != (const char *)p + i) { /* repaired: say so in ASCII */
                o += (size_t)sprintf(out + o, "\\ufffd");
            } else {
                memcpy(out + o, c, n);
                o += n;
            }
            i += k;
        }
    }
    out[o++] = '"';
    out[o] = '\0';
    return o;
}

/* A growing text buffer; on out of memory it is freed and stays NULL. */
struct text {
    char *buf;
    size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (int pass = 0; t->buf != NULL && pass < 2; pass++) {
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->len + (size_t)n + 1) * 2;
        char *b = realloc(t->buf, cap);
        if (b == NULL) {
            free(t->buf);
            t->buf = NULL;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
}

static void put_string(struct text *t, const char *s)
{
    char *q = malloc(6 * strlen(s) + 3);
    if (q == NULL) {
        free(t->buf);
        t->buf = NULL;
        return;
    }
    quote_json(s, q);
    put(t, "%s", q);
    free(q);
}

static void put_int_or_null(struct text *t, const char *key, bool has,
                            long long v)
{
    if (has)
        put(t, ",\"%s\":%lld", key, v);
    else
        put(t, ",\"%s\":null", key);
}

static void put_proc(struct text *t, const struct bsh_proc_info *p)
{
    put(t, "{\"pid\":%d,\"ppid\":%d,\"comm\":", p->pid, p->ppid);
    put_string(t, p->comm);
    /* A letter from /proc (R, S, D, T, Z...): nothing to quote. */
    put(t, ",\"state\":\"%c\"",
        p->state >= 'A' && p->state <= 'Z' ? p->state : '?');
    put(t, ",\"wchan\":");
    put_string(t, p->wchan);
    put(t, ",\"fds\":{");
    for (int fd = 0; fd < 3; fd++) {
        put(t, "%s\"%d\":", fd ? "," : "", fd);
        if (p->fds[fd][0] != '\0')
            put_string(t, p->fds[fd]);
        else
            put(t, "null");
    }
    put(t, "}}");
}

const char *report_containment(const struct bsh_report *r, bool subreaper)
{
    return r->containment == BSH_CONTAIN_CGROUP ? "cgroup"
           : subreaper                          ? "subreaper"
                                                : "session";
}

/* See json.h. */
const char *report_layer_state(const struct bsh_sandbox_report *sb,
                               unsigned layer)
{
    return sb->applied & layer   ? "applied"
           : sb->missing & layer ? "missing"
                                 : "off";
}

static void put_sandbox(struct text *t, const struct bsh_sandbox_report *sb)
{
    if (sb->mode == BSH_SANDBOX_OFF) {
        put(t, ",\"sandbox\":null");
        return;
    }
    put(t, ",\"sandbox\":{\"mode\":\"%s\",\"landlock_abi\":%d,\"layers\":{",
        sb->mode == BSH_SANDBOX_STRICT ? "strict" : "best-effort",
        sb->landlock_abi);
    for (unsigned i = 0; i < BSH_SANDBOX_LAYERS; i++)
        put(t, "%s\"%s\":\"%s\"", i ? "," : "", bsh_sandbox_layer_name(1u << i),
            report_layer_state(sb, 1u << i));
    put(t, "},\"readonly\":%s}", sb->readonly ? "true" : "false");
}

char *report_json(const struct bsh_report *r, const char *containment)
{
    struct text t = {malloc(512), 0, 512};
    const char *limit = bsh_limit_name(r->limit);
    put(&t, "{\"reason\":\"%s\",\"limit\":", bsh_end_reason_name(r->reason));
    if (limit != NULL)
        put(&t, "\"%s\"", limit);
    else
        put(&t, "null");
    put_int_or_null(&t, "exit_code", r->has_exit_code, r->exit_code);
    put_int_or_null(&t, "signal", r->has_signal, r->signal);
    put(&t, ",\"wall_ms\":%lld,\"cpu_user_ms\":%lld,\"cpu_sys_ms\":%lld",
        (long long)r->wall_ms, (long long)r->cpu_user_ms,
        (long long)r->cpu_sys_ms);
    put_int_or_null(&t, "memory_peak_bytes", r->memory_peak_bytes >= 0,
                    r->memory_peak_bytes);
    put(&t, ",\"stdout_bytes\":%llu,\"stderr_bytes\":%llu,\"containment\":",
        (unsigned long long)r->stdout_bytes,
        (unsigned long long)r->stderr_bytes);
    put_string(&t, containment);
    put_int_or_null(&t, "killed", r->killed >= 0, r->killed);
    put_int_or_null(&t, "escaped", r->escaped >= 0, r->escaped);
    put(&t, ",\"diagnosis\":[");
    for (size_t i = 0; i < r->diagnosis_count; i++) {
        put(&t, "%s", i ? "," : "");
        put_proc(&t, &r->diagnosis[i]);
    }
    put(&t, "]");
    put_sandbox(&t, &r->sandbox);
    put(&t, "}");
    return t.buf;
}

char *report_text(const struct bsh_report *r, const char *containment)
{
    struct text t = {malloc(256), 0, 256};
    const char *limit = bsh_limit_name(r->limit);
    put(&t, "reason %s", bsh_end_reason_name(r->reason));
    if (limit != NULL)
        put(&t, " (%s)", limit);
    if (r->has_exit_code)
        put(&t, ", exit code %d", r->exit_code);
    else if (r->has_signal && r->signal > 0)
        put(&t, ", signal %d", r->signal);
    put(&t, ", wall %lld ms, cpu %lld ms user + %lld ms sys",
        (long long)r->wall_ms, (long long)r->cpu_user_ms,
        (long long)r->cpu_sys_ms);
    if (r->memory_peak_bytes >= 0)
        put(&t, ", memory peak %lld KiB",
            (long long)r->memory_peak_bytes / 1024);
    put(&t, ", stdout %llu bytes, stderr %llu bytes, containment %s",
        (unsigned long long)r->stdout_bytes,
        (unsigned long long)r->stderr_bytes, containment);
    if (r->killed >= 0)
        put(&t, ", killed %d", r->killed);
    if (r->escaped >= 0)
        put(&t, ", escaped %d", r->escaped);
    for (size_t i = 0; i < r->diagnosis_count; i++) {
        const struct bsh_proc_info *p = &r->diagnosis[i];
        put(&t, "%s %d %s (%c%s%s)", i ? "," : "; was running:", p->pid,
            p->comm, p->state, p->wchan[0] ? " in " : "", p->wchan);
    }
    if (r->sandbox.mode != BSH_SANDBOX_OFF) {
        put(&t, "; sandbox %s%s:",
            r->sandbox.mode == BSH_SANDBOX_STRICT ? "strict" : "best-effort",
            r->sandbox.readonly ? " read-only" : "");
        for (unsigned i = 0; i < BSH_SANDBOX_LAYERS; i++)
            put(&t, " %s %s", bsh_sandbox_layer_name(1u << i),
                report_layer_state(&r->sandbox, 1u << i));
    }
    return t.buf;
}
