/* SPDX-License-Identifier: MIT */
/*
 * Deciding a command string: every simple command the walk found goes
 * through the steps of the policy in order (listed assignments, a dynamic
 * command word, functions, git's options, strings that are scripts,
 * shells, wrappers, privilege wrappers, find, source, neutral builtins,
 * the rules), and the strictest decision wins. Scripts inside (bash -c,
 * eval, here-documents to shells, function bodies) recurse, at most
 * POL_MAX_DEPTH deep. Each simple command, and each inner command a
 * wrapper runs, becomes one entry of the verdict.
 */
#define _DEFAULT_SOURCE /* realpath */
#include "decide.h"

#include "command_class.h"
#include "command_effects.h"
#include "wrappers.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POL_MAX_DEPTH 8

const char pol_unreadable[] = "";

/* ---- Outcomes ---- */

struct outcome {
    bool set;
    enum bsh_decision d;
    const struct bsh_policy_rule *rule;
    const char *reason;
};

/* The stricter of two outcomes; at the same strictness an opaque one wins
 * (it says more, and a person's "remember" must never cover it). */
static void combine(struct outcome *o, struct outcome x)
{
    if (x.set && (!o->set || x.d > o->d ||
                  (x.d == o->d && o->reason == NULL && x.reason != NULL)))
        *o = x;
}

static struct outcome decided(enum bsh_decision d)
{
    return (struct outcome){.set = true, .d = d};
}

/* What a script does to its functions and aliases. */
#define SCOPE_ALIASES 32

struct scope_facts {
    bool unsets;         /* unset or unalias: a definition may be gone */
    bool expand_aliases; /* aliases it defines may be expanded */
    /* its `alias` commands (the first SCOPE_ALIASES; more: unknown) */
    const struct pol_simple *aliases[SCOPE_ALIASES];
    size_t naliases;
    bool too_many_aliases;
};

/* The most scripts one decision parses (bash -c, eval, function bodies,
 * aliases): beyond, the rest is opaque. */
#define POL_MAX_SCRIPTS 2000

struct ctx {
    const struct bsh_policy *policy;
    const struct bsh_policy_overlay *overlay; /* approved exact commands */
    const struct pol_lookup *lookup; /* session aliases and functions */
    const char *cwd; /* where the run starts, when known (else the session's) */
    struct pol_verdict_builder *vb;
    struct TSParser *parser; /* one for every script of the decision */
    bool nomem;
    /* the scripts being decided, innermost last: their functions and
     * aliases, and what in them may undo or change those */
    const struct pol_script *scopes[POL_MAX_DEPTH + 2];
    const char *scope_text[POL_MAX_DEPTH + 2];
    struct scope_facts facts[POL_MAX_DEPTH + 2];
    size_t nscopes;
    /* function bodies being decided (a call inside is the same body) */
    const char *in_body[POL_MAX_DEPTH + 2];
    size_t nbodies;
    /* function bodies decided once already, and how: a later call adds
     * their outcome, not their commands again */
    const char *memo_body[64];
    struct outcome memo[64];
    size_t nmemo;
    size_t scripts; /* decided so far: a bound on the work */
    bool overflow;  /* the verdict reached POL_MAX_ENTRIES */
};

static struct outcome opaque(const struct ctx *c, const char *reason)
{
    enum bsh_decision d =
        c->policy->default_decision == BSH_DENY ? BSH_DENY : BSH_ASK;
    return (struct outcome){.set = true, .d = d, .reason = reason};
}

static struct outcome by_default(const struct ctx *c)
{
    return decided(c->policy->default_decision);
}

/* ---- Rules ---- */

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

static bool is_source(const char *s, size_t len)
{
    return (len == 1 && s[0] == '.') ||
           (len == 6 && memcmp(s, "source", 6) == 0);
}

static bool host_lists(const struct bsh_policy *p, const char *name,
                       const char *path)
{
    for (size_t i = 0; i < p->nhosts; i++) {
        if (strcmp(p->hosts[i].name, name) != 0)
            continue;
        for (size_t k = 0; k < p->hosts[i].npaths; k++)
            if (strcmp(p->hosts[i].paths[k], path) == 0)
                return true;
    }
    return false;
}

static bool token_equal(const struct pol_str *a, const char *v, size_t len)
{
    return a->len == len && memcmp(a->s, v, len) == 0;
}

/* Whether position 0 of `rule` matches the static command word `w`. */
static bool first_word_matches(const struct bsh_policy *p,
                               const struct pol_rule *rule,
                               const struct pol_word *w, bool allow)
{
    const struct pol_alts *a = &rule->pattern[0];
    bool path = memchr(w->value, '/', w->len) != NULL;
    const char *base = base_name(w->value);
    size_t blen = w->len - (size_t)(base - w->value);
    for (size_t j = 0; j < a->n; j++) {
        const struct pol_str *t = &a->v[j];
        if (token_equal(t, w->value, w->len))
            return true;
        if (is_source(t->s, t->len) && is_source(w->value, w->len))
            return true;
        if (path && token_equal(t, base, blen) &&
            (!allow || host_lists(p, t->s, w->value)))
            return true;
    }
    return false;
}

enum match_mode { MATCH_ALL, MATCH_STRICT_ONLY };

/* The strictest decision of the rules that match (or may match) `w`. */
static struct outcome match_rules(const struct ctx *c, const struct pol_word *w,
                                  size_t n, enum match_mode mode)
{
    struct outcome o = {0};
    const struct bsh_policy *p = c->policy;
    if (n == 0)
        return o;
    /* only the rules whose first token could be this word */
    uint32_t some[256];
    size_t nsome = 0;
    bool all = w[0].dynamic || w[0].glob ||
               !pol_rules_for(p, w[0].value, w[0].len, some,
                              sizeof(some) / sizeof(some[0]), &nsome);
    size_t count = all ? p->nrules : nsome;
    /* an unquoted expansion or a glob may stand for several words */
    bool splits = false;
    for (size_t i = 0; i < n && !splits; i++)
        splits = w[i].dynamic || w[i].glob;
    for (size_t k = 0; k < count; k++) {
        const struct pol_rule *rule = p->rules[all ? k : some[k]];
        const char *d = rule->pub.decision;
        bool allow = d[0] == 'a';
        if ((n < rule->npattern && !splits) ||
            (allow && mode == MATCH_STRICT_ONLY))
            continue;
        bool may = false, match = true;
        for (size_t i = 0; i < rule->npattern && match; i++) {
            if (i >= n || w[i].dynamic || w[i].glob) {
                may = true;
            } else if (i == 0) {
                match = first_word_matches(p, rule, &w[0], allow);
            } else {
                match = false;
                for (size_t j = 0; j < rule->pattern[i].n && !match; j++)
                    match = token_equal(&rule->pattern[i].v[j], w[i].value,
                                        w[i].len);
            }
        }
        if (!match || (may && allow))
            continue;
        enum bsh_decision dec = may           ? BSH_ASK
                                : allow       ? BSH_ALLOW
                                : d[0] == 'p' ? BSH_ASK
                                              : BSH_DENY;
        combine(&o,
                (struct outcome){.set = true, .d = dec, .rule = &rule->pub});
    }
    return o;
}

/* The rules, else the default (step 14). */
static struct outcome rules_or(const struct ctx *c, const struct pol_word *w,
                               size_t n, struct outcome otherwise)
{
    struct outcome o = match_rules(c, w, n, MATCH_ALL);
    return o.set ? o : otherwise;
}

/* ---- Entries ---- */

struct frame {
    size_t start, end; /* of the command in the text of its level */
    const char *const *via;
    size_t nvia;
    int depth;
};

/* The most commands one verdict lists; past it the decision is opaque. */
#define POL_MAX_ENTRIES 200000

static size_t new_entry(struct ctx *c, const struct frame *f,
                        const struct pol_word *w, size_t n)
{
    if (pol_verdict_count(c->vb) >= POL_MAX_ENTRIES) {
        c->overflow = true;
        return SIZE_MAX;
    }
    size_t i = pol_verdict_add(c->vb, f->start, f->end, f->via, f->nvia, w, n);
    if (i == SIZE_MAX)
        c->nomem = true;
    return i;
}

