/* SPDX-License-Identifier: MIT */
/*
 * A session in a file: a header line, then length-prefixed records, so
 * any byte round-trips. Written whole to a new file that is renamed over
 * the old one; read back through the same strict reader as a run's
 * saved state, so a file that is not one that bsh wrote is refused.
 */
#define _GNU_SOURCE
#include "bashword.h"
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "bsh session 1\n"
/* A file larger than this is not a session bsh wrote. */
#define FILE_MAX ((size_t)64 << 20)

/* ---- writing ------------------------------------------------------------ */

/* One record: "KIND NAMELEN TEXTLEN\nNAMETEXT\n". */
static int put_record(FILE *f, char kind, const char *name, const char *text,
                      size_t len)
{
    size_t nl = strlen(name);
    return fprintf(f, "%c %zu %zu\n", kind, nl, len) < 0 ||
                   fwrite(name, 1, nl, f) != nl ||
                   fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF
               ? -EIO
               : 0;
}

/* The session as the file's bytes (malloc'd, `*len`). */
static char *serialize(const struct bsh_session *s, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (f == NULL)
        return NULL;
    int rc = fputs(MAGIC, f) < 0 ? -EIO : 0;
    if (rc == 0)
        rc = put_record(f, 'b', "", s->base_dir, strlen(s->base_dir));
    if (rc == 0)
        rc = put_record(f, 'c', "", s->cwd, strlen(s->cwd));
    if (rc == 0 && !s->pristine)
        rc = put_record(f, 's', "", "", 0);
    for (size_t i = 0; rc == 0 && !s->pristine && i < s->state->count; i++) {
        const struct bsh__rec *r = &s->state->recs[i];
        rc = put_record(f, r->kind, r->name, r->text, r->len);
    }
    if (rc == 0 && fputs("end\n", f) < 0)
        rc = -EIO;
    if (fclose(f) != 0 || rc < 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int bsh_session_save(const struct bsh_session *s, const char *path, char *why,
                     size_t why_len)
{
    if (s == NULL || path == NULL)
        return BSH_EINVAL;
    size_t len, pl = strlen(path);
    char *data = serialize(s, &len), *tmp = malloc(pl + 8);
    int rc = data == NULL || tmp == NULL ? -ENOMEM : 0;
    int fd = -1;
    if (rc == 0) {
        memcpy(tmp, path, pl);
        memcpy(tmp + pl, ".XXXXXX", 8);
        fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
        rc = fd < 0 ? -errno : bsh__write_all(fd, data, len);
    }
    if (rc == 0 && fchmod(fd, 0600) < 0)
        rc = -errno;
    if (fd >= 0 && close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) < 0)
        rc = -errno;
    if (rc < 0 && fd >= 0)
        unlink(tmp);
    if (rc < 0 && why != NULL)
        bsh__format(why, why_len, "cannot write session file %s: %s", path,
                    strerror(-rc));
    free(data);
    free(tmp);
    return rc < 0 ? BSH_EINVAL : BSH_OK;
}

/* ---- reading ------------------------------------------------------------ */

struct reader {
    const char *p, *end;
};

/* "KIND NAMELEN TEXTLEN\n" then the bytes; false at a malformed one. */
static bool next_record(struct reader *rd, char *kind, const char **name,
                        size_t *nl, const char **text, size_t *tl)
{
    const char *eol = memchr(rd->p, '\n', (size_t)(rd->end - rd->p));
    if (eol == NULL || eol - rd->p > 48 || eol - rd->p < 5 || rd->p[1] != ' ')
        return false;
    char head[64], *e1, *e2;
    memcpy(head, rd->p, (size_t)(eol - rd->p));
    head[eol - rd->p] = '\0';
    *kind = head[0];
    errno = 0;
    unsigned long long a = strtoull(head + 2, &e1, 10);
    unsigned long long b = *e1 == ' ' ? strtoull(e1 + 1, &e2, 10) : 0;
    if (errno != 0 || *e1 != ' ' || *e2 != '\0' || e1 == head + 2 ||
        a > FILE_MAX || b > FILE_MAX ||
        (size_t)(rd->end - eol - 1) < a + b + 1 || eol[1 + a + b] != '\n')
        return false;
    *name = eol + 1;
    *nl = (size_t)a;
    *text = eol + 1 + a;
    *tl = (size_t)b;
    rd->p = eol + 1 + a + b + 1;
    return true;
}

/* Exactly "declare -f[attributes] NAME", with the record's name. */
static bool function_line(const char *name, size_t nl, const char *text,
                          size_t tl)
{
    size_t i = 10;
    if (nl == 0 || tl < 12 || memcmp(text, "declare -f", 10) != 0)
        return false;
    while (i < tl && text[i] >= 'a' && text[i] <= 'z')
        i++;
    return i < tl && text[i] == ' ' && tl - i - 1 == nl &&
           memcmp(text + i + 1, name, nl) == 0 &&
           strcspn(name, " \t\n;|&()<>$`'\"\\") >= nl;
}

static bool same_name(const struct bsh__statement *st, const char *name,
                      size_t nl)
{
    return st->name_len == nl && memcmp(st->name, name, nl) == 0;
}

/* Whether a state record is one bsh writes; its raw bytes in `*raw`. */
static bool record_valid(char kind, const char *name, size_t nl,
                         const char *text, size_t tl, size_t *raw)
{
    struct bsh__statement st;
    *raw = 0;
    switch (kind) {
    case REC_VAR:
        if (bsh__declare_scan(text, tl, &st) < 0 || st.len != tl ||
            !same_name(&st, name, nl) || bsh__never_carried(name, nl))
            return false;
        *raw = st.raw;
        return true;
    case REC_ALIAS:
        if (bsh__alias_scan(text, tl, &st) < 0 || st.len != tl ||
            !same_name(&st, name, nl))
            return false;
        *raw = st.raw;
        return true;
    case REC_OPTION:
        return bsh__option_scan(text, tl, &st) == 0 && st.len == tl &&
               same_name(&st, name, nl) && !bsh__option_not_carried(name, nl);
    case REC_UMASK:
        return nl == 0 && tl >= 3 && tl <= 4 && strspn(text, "01234567") >= tl;
    case REC_FUNC:
        return function_line(name, nl, text, tl);
    case REC_FUNCTIONS:
        *raw = tl;
        return nl == 0;
    default:
        return false;
    }
}

static bool absolute_path(const char *p, size_t len)
{
    return len > 0 && len < PATH_MAX && p[0] == '/' &&
           memchr(p, '\0', len) == NULL;
}

/* The file's bytes as the session's parts, or the reason they are not. */
struct parsed {
    char *base, *cwd;
    struct bsh__state *state;
    bool has_state;
};

static const char *parse(const char *data, size_t len, struct parsed *out)
{
    struct reader rd = {data, data + len};
    size_t ml = strlen(MAGIC);
    if (len < ml || memcmp(data, MAGIC, ml) != 0)
        return "it does not start with a bsh session header";
    rd.p += ml;
    out->state = calloc(1, sizeof(*out->state));
    if (out->state == NULL)
        return "out of memory";
    for (;;) {
        if ((size_t)(rd.end - rd.p) == 4 && memcmp(rd.p, "end\n", 4) == 0)
            break;
        char kind;
        const char *name, *text;
        size_t nl, tl, raw;
        if (!next_record(&rd, &kind, &name, &nl, &text, &tl))
            return "a record is malformed or the file is truncated";
        if (kind == 'b' || kind == 'c') {
            char **dst = kind == 'b' ? &out->base : &out->cwd;
            if (*dst != NULL || nl != 0 || !absolute_path(text, tl))
                return "a directory record is not an absolute path";
            if ((*dst = strndup(text, tl)) == NULL)
                return "out of memory";
        } else if (kind == 's') {
            out->has_state = true;
        } else if (!out->has_state ||
                   !record_valid(kind, name, nl, text, tl, &raw)) {
            return "a state record is not one bsh writes";
        } else if (bsh__state_add(out->state, kind, name, nl, text, tl, raw) <
                   0) {
            return "out of memory";
        }
    }
    if (out->base == NULL || out->cwd == NULL)
        return "it has no base or working directory";
    return NULL;
}

/* Says why the file is refused: `what`, then `detail` if any. */
static int refuse(char *why, size_t why_len, const char *what,
                  const char *detail)
{
    if (why != NULL)
        bsh__format(why, why_len, "%s%s", what, detail);
    return BSH_EINVAL;
}

static int check_owner(int fd, struct stat *st, char *why, size_t why_len)
{
    if (fstat(fd, st) < 0)
        return refuse(why, why_len, "cannot read it: ", strerror(errno));
    if (!S_ISREG(st->st_mode))
        return refuse(why, why_len, "it is not a regular file", "");
    if (st->st_uid != geteuid())
        return refuse(why, why_len,
                      "it is owned by another user (a session file is code "
                      "that bsh runs)",
                      "");
    if ((st->st_mode & 022) != 0)
        return refuse(why, why_len,
                      "group or others can write it (a session file is code "
                      "that bsh runs; chmod 600 it)",
                      "");
    if ((size_t)st->st_size > FILE_MAX)
        return refuse(why, why_len, "it is too large to be a session", "");
    return BSH_OK;
}

int bsh_session_load_fd(struct bsh_session *s, int fd, char *why,
                        size_t why_len)
{
    if (s == NULL || fd < 0)
        return BSH_EINVAL;
    if (s->attached != NULL)
        return BSH_EBUSY;
    struct stat st;
    int rc = check_owner(fd, &st, why, why_len);
    if (rc != BSH_OK || st.st_size == 0)
        return rc;
    char *data = bsh__pread_all(fd, (size_t)st.st_size);
    if (data == NULL)
        return refuse(why, why_len, "cannot read it: ", strerror(errno));
    struct parsed p = {0};
    const char *bad = parse(data, (size_t)st.st_size, &p);
    free(data);
    if (bad != NULL) {
        free(p.base);
        free(p.cwd);
        bsh__state_free(p.state);
        return refuse(why, why_len, "it is not a bsh session: ", bad);
    }
    free(s->base_dir);
    free(s->cwd);
    s->base_dir = p.base;
    s->cwd = p.cwd;
    if (p.has_state) {
        bsh__state_free(s->state);
        s->state = p.state;
        s->pristine = false;
    } else {
        bsh__state_free(p.state);
    }
    return BSH_OK;
}

int bsh_session_load(struct bsh_session *s, const char *path, char *why,
                     size_t why_len)
{
    if (s == NULL || path == NULL)
        return BSH_EINVAL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return refuse(why, why_len, "cannot open it: ", strerror(errno));
    int rc = bsh_session_load_fd(s, fd, why, why_len);
    close(fd);
    return rc;
}
