/* SPDX-License-Identifier: MIT */
/*
 * The policy's public face (bsh_policy_* in <bsh/bsh.h>): loading rule
 * files into one immutable policy, and deciding a command against it.
 */
#include "policy.h"
#include "command_effects.h"
#include "decide.h"
#include "session_lookup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POL_MAX_FILE ((size_t)4 * 1024 * 1024)

void pol_rule_free(struct pol_rule *rule);

const char *bsh_decision_name(enum bsh_decision decision)
{
    switch (decision) {
    case BSH_ALLOW:
        return "allow";
    case BSH_ASK:
        return "ask";
    case BSH_DENY:
        return "deny";
    }
    return "?";
}

void pol_policy_clear(struct bsh_policy *p)
{
    for (size_t i = 0; i < p->nrules; i++)
        pol_rule_free(p->rules[i]);
    free(p->rules);
    for (size_t i = 0; i < p->nhosts; i++) {
        for (size_t k = 0; k < p->hosts[i].npaths; k++)
            free(p->hosts[i].paths[k]);
        free(p->hosts[i].paths);
        free(p->hosts[i].name);
    }
    free(p->hosts);
    for (size_t i = 0; i < p->nfiles; i++)
        free(p->files[i]);
    free(p->files);
    free(p->keys);
    memset(p, 0, sizeof(*p));
}

struct TSParser *pol_policy_parser_take(const struct bsh_policy *policy)
{
    /* the spare is a cache: taking it does not change the policy */
    struct bsh_policy *p = (struct bsh_policy *)policy;
    struct TSParser *parser = atomic_exchange(&p->spare_parser, NULL);
    return parser != NULL ? parser : pol_parser_new();
}

void pol_policy_parser_give(const struct bsh_policy *policy,
                            struct TSParser *parser)
{
    struct bsh_policy *p = (struct bsh_policy *)policy;
    void *none = NULL;
    if (!atomic_compare_exchange_strong(&p->spare_parser, &none, parser))
        pol_parser_free(parser);
}

void bsh_policy_free(struct bsh_policy *policy)
{
    if (policy == NULL)
        return;
    pol_parser_free(atomic_exchange(&policy->spare_parser, NULL));
    pol_policy_clear(policy);
    free(policy);
}

enum bsh_decision bsh_policy_default(const struct bsh_policy *policy)
{
    return policy->default_decision;
}

static void set_error(struct bsh_error *err, const char *text)
{
    if (err == NULL)
        return;
    memset(err, 0, sizeof(*err));
    size_t n = strlen(text);
    if (n >= sizeof(err->text_err))
        n = sizeof(err->text_err) - 1;
    memcpy(err->text_err, text, n);
}

static int file_error(struct bsh_error *err, const char *path, const char *what)
{
    char text[BSH_ERROR_MAX];
    snprintf(text, sizeof(text), "policy: %s: %s", path, what);
    set_error(err, text);
    return BSH_EPOLICYFILE;
}

/* Whether the directory holding `path`, and the one above it, are safe
 * for a user's rule file: owned by this user or root, and not writable
 * by group or others (who could replace or delete the file). */
