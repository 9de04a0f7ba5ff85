/* SPDX-License-Identifier: MIT */
/*
 * The bash side of a session run. bash starts with one line before the
 * command: it reads the script below from BSH_STATE_FD_IN (with the
 * functions' text after it, NUL-separated), closes that fd and runs the
 * script, which restores the state and arms the save. The session's
 * exported variables mostly come in execve's environment (session_env.c).
 * The command then follows on the next line, so bash parses it only
 * after the options (extglob, expand_aliases) and aliases are back.
 *
 * The save is an EXIT trap. bash runs it at a normal end, `exit N`, a
 * `set -e` failure and, since an EXIT trap is set, at the signals bash
 * catches to run it (SIGTERM, SIGINT, SIGHUP...). It writes the state to
 * BSH_STATE_FD_OUT as NUL-separated sections, each what a bash builtin
 * printed, ending with "end". A function named `trap` keeps the
 * command's own EXIT action apart: the save runs first, then that action,
 * with $? still the exit status. Everything the save runs is a builtin,
 * with stderr closed and xtrace and verbose off, so it prints nothing.
 */
#include "bashword.h"
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fds are written out in the bash text below. */
_Static_assert(BSH_STATE_FD_IN == 240 && BSH_STATE_FD_OUT == 241,
               "the bash text names fds 240 and 241");

// clang-format off
const char bsh__session_prelude[] =
    "builtin mapfile -d '' -u 240 __bsh_s; builtin exec 240<&-; "
    "builtin eval \"${__bsh_s[0]-}\" 2>&-; builtin unset __bsh_s\n";

/* The functions the script defines first. The save: the call's variables
 * the command left as they were are listed (an array, so the command's
 * IFS does not matter; nounset is off), then each section, then the
 * command's own EXIT action with $? as it was (`&& :`: a status that is
 * not 0 must not trip errexit or an ERR trap there). */
static const char helpers[] =
    "__bsh_on_exit() {\n"
    "builtin set +u\n"
    "builtin unset -f trap __bsh_on_exit __bsh_trap_list __bsh_trap\n"
    "__bsh_keep=\n"
    "for __bsh_n in \"${__bsh_envn[@]}\"; do __bsh_w=__bsh_w_$__bsh_n\n"
    "[[ \"${!__bsh_n@A}\" == \"${!__bsh_w}\" ]] && "
    "__bsh_keep+=\" $__bsh_n\"; done\n"
    "{ builtin printf 'bsh-state-1\\0'; builtin pwd -P; builtin printf '\\0'\n"
    "builtin umask; builtin printf '\\0'; builtin set +o; builtin printf '\\0'\n"
    "builtin shopt -p; builtin printf '\\0'; builtin declare -p; "
    "builtin printf '\\0'\n"
    "builtin declare -F; builtin printf '\\0'; builtin declare -f; "
    "builtin printf '\\0'\n"
    "builtin alias -p; builtin printf '\\0%s\\0end\\0' \"$__bsh_keep\"\n"
    "} >&241 2>&-\n"
    "builtin exec 241>&-\n"
    "if [[ -n ${__bsh_exit_action+x} ]]; then\n"
    "__bsh_status() { return \"$1\"; }\n"
    "[[ $__bsh_f == *x* ]] && builtin set -x\n"
    "__bsh_status \"$__bsh_rc\" && :; builtin eval \"$__bsh_exit_action\"; fi\n"
    "}\n"
    "__bsh_trap_list() {\n"
    "local __bsh_s __bsh_t __bsh_l\n"
    "if [[ $# -le 1 ]]; then\n"
    "[[ -n ${__bsh_exit_action+x} ]] && "
    "builtin printf 'trap -- %s EXIT\\n' \"${__bsh_exit_action@Q}\"\n"
    "__bsh_t=$(builtin trap -p)\n"
    "while IFS= builtin read -r __bsh_l; do [[ $__bsh_l == *' EXIT' ]] || "
    "builtin printf '%s\\n' \"$__bsh_l\"; done <<< \"$__bsh_t\"\n"
    "return; fi\n"
    "for __bsh_s in \"${@:2}\"; do case ${__bsh_s^^} in EXIT|0|SIGEXIT)\n"
    "[[ -n ${__bsh_exit_action+x} ]] && "
    "builtin printf 'trap -- %s EXIT\\n' \"${__bsh_exit_action@Q}\";;\n"
    "*) builtin trap -p \"$__bsh_s\";; esac; done\n"
    "}\n"
    /* A subshell's EXIT trap is its own: bash's. */
    "trap() {\n"
    "if [[ $BASHPID != \"$$\" ]]; then builtin trap \"$@\"; return; fi\n"
    "if [[ $# -eq 0 || $1 == -p || $1 == -P ]]; then "
    "__bsh_trap_list \"$@\"; return; fi\n"
    "if [[ $1 == -l ]]; then builtin trap \"$@\"; return; fi\n"
    "[[ $1 == -- ]] && shift\n"
    "local __bsh_a=- __bsh_s __bsh_r=()\n"
    "[[ $# -gt 1 && $1 != - ]] && __bsh_a=$1\n"
    "[[ $# -gt 1 ]] && shift\n"
    "for __bsh_s in \"$@\"; do case ${__bsh_s^^} in\n"
    "EXIT|0|SIGEXIT) if [[ $__bsh_a == - ]]; then "
    "builtin unset __bsh_exit_action; "
    "else __bsh_exit_action=$__bsh_a; fi;;\n"
    "*) __bsh_r+=(\"$__bsh_s\");; esac; done\n"
    "(( ${#__bsh_r[@]} == 0 )) || builtin trap -- \"$__bsh_a\" "
    "\"${__bsh_r[@]}\"\n"
    "}\n"
    "builtin shopt -s expand_aliases\n";

