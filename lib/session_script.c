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
 * variable restored after it: both come last. */
static bool late_option(const char *name)
{
    return strcmp(name, "posix") == 0 || strcmp(name, "allexport") == 0;
}

/* `set -o a +o b` and `shopt -s c` / `shopt -u d`, one command each:
 * bash parses three commands much faster than eighty. */
static void put_options(struct text *t, const struct bsh__state *st, bool late)
{
    static const char *const heads[] = {"set -o ", "set +o ", "shopt -s ",
                                        "shopt -u "};
    static const char *const cmds[] = {"builtin set", "builtin set",
                                       "builtin shopt -s", "builtin shopt -u"};
    static const char *const seps[] = {" -o ", " +o ", " ", " "};
    for (size_t h = 0; h < 4; h++) {
        bool any = false;
        size_t hl = strlen(heads[h]);
        for (size_t i = 0; i < st->count; i++) {
            const struct bsh__rec *r = &st->recs[i];
            if (r->kind != REC_OPTION || strncmp(r->text, heads[h], hl) != 0 ||
                late_option(r->name) != late)
                continue;
            if (!any)
                puts_(t, cmds[h]);
            any = true;
            puts_(t, seps[h]);
            puts_(t, r->name);
        }
        if (any)
            put(t, "\n", 1);
    }
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

/* The variables bash does not import from execve's environment. Plain
 * scalars go in one `declare` per kind (exported or not): bash runs one
 * command with 100 words much faster than 100 commands. The others
 * (arrays, attributes, $'...' values) are their `declare -p` lines. */
static void put_vars(struct text *t, const struct bsh__state *st,
                     const bool *in_env)
{
    struct text groups[2] = {{0}, {0}};
    for (size_t i = 0; i < st->count; i++) {
        const struct bsh__rec *r = &st->recs[i];
        if (r->kind != REC_VAR || in_env[i])
            continue;
        struct bsh__statement sc;
        bool plain = bsh__declare_scan(r->text, r->len, &sc) == 0 &&
                     sc.has_value && sc.name[sc.name_len + 1] != '(' &&
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

/* The call's variables, exported, and what each looked like at the
 * start, for the save to tell whether the command changed it. */
static void put_env(struct text *t, const struct bsh_env_var *env, size_t count)
{
    puts_(t, "__bsh_envn=(");
    for (size_t i = 0; i < count; i++) {
        puts_(t, " ");
        puts_(t, env[i].name);
    }
    puts_(t, ")\n");
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
        puts_(t, "\n__bsh_w_");
        puts_(t, env[i].name);
        puts_(t, "=\"${");
        puts_(t, env[i].name);
        puts_(t, "@A}\"\n");
    }
}

/* The functions' text, the first record of it (there is one at most). */
static const struct bsh__rec *functions(const struct bsh__state *st)
{
    for (size_t i = 0; i < st->count; i++)
        if (st->recs[i].kind == REC_FUNCTIONS)
            return &st->recs[i];
    return NULL;
}

/* The functions in an eval of their own: one that bash cannot read back
 * (`function a=b`) costs the functions after it, not the save. Their text
 * follows the script as the next NUL-separated element, so bash reads it
 * once, as it is, rather than unquoting it first. */
static void put_functions(struct text *t, const struct bsh__state *st)
{
    if (functions(st) != NULL)
        puts_(t, "builtin eval -- \"${__bsh_s[1]}\" 2>&-\n");
}

char *bsh__session_script(const struct bsh__state *st, const bool *in_env,
                          const struct bsh_env_var *env, size_t count,
                          size_t *len)
{
    struct text t = {0};
    puts_(&t, helpers);
    put_options(&t, st, false);
    put_kind(&t, st, REC_UMASK, "builtin umask ");
    put_vars(&t, st, in_env);
    put_functions(&t, st);
    put_kind(&t, st, REC_FUNC, "builtin ");
    put_kind(&t, st, REC_ALIAS, "builtin ");
    put_env(&t, env, count);
    put_options(&t, st, true);
    puts_(&t, arm);
    const struct bsh__rec *f = functions(st);
    if (f != NULL) {
        put(&t, "", 1);
        put(&t, f->text, f->len);
    }
    if (t.failed) {
        free(t.buf);
        return NULL;
    }
    *len = t.len;
    return t.buf;
}