static bool dirs_safe(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            snprintf(dir, sizeof(dir), ".");
        else if (slash == dir)
            dir[1] = '\0';
        else
            *slash = '\0';
        struct stat st;
        if (stat(dir, &st) != 0 || (st.st_uid != geteuid() && st.st_uid != 0) ||
            (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
            return false;
        if (strcmp(dir, "/") == 0 || strcmp(dir, ".") == 0)
            break;
    }
    return true;
}

/* Reads a whole file of at most POL_MAX_FILE bytes. */
static int read_file(const struct bsh_policy_file *f, char **out, size_t *len,
                     struct bsh_error *err)
{
    /* O_NONBLOCK: a FIFO planted as a rule file must not hang the open */
    int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        char what[256];
        snprintf(what, sizeof(what), "cannot read: %s", strerror(errno));
        return file_error(err, f->path, what);
    }
    struct stat st;
    int stat_rc = fstat(fd, &st);
    if (stat_rc != 0 || !S_ISREG(st.st_mode)) {
        int e = stat_rc != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        char what[256];
        snprintf(what, sizeof(what), "cannot read: %s",
                 e == EINVAL ? "not a regular file" : strerror(e));
        return file_error(err, f->path, what);
    }
    if (f->kind == BSH_POLICY_FILE_USER) {
        if (st.st_uid != geteuid()) {
            close(fd);
            return file_error(err, f->path, "not owned by this user: refused");
        }
        if (st.st_mode & (S_IWGRP | S_IWOTH)) {
            close(fd);
            return file_error(err, f->path,
                              "writable by group or others: refused");
        }
        if (!dirs_safe(f->path)) {
            close(fd);
            return file_error(err, f->path,
                              "its directory is another user's or writable "
                              "by group or others: refused");
        }
    }
    if ((size_t)st.st_size > POL_MAX_FILE) {
        close(fd);
        return file_error(err, f->path, "larger than 4 MiB");
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        close(fd);
        return BSH_ENOMEM;
    }
    size_t have = 0;
    for (;;) {
        if (have > POL_MAX_FILE) {
            free(buf);
            close(fd);
            return file_error(err, f->path, "larger than 4 MiB");
        }
        char *nb = realloc(buf, have + 65536 + 1);
        if (nb == NULL) {
            free(buf);
            close(fd);
            return BSH_ENOMEM;
        }
        buf = nb;
        ssize_t n = read(fd, buf + have, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            char what[256];
            snprintf(what, sizeof(what), "cannot read: %s", strerror(errno));
            free(buf);
            close(fd);
            return file_error(err, f->path, what);
        }
        if (n == 0)
            break;
        have += (size_t)n;
    }
    close(fd);
    if (have > POL_MAX_FILE) {
        free(buf);
        return file_error(err, f->path, "larger than 4 MiB");
    }
    buf[have] = '\0';
    *out = buf;
    *len = have;
    return BSH_OK;
}

static int parse_into(struct bsh_policy *p, const char *text, size_t len,
                      const char *name, struct pol_load_info *info,
                      struct bsh_error *err)
{
    struct pol_error perr;
    if (pol_rules_parse(p, text, len, name, info, &perr) != 0) {
        set_error(err, perr.text);
        return strstr(perr.text, ": out of memory") != NULL ? BSH_ENOMEM
                                                            : BSH_EPOLICYFILE;
    }
    return BSH_OK;
}

int bsh_policy_load(const struct bsh_policy_load_opts *opts,
                    struct bsh_policy **out, struct bsh_error *err)
{
    if (opts == NULL || out == NULL ||
        (opts->nfiles > 0 && opts->files == NULL))
        return BSH_EINVAL;
    *out = NULL;
    struct bsh_policy *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return BSH_ENOMEM;
    p->default_decision = opts->default_decision;
    struct pol_load_info info = {.warn = opts->warn,
                                 .warn_data = opts->warn_data};
    for (size_t i = 0; i < opts->nfiles; i++) {
        const struct bsh_policy_file *f = &opts->files[i];
        if (f->path == NULL) {
            bsh_policy_free(p);
            return BSH_EINVAL;
        }
        char *text = NULL;
        size_t len = 0;
        int rc = read_file(f, &text, &len, err);
        if (rc == BSH_OK) {
            info.untrusted = f->kind == BSH_POLICY_FILE_UNTRUSTED;
            rc = parse_into(p, text, len, f->path, &info, err);
            free(text);
        }
        if (rc != BSH_OK) {
            bsh_policy_free(p);
            return rc;
        }
    }
    if (pol_index_rules(p) != 0) {
        bsh_policy_free(p);
        return BSH_ENOMEM;
    }
    if (opts->rules_count != NULL)
        *opts->rules_count = info.rules;
    if (opts->examples_count != NULL)
        *opts->examples_count = info.examples;
    *out = p;
    return BSH_OK;
}