/* The trap that saves; $? and $- are taken before anything else runs, and
 * the command's DEBUG and RETURN traps and xtrace cannot reach the save. */
static const char arm[] =
    "builtin trap -- '{ __bsh_rc=$? __bsh_f=$-; builtin trap - DEBUG RETURN; "
    "builtin set +xvTE; } 2>&-; __bsh_on_exit' EXIT\n";
// clang-format on

/* A growing buffer; `failed` once out of memory. */
struct text {
    char *buf;
    size_t len, cap;
    bool failed;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap > 0 ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (b == NULL) {
            t->failed = true;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void puts_(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* posix mode refuses some function names; allexport would export every
 * variable restored after it: both are turned on last. */
static bool late_option(const char *name)
{
    return strcmp(name, "posix") == 0 || strcmp(name, "allexport") == 0;
}

static bool option_on(const struct bsh__rec *r, const char *head)
{
    return r->kind == REC_OPTION && strncmp(r->text, head, strlen(head)) == 0;
}

/* What bash's $SHELLOPTS:$BASHOPTS read when it runs with the state's
 * options (the enabled ones, in the order `set +o` and `shopt -p` list
 * them, which is bash's). A lean script has no aliases to expand, so
 * expand_aliases is not asked for there. */
static void put_expected_options(struct text *t, const struct bsh__state *st,
                                 bool lean)
{
    static const char *const heads[] = {"set -o ", "shopt -s "};
    for (size_t h = 0; h < 2; h++) {
        bool first = true;
        if (h == 1)
            put(t, ":", 1);
        for (size_t i = 0; i < st->count; i++) {
            const struct bsh__rec *r = &st->recs[i];
            if (!option_on(r, heads[h]) ||
                (lean && strcmp(r->name, "expand_aliases") == 0))
                continue;
            if (!first)
                put(t, ":", 1);
            first = false;
            puts_(t, r->name);
        }
    }
}

/* The text after the script: NUL-separated elements that bash reads
 * with it (into __bsh_s) but parses only when the script evals one. */
struct elements {
    struct text text;
    size_t count;
};

/* Appends `what` (`n` bytes) as an element and, to `t`, the command that
 * evals it. */
static void put_eval_of_element(struct text *t, struct elements *e,
                                const char *what, size_t n)
{
    put(&e->text, "", 1);
    put(&e->text, what, n);
    char index[32];
    snprintf(index, sizeof(index), "%zu", ++e->count);
    puts_(t, "builtin eval -- \"${__bsh_s[");
    puts_(t, index);
    puts_(t, "]}\"");
}

/* `set -o a +o b` and `shopt -s c` / `shopt -u d`, one command each:
 * bash parses three commands much faster than eighty. Only when bash's
 * options are not already the state's (most sessions never change one):
 * they are an element that the script evals after comparing $SHELLOPTS
 * and $BASHOPTS, which costs bash a tenth of parsing them. */
static void put_options(struct text *t, struct elements *e,
                        const struct bsh__state *st, bool late, bool lean)
{
    static const char *const heads[] = {"set -o ", "set +o ", "shopt -s ",
                                        "shopt -u "};
    static const char *const cmds[] = {"builtin set", "builtin set",
                                       "builtin shopt -s", "builtin shopt -u"};
    static const char *const seps[] = {" -o ", " +o ", " ", " "};
    struct text o = {0};
    for (size_t h = 0; h < 4; h++) {
        bool any = false;
        for (size_t i = 0; i < st->count; i++) {
            const struct bsh__rec *r = &st->recs[i];
            /* Turned off early (as bash starts), on last. */
            bool on_late = h == 0 && late_option(r->name);
            if (!option_on(r, heads[h]) || on_late != late)
                continue;
            if (!any)
                puts_(&o, cmds[h]);
            any = true;
            puts_(&o, seps[h]);
            puts_(&o, r->name);
        }
        if (any)
            put(&o, "\n", 1);
    }
    if (o.failed)
        t->failed = true;
    if (o.len > 0) {
        puts_(t, "[[ $SHELLOPTS:$BASHOPTS == '");
        put_expected_options(t, st, lean);
        puts_(t, "' ]] || ");
        put_eval_of_element(t, e, o.buf, o.len);
        put(t, "\n", 1);
    }
    free(o.buf);
}

static void put_kind(struct text *t, const struct bsh__state *st, char kind,
                     const char *prefix)
{
    for (size_t i = 0; i < st->count; i++) {
        const struct bsh__rec *r = &st->recs[i];
        if (r->kind != kind)
            continue;
        /* `declare -f NAME` alone would print the function. */
        if (kind == REC_FUNC && strncmp(r->text, "declare -f ", 11) == 0)
            continue;
        puts_(t, prefix);
        put(t, r->text, r->len);
        put(t, "\n", 1);
    }
}

/* Whether a lean script (a stateless command's) restores this variable:
 * children see it, or bash consults it to run a plain command (to find
 * it, to match a glob, in its locale). */
static bool lean_keeps(const struct bsh__rec *r, const char *flags)
{
    static const char *const consulted[] = {"PATH", "EXECIGNORE", "GLOBIGNORE",
                                            "LANG", "CHILD_MAX",  NULL};
    if (strchr(flags, 'x') != NULL || strncmp(r->name, "LC_", 3) == 0)
        return true;
    for (const char *const *c = consulted; *c != NULL; c++)
        if (strcmp(*c, r->name) == 0)
            return true;
    return false;
}

/* The variables bash does not import from execve's environment. Plain
 * scalars go in one `declare` per kind (exported or not): bash runs one
 * command with 100 words much faster than 100 commands. The others
 * (arrays, attributes, $'...' values) are their `declare -p` lines. */
static void put_vars(struct text *t, const struct bsh__state *st,
                     const bool *in_env, bool lean)
{
    struct text groups[2] = {{0}, {0}};
    for (size_t i = 0; i < st->count; i++) {
        const struct bsh__rec *r = &st->recs[i];
        if (r->kind != REC_VAR || in_env[i])
            continue;
        struct bsh__statement sc;
        bool scanned = bsh__declare_scan(r->text, r->len, &sc) == 0;
        if (lean && scanned && !lean_keeps(r, sc.flags))
            continue;
        bool plain = scanned && sc.has_value &&
                     sc.name[sc.name_len + 1] != '(' &&
                     (sc.flags[0] == '\0' || strcmp(sc.flags, "x") == 0);
        if (!plain) {
            put(t, r->text, r->len);
            put(t, "\n", 1);
            continue;
        }
        struct text *g = &groups[sc.flags[0] == 'x'];
        put(g, " ", 1);
        put(g, sc.name, r->len - (size_t)(sc.name - r->text));
    }
    static const char *const heads[] = {"builtin declare --",
                                        "builtin declare -x"};
    for (size_t k = 0; k < 2; k++) {
        if (groups[k].failed)
            t->failed = true;
        if (groups[k].len > 0) {
            puts_(t, heads[k]);
            put(t, groups[k].buf, groups[k].len);
            put(t, "\n", 1);
        }
        free(groups[k].buf);
    }
}

/* The call's variables, exported, and (unless `lean`: nothing is saved)
 * what each looked like at the start, for the save to tell whether the
 * command changed it. */
static void put_env(struct text *t, const struct bsh_env_var *env, size_t count,
                    bool lean)
{
    if (!lean) {
        puts_(t, "__bsh_envn=(");
        for (size_t i = 0; i < count; i++) {
            puts_(t, " ");
            puts_(t, env[i].name);
        }
        puts_(t, ")\n");
    }
    for (size_t i = 0; i < count; i++) {
        size_t vl = strlen(env[i].value);
        char *q = malloc(4 * vl + 3);
        if (q == NULL) {
            t->failed = true;
            return;
        }
        puts_(t, "builtin declare -x ");
        puts_(t, env[i].name);
        put(t, "=", 1);
        put(t, q, bsh__single_quote(env[i].value, vl, q));
        free(q);
        if (lean) {
            put(t, "\n", 1);
            continue;
        }
        puts_(t, "\n__bsh_w_");
        puts_(t, env[i].name);
        puts_(t, "=\"${");
        puts_(t, env[i].name);
        puts_(t, "@A}\"\n");
    }
}

/* The functions in an eval of their own: one that bash cannot read back
 * (`function a=b`) costs the functions after it, not the save. Their text
 * (the first record of it; there is one at most) is an element, so bash
 * reads it once, as it is, rather than unquoting it first. */
static void put_functions(struct text *t, struct elements *e,
                          const struct bsh__state *st)
{
    for (size_t i = 0; i < st->count; i++) {
        const struct bsh__rec *r = &st->recs[i];
        if (r->kind != REC_FUNCTIONS)
            continue;
        put_eval_of_element(t, e, r->text, r->len);
        puts_(t, " 2>&-\n");
        return;
    }
}

static char *take(struct text *t, size_t *len)
{
    *len = t->len;
    if (!t->failed)
        return t->buf != NULL ? t->buf : strdup("");
    free(t->buf);
    return NULL;
}

int bsh__session_script_parts(const struct bsh__state *st, const bool *in_env,
                              bool lean, struct bsh__script_parts *out)
{
    struct text head = {0}, tail = {0};
    struct elements e = {{0}, 0};
    if (!lean)
        puts_(&head, helpers);
    /* Options after the variables: assigning GLOBIGNORE turns dotglob on. */
    put_kind(&head, st, REC_UMASK, "builtin umask ");
    put_vars(&head, st, in_env, lean);
    put_options(&head, &e, st, false, lean);
    if (!lean) {
        put_functions(&head, &e, st);
        put_kind(&head, st, REC_FUNC, "builtin ");
        put_kind(&head, st, REC_ALIAS, "builtin ");
    }
    put_options(&tail, &e, st, true, lean);
    /* A lean run keeps an EXIT trap that does nothing: bash then stays
     * the parent of its last command, as in a full run (same exit codes,
     * $PPID, and a SIGKILL of bash is what ends a run unsaved). */
    puts_(&tail, lean ? "builtin trap : EXIT\n" : arm);
    out->head = take(&head, &out->head_len);
    out->tail = take(&tail, &out->tail_len);
    out->elements = take(&e.text, &out->elements_len);
    if (out->head != NULL && out->tail != NULL && out->elements != NULL)
        return 0;
    bsh__script_parts_free(out);
    return -ENOMEM;
}

void bsh__script_parts_free(struct bsh__script_parts *p)
{
    free(p->head);
    free(p->tail);
    free(p->elements);
    p->head = p->tail = p->elements = NULL;
}

char *bsh__session_script(const struct bsh__script_parts *parts,
                          const struct bsh_env_var *env, size_t count,
                          bool lean, size_t *len)
{
    struct text vars = {0};
    put_env(&vars, env, count, lean);
    size_t total =
        parts->head_len + vars.len + parts->tail_len + parts->elements_len;
    char *script = vars.failed ? NULL : malloc(total + 1);
    if (script != NULL) {
        char *at = script;
        memcpy(at, parts->head, parts->head_len);
        at += parts->head_len;
        if (vars.len > 0)
            memcpy(at, vars.buf, vars.len);
        at += vars.len;
        memcpy(at, parts->tail, parts->tail_len);
        at += parts->tail_len;
        memcpy(at, parts->elements, parts->elements_len);
        script[total] = '\0';
        *len = total;
    }
    free(vars.buf);
    return script;
}