/* An `ask` from the rules or the default (not an opaque one) for words a
 * person approved in this session: allowed. */
static struct outcome approved(const struct ctx *c, const struct pol_word *w,
                               size_t n, struct outcome o)
{
    const struct bsh_policy_rule *rule;
    if (o.set && o.d == BSH_ASK && o.reason == NULL &&
        pol_overlay_allows(c->overlay, w, n, &rule))
        return (struct outcome){.set = true, .d = BSH_ALLOW, .rule = rule};
    return o;
}

static void set_entry(struct ctx *c, size_t i, struct outcome o)
{
    if (i != SIZE_MAX)
        pol_verdict_set(c->vb, i, o.d, o.rule, o.reason);
}

static struct outcome decide_script(struct ctx *c, const char *text, size_t len,
                                    const struct frame *f, const char *via);
static struct outcome decide_words(struct ctx *c, const struct pol_word *w,
                                   size_t n, const struct pol_simple *sc,
                                   const struct frame *f, unsigned flags);

enum { SKIP_FUNCTIONS = 1, XARGS_INPUT = 2, WRITE_TARGET = 4 };

/* A nested frame: one more `via` element. */
struct nested {
    struct frame f;
    const char *via[POL_MAX_DEPTH + 4];
};

static bool nest(const struct frame *outer, const char *via, struct nested *out)
{
    out->f = *outer;
    out->f.depth = outer->depth + 1;
    size_t n =
        outer->nvia < POL_MAX_DEPTH + 3 ? outer->nvia : POL_MAX_DEPTH + 3;
    for (size_t i = 0; i < n; i++) // cppcheck-suppress knownConditionTrueFalse
        out->via[i] = outer->via[i];
    out->via[n] = via;
    out->f.via = out->via;
    out->f.nvia = n + 1;
    return out->f.depth <= POL_MAX_DEPTH;
}

/* Decides words `w` as an inner command (a wrapper's), as its own entry. */
static struct outcome decide_write(struct ctx *c, const struct pol_word *words,
                                   size_t nwords);

static struct outcome decide_inner(struct ctx *c, const struct pol_word *w,
                                   size_t n, const struct frame *f,
                                   const char *via, unsigned flags)
{
    struct nested nf;
    bool ok = nest(f, via, &nf);
    size_t e = new_entry(c, &nf.f, w, n);
    struct outcome o = !ok ? opaque(c, "nesting too deep")
                       : flags & WRITE_TARGET
                           ? decide_write(c, w, n)
                           : decide_words(c, w, n, NULL, &nf.f, flags);
    o = approved(c, w, n, o);
    set_entry(c, e, o);
    return o;
}

/* ---- Steps ---- */

/* Step 1: a listed assignment makes the command opaque. */
static struct outcome check_assignments(const struct ctx *c, char *const *names,
                                        size_t n)
{
    struct outcome o = {0};
    for (size_t i = 0; i < n; i++) {
        if (pol_listed_name(names[i])) {
            o = opaque(c, pol_reason_assignment(c->vb, names[i]));
            break;
        }
    }
    return o;
}

/* The NAME of a static `NAME=VALUE` word (into buf), or NULL. */
static const char *assigned_name(const struct pol_word *w, char *buf,
                                 size_t size)
{
    const char *eq = memchr(w->value, '=', w->len);
    if (eq == NULL || eq == w->value || (size_t)(eq - w->value) >= size)
        return NULL;
    size_t n = (size_t)(eq - w->value);
    if (n > 0 && w->value[n - 1] == '+')
        n--;
    memcpy(buf, w->value, n);
    buf[n] = '\0';
    const char *br = strchr(buf, '[');
    if (br != NULL)
        buf[br - buf] = '\0';
    return buf;
}

/* POSIX special builtins: in posix mode (set -o posix, POSIXLY_CORRECT,
 * sh) bash finds them before functions. */
static bool special_builtin(const char *name)
{
    return (pol_command_class(name) & C_SPECIAL) != 0;
}

/* Whether a script of the chain may have removed a definition. */
static bool any_unset(const struct ctx *c)
{
    for (size_t s = 0; s < c->nscopes; s++)
        if (c->facts[s].unsets)
            return true;
    return false;
}

/* A function of the script (or an outer one) named `name`, defined
 * before `before`. `*sure`: it is certainly the one bash calls (defined
 * at the top level, nothing unset). */
static const struct pol_funcdef *find_function(const struct ctx *c,
                                               const char *name, size_t before,
                                               const char **text, bool *sure)
{
    for (size_t s = c->nscopes; s-- > 0;) {
        const struct pol_script *sc = c->scopes[s];
        for (size_t i = sc->nfuncs; i-- > 0;) {
            const struct pol_funcdef *f = &sc->funcs[i];
            if (strcmp(f->name, name) == 0 &&
                (s + 1 < c->nscopes || f->defined_at < before)) {
                *text = c->scope_text[s];
                *sure = f->top_level && s + 1 == c->nscopes && !any_unset(c) &&
                        !special_builtin(name);
                return f;
            }
        }
    }
    return NULL;
}

/* The value of an alias the script itself defines (alias NAME=VALUE),
 * when aliases are expanded there. */
static const char *script_alias(const struct ctx *c, const char *name,
                                size_t *len)
{
    size_t nlen = strlen(name);
    for (size_t s = c->nscopes; s-- > 0;) {
        if (!c->facts[s].expand_aliases)
            continue;
        if (c->facts[s].too_many_aliases) { /* not followed: any word may be */
            *len = 0;
            return "";
        }
        for (size_t i = 0; i < c->facts[s].naliases; i++) {
            const struct pol_simple *cmd = c->facts[s].aliases[i];
            for (size_t k = 1; k < cmd->nwords; k++) {
                const struct pol_word *w = &cmd->words[k];
                if (!w->dynamic && w->len > nlen &&
                    strncmp(w->value, name, nlen) == 0 &&
                    w->value[nlen] == '=') {
                    *len = w->len - nlen - 1;
                    return w->value + nlen + 1;
                }
            }
        }
    }
    return NULL;
}

/* Step 8: a shell. */
static struct outcome decide_shell(struct ctx *c, const struct pol_word *w,
                                   size_t n, const struct pol_simple *sc,
                                   const struct frame *f, const char *name)
{
    struct outcome own = match_rules(c, w, n, MATCH_ALL);
    bool has_c = false, from_stdin = false, interactive = false;
    size_t i = 1;
    for (; i < n; i++) {
        const struct pol_word *x = &w[i];
        if (x->dynamic) {
            struct outcome o = opaque(c, "shell with a dynamic script");
            combine(&o, own);
            return own.set && own.d == BSH_DENY ? own : o;
        }
        const char *v = x->value;
        if (strcmp(v, "--") == 0 || strcmp(v, "-") == 0) {
            i++;
            break;
        }
        if (v[0] == '-' && v[1] == '-') {
            if (strcmp(v, "--rcfile") == 0 || strcmp(v, "--init-file") == 0)
                i++;
            interactive |= strcmp(v, "--interactive") == 0;
            continue;
        }
        if ((v[0] == '-' || v[0] == '+') && v[1] != '\0') {
            bool takes = false;
            for (const char *k = v + 1; *k; k++) {
                if (*k == 'c' && v[0] == '-')
                    has_c = true;
                if (*k == 's')
                    from_stdin = true;
                if (*k == 'i' && v[0] == '-')
                    interactive = true; /* aliases, history, PS1, ... */
                /* -k: words become assignments; -H: history expansion */
                if ((*k == 'k' || *k == 'H') && v[0] == '-')
                    interactive = true;
                if (*k == 'o' || *k == 'O')
                    takes = true;
            }
            /* -o keyword, -o history, -O cdable_vars: the script reads
             * or runs otherwise than it is written */
            if (takes && i + 1 < n && v[0] == '-' &&
                (w[i + 1].dynamic || strcmp(w[i + 1].value, "keyword") == 0 ||
                 strcmp(w[i + 1].value, "history") == 0 ||
                 strcmp(w[i + 1].value, "histexpand") == 0 ||
                 strcmp(w[i + 1].value, "cdable_vars") == 0))
                interactive = true;
            if (takes)
                i++;
            continue;
        }
        break;
    }
    char via[64];
    struct outcome o = {0};
    /* dash and ash read $'...' and $"..." apart from bash's grammar */
    bool posix_sh = strcmp(name, "sh") == 0 || strcmp(name, "dash") == 0 ||
                    strcmp(name, "ash") == 0;
    if (interactive) {
        o = opaque(c, "shell with a dynamic script");
    } else if (has_c) {
        if (i >= n)
            return rules_or(c, w, n, by_default(c));
        if (w[i].dynamic || (posix_sh && (strstr(w[i].value, "$'") != NULL ||
                                          strstr(w[i].value, "$\"") != NULL))) {
            o = opaque(c, "shell with a dynamic script");
        } else {
            snprintf(via, sizeof(via), "%s -c", name);
            o = decide_script(c, w[i].value, w[i].len, f,
                              pol_intern(c->vb, via));
        }
    } else if (i < n && !from_stdin) {
        o = own.set ? own : opaque(c, "shell runs a script file");
        return o;
    } else if (sc != NULL && sc->stdin_kind == POL_STDIN_SCRIPT) {
        snprintf(via, sizeof(via), "%s <<", name);
        o = decide_script(c, sc->stdin_text, sc->stdin_len, f,
                          pol_intern(c->vb, via));
    } else {
        return own.set
                   ? own
                   : opaque(c, "shell reads its script from standard input");
    }
    combine(&o, own);
    return o;
}

