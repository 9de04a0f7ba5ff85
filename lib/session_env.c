/* SPDX-License-Identifier: MIT */
/*
 * The environment a session run's bash starts with. bash imports its
 * environment in C, about ten times faster than it expands a `declare`
 * line of the restore script, so the session's exported variables with
 * plain values go there: they reach every child anyway. Not the names
 * bash acts on at start-up or treats apart when it imports them (those
 * are restored by `declare`, as an assignment inside bash would be), and
 * no more than ENV_BYTES in all, far below what execve takes.
 */
#include "bashword.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

#define ENV_BYTES   ((size_t)64 << 10)
#define VALUE_BYTES ((size_t)16 << 10)

/* "NAME=value" of record `r` appended to `buf` (at `*used`, `cap` bytes),
 * when it goes through the environment. */
static bool take_var(const struct bsh__rec *r, char *buf, size_t *used,
                     size_t cap)
{
    if (r->kind != REC_VAR || r->len > VALUE_BYTES ||
        bsh__imported_apart(r->name, strlen(r->name)))
        return false;
    size_t nl = strlen(r->name);
    /* The decoded value is never longer than the text that holds it. */
    if (*used + nl + 1 + r->len + 1 > cap)
        return false;
    struct bsh__statement st;
    bool exported = false;
    char *at = buf + *used;
    long n =
        bsh__declare_plain_value(r->text, r->len, &st, &exported, at + nl + 1);
    if (n < 0 || !exported)
        return false;
    memcpy(at, r->name, nl);
    at[nl] = '=';
    *used += nl + 1 + (size_t)n + 1;
    return true;
}

char **bsh__session_env(const struct bsh_session *s, bool *in_env,
                        size_t *bytes)
{
    const struct bsh__state *st = s->state;
    size_t kept = 0, vars = 0, used = 0;
    while (s->env[kept] != NULL)
        kept++;
    char *buf = malloc(ENV_BYTES);
    if (buf == NULL)
        return NULL;
    for (size_t i = 0; i < st->count; i++) {
        in_env[i] = take_var(&st->recs[i], buf, &used, ENV_BYTES);
        vars += in_env[i];
    }
    /* One block: the pointers, then the strings. */
    size_t slots = kept + vars + 1;
    char **envp = malloc(slots * sizeof(char *) + used);
    if (envp == NULL) {
        free(buf);
        return NULL;
    }
    char *text = memcpy(envp + slots, buf, used);
    free(buf);
    size_t k = 0;
    for (size_t i = 0; i < kept; i++) {
        const char *eq = strchr(s->env[i], '=');
        if (eq != NULL &&
            bsh__never_carried(s->env[i], (size_t)(eq - s->env[i])))
            envp[k++] = s->env[i];
    }
    for (size_t off = 0; off < used; off += strlen(text + off) + 1)
        envp[k++] = text + off;
    envp[k] = NULL;
    *bytes = slots * sizeof(char *) + used;
    return envp;
}

char **bsh__session_env_copy(char **envp, size_t bytes)
{
    char **copy = malloc(bytes);
    if (copy == NULL)
        return NULL;
    memcpy(copy, envp, bytes);
    /* Pointers into the block move with it; the session's own strings
     * (what it never carries) stay where they are. */
    const char *from = (const char *)envp, *end = from + bytes;
    for (char **e = copy; *e != NULL; e++)
        if (*e >= from && *e < end)
            *e = (char *)copy + (*e - from);
    return copy;
}

void bsh__launch_base_free(struct bsh__launch_base *b)
{
    if (b == NULL)
        return;
    free(b->envp);
    bsh__script_parts_free(&b->parts[0]);
    bsh__script_parts_free(&b->parts[1]);
    free(b);
}