int bsh_policy_parse(const char *text, size_t len, const char *name,
                     enum bsh_decision default_decision,
                     struct bsh_policy **out, struct bsh_error *err)
{
    if (text == NULL || name == NULL || out == NULL)
        return BSH_EINVAL;
    *out = NULL;
    if (len > POL_MAX_FILE)
        return file_error(err, name, "larger than 4 MiB");
    struct bsh_policy *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return BSH_ENOMEM;
    p->default_decision = default_decision;
    struct pol_load_info info = {0};
    int rc = parse_into(p, text, len, name, &info, err);
    if (rc == BSH_OK && pol_index_rules(p) != 0)
        rc = BSH_ENOMEM;
    if (rc != BSH_OK) {
        bsh_policy_free(p);
        return rc;
    }
    *out = p;
    return BSH_OK;
}

static int decide_at(const struct bsh_policy *policy,
                     const struct bsh_policy_overlay *overlay,
                     const char *command, size_t len,
                     const struct bsh_session *session, const char *cwd,
                     struct bsh_policy_verdict *verdict);

/* Decision `d` (with `verdict`, or NULL) and that of `text`, which tells
 * as a command what a run does besides its command (an environment, a
 * session's restore): the stricter, with text's commands first in the
 * verdict when they are not allowed (they come first in the run too). */
static int stricter(const struct bsh_policy *policy, const char *text,
                    size_t len, int d, struct bsh_policy_verdict *verdict)
{
    if (d < 0 || d == BSH_DENY)
        return d;
    struct bsh_policy_verdict v;
    int e = decide_at(policy, NULL, text, len, NULL, NULL,
                      verdict != NULL ? &v : NULL);
    if (e < 0) {
        if (verdict != NULL)
            bsh_policy_verdict_free(verdict);
        return e;
    }
    int both = e > d ? e : d;
    if (verdict == NULL)
        return both;
    if (e == BSH_ALLOW) {
        bsh_policy_verdict_free(&v);
        return both;
    }
    if (pol_verdict_prepend(verdict, &v, (enum bsh_decision)both) != 0) {
        bsh_policy_verdict_free(verdict);
        return BSH_ENOMEM;
    }
    return both;
}

int bsh_policy_decide_run(const struct bsh_policy *policy,
                          const struct bsh_policy_overlay *overlay,
                          const char *command, size_t len,
                          const struct bsh_session *session, const char *cwd,
                          const struct bsh_env_var *env, size_t env_count,
                          struct bsh_policy_verdict *verdict)
{
    int d = decide_at(policy, overlay, command, len, session, cwd, verdict);
    for (size_t i = 0; d >= 0 && d != BSH_DENY && env != NULL && i < env_count;
         i++) {
        /* an invalid name fails the run before it starts */
        if (!bsh_env_name_valid(env[i].name) ||
            !pol_listed_assignment(env[i].name, env[i].value))
            continue;
        char text[300];
        int n = snprintf(text, sizeof(text), "export %s", env[i].name);
        if (n < 0 || (size_t)n >= sizeof(text))
            continue; /* a listed name is short */
        d = stricter(policy, text, (size_t)n, d, verdict);
    }
    return d;
}

int bsh_policy_decide(const struct bsh_policy *policy, const char *command,
                      size_t len, const struct bsh_session *session,
                      struct bsh_policy_verdict *verdict)
{
    return bsh_policy_decide_with(policy, NULL, command, len, session, verdict);
}

int bsh_policy_decide_with(const struct bsh_policy *policy,
                           const struct bsh_policy_overlay *overlay,
                           const char *command, size_t len,
                           const struct bsh_session *session,
                           struct bsh_policy_verdict *verdict)
{
    return decide_at(policy, overlay, command, len, session, NULL, verdict);
}