/* Step 7: eval, trap, alias. Returns false when `w` is none of them. */
static bool decide_script_builtin(struct ctx *c, const struct pol_word *w,
                                  size_t n, const struct frame *f,
                                  struct outcome *o)
{
    const char *name = w[0].value;
    struct outcome own = match_rules(c, w, n, MATCH_ALL);
    if (strcmp(name, "eval") == 0) {
        size_t i = 1;
        if (i < n && !w[i].dynamic && strcmp(w[i].value, "--") == 0)
            i++;
        size_t total = 0;
        for (size_t k = i; k < n; k++) {
            if (w[k].dynamic) {
                *o = opaque(c, "eval of a dynamic string");
                combine(o, own);
                return true;
            }
            total += w[k].len + 1;
        }
        char *joined = malloc(total + 1);
        if (joined == NULL) {
            c->nomem = true;
            return true;
        }
        size_t at = 0;
        for (size_t k = i; k < n; k++) {
            if (at)
                joined[at++] = ' ';
            memcpy(joined + at, w[k].value, w[k].len);
            at += w[k].len;
        }
        joined[at] = '\0';
        *o = decide_script(c, joined, at, f, "eval");
        free(joined);
        combine(o, own);
        return true;
    }
    if (strcmp(name, "trap") == 0) {
        size_t i = 1;
        while (i < n && !w[i].dynamic && w[i].value[0] == '-' &&
               strcmp(w[i].value, "-") != 0) {
            bool end = strcmp(w[i].value, "--") == 0;
            i++;
            if (end)
                break;
        }
        if (n - i < 2 || (!w[i].dynamic && strcmp(w[i].value, "-") == 0)) {
            *o = rules_or(c, w, n, decided(BSH_ALLOW)); /* lists or resets */
            return true;
        }
        if (w[i].dynamic)
            *o = opaque(c, "dynamic trap string");
        else
            *o = decide_script(c, w[i].value, w[i].len, f, "trap");
        combine(o, own);
        return true;
    }
    if (strcmp(name, "alias") == 0) {
        *o = own.set ? own : decided(BSH_ALLOW);
        for (size_t i = 1; i < n; i++) {
            const char *eq = memchr(w[i].value, '=', w[i].len);
            if (w[i].dynamic) {
                combine(o, opaque(c, "dynamic alias value"));
            } else if (eq != NULL) {
                size_t off = (size_t)(eq + 1 - w[i].value);
                combine(o,
                        decide_script(c, eq + 1, w[i].len - off, f, "alias"));
            }
        }
        combine(o, own);
        return true;
    }
    return false;
}

/* Step 6: git's global options. */
static struct outcome decide_git(struct ctx *c, const struct pol_word *w,
                                 size_t n)
{
    static const char *const with_arg[] = {"-C", "--git-dir", "--work-tree",
                                           "--namespace", NULL};
    static const char *const flags[] = {"--no-pager",
                                        "-P",
                                        "--bare",
                                        "--no-replace-objects",
                                        "--literal-pathspecs",
                                        "-p",
                                        "--paginate",
                                        "--no-optional-locks",
                                        "--glob-pathspecs",
                                        "--noglob-pathspecs",
                                        "--icase-pathspecs",
                                        "--no-lazy-fetch",
                                        NULL};
    size_t i = 1;
    while (i < n) {
        const struct pol_word *x = &w[i];
        if (x->dynamic)
            return opaque(c, "git -c can run commands");
        const char *v = x->value;
        if (v[0] != '-')
            break;
        if (strcmp(v, "-c") == 0 || strncmp(v, "-c", 2) == 0 ||
            strncmp(v, "--config-env", 12) == 0 ||
            strncmp(v, "--exec-path", 11) == 0)
            return opaque(c, "git -c can run commands");
        bool known = false;
        for (const char *const *a = with_arg; *a && !known; a++) {
            size_t l = strlen(*a);
            if (strcmp(v, *a) == 0) {
                known = true;
                i++;
                if (i < n && w[i].dynamic && strcmp(*a, "-C") != 0)
                    known = true;
            } else if (strncmp(v, *a, l) == 0 && v[l] == '=') {
                known = true;
            }
        }
        for (const char *const *a = flags; *a && !known; a++)
            known = strcmp(v, *a) == 0;
        if (!known)
            break; /* --version, --help, ...: decided by the rules */
        i++;
    }
    if (i == 1)
        return rules_or(c, w, n, by_default(c));
    if (i > n)
        i = n;
    struct pol_word *view = malloc((n - i + 1) * sizeof(*view));
    if (view == NULL)
        return opaque(c, "parse error");
    view[0] = w[0];
    memcpy(view + 1, w + i, (n - i) * sizeof(*view));
    struct outcome o = rules_or(c, view, n - i + 1, by_default(c));
    free(view);
    return o;
}

/* `>` TARGET for a file that a program's option or operand writes. */
static struct outcome write_of(struct ctx *c, const struct pol_word *target,
                               const struct frame *f, const char *via)
{
    struct pol_word t[2] = {{.value = (char *)">", .len = 1}, *target};
    return decide_inner(c, t, 2, f, via, WRITE_TARGET);
}

/* git writes a file that --output (log, diff, show, archive...), -o
 * (archive, format-patch) or --output-directory names: each is decided
 * as `>` TARGET, so `git log --output=.git/config` is a write. */
static struct outcome decide_git_writes(struct ctx *c, const struct pol_word *w,
                                        size_t n, const struct frame *f)
{
    struct outcome o = {0};
    bool short_o = false;
    for (size_t i = 1; i < n && (w[i].dynamic || strcmp(w[i].value, "--") != 0);
         i++) {
        const char *v = w[i].value;
        if (w[i].dynamic) {
            /* `--output="$f"`, `--o"utput=$f"`: a written start that may
             * begin the option */
            size_t fixed = strcspn(v, "$`\"'\\");
            if (fixed > 0 &&
                (strncmp(v, "--output", fixed < 8 ? fixed : 8) == 0 ||
                 (short_o && strncmp(v, "-o", fixed < 2 ? fixed : 2) == 0))) {
                combine(&o, write_of(c, &w[i], f, "git"));
            }
            continue;
        }
        if (strcmp(v, "archive") == 0 || strcmp(v, "format-patch") == 0)
            short_o = true;
        const struct pol_word *target = NULL;
        struct pol_word attached;
        size_t len = strcspn(v, "=");
        bool output = len >= 5 && (strncmp(v, "--output", len) == 0 ||
                                   strncmp(v, "--output-directory", len) == 0);
        if (output || (short_o && strncmp(v, "-o", 2) == 0)) {
            const char *at = output ? (v[len] == '=' ? v + len + 1 : NULL)
                                    : (v[2] != '\0' ? v + 2 : NULL);
            if (at != NULL) {
                attached =
                    (struct pol_word){.value = (char *)at, .len = strlen(at)};
                target = &attached;
            } else if (i + 1 < n) {
                target = &w[++i];
            }
        }
        if (target != NULL) {
            combine(&o, write_of(c, target, f, "git"));
        }
    }
    return o;
}

