/* SPDX-License-Identifier: MIT */
/*
 * The session object: its base directory and environment, its working
 * directory and the state its runs saved, as records of bash code.
 */
#define _GNU_SOURCE
#include "session.h"
#include "bashword.h"
#include "stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bash's own variables: set by bash itself, dynamic, or about this one
 * process; restoring them would be wrong or fail. */
static const char *const bash_own[] = {
    "BASH",          "BASHOPTS",     "BASHPID",  "COLUMNS",  "DIRSTACK",
    "EPOCHREALTIME", "EPOCHSECONDS", "EUID",     "FUNCNAME", "GROUPS",
    "HISTCMD",       "HOSTNAME",     "HOSTTYPE", "LINENO",   "LINES",
    "MACHTYPE",      "OPTARG",       "OPTIND",   "OSTYPE",   "PIPESTATUS",
    "PPID",          "PWD",          "RANDOM",   "SECONDS",  "SHELLOPTS",
    "SHLVL",         "SRANDOM",      "UID",      "_",        NULL};

/* Never carried, whoever set them: they change how bash or every program
 * starts (SPEC 9.1's deny list). */
static const char *const deny[] = {
    "BASH_ENV",        "ENV",           "LD_PRELOAD",
    "LD_AUDIT",        "PS4",           "PROMPT_COMMAND",
    "POSIXLY_CORRECT", "BASH_XTRACEFD", NULL};

static bool listed(const char *const *list, const char *name, size_t len)
{
    for (; *list != NULL; list++)
        if (strlen(*list) == len && memcmp(*list, name, len) == 0)
            return true;
    return false;
}

static bool prefixed(const char *name, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(name, prefix, n) == 0;
}

bool bsh__never_carried(const char *name, size_t len)
{
    return listed(bash_own, name, len) || listed(deny, name, len) ||
           prefixed(name, len, "BASH_") || prefixed(name, len, "COMP_") ||
           prefixed(name, len, "__bsh_");
}

bool bsh__imported_apart(const char *name, size_t len)
{
    static const char *const names[] = {
        "IFS",        "OLDPWD",     "LANG",      "TERM",       "TERMCAP",
        "TERMINFO",   "TZ",         "CHILD_MAX", "EXECIGNORE", "FUNCNEST",
        "GLOBIGNORE", "HOSTFILE",   "IGNOREEOF", "ignoreeof",  "histchars",
        "OPTERR",     "INPUTRC",    "PS0",       "PS1",        "PS2",
        "PS3",        "TIMEFORMAT", "MAIL",      "MAILCHECK",  "MAILPATH",
        "TMOUT",      "CDPATH",     NULL};
    return listed(names, name, len) || prefixed(name, len, "LC_") ||
           prefixed(name, len, "HIST") || prefixed(name, len, "TEXTDOMAIN") ||
           prefixed(name, len, "BASH");
}

bool bsh__option_not_carried(const char *name, size_t len)
{
    static const char *const options[] = {
        "noexec", "onecmd",  "errexit",     "nounset",          "pipefail",
        "xtrace", "verbose", "login_shell", "restricted_shell", NULL};
    return listed(options, name, len);
}

/* ---- the state's records ------------------------------------------------ */

void bsh__state_free(struct bsh__state *st)
{
    if (st == NULL)
        return;
    bsh__launch_base_free(st->base);
    for (size_t i = 0; i < st->count; i++) {
        free(st->recs[i].name);
        free(st->recs[i].text);
    }
    free(st->recs);
    free(st);
}

int bsh__state_add(struct bsh__state *st, char kind, const char *name,
                   size_t name_len, const char *text, size_t len, size_t raw)
{
    if (st->count == st->cap) {
        size_t cap = st->cap > 0 ? st->cap * 2 : 64;
        struct bsh__rec *r = realloc(st->recs, cap * sizeof(*r));
        if (r == NULL)
            return -ENOMEM;
        st->recs = r;
        st->cap = cap;
    }
    struct bsh__rec *r = &st->recs[st->count];
    r->name = strndup(name, name_len);
    r->text = malloc(len + 1);
    if (r->name == NULL || r->text == NULL) {
        free(r->name);
        free(r->text);
        return -ENOMEM;
    }
    memcpy(r->text, text, len);
    r->text[len] = '\0';
    r->kind = kind;
    r->len = len;
    r->raw = raw;
    st->raw += raw;
    st->count++;
    return 0;
}

const struct bsh__rec *bsh__state_find(const struct bsh__state *st, char kind,
                                       const char *name)
{
    for (size_t i = 0; st != NULL && i < st->count; i++)
        if (st->recs[i].kind == kind && strcmp(st->recs[i].name, name) == 0)
            return &st->recs[i];
    return NULL;
}

/* `declare -x NAME='VALUE'` for one "NAME=VALUE" entry; 0, 1 (skipped)
 * or -ENOMEM. */
static int add_env_entry(struct bsh__state *st, const char *entry)
{
    const char *eq = strchr(entry, '=');
    if (eq == NULL)
        return 1;
    size_t n = (size_t)(eq - entry), vlen = strlen(eq + 1);
    char *name = strndup(entry, n);
    if (name == NULL)
        return -ENOMEM;
    bool skip = !bsh_env_name_valid(name) || bsh__never_carried(name, n);
    free(name);
    if (skip)
        return 1;
    char *text = malloc(n + 4 * vlen + 16);
    if (text == NULL)
        return -ENOMEM;
    int head = sprintf(text, "declare -x %.*s=", (int)n, entry);
    size_t len =
        (size_t)head + bsh__single_quote(eq + 1, vlen, text + (size_t)head);
    int rc = bsh__state_add(st, REC_VAR, entry, n, text, len, n + vlen);
    free(text);
    return rc;
}