static int decide_at(const struct bsh_policy *policy,
                     const struct bsh_policy_overlay *overlay,
                     const char *command, size_t len,
                     const struct bsh_session *session, const char *cwd,
                     struct bsh_policy_verdict *verdict)
{
    if (policy == NULL || (command == NULL && len > 0))
        return BSH_EINVAL;
    if (verdict != NULL)
        memset(verdict, 0, sizeof(*verdict));
    struct pol_verdict_builder *vb = pol_verdict_new();
    if (vb == NULL)
        return BSH_ENOMEM;
    struct pol_lookup lookup = {0};
    void *state = NULL;
    if (session != NULL && pol_session_lookup(session, &lookup, &state) != 0) {
        pol_verdict_discard(vb);
        return BSH_ENOMEM;
    }
    enum bsh_decision d = BSH_ALLOW;
    int rc = pol_decide(policy, overlay, session != NULL ? &lookup : NULL, cwd,
                        command ? command : "", len, vb, &d);
    bool defines_only = state == NULL || pol_session_defines_only(state);
    bool history = state != NULL && pol_session_expands_history(state) &&
                   command != NULL &&
                   (memchr(command, '!', len) != NULL ||
                    memchr(command, '^', len) != NULL);
    pol_session_lookup_free(state);
    if (rc != 0) {
        pol_verdict_discard(vb);
        return BSH_ENOMEM;
    }
    if (verdict == NULL)
        pol_verdict_discard(vb);
    else if (pol_verdict_finish(vb, d, verdict) != 0)
        return BSH_ENOMEM;
    int rd = (int)d;
    if (history) { /* the session's shell re-reads the command */
        static const char expands[] = "set -H";
        rd = stricter(policy, expands, sizeof(expands) - 1, rd, verdict);
    }
    if (!defines_only) { /* its restore runs more than definitions: as if
                            it sourced a file */
        static const char restore[] = "source '<session functions>'";
        rd = stricter(policy, restore, sizeof(restore) - 1, rd, verdict);
    }
    return rd;
}

/* The last '/' of `w`, or NULL. */
static const char *memrchr_compat(const char *w, size_t len)
{
    while (len-- > 0)
        if (w[len] == '/')
            return w + len;
    return NULL;
}

static int key_cmp(const void *a, const void *b)
{
    const struct pol_key *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c != 0)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->rule > y->rule) - (x->rule < y->rule);
}

int pol_index_rules(struct bsh_policy *p)
{
    size_t n = 0;
    for (size_t r = 0; r < p->nrules; r++)
        n += p->rules[r]->pattern[0].n;
    free(p->keys);
    p->keys = calloc(n ? n : 1, sizeof(*p->keys));
    p->nkeys = 0;
    if (p->keys == NULL)
        return -1;
    for (size_t r = 0; r < p->nrules; r++) {
        const struct pol_alts *a = &p->rules[r]->pattern[0];
        for (size_t j = 0; j < a->n; j++)
            p->keys[p->nkeys++] =
                (struct pol_key){a->v[j].s, a->v[j].len, (uint32_t)r};
    }
    qsort(p->keys, p->nkeys, sizeof(*p->keys), key_cmp);
    return 0;
}

/* Adds the rules keyed by exactly `s` to out; false when out is full. */
static bool add_keyed(const struct bsh_policy *p, const char *s, size_t len,
                      uint32_t *out, size_t max, size_t *n)
{
    size_t lo = 0, hi = p->nkeys;
    struct pol_key probe = {s, len, 0};
    while (lo < hi) { /* the first key not below (s, len, 0) */
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&p->keys[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < p->nkeys && p->keys[i].len == len &&
                        memcmp(p->keys[i].s, s, len) == 0;
         i++) {
        if (*n >= max)
            return false;
        out[(*n)++] = p->keys[i].rule;
    }
    return true;
}

static int rule_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

bool pol_rules_for(const struct bsh_policy *p, const char *w, size_t len,
                   uint32_t *out, size_t max, size_t *n)
{
    *n = 0;
    const char *slash = memrchr_compat(w, len);
    bool ok = add_keyed(p, w, len, out, max, n);
    if (ok && slash != NULL)
        ok =
            add_keyed(p, slash + 1, len - (size_t)(slash + 1 - w), out, max, n);
    bool source =
        (len == 1 && w[0] == '.') || (len == 6 && memcmp(w, "source", 6) == 0);
    if (ok && source)
        ok = add_keyed(p, len == 1 ? "source" : ".", len == 1 ? 6 : 1, out, max,
                       n);
    if (!ok)
        return false;
    qsort(out, *n, sizeof(*out), rule_cmp);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (k == 0 || out[k - 1] != out[i])
            out[k++] = out[i];
    *n = k;
    return true;
}