/* xargs --process-slot-var=NAME sets NAME in each command it runs (PATH=0
 * makes it run ./0/PROG): an assignment, checked as step 1 does, among
 * the options w[1..end). */
static struct outcome xargs_slot_var(const struct ctx *c,
                                     const struct pol_word *w, size_t end)
{
    for (size_t i = 1; i < end; i++) {
        const char *v = w[i].value;
        size_t len = strcspn(v, "=");
        if (w[i].dynamic || len < 3 ||
            strncmp(v, "--process-slot-var", len) != 0)
            continue;
        const struct pol_word *name =
            v[len] == '=' ? NULL : (i + 1 < end ? &w[i + 1] : NULL);
        const char *var = v[len] == '=' ? v + len + 1 : NULL;
        if (name != NULL && !name->dynamic)
            var = name->value;
        if ((name != NULL && name->dynamic) || var == NULL)
            return opaque(c, "command word is not static");
        if (pol_listed_name(var))
            return opaque(c, pol_reason_assignment(c->vb, var));
    }
    return (struct outcome){0};
}

/* sort -o FILE / --output=FILE writes FILE (in a cluster too: -nofile);
 * a dynamic word may be that option. */
static struct outcome decide_sort_writes(struct ctx *c,
                                         const struct pol_word *w, size_t n,
                                         const struct frame *f)
{
    struct outcome o = {0};
    for (size_t i = 1; i < n; i++) {
        const char *v = w[i].value;
        if (w[i].dynamic) {
            if (v[0] != '-' || strncmp(v, "--o", 3) == 0 || strchr(v, 'o'))
                combine(&o, write_of(c, &w[i], f, "sort -o"));
            continue;
        }
        if (strcmp(v, "--") == 0)
            break;
        if (v[0] != '-' || v[1] == '\0')
            continue;
        if (v[1] == '-') {
            size_t len = strcspn(v, "=");
            if (len < 3 || strncmp(v, "--output", len) != 0)
                continue;
            struct pol_word at = {.value = (char *)v + len + 1,
                                  .len = strlen(v + len + 1)};
            if (v[len] == '=')
                combine(&o, write_of(c, &at, f, "sort -o"));
            else if (i + 1 < n)
                combine(&o, write_of(c, &w[++i], f, "sort -o"));
            continue;
        }
        for (const char *p = v + 1; *p; p++) {
            if (strchr("kotSTy", *p) == NULL)
                continue;
            struct pol_word at = {.value = (char *)p + 1, .len = strlen(p + 1)};
            if (*p == 'o' && p[1] != '\0')
                combine(&o, write_of(c, &at, f, "sort -o"));
            else if (*p == 'o' && i + 1 < n)
                combine(&o, write_of(c, &w[i + 1], f, "sort -o"));
            i += p[1] == '\0';
            break;
        }
    }
    return o;
}

/* uniq [OPTION]... [INPUT [OUTPUT]]: the second operand is written. With
 * a dynamic word (an option or an operand, not known), every operand after
 * the first counts. */
static struct outcome decide_uniq_writes(struct ctx *c,
                                         const struct pol_word *w, size_t n,
                                         const struct frame *f)
{
    size_t operands = 0;
    bool options = true, dynamic = false;
    struct outcome o = {0};
    for (size_t i = 1; i < n; i++) {
        const char *v = w[i].value;
        dynamic = dynamic || w[i].dynamic;
        if (!w[i].dynamic && options && strcmp(v, "--") == 0) {
            options = false;
            continue;
        }
        if (!w[i].dynamic && options && v[0] == '-' && v[1] != '\0') {
            if (v[1] != '-') { /* -f N, -s N, -w N take the next word */
                const char *p = v + 1;
                while (*p && strchr("fsw", *p) == NULL)
                    p++;
                i += *p != '\0' && p[1] == '\0';
            } else if (strchr(v, '=') == NULL && strlen(v) >= 4 &&
                       (strncmp(v, "--skip-fields", strlen(v)) == 0 ||
                        strncmp(v, "--skip-chars", strlen(v)) == 0 ||
                        strncmp(v, "--check-chars", strlen(v)) == 0)) {
                i++;
            }
            continue;
        }
        if (++operands >= 2 && (operands == 2 || dynamic))
            combine(&o, write_of(c, &w[i], f, "uniq"));
    }
    return o;
}

/* What sed's option word `v` says: in-place editing (-i[SUFFIX], also in
 * a cluster such as -ni or -Ei.bak, but not inside the argument of -e,
 * -f or -l; --in-place[=SUFFIX]), a script given by option (-e, -f,
 * --expression, --file), and whether its last option takes the next
 * word as its argument. */
struct sed_option {
    bool in_place, script, takes_next;
};

static struct sed_option sed_option(const char *v)
{
    struct sed_option o = {0};
    if (v[1] == '-') {
        size_t len = strcspn(v, "=");
        bool expression = len >= 3 && strncmp(v, "--expression", len) == 0;
        bool file = len >= 4 && strncmp(v, "--file", len) == 0;
        o.in_place = len >= 5 && strncmp(v, "--in-place", len) == 0;
        o.script = expression || file;
        o.takes_next = v[len] == '\0' &&
                       (expression || file ||
                        (len >= 3 && strncmp(v, "--line-length", len) == 0));
        return o;
    }
    for (const char *p = v + 1; *p; p++) {
        if (*p == 'i') {
            o.in_place = true;
            break;
        }
        if (*p == 'e' || *p == 'f' || *p == 'l') {
            o.script = *p != 'l';
            o.takes_next = p[1] == '\0';
            break;
        }
    }
    return o;
}

/* sed -i rewrites each file it is given: each is decided as `>` FILE.
 * The script is the first operand unless an option gave one; with a
 * dynamic word among the arguments (which may be -i, or a file), every
 * operand counts as a file. */
static struct outcome decide_sed_writes(struct ctx *c, const struct pol_word *w,
                                        size_t n, const struct frame *f)
{
    bool in_place = false, script = false, dynamic = false, options = true;
    for (size_t i = 1; i < n; i++) {
        const char *v = w[i].value;
        if (w[i].dynamic) {
            dynamic = in_place = true;
        } else if (options && strcmp(v, "--") == 0) {
            options = false;
        } else if (options && v[0] == '-' && v[1] != '\0') {
            struct sed_option so = sed_option(v);
            in_place = in_place || so.in_place;
            script = script || so.script;
            i += so.takes_next;
        }
    }
    struct outcome o = {0};
    options = true;
    for (size_t i = 1; in_place && i < n; i++) {
        const char *v = w[i].value;
        if (!w[i].dynamic && options && strcmp(v, "--") == 0) {
            options = false;
            continue;
        }
        if (!w[i].dynamic && options && v[0] == '-' && v[1] != '\0') {
            i += sed_option(v).takes_next;
            continue;
        }
        if (!script && !dynamic) {
            script = true; /* the first operand */
            continue;
        }
        combine(&o, write_of(c, &w[i], f, "sed -i"));
    }
    return o;
}

/* `head` then each word single-quoted (a dynamic one as written), as
 * shell text: malloc'd, or NULL. */
static char *join_quoted(const char *head, const struct pol_word *w, size_t n)
{
    size_t total = strlen(head) + 1;
    for (size_t i = 0; i < n; i++)
        total += w[i].len * 4 + 3;
    char *s = malloc(total);
    if (s == NULL)
        return NULL;
    size_t at = strlen(head);
    memcpy(s, head, at);
    for (size_t i = 0; i < n; i++) {
        s[at++] = ' ';
        if (w[i].dynamic) {
            memcpy(s + at, w[i].value, w[i].len);
            at += w[i].len;
            continue;
        }
        s[at++] = '\'';
        for (size_t k = 0; k < w[i].len; k++) {
            if (w[i].value[k] == '\'') {
                memcpy(s + at, "'\\''", 4);
                at += 4;
            } else {
                s[at++] = w[i].value[k];
            }
        }
        s[at++] = '\'';
    }
    s[at] = '\0';
    return s;
}