struct bsh__state *bsh__state_from_env(char *const *env)
{
    struct bsh__state *st = calloc(1, sizeof(*st));
    for (char *const *e = env; st != NULL && e != NULL && *e != NULL; e++)
        if (add_env_entry(st, *e) < 0) {
            bsh__state_free(st);
            return NULL;
        }
    return st;
}

/* ---- the object --------------------------------------------------------- */

static char **copy_env(char *const *envp)
{
    size_t n = 0;
    while (envp != NULL && envp[n] != NULL)
        n++;
    char **env = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; env != NULL && i < n; i++)
        if ((env[i] = strdup(envp[i])) == NULL) {
            for (size_t j = 0; j < i; j++)
                free(env[j]);
            free(env);
            return NULL;
        }
    return env;
}

static void free_env(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

int bsh_session_new(const char *base_dir, char *const *envp,
                    struct bsh_session **out)
{
    if (out == NULL)
        return BSH_EINVAL;
    *out = NULL;
    char *base = realpath(base_dir != NULL ? base_dir : ".", NULL);
    struct stat st;
    if (base == NULL || stat(base, &st) < 0 || !S_ISDIR(st.st_mode)) {
        int err = base == NULL ? errno : ENOTDIR;
        free(base);
        errno = err;
        return err == ENOMEM ? BSH_ENOMEM : BSH_EINVAL;
    }
    struct bsh_session *s = calloc(1, sizeof(*s));
    if (s != NULL) {
        s->base_dir = base;
        s->cwd = strdup(base);
        s->env = copy_env(envp != NULL ? envp : environ);
        s->state = bsh__state_from_env(s->env);
        s->pristine = true;
    }
    if (s == NULL || s->cwd == NULL || s->env == NULL || s->state == NULL) {
        if (s == NULL)
            free(base);
        bsh_session_free(s);
        return BSH_ENOMEM;
    }
    *out = s;
    return BSH_OK;
}

void bsh_session_free(struct bsh_session *s)
{
    if (s == NULL)
        return;
    if (s->attached != NULL)
        bsh_stream_detach_session(s->attached);
    free(s->base_dir);
    free(s->cwd);
    free_env(s->env);
    bsh__state_free(s->state);
    free(s);
}

int bsh_session_reset(struct bsh_session *s)
{
    if (s == NULL)
        return BSH_EINVAL;
    if (s->attached != NULL)
        return BSH_EBUSY;
    char *cwd = strdup(s->base_dir);
    struct bsh__state *st = bsh__state_from_env(s->env);
    if (cwd == NULL || st == NULL) {
        free(cwd);
        bsh__state_free(st);
        return BSH_ENOMEM;
    }
    free(s->cwd);
    s->cwd = cwd;
    bsh__state_free(s->state);
    s->state = st;
    s->pristine = true;
    return BSH_OK;
}

const char *bsh_session_base_dir(const struct bsh_session *s)
{
    return s != NULL ? s->base_dir : NULL;
}

const char *bsh_session_cwd(const struct bsh_session *s)
{
    return s != NULL ? s->cwd : NULL;
}

bool bsh_session_busy(const struct bsh_session *s)
{
    return s != NULL && s->attached != NULL;
}

static char kind_of(enum bsh_session_kind kind)
{
    return (char)(kind == BSH_SESSION_VARIABLES   ? REC_VAR
                  : kind == BSH_SESSION_FUNCTIONS ? REC_FUNC
                                                  : REC_ALIAS);
}

static const struct bsh__rec *nth(const struct bsh_session *s, char kind,
                                  size_t index, size_t *count)
{
    const struct bsh__rec *found = NULL;
    *count = 0;
    for (size_t i = 0; i < s->state->count; i++)
        if (s->state->recs[i].kind == kind && (*count)++ == index)
            found = &s->state->recs[i];
    return found;
}

size_t bsh_session_count(const struct bsh_session *s,
                         enum bsh_session_kind kind)
{
    size_t count = 0;
    if (s != NULL)
        nth(s, kind_of(kind), (size_t)-1, &count);
    return count;
}

const char *bsh_session_name(const struct bsh_session *s,
                             enum bsh_session_kind kind, size_t index)
{
    size_t count;
    const struct bsh__rec *r =
        s != NULL ? nth(s, kind_of(kind), index, &count) : NULL;
    return r != NULL ? r->name : NULL;
}

size_t bsh_session_bytes(const struct bsh_session *s)
{
    return s != NULL ? s->state->raw : 0;
}

const char *bsh_session_state_name(enum bsh_session_state state)
{
    switch (state) {
    case BSH_SESSION_PENDING:
        return "pending";
    case BSH_SESSION_SAVED:
        return "saved";
    case BSH_SESSION_UNCHANGED:
        return "unchanged";
    case BSH_SESSION_DETACHED:
        return "detached";
    case BSH_SESSION_NONE:
        break;
    }
    return NULL;
}
