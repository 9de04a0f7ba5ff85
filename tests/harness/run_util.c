/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "run_util.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void append(unsigned char **buf, size_t *len, const unsigned char *d,
                   size_t n)
{
    unsigned char *b = realloc(*buf, *len + n + 1);
    if (b == NULL)
        abort();
    memcpy(b + *len, d, n);
    *len += n;
    b[*len] = '\0';
    *buf = b;
}

static void take_item(struct result *r, const struct bsh_item *it)
{
    if (r->statuses > 0)
        r->after_status = true;
    if (it->kind == BSH_ITEM_STATUS) {
        r->statuses++;
        r->status = *it;
        if (it->len != 0 || it->truncated ||
            it->has_exit_code == it->has_signal)
            r->bad_chunk = true;
        return;
    }
    if (it->len == 0 || it->len > BSH_CHUNK_MAX || it->has_exit_code ||
        it->has_signal)
        r->bad_chunk = true;
    if (it->truncated != (it->len == BSH_CHUNK_MAX))
        r->bad_truncated = true;
    if (it->len > r->max_chunk)
        r->max_chunk = it->len;
    if (it->kind == BSH_ITEM_STDOUT) {
        r->out_chunks++;
        append(&r->out, &r->out_len, it->data, it->len);
    } else {
        r->err_chunks++;
        append(&r->err, &r->err_len, it->data, it->len);
    }
}

/* How the stream ended: the last call's result and any error. */
static void note_end(struct bsh_stream *s, struct result *r, int rc)
{
    r->end_rc = rc;
    r->error_kind = bsh_stream_error_kind(s);
    const char *e = bsh_stream_error(s);
    if (rc < 0 && e != NULL)
        snprintf(r->error, sizeof(r->error), "%s", e);
}

void drain(struct bsh_stream *s, struct result *r)
{
    struct bsh_item it;
    int rc;
    while ((rc = bsh_stream_next(s, &it)) == 1) {
        if (r->pid <= 0)
            r->pid = bsh_stream_pid(s);
        take_item(r, &it);
    }
    note_end(s, r, rc);
    if (bsh_stream_next(s, &it) != 0)
        r->after_status = true; /* an ended stream must stay ended */
}

void drain_pollable(struct bsh_stream *s, struct result *r)
{
    struct pollfd p = {bsh_stream_fd(s), POLLIN, 0};
    struct bsh_item it;
    int rc;
    for (;;) {
        rc = bsh_stream_try_next(s, &it);
        if (rc == 1) {
            take_item(r, &it);
        } else if (rc == BSH_EAGAIN) {
            r->polls++;
            if (poll(&p, 1, 10000) == 0) /* a wake-up it never sent */
                r->stalled = true;
        } else {
            break;
        }
    }
    note_end(s, r, rc);
}

void drain_pollfds(struct bsh_stream *s, struct result *r)
{
    struct pollfd p[BSH_POLLFDS_MAX];
    struct bsh_item it;
    int rc;
    for (;;) {
        rc = bsh_stream_try_next(s, &it);
        if (rc == 1) {
            take_item(r, &it);
            continue;
        }
        if (rc != BSH_EAGAIN)
            break;
        int timeout_ms,
            n = bsh_stream_pollfds(s, p, BSH_POLLFDS_MAX, &timeout_ms);
        if (n < 0 || (n == 0 && timeout_ms < 0)) {
            r->stalled = true; /* nothing would ever wake us */
            break;
        }
        r->polls++;
        bool unbounded = timeout_ms < 0 || timeout_ms > 10000;
        if (poll(p, (nfds_t)n, unbounded ? 10000 : timeout_ms) == 0 &&
            unbounded)
            r->stalled = true; /* a wake-up it never sent */
        bsh_stream_polled(s, p, n);
    }
    note_end(s, r, rc);
}

void run_collect(const struct bsh_run_opts *opts, struct result *r)
{
    memset(r, 0, sizeof(*r));
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    double t0 = mono_ms();
    r->guard_rc = bsh_run(opts, &s, &err);
    if (r->guard_rc != BSH_OK) {
        snprintf(r->guard_text, sizeof(r->guard_text), "%s", err.text_err);
        return;
    }
    r->pid = bsh_stream_pid(s);
    drain(s, r);
    r->ms = mono_ms() - t0;
    bsh_stream_free(s);
}

void run_simple(const char *command, int64_t timeout_ms, struct result *r)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = command;
    o.timeout_ms = timeout_ms;
    run_collect(&o, r);
}

void result_free(struct result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

bool result_exit(const struct result *r, int code)
{
    return r->statuses == 1 && r->status.has_exit_code &&
           !r->status.has_signal && r->status.exit_code == code;
}

bool result_signal(const struct result *r, int sig)
{
    return r->statuses == 1 && r->status.has_signal &&
           !r->status.has_exit_code && r->status.signal == sig;
}

bool result_well_formed(const struct result *r)
{
    return r->guard_rc == BSH_OK && !r->bad_chunk && !r->bad_truncated &&
           !r->after_status;
}

int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (d == NULL)
        return -1;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the DIR's own fd */
}

static bool alive_now(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    if (close_paren == NULL || close_paren[1] == '\0')
        return false;
    char state = close_paren[2];
    return state != 'Z' && state != 'X';
}

bool process_lingers(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        if (!alive_now(pid))
            return false;
        usleep(10000);
    }
    return true;
}

bool no_children(void)
{
    errno = 0;
    return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}