/* Steps 9 and 10: a wrapper. */
static struct outcome decide_wrapper(struct ctx *c, const struct pol_word *w,
                                     size_t n, const struct frame *f,
                                     const struct pol_wrapper *wr,
                                     bool privilege,
                                     const struct pol_simple *sc)
{
    (void)sc;
    struct pol_unwrap u;
    pol_unwrap(wr, w, n, &u);
    const char *name = pol_wrapper_name(wr);
    struct outcome own = match_rules(c, w, n, MATCH_ALL);
    struct outcome o = privilege ? (own.set ? own : by_default(c)) : own;
    if (u.unknown != NULL) {
        combine(&o,
                opaque(c, pol_reason_unknown_option(c->vb, name, u.unknown)));
        return o;
    }
    if (u.dynamic) {
        combine(&o, opaque(c, "command word is not static"));
        return o;
    }
    for (size_t i = u.assign_from; i < u.assign_to; i++) {
        char buf[256];
        const char *an = assigned_name(&w[i], buf, sizeof(buf));
        const char *value = w[i].dynamic ? NULL : strchr(w[i].value, '=');
        if (an != NULL &&
            pol_listed_assignment(an, value != NULL ? value + 1 : NULL))
            combine(&o, opaque(c, pol_reason_assignment(c->vb, an)));
    }
    if (strcmp(name, "xargs") == 0)
        combine(&o, xargs_slot_var(c, w, u.next < n ? u.next : n));
    if (u.output != NULL) {
        struct pol_word out = {.value = (char *)u.output,
                               .len = strlen(u.output),
                               .dynamic = u.output_dynamic};
        combine(&o, write_of(c, &out, f, name));
    }
    bool env = strcmp(name, "env") == 0;
    if (!env && u.shell != NULL) {
        /* su -s SHELL: SHELL runs the -c string, whatever program it is */
        struct pol_word sh[3] = {
            {.value = (char *)u.shell,
             .len = strlen(u.shell),
             .dynamic = u.shell_dynamic},
            {.value = (char *)"-c", .len = 2},
            {.value = (char *)(u.script != NULL ? u.script : ""),
             .len = u.script != NULL ? strlen(u.script) : 0,
             .dynamic = u.script_dynamic}};
        combine(&o, decide_inner(c, sh, u.script != NULL ? 3 : 1, f, name, 0));
        return o;
    }
    if (u.script != NULL) {
        char via[64];
        snprintf(via, sizeof(via), "%s %s", name, env ? "-S" : "-c");
        /* env -S has escapes, ${VAR} and options of its own: only a plain
         * string reads like a shell's words */
        bool plain = !env || (strpbrk(u.script, "\\$") == NULL &&
                              u.script[strspn(u.script, " \t")] != '-');
        if (u.script_dynamic || !plain) {
            combine(&o, opaque(c, env ? "env -S with a dynamic string"
                                      : "shell with a dynamic script"));
        } else if (env && u.next < n) {
            /* env runs the split string followed by the other words: one
             * command, decided as such */
            char *joined = join_quoted(u.script, w + u.next, n - u.next);
            if (joined == NULL) {
                c->nomem = true;
                return o;
            }
            combine(&o, decide_script(c, joined, strlen(joined), f,
                                      pol_intern(c->vb, via)));
            free(joined);
            return o;
        } else {
            combine(&o, decide_script(c, u.script, strlen(u.script), f,
                                      pol_intern(c->vb, via)));
        }
        if (!env || u.next >= n)
            return o;
    }
    if (privilege && !u.no_command && u.next >= n && u.script == NULL) {
        /* su, sudo -s, doas -s, pkexec with no command: a root shell that
         * reads its commands from standard input */
        combine(&o, opaque(c, "shell reads its script from standard input"));
        return o;
    }
    if (u.no_command || u.next >= n) {
        if (u.no_command && !u.query && !u.bare_runs_nothing && !o.set)
            return by_default(c);
        if (u.next >= n && u.bare_echo) {
            struct pol_word echo = {.value = (char *)"echo", .len = 4};
            struct pol_word words[2] = {
                echo, {.value = (char *)"(input)", .len = 7, .dynamic = true}};
            combine(&o, decide_inner(c, words, 2, f, name, 0));
            return o;
        }
        if (o.set)
            return o;
        return u.bare_runs_nothing && !u.query ? decided(BSH_ALLOW)
                                               : by_default(c);
    }
    /* The inner command: xargs adds words from its input, and -I puts
     * them inside words. */
    size_t inner_n = n - u.next + (u.reads_stdin_args ? 1 : 0);
    struct pol_word *inner = malloc(inner_n * sizeof(*inner));
    if (inner == NULL) {
        c->nomem = true;
        return o;
    }
    memcpy(inner, w + u.next, (n - u.next) * sizeof(*inner));
    if (u.reads_stdin_args) {
        inner[inner_n - 1] = (struct pol_word){
            .value = (char *)"(input)", .len = 7, .dynamic = true};
        for (size_t i = 0; i < inner_n - 1 && u.replace != NULL && *u.replace;
             i++)
            if (strstr(inner[i].value, u.replace) != NULL)
                inner[i].dynamic = true;
    }
    combine(&o, decide_inner(c, inner, inner_n, f, name,
                             u.skip_functions ? SKIP_FUNCTIONS : 0));
    free(inner);
    return o;
}

/* Step 11: find's -exec, -delete and -fprint. */
static struct outcome decide_find(struct ctx *c, const struct pol_word *w,
                                  size_t n, const struct frame *f)
{
    struct outcome own = match_rules(c, w, n, MATCH_ALL);
    struct outcome o = own.set ? own : by_default(c);
    for (size_t i = 1; i < n; i++) {
        const struct pol_word *x = &w[i];
        if (x->dynamic) {
            combine(&o, opaque(c, "command word is not static"));
            continue;
        }
        const char *v = x->value;
        if (strcmp(v, "-exec") == 0 || strcmp(v, "-execdir") == 0 ||
            strcmp(v, "-ok") == 0 || strcmp(v, "-okdir") == 0) {
            size_t s = i + 1, e = s;
            while (e < n &&
                   !(!w[e].dynamic && (strcmp(w[e].value, ";") == 0 ||
                                       (strcmp(w[e].value, "+") == 0 && e > s &&
                                        strcmp(w[e - 1].value, "{}") == 0))))
                e++;
            if (e > s) {
                struct pol_word *inner = malloc((e - s) * sizeof(*inner));
                if (inner == NULL) {
                    c->nomem = true;
                    return o;
                }
                memcpy(inner, w + s, (e - s) * sizeof(*inner));
                for (size_t k = 0; k < e - s; k++)
                    if (strstr(inner[k].value, "{}") != NULL)
                        inner[k].dynamic = true;
                char via[32];
                snprintf(via, sizeof(via), "find %s", v);
                combine(&o, decide_inner(c, inner, e - s, f,
                                         pol_intern(c->vb, via), 0));
                free(inner);
            }
            i = e;
        } else if (strcmp(v, "-delete") == 0) {
            struct pol_word rm = {.value = (char *)"rm", .len = 2};
            combine(&o, decide_inner(c, &rm, 1, f, "find -delete", 0));
        } else if ((strcmp(v, "-fprint") == 0 || strcmp(v, "-fprint0") == 0 ||
                    strcmp(v, "-fprintf") == 0 || strcmp(v, "-fls") == 0) &&
                   i + 1 < n) {
            combine(&o, write_of(c, &w[i + 1], f, "find"));
            i += strcmp(v, "-fprintf") == 0 ? 2 : 1;
        }
    }
    return o;
}

