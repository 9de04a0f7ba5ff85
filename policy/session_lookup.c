/* SPDX-License-Identifier: MIT */
/*
 * A session's aliases and functions, as the policy sees them (SPEC 13.7):
 * what the session saved before the run. Aliases are read from the
 * `alias NAME='VALUE'` statements bash printed, functions from its
 * `declare -f` text, both with the same bash parser as the command.
 */
#include "session_lookup.h"

#include "session.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct session_view {
    const struct bsh__state *state;
    const char *functions; /* the declare -f text, or NULL */
    struct pol_script parsed;
    bool have_parsed;
    /* alias values, parsed on demand */
    struct pol_script alias_parse;
    bool unreadable; /* the functions' text could not be parsed */
};

/* The functions' text parsed once; false when it cannot be. */
static bool parsed_functions(struct session_view *v)
{
    if (!v->have_parsed) {
        if (pol_bash_parse(NULL, v->functions, strlen(v->functions),
                           &v->parsed) != 0 ||
            v->parsed.error != NULL)
            v->unreadable = true;
        v->have_parsed = true;
    }
    return !v->unreadable;
}

static const char *alias_value(const void *data, const char *name, size_t *len)
{
    struct session_view *v = (struct session_view *)data;
    const struct bsh__rec *r = bsh__state_find(v->state, REC_ALIAS, name);
    if (r == NULL)
        return NULL;
    pol_script_free(&v->alias_parse);
    const struct pol_simple *c = NULL;
    const char *eq = NULL;
    if (pol_bash_parse(NULL, r->text, r->len, &v->alias_parse) == 0 &&
        v->alias_parse.ncmds > 0)
        c = &v->alias_parse.cmds[0];
    if (c != NULL && c->nwords >= 2 && !c->words[1].dynamic)
        eq = memchr(c->words[1].value, '=', c->words[1].len);
    if (eq == NULL) /* an alias is there, its value not readable */
        return pol_unreadable;
    *len = c->words[1].len - (size_t)(eq + 1 - c->words[1].value);
    return eq + 1;
}

static const char *function_body(const void *data, const char *name,
                                 size_t *len)
{
    struct session_view *v = (struct session_view *)data;
    if (v->functions == NULL ||
        bsh__state_find(v->state, REC_FUNC, name) == NULL)
        return NULL;
    if (!parsed_functions(v))
        return pol_unreadable; /* a function, its body not readable */
    for (size_t i = 0; i < v->parsed.nfuncs; i++) {
        const struct pol_funcdef *f = &v->parsed.funcs[i];
        if (strcmp(f->name, name) == 0) {
            *len = f->body_end - f->body_start;
            return v->functions + f->body_start;
        }
    }
    return NULL;
}

int pol_session_lookup(const struct bsh_session *session,
                       struct pol_lookup *lookup, void **state)
{
    struct session_view *v = calloc(1, sizeof(*v));
    if (v == NULL)
        return -1;
    v->state = session->state;
    for (size_t i = 0; i < v->state->count; i++)
        if (v->state->recs[i].kind == REC_FUNCTIONS)
            v->functions = v->state->recs[i].text;
    lookup->data = v;
    lookup->alias = alias_value;
    lookup->function = function_body;
    /* where the run starts: the session's directory, or its base when
     * that one is gone (as the run does) */
    struct stat st;
    lookup->cwd = stat(session->cwd, &st) == 0 && S_ISDIR(st.st_mode)
                      ? session->cwd
                      : session->base_dir;
    const struct bsh__rec *cdable =
        bsh__state_find(v->state, REC_OPTION, "cdable_vars");
    lookup->cd_elsewhere =
        bsh__state_find(v->state, REC_VAR, "CDPATH") != NULL ||
        (cdable != NULL && strstr(cdable->text, " -s ") != NULL);
    *state = v;
    return 0;
}

/* Whether the functions' text, which the session's restore evaluates
 * before the command, only defines functions: a session file is code,
 * and one edited to run a command at the restore would run it unseen. */
bool pol_session_defines_only(void *state)
{
    struct session_view *v = state;
    if (v->functions == NULL)
        return true;
    if (!parsed_functions(v))
        return false;
    for (size_t i = 0; i < v->parsed.ncmds; i++) {
        const struct pol_simple *c = &v->parsed.cmds[i];
        bool inside = false;
        for (size_t k = 0; k < v->parsed.nfuncs && !inside; k++)
            inside = v->parsed.funcs[k].body_start <= c->start &&
                     c->end <= v->parsed.funcs[k].body_end;
        if (!inside)
            return false;
    }
    return true;
}

static bool option_on(const struct bsh__state *st, const char *name)
{
    const struct bsh__rec *r = bsh__state_find(st, REC_OPTION, name);
    return r != NULL && r->len > 7 && memcmp(r->text, "set -o ", 7) == 0;
}

bool pol_session_expands_history(void *state)
{
    const struct session_view *v = state;
    return option_on(v->state, "history") && option_on(v->state, "histexpand");
}

void pol_session_lookup_free(void *state)
{
    struct session_view *v = state;
    if (v == NULL)
        return;
    pol_script_free(&v->parsed);
    pol_script_free(&v->alias_parse);
    free(v);
}
