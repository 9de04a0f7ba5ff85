/* SPDX-License-Identifier: MIT */
/*
 * Reading what a run's bash saved: NUL-separated sections, each what one
 * builtin printed (see session_script.c), into a state. Anything that is
 * not exactly that is refused whole: the session then keeps its state.
 */
#define _GNU_SOURCE
#include "bashword.h"
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum section {
    SEC_MAGIC,
    SEC_PWD,
    SEC_UMASK,
    SEC_SET,
    SEC_SHOPT,
    SEC_VARS,
    SEC_FUNC_NAMES,
    SEC_FUNCS,
    SEC_ALIASES,
    SEC_KEEP,
    SEC_END,
    SECTIONS
};

struct piece {
    const char *p;
    size_t len;
};

/* Splits `data` at NULs into exactly SECTIONS pieces that end the data:
 * 0, -EAGAIN when bash did not get to the end. */
static int split(const char *data, size_t len, struct piece *sec)
{
    const char *p = data, *end = data + len;
    for (int i = 0; i < SECTIONS; i++) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        if (nul == NULL)
            return -EAGAIN;
        sec[i] = (struct piece){p, (size_t)(nul - p)};
        p = nul + 1;
    }
    if (sec[SEC_MAGIC].len != 11 || memcmp(data, "bsh-state-1", 11) != 0 ||
        sec[SEC_END].len != 3 || memcmp(sec[SEC_END].p, "end", 3) != 0)
        return -EAGAIN;
    return p == end ? 0 : -EINVAL;
}

/* One line without its newline. */
static struct piece chomp(struct piece s)
{
    if (s.len > 0 && s.p[s.len - 1] == '\n')
        s.len--;
    return s;
}

typedef int scanner(const char *, size_t, struct bsh__statement *);

/* Each statement of `s`, scanned by `scan`, added as `kind` unless it is
 * not carried. */
static int statements(struct bsh__state *st, struct piece s, scanner *scan,
                      char kind)
{
    for (size_t at = 0; at < s.len;) {
        struct bsh__statement stmt;
        if (scan(s.p + at, s.len - at, &stmt) < 0)
            return -EINVAL;
        bool skip = kind == REC_VAR
                        ? bsh__never_carried(stmt.name, stmt.name_len)
                        : kind == REC_OPTION &&
                              bsh__option_not_carried(stmt.name, stmt.name_len);
        int rc = skip ? 0
                      : bsh__state_add(st, kind, stmt.name, stmt.name_len,
                                       s.p + at, stmt.len, stmt.raw);
        if (rc < 0)
            return rc;
        at += stmt.len + 1;
    }
    return 0;
}

/* `declare -f[attrs] NAME` lines: the functions' names. */
static int function_names(struct bsh__state *st, struct piece s)
{
    for (size_t at = 0; at < s.len;) {
        const char *line = s.p + at;
        const char *nl = memchr(line, '\n', s.len - at);
        size_t len = nl != NULL ? (size_t)(nl - line) : s.len - at;
        if (len < 12 || strncmp(line, "declare -f", 10) != 0)
            return -EINVAL;
        const char *sp = memchr(line + 8, ' ', len - 8);
        if (sp == NULL)
            return -EINVAL;
        const char *name = sp + 1;
        size_t name_len = len - (size_t)(name - line);
        int rc =
            strncmp(name, "__bsh_", 6) == 0 || name_len == 0
                ? 0
                : bsh__state_add(st, REC_FUNC, name, name_len, line, len, 0);
        if (rc < 0)
            return rc;
        at += len + 1;
    }
    return 0;
}

static bool octal(struct piece s)
{
    if (s.len < 3 || s.len > 4)
        return false;
    for (size_t i = 0; i < s.len; i++)
        if (s.p[i] < '0' || s.p[i] > '7')
            return false;
    return true;
}

static int fill(struct bsh__state *st, const struct piece *sec)
{
    struct piece mask = chomp(sec[SEC_UMASK]);
    if (!octal(mask))
        return -EINVAL;
    int rc = bsh__state_add(st, REC_UMASK, "", 0, mask.p, mask.len, 0);
    if (rc == 0)
        rc = statements(st, sec[SEC_SET], bsh__option_scan, REC_OPTION);
    if (rc == 0)
        rc = statements(st, sec[SEC_SHOPT], bsh__option_scan, REC_OPTION);
    if (rc == 0)
        rc = statements(st, sec[SEC_VARS], bsh__declare_scan, REC_VAR);
    if (rc == 0)
        rc = function_names(st, sec[SEC_FUNC_NAMES]);
    if (rc == 0 && sec[SEC_FUNCS].len > 0)
        rc = bsh__state_add(st, REC_FUNCTIONS, "", 0, sec[SEC_FUNCS].p,
                            sec[SEC_FUNCS].len, sec[SEC_FUNCS].len);
    if (rc == 0)
        rc = statements(st, sec[SEC_ALIASES], bsh__alias_scan, REC_ALIAS);
    return rc;
}

int bsh__capture_read(const char *data, size_t len, struct bsh__capture *out)
{
    struct piece sec[SECTIONS];
    memset(out, 0, sizeof(*out));
    int rc = split(data, len, sec);
    if (rc < 0)
        return rc;
    out->state = calloc(1, sizeof(*out->state));
    struct piece pwd = chomp(sec[SEC_PWD]);
    if (pwd.len > 0 && pwd.p[0] == '/')
        out->cwd = strndup(pwd.p, pwd.len);
    out->keep = strndup(sec[SEC_KEEP].p, sec[SEC_KEEP].len);
    if (out->state == NULL || out->keep == NULL ||
        (pwd.len > 0 && out->cwd == NULL))
        rc = -ENOMEM;
    if (rc == 0)
        rc = fill(out->state, sec);
    if (rc < 0)
        bsh__capture_release(out);
    return rc;
}

void bsh__capture_release(struct bsh__capture *c)
{
    bsh__state_free(c->state);
    free(c->cwd);
    free(c->keep);
    memset(c, 0, sizeof(*c));
}