/* A session alias, expanded: its value with the other words appended. */
static bool decide_alias(struct ctx *c, const struct pol_word *w, size_t n,
                         const struct frame *f, struct outcome *o, bool *sure)
{
    if (w[0].quoted)
        return false;
    size_t vlen = 0;
    const char *value = script_alias(c, w[0].value, &vlen);
    *sure = false; /* defined in the command: maybe not where it is used */
    if (value == NULL && c->lookup != NULL && c->lookup->alias != NULL) {
        value = c->lookup->alias(c->lookup->data, w[0].value, &vlen);
        *sure = !any_unset(c);
    }
    if (value == NULL)
        return false;
    if (value == pol_unreadable) {
        *o = opaque(c, "parse error");
        return true;
    }
    size_t total = vlen + 1;
    for (size_t i = 1; i < n; i++)
        total += w[i].len * 4 + 3;
    char *script = malloc(total + 1);
    if (script == NULL) {
        c->nomem = true;
        return true;
    }
    size_t at = 0;
    memcpy(script, value, vlen);
    at = vlen;
    for (size_t i = 1; i < n; i++) {
        script[at++] = ' ';
        if (w[i].dynamic) {
            memcpy(script + at, w[i].value, w[i].len);
            at += w[i].len;
            continue;
        }
        /* single-quoted: the word's value, as the alias's next word */
        bool alias_next = i == 1 && vlen > 0 &&
                          (value[vlen - 1] == ' ' || value[vlen - 1] == '\t');
        if (alias_next && !w[i].quoted) {
            memcpy(script + at, w[i].value, w[i].len);
            at += w[i].len;
            continue;
        }
        script[at++] = '\'';
        for (size_t k = 0; k < w[i].len; k++) {
            if (w[i].value[k] == '\'') {
                memcpy(script + at, "'\\''", 4);
                at += 4;
            } else {
                script[at++] = w[i].value[k];
            }
        }
        script[at++] = '\'';
    }
    script[at] = '\0';
    char via[96];
    snprintf(via, sizeof(via), "alias %.80s", w[0].value);
    *o = decide_script(c, script, at, f, pol_intern(c->vb, via));
    free(script);
    return true;
}

static bool decide_function(struct ctx *c, const struct pol_word *w, size_t n,
                            const struct pol_simple *sc, const struct frame *f,
                            struct outcome *o, bool *sure)
{
    const char *text = NULL;
    size_t body_len = 0;
    const char *body = NULL;
    const struct pol_funcdef *def = find_function(
        c, w[0].value, sc != NULL ? sc->start : SIZE_MAX, &text, sure);
    if (def != NULL) {
        body = text + def->body_start;
        body_len = def->body_end - def->body_start;
    } else if (c->lookup != NULL && c->lookup->function != NULL) {
        body = c->lookup->function(c->lookup->data, w[0].value, &body_len);
        *sure = !any_unset(c) && !special_builtin(w[0].value);
    }
    if (body == NULL)
        return false;
    if (body == pol_unreadable) {
        *o = opaque(c, "parse error");
        return true;
    }
    *o = match_rules(c, w, n, MATCH_STRICT_ONLY);
    for (size_t i = 0; i < c->nbodies; i++)
        if (c->in_body[i] == body)
            return true; /* a call inside its own body: already decided */
    for (size_t i = 0; i < c->nmemo; i++) {
        if (c->memo_body[i] == body) {
            combine(o, c->memo[i]);
            return true;
        }
    }
    if (c->nbodies >= sizeof(c->in_body) / sizeof(c->in_body[0])) {
        combine(o, opaque(c, "nesting too deep"));
        return true;
    }
    c->in_body[c->nbodies++] = body;
    char via[96];
    snprintf(via, sizeof(via), "function %.80s", w[0].value);
    struct outcome r =
        decide_script(c, body, body_len, f, pol_intern(c->vb, via));
    combine(o, r);
    c->nbodies--;
    if (c->nmemo < sizeof(c->memo) / sizeof(c->memo[0])) {
        c->memo_body[c->nmemo] = body;
        c->memo[c->nmemo++] = r;
    }
    return true;
}

/* Words bash reads as a reserved word where a command's name goes:
 * tree-sitter-bash read a compound command as a simple one. */
static bool reserved_word(const struct pol_word *w)
{
    return !w->quoted && !w->dynamic &&
           (pol_command_class(w->value) & C_RESERVED) != 0;
}

/* Steps 6 to 14: what the command word is. */
static struct outcome decide_command(struct ctx *c, const struct pol_word *w,
                                     size_t n, const struct pol_simple *sc,
                                     const struct frame *f)
{
    const char *name = w[0].value;
    const char *base = base_name(name);
    /* builtins by the name as written, programs by their basename too */
    unsigned named = pol_command_class(name);
    unsigned prog =
        base == name ? named : pol_command_class(base) & ~C_BUILTIN_ONLY;
    struct outcome r;
    char buf[160];
    const char *effect = (named & C_EFFECT) || ((named | prog) & C_RUNNING)
                             ? pol_command_effect(w, n, base, buf, sizeof(buf))
                             : NULL;
    struct outcome extra = effect != NULL ? opaque(c, pol_intern(c->vb, effect))
                                          : (struct outcome){0};
    if (prog & C_GIT) {
        r = decide_git(c, w, n);
        combine(&r, decide_git_writes(c, w, n, f));
    } else if ((named & C_SCRIPT) && decide_script_builtin(c, w, n, f, &r))
        ;
    else if (prog & C_SHELL)
        r = decide_shell(c, w, n, sc, f, base);
    else if ((prog & C_BUSYBOX) && n > 1 && !w[1].dynamic &&
             (pol_command_class(w[1].value) & C_SHELL)) {
        r = decide_shell(c, w + 1, n - 1, sc, f, w[1].value);
        combine(&r, match_rules(c, w, n, MATCH_ALL));
    } else if ((prog & C_BUSYBOX) && n > 1) {
        /* BUSYBOX APPLET ARGS runs the applet: decided as it */
        r = match_rules(c, w, n, MATCH_ALL);
        combine(&r, w[1].dynamic ? opaque(c, "command word is not static")
                                 : decide_inner(c, w + 1, n - 1, f, base, 0));
    } else {
        bool privilege = false;
        const struct pol_wrapper *wr = (named | prog) & C_WRAPPER
                                           ? pol_wrapper_find(base, &privilege)
                                           : NULL;
        if (wr != NULL && (strcmp(name, base) == 0 || !pol_wrapper_exact(wr)))
            r = decide_wrapper(c, w, n, f, wr, privilege, sc);
        else if (prog & C_FIND)
            r = decide_find(c, w, n, f);
        else if (named & C_SOURCE)
            r = rules_or(c, w, n, opaque(c, "source of a file"));
        else if (named & C_NEUTRAL)
            r = rules_or(c, w, n, decided(BSH_ALLOW));
        else
            r = rules_or(c, w, n, by_default(c));
    }
    if (strcmp(base, "sed") == 0)
        combine(&r, decide_sed_writes(c, w, n, f));
    else if (strcmp(base, "sort") == 0)
        combine(&r, decide_sort_writes(c, w, n, f));
    else if (strcmp(base, "uniq") == 0)
        combine(&r, decide_uniq_writes(c, w, n, f));
    combine(&r, extra);
    return r;
}

static struct outcome decide_words(struct ctx *c, const struct pol_word *w,
                                   size_t n, const struct pol_simple *sc,
                                   const struct frame *f, unsigned flags)
{
    if (n == 0)
        return decided(BSH_ALLOW);
    /* a glob names what the files say, also where a wrapper's command is */
    if (w[0].dynamic || w[0].glob)
        return opaque(c, "command word is not static");
    if (reserved_word(&w[0]))
        return opaque(c, "parse error");
    /* An alias or a function replaces the command; where it is not
     * certain to be the one bash uses, the command as it is counts too. */
    struct outcome r;
    bool sure = false;
    bool found = !(flags & SKIP_FUNCTIONS) &&
                 (decide_alias(c, w, n, f, &r, &sure) ||
                  decide_function(c, w, n, sc, f, &r, &sure));
    if (found && sure)
        return r;
    struct outcome o = decide_command(c, w, n, sc, f);
    if (found)
        combine(&o, r);
    return o;
}

/* "DIR/PATH" (or PATH when `dir` is NULL) in a new string with one byte
 * of room beyond it; NULL when the memory runs out. */
static char *joined_path(const char *dir, const char *path, size_t *size)
{
    *size = (dir ? strlen(dir) + 1 : 0) + strlen(path) + 2;
    char *joined = malloc(*size);
    if (joined != NULL)
        snprintf(joined, *size, "%s%s%s", dir ? dir : "", dir ? "/" : "", path);
    return joined;
}

/* `path` made plain: no empty, `.` or `..` parts (lexically, as the
 * kernel walks a path without links), into a new string. */
static char *plain_path(const char *dir, const char *path)
{
    size_t n;
    char *joined = joined_path(dir, path, &n), *out = malloc(n);
    if (joined == NULL || out == NULL) {
        free(joined);
        free(out);
        return NULL;
    }
    size_t o = 0;
    out[o++] = '/';
    for (char *save = NULL, *part = strtok_r(joined, "/", &save); part;
         part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(part, "..") == 0) {
            while (o > 1 && out[o - 1] != '/') /* drop the last part */
                o--;
            if (o > 1)
                o--; /* and the slash before it */
            continue;
        }
        if (o > 1 && out[o - 1] != '/')
            out[o++] = '/';
        size_t k = strlen(part);
        memcpy(out + o, part, k);
        o += k;
    }
    out[o] = '\0';
    free(joined);
    return out;
}

static char *physical_path_at(const char *dir, const char *path, int links);

/* `head`/`last`, `head` resolved, and when `last` is a symbolic link (even
 * one to a file not there yet, which a write creates) where it leads. */
static char *last_followed(const char *head, const char *last, int links)
{
    char *candidate = plain_path(head, last);
    if (candidate == NULL || last[0] == '\0' || strcmp(last, ".") == 0 ||
        strcmp(last, "..") == 0)
        return candidate;
    char target[PATH_MAX];
    ssize_t k = readlink(candidate, target, sizeof(target) - 1);
    if (k <= 0)
        return candidate; /* not a link, or not there */
    target[k] = '\0';
    free(candidate);
    return physical_path_at(target[0] == '/' ? NULL : head, target, links - 1);
}

/* The file that `path` (absolute, or relative to absolute `dir`) names as
 * the kernel resolves it: symbolic links followed, `..` taken from where
 * they lead (/var/run/../etc is /etc when /var/run is a link to /run),
 * the part that does not exist yet folded as written. The directory is
 * resolved first, then its last component read as a link: a few system
 * calls. NULL when the memory runs out. */
static char *physical_path_at(const char *dir, const char *path, int links)
{
    size_t n;
    char *whole = joined_path(dir, path, &n), *joined = malloc(n);
    if (whole == NULL || joined == NULL) {
        free(whole);
        free(joined);
        return NULL;
    }
    memcpy(joined, whole, n);
    char *found = NULL;
    bool parent = true; /* the first cut: the last component's directory */
    for (char *cut = strrchr(joined, '/'); cut != NULL;
         cut = strrchr(joined, '/'), parent = false) {
        *cut = '\0';
        char *head = realpath(cut == joined ? "/" : joined, NULL);
        if (head == NULL)
            continue; /* not there (yet): climb */
        const char *rest = whole + (cut - joined) + 1;
        found = parent && links > 0 ? last_followed(head, rest, links)
                                    : plain_path(head, rest);
        free(head);
        break;
    }
    free(whole);
    free(joined);
    return found;
}

static char *physical_path(const char *dir, const char *path)
{
    return physical_path_at(dir, path, 8);
}

/* At most this many places a relative redirection may be taken from;
 * more are not known. */
#define TARGET_DIRS_MAX 8

/* The word of a simple command that says what it runs, past `builtin`,
 * `command` and `time` (and `-p`, `--`); NULL when dynamic or none. */
static const char *runs_word(const struct pol_simple *cmd, size_t *at)
{
    for (size_t k = 0; k < cmd->nwords; k++) {
        const struct pol_word *w = &cmd->words[k];
        if (w->dynamic)
            return NULL;
        if (strcmp(w->value, "builtin") == 0 ||
            strcmp(w->value, "command") == 0 || strcmp(w->value, "time") == 0 ||
            (k > 0 &&
             (strcmp(w->value, "-p") == 0 || strcmp(w->value, "--") == 0)))
            continue;
        *at = k;
        return w->value;
    }
    return NULL;
}

/* Whether a trap's or an alias's strings (words from `from`) may change
 * directory when they run: dynamic, or naming cd, pushd, popd, eval or
 * source. */
static bool strings_may_cd(const struct pol_simple *cmd, size_t from)
{
    static const char *const movers[] = {"cd",   "pushd",  "popd",
                                         "eval", "source", ". "};
    for (size_t k = from; k < cmd->nwords; k++) {
        if (cmd->words[k].dynamic)
            return true;
        for (size_t m = 0; m < sizeof(movers) / sizeof(movers[0]); m++)
            if (strstr(cmd->words[k].value, movers[m]) != NULL)
                return true;
    }
    return false;
}

/* Whether byte `pos` of script `s` may run more than once: in a loop's
 * body or a function's. */
static bool repeats(const struct pol_script *s, size_t pos)
{
    for (size_t i = 0; i < s->nloops; i++)
        if (s->loops[i].start <= pos && pos < s->loops[i].end)
            return true;
    for (size_t i = 0; i < s->nfuncs; i++)
        if (s->funcs[i].body_start <= pos && pos < s->funcs[i].body_end)
            return true;
    return false;
}

/* Adds place `d` (taken; NULL: the start, not known) unless there. */
static bool add_dir(char **dirs, size_t *n, char *d)
{
    for (size_t i = 0; i < *n; i++) {
        if ((d == NULL && dirs[i] == NULL) ||
            (d != NULL && dirs[i] != NULL && strcmp(d, dirs[i]) == 0)) {
            free(d);
            return true;
        }
    }
    if (*n == TARGET_DIRS_MAX) {
        free(d);
        return false;
    }
    dirs[(*n)++] = d;
    return true;
}

/* Follows the cds of script `s` in source order: each `cd` adds where it
 * leads from every place so far (whether it ran first is not known, so
 * the places before stay). False when they cannot be followed: pushd,
 * popd, eval, source (which may cd), a trap or alias that may, shopt
 * (cdable_vars), a dynamic cd (`cd "$D"`, `cd -`, `cd ~`, cd with no
 * operand), a cd into /proc, a cd that may run more than once (in a loop
 * or a function), a relative cd where the session sends it elsewhere
 * (CDPATH, cdable_vars), or more places than the bound. */
static bool follow_cds(const struct ctx *c, const struct pol_script *s,
                       char **dirs, size_t *n)
{
    for (size_t i = 0; i < s->ncmds; i++) {
        const struct pol_simple *cmd = &s->cmds[i];
        size_t at = 0;
        const char *w = runs_word(cmd, &at);
        if (w == NULL)
            continue;
        if (strcmp(w, "pushd") == 0 || strcmp(w, "popd") == 0 ||
            strcmp(w, "eval") == 0 || strcmp(w, "source") == 0 ||
            strcmp(w, ".") == 0)
            return false;
        if ((strcmp(w, "trap") == 0 || strcmp(w, "alias") == 0) &&
            strings_may_cd(cmd, at + 1))
            return false;
        if (strcmp(w, "shopt") == 0)
            for (size_t k = at + 1; k < cmd->nwords; k++)
                if (cmd->words[k].dynamic ||
                    strcmp(cmd->words[k].value, "cdable_vars") == 0)
                    return false;
        if (strcmp(w, "cd") != 0)
            continue;
        const struct pol_word *op = &cmd->words[cmd->nwords - 1];
        if (cmd->nwords < at + 2 || op->dynamic || op->glob ||
            op->value[0] == '-' || op->value[0] == '~' ||
            strstr(op->value, "/proc") != NULL || repeats(s, cmd->start) ||
            (op->value[0] != '/' && c->lookup != NULL &&
             c->lookup->cd_elsewhere))
            return false;
        size_t before = *n;
        for (size_t j = 0; j < before; j++) {
            if (op->value[0] != '/' && dirs[j] == NULL)
                continue; /* from a place not known: stays relative */
            char *to =
                plain_path(op->value[0] == '/' ? NULL : dirs[j], op->value);
            if (to == NULL || !add_dir(dirs, n, to))
                return false;
        }
    }
    return true;
}

/* The places a relative redirection of the innermost script may be taken
 * from: the run's start (`base`: the run's own directory, or its
 * session's; NULL when not known, and the target stays as written), and
 * wherever the cds of this script and of those it is nested in lead (a
 * nested script, bash -c or eval, starts where its caller was). False
 * when they cannot be told. */
static bool target_dirs(const struct ctx *c, char **dirs, size_t *n)
{
    *n = 0;
    const char *base = c->cwd;
    if (base == NULL && c->lookup != NULL)
        base = c->lookup->cwd;
    char *start = base != NULL ? strdup(base) : NULL;
    if (base != NULL && start == NULL)
        return false;
    dirs[(*n)++] = start;
    for (size_t s = 0; s < c->nscopes; s++)
        if (!follow_cds(c, c->scopes[s], dirs, n))
            return false;
    return true;
}

/* The pseudo-command `>` TARGET: its target as the file bash opens, from
 * every place it may be taken from. Lexically: `..` after a symbolic link
 * is not followed (nor is a link at all: see the documentation). */
static struct outcome decide_write(struct ctx *c, const struct pol_word *words,
                                   size_t nwords)
{
    if (nwords < 2)
        return rules_or(c, words, nwords, by_default(c));
    const struct pol_word *t = &words[1];
    char *dirs[TARGET_DIRS_MAX] = {NULL};
    size_t ndirs = 1;
    bool known =
        t->dynamic || t->value[0] == '/' || target_dirs(c, dirs, &ndirs);
    if (t->dynamic || t->value[0] == '/')
        ndirs = 1;
    struct outcome o = {0};
    for (size_t i = 0; i < (known ? ndirs : 1); i++) {
        struct pol_word w[2] = {words[0], words[1]};
        char *plain = NULL;
        if (!t->dynamic &&
            (t->glob || t->value[0] == '~' || (!known && t->value[0] != '/') ||
             (dirs[i] == NULL && t->value[0] != '/' &&
              strstr(t->value, "..") != NULL)))
            w[1].dynamic = true; /* ~user, a glob, after a cd not known, or
                                    climbing from a place not known */
        else if (!t->dynamic && (t->value[0] == '/' || dirs[i] != NULL))
            plain = plain_path(t->value[0] == '/' ? NULL : dirs[i], t->value);
        char *physical = NULL;
        if (plain != NULL) {
            w[1].value = plain;
            w[1].len = strlen(plain);
            /* /proc/self/root/etc/..., /proc/PID/cwd/...: any file */
            if (strncmp(plain, "/proc/", 6) == 0)
                w[1].dynamic = true;
            physical =
                physical_path(t->value[0] == '/' ? NULL : dirs[i], t->value);
        }
        combine(&o, rules_or(c, w, 2, by_default(c)));
        if (physical != NULL && strcmp(physical, plain) != 0) {
            /* and the file a link leads to, decided too */
            w[1].value = physical;
            w[1].len = strlen(physical);
            w[1].dynamic = strncmp(physical, "/proc/", 6) == 0;
            combine(&o, rules_or(c, w, 2, by_default(c)));
        }
        free(physical);
        free(plain);
    }
    for (size_t i = 0; i < TARGET_DIRS_MAX; i++)
        free(dirs[i]);
    return o;
}

static struct outcome decide_simple(struct ctx *c, const struct pol_simple *sc,
                                    const struct frame *level)
{
    struct frame f = *level;
    f.start = sc->start;
    f.end = sc->end;
    size_t e = new_entry(c, &f, sc->words, sc->nwords);
    struct outcome o = check_assignments(c, sc->assigns, sc->nassigns);
    struct outcome steps;
    if (sc->redirect_target) {
        steps = decide_write(c, sc->words, sc->nwords);
    } else {
        steps = decide_words(c, sc->words, sc->nwords, sc, &f, 0);
    }
    combine(&o, steps);
    o = approved(c, sc->words, sc->nwords, o);
    set_entry(c, e, o);
    return o;
}

/* What a script does to functions and aliases. `session`: aliases are
 * expanded in a session's shell from the start. */
static struct scope_facts facts_of(const struct pol_script *s, bool session)
{
    /* aliases the command defines may be expanded however they were turned
     * on (shopt, set -o posix, POSIXLY_CORRECT, sh): assumed they are */
    (void)session;
    struct scope_facts f = {.expand_aliases = true};
    for (size_t i = 0; i < s->ncmds; i++) {
        const struct pol_simple *c = &s->cmds[i];
        if (c->nwords == 0)
            continue;
        const char *w0 = c->words[0].value;
        if (c->words[0].dynamic || strcmp(w0, "unset") == 0 ||
            strcmp(w0, "unalias") == 0)
            f.unsets = true;
        if (strcmp(w0, "alias") == 0 && c->nwords > 1) {
            if (f.naliases < SCOPE_ALIASES)
                f.aliases[f.naliases++] = c;
            else
                f.too_many_aliases = true;
        }
    }
    return f;
}

static struct outcome decide_script(struct ctx *c, const char *text, size_t len,
                                    const struct frame *f, const char *via)
{
    struct nested nf;
    bool ok = via == NULL ? (nf.f = *f, true) : nest(f, via, &nf);
    if (!ok || c->nscopes >= POL_MAX_DEPTH + 1) {
        struct pol_word whole = {
            .value = (char *)text, .len = len, .dynamic = true};
        size_t e = new_entry(c, &nf.f, &whole, 1);
        struct outcome o = opaque(c, "nesting too deep");
        set_entry(c, e, o);
        return o;
    }
    if (++c->scripts > POL_MAX_SCRIPTS) {
        struct pol_word whole = {.value = (char *)text,
                                 .len = len > 4096 ? 4096 : len,
                                 .dynamic = true};
        size_t e = new_entry(c, &nf.f, &whole, 1);
        struct outcome o = opaque(c, "nesting too deep");
        set_entry(c, e, o);
        return o;
    }
    struct pol_script *script = calloc(1, sizeof(*script));
    if (script == NULL || pol_bash_parse(c->parser, text, len, script) != 0) {
        free(script);
        c->nomem = true;
        return opaque(c, "parse error");
    }
    struct outcome o = {0};
    if (script->error != NULL) {
        struct frame ef = nf.f;
        ef.start = 0;
        ef.end = len;
        struct pol_word whole = {.value = (char *)text,
                                 .len = len > 4096 ? 4096 : len,
                                 .dynamic = true};
        size_t e = new_entry(c, &ef, &whole, 1);
        o = opaque(c, script->error);
        set_entry(c, e, o);
    } else {
        c->scopes[c->nscopes] = script;
        c->scope_text[c->nscopes] = text;
        c->facts[c->nscopes] = facts_of(script, c->lookup != NULL);
        c->nscopes++;
        for (size_t i = 0; i < script->ncmds && !c->nomem; i++)
            combine(&o, decide_simple(c, &script->cmds[i], &nf.f));
        c->nscopes--;
        /* bodies in this text are gone with it: no memo may outlive it */
        size_t kept = 0;
        for (size_t i = 0; i < c->nmemo; i++) {
            if (c->memo_body[i] >= text && c->memo_body[i] < text + len)
                continue;
            c->memo_body[kept] = c->memo_body[i];
            c->memo[kept++] = c->memo[i];
        }
        c->nmemo = kept;
    }
    pol_script_free(script);
    free(script);
    return o.set ? o : decided(BSH_ALLOW);
}

int pol_decide(const struct bsh_policy *policy,
               const struct bsh_policy_overlay *overlay,
               const struct pol_lookup *lookup, const char *cwd,
               const char *command, size_t len, struct pol_verdict_builder *vb,
               enum bsh_decision *decision)
{
    struct ctx c = {.policy = policy,
                    .overlay = overlay,
                    .lookup = lookup,
                    .cwd = cwd,
                    .vb = vb};
    c.parser = pol_policy_parser_take(policy);
    if (c.parser == NULL)
        return -1;
    struct frame top = {.depth = 0};
    struct outcome o = decide_script(&c, command, len, &top, NULL);
    pol_policy_parser_give(policy, c.parser);
    if (c.nomem)
        return -1;
    if (c.overflow) { /* not all seen: never allowed, and said so */
        o = opaque(&c, "nesting too deep");
        struct pol_word whole = {.value = (char *)command,
                                 .len = len > 64 ? 64 : len,
                                 .dynamic = true};
        size_t e = pol_verdict_add(vb, 0, len, NULL, 0, &whole, 1);
        if (e == SIZE_MAX)
            return -1;
        pol_verdict_set(vb, e, o.d, NULL, o.reason);
    }
    *decision = o.d;
    return 0;
}
