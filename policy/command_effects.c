/* SPDX-License-Identifier: MIT */
/*
 * What a simple command does besides running its program, that a rule on
 * its words would not show: variables it assigns without `NAME=` syntax
 * (printf -v, read, mapfile, getopts, declare 'NAME=...', namerefs, hash
 * -p), code a builtin loads (enable -f), options that make a program run
 * another one (sort --compress-program, rg --pre, git --upload-pack, tar
 * --to-command, ssh -o ProxyCommand, sed's e command...), and git
 * configuration written for later. Each makes the command opaque.
 */
#include "command_effects.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

bool pol_listed_name(const char *name)
{
    static const char *const listed[] = {"PATH",
                                         "IFS",
                                         "ENV",
                                         "BASH_ENV",
                                         "SHELLOPTS",
                                         "BASHOPTS",
                                         "PROMPT_COMMAND",
                                         "PS4",
                                         "GIT_SSH_COMMAND",
                                         "GIT_SSH",
                                         "GIT_EXEC_PATH",
                                         "GIT_EXTERNAL_DIFF",
                                         "GIT_PAGER",
                                         "PAGER",
                                         "EDITOR",
                                         "VISUAL",
                                         "GIT_EDITOR",
                                         "LESSOPEN",
                                         "LESSCLOSE",
                                         "GIT_ASKPASS",
                                         "SSH_ASKPASS",
                                         "CDPATH",
                                         "GLOBIGNORE",
                                         "BASH_XTRACEFD",
                                         "HISTFILE",
                                         "GIT_DIR",
                                         "GIT_COMMON_DIR",
                                         "GIT_WORK_TREE",
                                         "GIT_TEMPLATE_DIR",
                                         "GIT_PROXY_COMMAND",
                                         "GIT_SEQUENCE_EDITOR",
                                         "PYTHONSTARTUP",
                                         "PYTHONPATH",
                                         "NODE_OPTIONS",
                                         "PERL5OPT",
                                         "RUBYOPT",
                                         "BASH_CMDS",
                                         "BASH_ALIASES",
                                         "BASH_LOADABLES_PATH",
                                         "HOME",
                                         "XDG_CONFIG_HOME",
                                         "PS0",
                                         "PS1",
                                         "PS2",
                                         "PS3",
                                         "POSIXLY_CORRECT",
                                         "MANPAGER",
                                         "BROWSER",
                                         "LC_ALL",
                                         "LC_CTYPE",
                                         "LANG",
                                         "RUSTC",
                                         "RUSTC_WRAPPER",
                                         "RUSTC_WORKSPACE_WRAPPER",
                                         "RUSTDOC",
                                         "RUSTFLAGS",
                                         "RUSTDOCFLAGS",
                                         "CARGO_ENCODED_RUSTFLAGS",
                                         "BSH_POLICY",
                                         "BSH_POLICY_DEFAULT",
                                         "TAR_OPTIONS",
                                         "MAKEFLAGS",
                                         "MAKEFILES",
                                         "EXECIGNORE",
                                         "GIT_INDEX_FILE",
                                         "GIT_OBJECT_DIRECTORY",
                                         "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                                         "MFLAGS",
                                         "GNUMAKEFLAGS",
                                         "GOFLAGS",
                                         "TEXTDOMAIN",
                                         "TEXTDOMAINDIR",
                                         "LOCPATH",
                                         "NLSPATH",
                                         "GCONV_PATH",
                                         NULL};
    for (const char *const *l = listed; *l; l++)
        if (strcmp(name, *l) == 0)
            return true;
    return strncmp(name, "LD_", 3) == 0 ||
           strncmp(name, "GIT_CONFIG", 10) == 0 ||
           strncmp(name, "GIT_TRACE", 9) == 0 || /* writes to any file */
           strncmp(name, "BASH_FUNC_", 10) == 0 ||
           strncmp(name, "CARGO_BUILD_", 12) == 0 ||
           strncasecmp(name, "npm_config_", 11) == 0 ||
           (strncmp(name, "CARGO_TARGET_", 13) == 0 &&
            strcmp(name, "CARGO_TARGET_DIR") != 0);
}

/* A locale bash reads the command in the same way as tree-sitter does:
 * the C one, or UTF-8. A locale such as BIG5 or GBK has characters whose
 * second byte is `\` or a quote, and bash then reads quotes differently. */
static bool plain_locale(const char *v)
{
    if (v[0] == '\0' || strcmp(v, "C") == 0 || strcmp(v, "POSIX") == 0)
        return true;
    const char *dot = strchr(v, '.');
    if (dot == NULL)
        return false;
    for (const char *p = v; p < dot; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    const char *cs = dot + 1;
    size_t n = strcspn(cs, "@");
    return (n == 5 && strncasecmp(cs, "utf-8", 5) == 0) ||
           (n == 4 && strncasecmp(cs, "utf8", 4) == 0);
}

bool pol_listed_assignment(const char *name, const char *value)
{
    if (!pol_listed_name(name))
        return false;
    bool locale = strcmp(name, "LC_ALL") == 0 ||
                  strcmp(name, "LC_CTYPE") == 0 || strcmp(name, "LANG") == 0;
    return !(locale && value != NULL && plain_locale(value));
}

static bool word_is(const struct pol_word *w, const char *s)
{
    return !w->dynamic && strcmp(w->value, s) == 0;
}

/* The variable name `s` starts with (up to `[`, `=` or `+=`), into `buf`;
 * false when it does not start with one. */
static bool leading_name(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') ||
           s[n] == '_' || (n > 0 && s[n] >= '0' && s[n] <= '9'))
        n++;
    if (n == 0 || n >= size)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

static const char *assigned(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "assignment to %s", name);
    return buf;
}

/* A subscript in a name (`a[$(id)]`): bash evaluates it, running what
 * it holds. */
static bool subscript_runs(const char *s)
{
    const char *open = strchr(s, '[');
    return open != NULL && strpbrk(open, "$`") != NULL;
}

static const char *arithmetic_assignment(const char *s, char *buf, size_t size);

/* A listed name that the arithmetic of a name's subscript assigns
 * (`a[PATH=0]`: test -v, printf -v, unset, read evaluate it), into buf;
 * NULL when none. */
static const char *subscript_assigns(const char *s, char *buf, size_t size)
{
    const char *open = strchr(s, '[');
    return open != NULL ? arithmetic_assignment(open + 1, buf, size) : NULL;
}

/* A variable name operand that is listed, or dynamic (any name), or whose
 * subscript runs a command or assigns a listed name. */
static const char *name_operand(const struct pol_word *w, char *buf,
                                size_t size)
{
    char name[128];
    if (w->dynamic)
        return assigned(buf, size, w->value);
    if (subscript_runs(w->value))
        return "eval of a dynamic string";
    if (leading_name(w->value, name, sizeof(name)) && pol_listed_name(name))
        return assigned(buf, size, name);
    return subscript_assigns(w->value, buf, size);
}

/* declare, typeset, local, export, readonly: their words. */
static const char *declaration(const struct pol_word *w, size_t n, char *buf,
                               size_t size)
{
    bool nameref = false;
    for (size_t i = 1; i < n; i++) {
        const char *v = w[i].value;
        if (!w[i].dynamic && (v[0] == '-' || v[0] == '+')) {
            nameref |= strchr(v + 1, 'n') != NULL && v[0] == '-';
            continue;
        }
        if (w[i].dynamic) {
            /* "NAME=$x" keeps its name; "$x" may be any */
            const char *s = v;
            while (*s == '"' || *s == '\'')
                s++;
            char name[128];
            if (!leading_name(s, name, sizeof(name)) || s[strlen(name)] == '\0')
                return assigned(buf, size, v);
            if (pol_listed_name(name))
                return assigned(buf, size, name);
            if (nameref) /* declare -n r=$x: to a name not known */
                return assigned(buf, size, s + strlen(name) + 1);
            continue;
        }
        char name[128];
        if (!leading_name(v, name, sizeof(name)))
            continue;
        if (v[strlen(name)] == '[') { /* 'a[$(id)]=1', 'a[i=$(id)]=1' */
            const char *sub = v + strlen(name);
            const char *close = strstr(sub, "]=");
            if (close == NULL)
                close = strstr(sub, "]+=");
            size_t sl = close != NULL ? (size_t)(close - sub) : strlen(sub);
            if (memchr(sub, '$', sl) != NULL || memchr(sub, '`', sl) != NULL)
                return "eval of a dynamic string";
        }
        const char *target = strchr(v, '=');
        if (target != NULL && !nameref && pol_listed_name(name) &&
            !pol_listed_assignment(name, target + 1))
            continue;                    /* LANG=C.UTF-8 */
        if (nameref && target != NULL) { /* declare -n REF=NAME: to NAME */
            target++;
            while (*target == '"' || *target == '\'')
                target++;
            char to[128];
            return assigned(buf, size,
                            leading_name(target, to, sizeof(to)) ? to : v);
        }
        if (pol_listed_name(name) || nameref)
            return assigned(buf, size, name);
        const char *eq = strchr(v, '=');
        /* with -i (now or from before) the value is arithmetic */
        const char *why =
            eq != NULL ? arithmetic_assignment(eq + 1, buf, size) : NULL;
        if (why != NULL)
            return why;
        /* declare re-reads a quoted compound assignment: x=($(...)) */
        if (eq != NULL && eq[1] == '(' &&
            (strchr(eq, '`') != NULL || strstr(eq, "$(") != NULL ||
             strstr(eq, "<(") != NULL || strstr(eq, ">(") != NULL))
            return "eval of a dynamic string";
    }
    return NULL;
}

/* A listed name that arithmetic in `s` assigns (NAME=, NAME+=, NAME++,
 * ++NAME ...), into buf; NULL when none. */
static const char *arithmetic_assignment(const char *s, char *buf, size_t size)
{
    for (size_t i = 0; s[i]; i++) {
        char name[128];
        if ((i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) ||
            !leading_name(s + i, name, sizeof(name)))
            continue;
        size_t j = i + strlen(name), k = j;
        while (s[k] == ' ' || s[k] == '\t')
            k++;
        bool op = (s[k] == '=' && s[k + 1] != '=') ||
                  (s[k] && strchr("+-*/%&^|", s[k]) && s[k + 1] == '=') ||
                  (s[k] == '+' && s[k + 1] == '+') ||
                  (s[k] == '-' && s[k + 1] == '-') ||
                  (i >= 2 && ((s[i - 1] == '+' && s[i - 2] == '+') ||
                              (s[i - 1] == '-' && s[i - 2] == '-')));
        if (op && pol_listed_name(name))
            return assigned(buf, size, name);
        i = j - 1;
    }
    return NULL;
}

/* What turning on shell option `name` does to the words that follow:
 * keyword makes them assignments; history and histexpand make bash
 * re-read later lines with `!` and `^` replaced from earlier ones. */
static const char *option_effect(const char *name)
{
    if (strcmp(name, "keyword") == 0)
        return "set -k makes words assignments";
    if (strcmp(name, "history") == 0 || strcmp(name, "histexpand") == 0)
        return "eval of a dynamic string";
    return NULL;
}

/* set: -k and -H in a cluster, -o NAME (also -eo NAME); shopt -o: its
 * operands are such names. */
static const char *set_options(const struct pol_word *w, size_t n, bool shopt)
{
    bool o_names = false; /* shopt -o seen: every operand is an option */
    for (size_t i = 1; i < n; i++) {
        const char *v = w[i].value;
        if (!shopt && word_is(&w[i], "--"))
            break; /* the positional parameters */
        if (w[i].dynamic)
            return shopt ? "eval of a dynamic string"
                         : "set -k makes words assignments";
        if (v[0] == '-' && v[1] != '-' && v[1] != '\0') {
            bool takes_name = strchr(v + 1, 'o') != NULL;
            if (shopt) {
                o_names |= takes_name;
                continue;
            }
            if (strchr(v + 1, 'k') != NULL)
                return "set -k makes words assignments";
            if (strchr(v + 1, 'H') != NULL)
                return "eval of a dynamic string";
            if (takes_name && i + 1 < n) {
                i++;
                const char *why = w[i].dynamic
                                      ? "set -k makes words assignments"
                                      : option_effect(w[i].value);
                if (why != NULL)
                    return why;
            }
            continue;
        }
        if (v[0] == '+' && !shopt) {
            i += strchr(v + 1, 'o') != NULL; /* +o NAME turns it off */
            continue;
        }
        if (shopt && o_names && option_effect(v) != NULL)
            return option_effect(v);
        if (!shopt)
            break; /* the positional parameters */
    }
    return NULL;
}

/* unset NAME... (not -f): unsetting PATH makes bash look in `.`, and
 * unsetting IFS changes how words split. */
static const char *unset_names(const struct pol_word *w, size_t n, char *buf,
                               size_t size)
{
    bool functions = false;
    for (size_t i = 1; i < n; i++) {
        const char *v = w[i].value;
        if (!w[i].dynamic && v[0] == '-' && v[1] != '\0') {
            if (strcmp(v, "--") != 0)
                functions = strchr(v, 'f') != NULL && strchr(v, 'v') == NULL;
            continue;
        }
        const char *why = functions ? NULL : name_operand(&w[i], buf, size);
        if (why != NULL)
            return why;
    }
    return NULL;
}

/* Builtins that run strings or change how words are read. */
static const char *builtin_runs(const struct pol_word *w, size_t n, char *buf,
                                size_t size)
{
    const char *name = w[0].value;
    if (strcmp(name, "set") == 0 || strcmp(name, "shopt") == 0)
        return set_options(w, n, name[1] == 'h');
    if (strcmp(name, "unset") == 0)
        return unset_names(w, n, buf, size);
    bool map = strcmp(name, "mapfile") == 0 || strcmp(name, "readarray") == 0;
    bool comp = strcmp(name, "compgen") == 0 || strcmp(name, "complete") == 0;
    if (strcmp(name, "fc") == 0)
        return n == 2 && word_is(&w[1], "-l") ? NULL
                                              : "eval of a dynamic string";
    if (strcmp(name, "let") == 0) {
        for (size_t i = 1; i < n; i++) {
            if (w[i].dynamic)
                return assigned(buf, size, w[i].value);
            const char *why = arithmetic_assignment(w[i].value, buf, size);
            if (why != NULL)
                return why;
        }
        return NULL;
    }
    for (size_t i = 1; (map || comp) && i < n; i++) {
        const char *v = w[i].value;
        if (w[i].dynamic)
            return "eval of a dynamic string";
        if (v[0] != '-')
            continue;
        if ((map && strchr(v, 'C') != NULL) ||
            (comp && (strchr(v, 'C') != NULL || strchr(v, 'F') != NULL)))
            return "eval of a dynamic string"; /* a callback it runs */
    }
    return NULL;
}

/* Builtins that assign to a name given as an operand. */
static const char *builtin_assignment(const struct pol_word *w, size_t n,
                                      char *buf, size_t size)
{
    const char *name = w[0].value;
    if (strcmp(name, "printf") == 0) {
        for (size_t i = 1; i < n; i++) {
            if (word_is(&w[i], "--"))
                break;
            if (word_is(&w[i], "-v") && i + 1 < n)
                return name_operand(&w[i + 1], buf, size);
            if (!w[i].dynamic && strncmp(w[i].value, "-v", 2) == 0) {
                struct pol_word rest = w[i];
                rest.value += 2;
                rest.len -= 2;
                return name_operand(&rest, buf, size);
            }
            if (w[i].dynamic)
                return assigned(buf, size, w[i].value);
            if (w[i].value[0] != '-')
                break;
        }
        return NULL;
    }
    bool read = strcmp(name, "read") == 0;
    bool map = strcmp(name, "mapfile") == 0 || strcmp(name, "readarray") == 0;
    if (read || map) {
        const char *with_arg = read ? "adinNptu" : "dnOsuCc";
        for (size_t i = 1; i < n; i++) {
            const char *v = w[i].value;
            if (!w[i].dynamic && v[0] == '-' && v[1] != '\0') {
                size_t k = 1;
                while (v[k] != '\0' && strchr(with_arg, v[k]) == NULL)
                    k++;
                if (v[k] != '\0' && v[k + 1] == '\0' && i + 1 < n) {
                    i++; /* its argument: -a NAME is a name too */
                    if (v[k] == 'a') {
                        const char *why = name_operand(&w[i], buf, size);
                        if (why != NULL)
                            return why;
                    }
                }
                continue;
            }
            const char *why = name_operand(&w[i], buf, size);
            if (why != NULL)
                return why;
        }
        return NULL;
    }
    if (strcmp(name, "getopts") == 0 && n >= 3)
        return name_operand(&w[2], buf, size);
    if (strcmp(name, "test") == 0 || strcmp(name, "[") == 0) /* -v NAME */
        for (size_t i = 1; i + 1 < n; i++) {
            if (!word_is(&w[i], "-v"))
                continue;
            if (w[i + 1].dynamic || subscript_runs(w[i + 1].value))
                return "eval of a dynamic string";
            const char *why = subscript_assigns(w[i + 1].value, buf, size);
            if (why != NULL)
                return why;
        }
    if (strcmp(name, "wait") == 0) /* wait -p NAME */
        for (size_t i = 1; i + 1 < n; i++)
            if (w[i].dynamic ||
                (w[i].value[0] == '-' && strchr(w[i].value, 'p') != NULL)) {
                const char *why = name_operand(&w[i + 1], buf, size);
                if (why != NULL || w[i].dynamic)
                    return why != NULL ? why : assigned(buf, size, "$?");
            }
    if (strcmp(name, "hash") == 0)
        for (size_t i = 1; i < n; i++)
            if (w[i].dynamic ||
                (w[i].value[0] == '-' && strchr(w[i].value, 'p')))
                return "assignment to BASH_CMDS";
    if (strcmp(name, "enable") == 0)
        for (size_t i = 1; i < n; i++)
            if (w[i].dynamic ||
                (w[i].value[0] == '-' && strchr(w[i].value, 'f')))
                return "source of a file";
    return NULL;
}

/* Options that make a program run another program. */
struct running_option {
    const char *program; /* basename */
    const char *option;  /* "--long" (also --long=...), or "-x" */
    const char *value;   /* NULL: any use; else a value that must appear */
};

static const struct running_option running_options[] = {
    {"sort", "--compress-program", NULL},
    {"cargo", "--config", NULL},
    {"make", "--eval", NULL},
    {"make", "-E", NULL},
    {"npm", "--script-shell", NULL},
    {"go", "-toolexec", NULL},
    {"go", "-exec", NULL},
    {"go", "-vettool", NULL},
    {"tar", "--rmt-command", NULL},
    {"rg", "--pre", NULL},
    {"man", "-P", NULL},
    {"man", "--pager", NULL},
    {"man", "-H", NULL},
    {"man", "--html", NULL},
    {"git", "--upload-pack", NULL},
    {"git", "--receive-pack", NULL},
    {"git", "--exec", NULL},
    {"git", "--open-files-in-pager", NULL},
    {"tar", "--to-command", NULL},
    {"tar", "--use-compress-program", NULL},
    {"tar", "-I", NULL},
    {"tar", "--checkpoint-action", NULL},
    {"tar", "--info-script", NULL},
    {"tar", "--new-volume-script", NULL},
    {"tar", "-F", NULL},
    {"tar", "--rsh-command", NULL},
    {"rsync", "-e", NULL},
    {"rsync", "--rsh", NULL},
    {"rsync", "--rsync-path", NULL},
    {"ssh", "-o", "command"},
    {"scp", "-S", NULL},
    {"scp", "-o", "command"},
    {"sftp", "-S", NULL},
    {"sftp", "-o", "command"},
    {"zip", "-TT", NULL},
    {"zip", "--unzip-command", NULL},
    {"less", "+!", NULL},
    {"vim", "-c", NULL},
    {"vi", "-c", NULL},
    {"nvim", "-c", NULL},
    {"vim", "+", NULL},
    {"vim", "--cmd", NULL},
    {"vi", "+", NULL},
    {"nvim", "+", NULL},
    {"nvim", "--cmd", NULL},
};
static const size_t nrunning_options =
    sizeof(running_options) / sizeof(running_options[0]);

/* Whether word `v` uses option `opt` (with its value containing `value`,
 * case-insensitive, when given: the value may be the next word). */
static bool uses(const char *v, const char *next, const char *opt,
                 const char *value)
{
    size_t n = strlen(opt);
    bool long_opt = opt[0] == '-' && opt[1] == '-';
    const char *arg = NULL;
    if (long_opt && v[0] == '-' && v[1] == '-') {
        /* GNU getopt and git take a long option by a prefix of 3 or more */
        size_t len = strcspn(v, "=");
        if (len < 3 || len > n || strncmp(v, opt, len) != 0)
            return false;
        arg = v[len] == '=' ? v + len + 1 : next;
    } else if (!long_opt && opt[0] == '-' && v[0] == '-' && v[1] != '-') {
        /* -X alone, attached (-Xarg), or inside a cluster (-xIarg) */
        const char *at = strchr(v + 1, opt[1]);
        if (at == NULL || (opt[2] != '\0' && strncmp(at, opt + 1, n - 1) != 0))
            return false;
        arg = at[n - 1] != '\0' ? at + n - 1 : next;
    } else {
        if (strncmp(v, opt, n) != 0)
            return false;
        arg = v[n] != '\0' ? v + n : next;
    }
    if (value == NULL)
        return true;
    if (arg == NULL)
        return false;
    for (const char *p = arg; *p; p++)
        if (strncasecmp(p, value, strlen(value)) == 0)
            return true;
    return false;
}

/* Whether dynamic word `w` (as written) may expand to an option: it
 * starts with an expansion or a quote, or with a dash. */
static bool may_be_option(const struct pol_word *w)
{
    char c0 = w->value[0];
    return c0 == '$' || c0 == '`' || c0 == '"' || c0 == '\'' || c0 == '-' ||
           c0 == '(' /* xargs' (input) */ || c0 == '\0';
}

/* A dynamic word that starts with a dash: whether its written start (up
 * to the first expansion or quote) may begin one of `base`'s options that
 * run a program (`--pre="$x"`, `-xI$p`; not make's `-j$(nproc)`). Any other
 * dynamic start may be any option. */
static bool dynamic_may_run(const struct pol_word *w, const char *base)
{
    if (w->value[0] != '-')
        return true;
    char prefix[64];
    size_t k = 0;
    while (k + 1 < sizeof(prefix) && w->value[k] != '\0' &&
           strchr("$`\"'\\", w->value[k]) == NULL) {
        prefix[k] = w->value[k];
        k++;
    }
    prefix[k] = '\0';
    for (size_t r = 0; r < nrunning_options; r++) {
        const struct running_option *o = &running_options[r];
        if (strcmp(o->program, base) != 0)
            continue;
        if (strncmp(o->option, prefix, k) == 0 ||
            uses(prefix, NULL, o->option, NULL))
            return true;
    }
    return false;
}

/* tar with an archive on another host (HOST:FILE, which tar opens
 * through rsh) unless --force-local. */
static bool remote_archive(const struct pol_word *w, size_t n)
{
    bool remote = false;
    for (size_t i = 1; i < n; i++) {
        if (word_is(&w[i], "--force-local"))
            return false;
        const char *v = w[i].value;
        if (w[i].dynamic)
            continue;
        if (strncmp(v, "--file=", 7) == 0)
            v += 7;
        else if (v[0] == '-')
            continue;
        const char *colon = strchr(v, ':');
        if (colon != NULL && memchr(v, '/', (size_t)(colon - v)) == NULL &&
            colon != v)
            remote = true;
    }
    return remote;
}

/* git subcommands that take an option running a program (--upload-pack,
 * --receive-pack, --exec, -O): a dynamic word may be one. */
static bool git_takes_running_option(const struct pol_word *w, size_t n)
{
    static const char subcommands[] =
        " fetch pull clone ls-remote push archive grep send-pack fetch-pack "
        "submodule remote ";
    size_t i = 1;
    while (i < n && !w[i].dynamic && w[i].value[0] == '-')
        i += (word_is(&w[i], "-C") || word_is(&w[i], "--git-dir") ||
              word_is(&w[i], "--work-tree"))
                 ? 2
                 : 1;
    if (i >= n || w[i].dynamic)
        return true;
    char key[40];
    size_t len = strlen(w[i].value);
    if (len + 3 > sizeof(key))
        return false;
    key[0] = ' ';
    memcpy(key + 1, w[i].value, len);
    key[len + 1] = ' ';
    key[len + 2] = '\0';
    return strstr(subcommands, key) != NULL;
}

/* The makefile that make's word `v` names by -f, --file or --makefile
 * (alone, in a cluster or attached): "" when it is the next word, NULL
 * when `v` names none. */
static const char *make_file_option(const char *v)
{
    if (v[0] != '-')
        return NULL;
    if (v[1] == '-') {
        size_t len = strcspn(v, "=");
        if (len < 3 || (strncmp(v, "--file", len) != 0 &&
                        strncmp(v, "--makefile", len) != 0))
            return NULL;
        return v[len] == '=' ? v + len + 1 : "";
    }
    const char *f = strchr(v + 1, 'f');
    return f == NULL ? NULL : f + 1;
}

/* A makefile name that reads what the command line gives: stdin, a pipe,
 * a process substitution. */
static bool stdin_like(const char *file)
{
    return strcmp(file, "-") == 0 || strncmp(file, "/dev/", 5) == 0 ||
           strncmp(file, "/proc/", 6) == 0;
}

/* Whether make's command-line definition `v` (NAME OP VALUE, OP one of
 * =, :=, ::=, :::=, +=, ?=, !=) may run code: `!=` runs its value in a
 * shell; a name that is not a plain one (`$(shell cmd)=1`, `export X`)
 * is expanded or read as a directive; SHELL, MAKESHELL, .SHELLFLAGS run
 * the recipes and MAKEFLAGS, MAKEFILES bring options or makefiles; a
 * value holding `$` may call $(shell ...). */
static bool make_definition_runs(const char *v, const char *eq)
{
    static const char *const variables[] = {
        "SHELL", "MAKESHELL", ".SHELLFLAGS", "MAKEFLAGS", "MAKEFILES", NULL};
    if (strchr(eq, '$') != NULL || strchr(eq, '`') != NULL)
        return true;
    const char *end = eq;
    while (end > v && strchr(":+?!", end[-1]) != NULL) {
        if (end[-1] == '!')
            return true;
        end--;
    }
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (end == v)
        return true;
    for (const char *p = v; p < end; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
            return true;
    for (const char *const *var = variables; *var; var++)
        if ((size_t)(end - v) == strlen(*var) &&
            strncmp(v, *var, strlen(*var)) == 0)
            return true;
    return false;
}

/* make runs code given on its command line: a makefile read from stdin,
 * a pipe or a process substitution (-f -, -f /dev/stdin, -f <(...)), and
 * definitions that make_definition_runs says may. (--eval is in
 * running_options.) */
static bool make_runs_given_code(const struct pol_word *w, size_t n)
{
    for (size_t i = 1; i < n && !word_is(&w[i], "--"); i++) {
        if (w[i].dynamic)
            continue;
        const char *v = w[i].value;
        const char *file = make_file_option(v);
        if (file != NULL && file[0] == '\0' && i + 1 < n) {
            if (w[i + 1].dynamic || stdin_like(w[i + 1].value))
                return true;
        } else if (file != NULL && stdin_like(file)) {
            return true;
        }
        const char *eq = strchr(v, '=');
        if (eq != NULL && v[0] != '-' && make_definition_runs(v, eq))
            return true;
    }
    return false;
}

static const char *running_option(const struct pol_word *w, size_t n,
                                  const char *base)
{
    /* one look for the programs of the table first */
    static const char programs[] = " sort rg man git tar rsync ssh scp sftp "
                                   "zip less vim vi nvim cargo make "
                                   "npm go ";
    char key[40];
    size_t bl = strlen(base);
    if (bl + 3 > sizeof(key))
        return NULL;
    key[0] = ' ';
    memcpy(key + 1, base, bl);
    key[bl + 1] = ' ';
    key[bl + 2] = '\0';
    if (strstr(programs, key) == NULL)
        return NULL;
    /* tar's old style: `tar cIf PROG ...`, options without a dash */
    if (strcmp(base, "tar") == 0 && n > 1 && !w[1].dynamic &&
        w[1].value[0] != '-' && strpbrk(w[1].value, "IF") != NULL)
        return "an option that runs a program";
    if (strcmp(base, "tar") == 0 && remote_archive(w, n))
        return "an option that runs a program";
    if (strcmp(base, "make") == 0 && make_runs_given_code(w, n))
        return "an option that runs a program";
    /* a dynamic word may expand to such an option (`--pre="$x"`, `$x`,
     * xargs' input), unless after `--` */
    bool git = strcmp(base, "git") == 0;
    for (size_t i = 1; i < n && !word_is(&w[i], "--"); i++) {
        if (w[i].dynamic && may_be_option(&w[i]) &&
            (!git || git_takes_running_option(w, n)) &&
            dynamic_may_run(&w[i], base))
            return "an option that runs a program";
    }
    for (size_t r = 0; r < sizeof(running_options) / sizeof(running_options[0]);
         r++) {
        const struct running_option *o = &running_options[r];
        if (strcmp(o->program, base) != 0)
            continue;
        for (size_t i = 1; i < n; i++) {
            if (word_is(&w[i], "--"))
                break;
            const char *next =
                i + 1 < n && !w[i + 1].dynamic ? w[i + 1].value : NULL;
            if ((o->value != NULL && w[i].dynamic && i > 0 &&
                 word_is(&w[i - 1], o->option)) ||
                (!w[i].dynamic && uses(w[i].value, next, o->option, o->value)))
                return "an option that runs a program";
        }
    }
    return NULL;
}

/* git subcommands that run a command they are given. */
static const char *git_runs(const struct pol_word *w, size_t n)
{
    size_t i = 1;
    while (i < n && !w[i].dynamic && w[i].value[0] == '-')
        i += (word_is(&w[i], "-C") || word_is(&w[i], "--git-dir") ||
              word_is(&w[i], "--work-tree"))
                 ? 2
                 : 1;
    if (i >= n || w[i].dynamic)
        return NULL;
    const char *sub = w[i].value;
    for (size_t k = i + 1; k < n; k++) {
        const char *v = w[k].value;
        if (w[k].dynamic)
            continue;
        if ((strcmp(sub, "rebase") == 0 &&
             (strcmp(v, "-x") == 0 || strncmp(v, "--exec", 6) == 0)) ||
            ((strcmp(sub, "difftool") == 0 || strcmp(sub, "mergetool") == 0) &&
             (strcmp(v, "-x") == 0 || strncmp(v, "--extcmd", 8) == 0)) ||
            (strcmp(sub, "bisect") == 0 && strcmp(v, "run") == 0) ||
            (strcmp(sub, "submodule") == 0 && strcmp(v, "foreach") == 0) ||
            (strcmp(sub, "clone") == 0 &&
             (strncmp(v, "-c", 2) == 0 || strncmp(v, "--config", 8) == 0 ||
              strncmp(v, "--conf", 6) == 0)) ||
            (strcmp(sub, "grep") == 0 && v[0] == '-' && v[1] != '-' &&
             strchr(v, 'O') != NULL) ||
            ((strcmp(sub, "clone") == 0 || strcmp(sub, "fetch") == 0 ||
              strcmp(sub, "pull") == 0 || strcmp(sub, "ls-remote") == 0) &&
             v[0] == '-' && v[1] != '-' && strchr(v, 'u') != NULL) ||
            strcmp(sub, "filter-branch") == 0)
            return "an option that runs a program";
    }
    return NULL;
}

/* git config that sets a value (core.pager, alias.*, ... run later). */
static const char *git_config_write(const struct pol_word *w, size_t n)
{
    size_t i = 1;
    while (i < n && !w[i].dynamic && w[i].value[0] == '-')
        i += (word_is(&w[i], "-C") || word_is(&w[i], "--git-dir") ||
              word_is(&w[i], "--work-tree"))
                 ? 2
                 : 1;
    if (i >= n || !word_is(&w[i], "config"))
        return NULL;
    size_t operands = 0;
    for (size_t k = i + 1; k < n; k++) {
        const char *v = w[k].value;
        if (w[k].dynamic)
            return "git -c can run commands";
        if (v[0] != '-') {
            operands++;
            continue;
        }
        if (strcmp(v, "--get") == 0 || strcmp(v, "--get-all") == 0 ||
            strcmp(v, "--get-regexp") == 0 || strcmp(v, "-l") == 0 ||
            strcmp(v, "--list") == 0 || strcmp(v, "--show-origin") == 0 ||
            strcmp(v, "--show-scope") == 0 || strcmp(v, "--name-only") == 0 ||
            strcmp(v, "--global") == 0 || strcmp(v, "--local") == 0 ||
            strcmp(v, "--system") == 0 || strcmp(v, "--worktree") == 0 ||
            strcmp(v, "--type") == 0 || strcmp(v, "--null") == 0 ||
            strcmp(v, "-z") == 0 || strcmp(v, "get") == 0)
            continue;
        return "git -c can run commands"; /* --add, --edit, -f FILE, ... */
    }
    return operands >= 2 ? "git -c can run commands" : NULL;
}

/* Skips a regex delimited by `d` from s[i] (just past the opening one);
 * returns the index past the closing one, or len. */
static size_t skip_regex(const char *s, size_t i, size_t len, char d)
{
    for (; i < len && s[i] != d; i++)
        if (s[i] == '\\')
            i++;
    return i < len ? i + 1 : len;
}

/* sed's `e` command and `s///e` flag run a shell command, `w` and `W`
 * write a file. A script is read command by command as sed reads it;
 * anything it cannot place counts as running. */
static bool sed_script_runs(const char *s)
{
    size_t len = strlen(s), i = 0;
    while (i < len) {
        /* blanks, separators, braces, then an address or two */
        while (i < len && strchr(" \t\n;{}", s[i]))
            i++;
        if (i >= len)
            break;
        for (int part = 0; part < 2 && i < len; part++) {
            if (s[i] == '/' || s[i] == '\\') {
                char d = '/';
                if (s[i] == '\\' && i + 1 < len)
                    d = s[++i];
                i = skip_regex(s, i + 1, len, d);
                while (i < len && (s[i] == 'I' || s[i] == 'M'))
                    i++;
            } else {
                while (i < len && (isdigit((unsigned char)s[i]) ||
                                   s[i] == '$' || s[i] == '~' || s[i] == '+'))
                    i++;
            }
            while (i < len && (s[i] == ' ' || s[i] == '\t'))
                i++;
            if (part == 0 && i < len && s[i] == ',')
                i++;
            else
                break;
        }
        while (i < len && (s[i] == '!' || s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= len)
            break;
        char c = s[i++];
        if (c == 's' || c == 'y') {
            if (i >= len)
                return true;
            char d = s[i];
            i = skip_regex(s, skip_regex(s, i + 1, len, d), len, d);
            if (c == 'y')
                continue;
            for (; i < len && !strchr(";\n}", s[i]); i++)
                if (s[i] == 'e' || s[i] == 'w' || s[i] == 'W')
                    return true; /* a flag that runs or writes */
        } else if (strchr("aic", c)) {
            while (i < len && s[i] != '\n') /* text to the end of the line */
                i += s[i] == '\\' ? 2 : 1;
        } else if (strchr(":btTrRqQlL", c)) {
            while (i < len && s[i] != ';' && s[i] != '\n')
                i++; /* a label, a file to read or a number */
        } else if (c == '#') {
            while (i < len && s[i] != '\n')
                i++;
        } else if (!strchr("=dDgGhHnNpPxzF{}", c)) {
            return true; /* e, w, W, or what is not known */
        }
    }
    return false;
}

/* sed's options: which take a value, and the scripts it is given. */
static const char *sed_runs(const struct pol_word *w, size_t n)
{
    static const char *const long_with_value[] = {"--expression", "--file",
                                                  "--line-length", NULL};
    bool script_given = false;
    const char *first_operand = NULL;
    for (size_t i = 1; i < n; i++) {
        const char *v = w[i].value;
        if (w[i].dynamic)
            return "an option that runs a program";
        if (strcmp(v, "--") == 0) {
            if (i + 1 < n && !script_given)
                first_operand = w[i + 1].value;
            break;
        }
        if (v[0] == '-' && v[1] == '-') { /* long, maybe abbreviated */
            size_t len = strcspn(v, "=");
            static const char *const long_flags[] = {"--quiet",
                                                     "--silent",
                                                     "--debug",
                                                     "--follow-symlinks",
                                                     "--in-place",
                                                     "--posix",
                                                     "--regexp-extended",
                                                     "--separate",
                                                     "--sandbox",
                                                     "--unbuffered",
                                                     "--null-data",
                                                     "--zero-terminated",
                                                     "--help",
                                                     "--version",
                                                     NULL};
            bool known = false;
            for (const char *const *o = long_flags; *o && !known; o++)
                known = len >= 3 && strncmp(*o, v, len) == 0;
            for (const char *const *o = long_with_value; *o && !known; o++)
                known = len >= 3 && strncmp(*o, v, len) == 0;
            if (!known)
                return "an option that runs a program"; /* not known here */
            for (const char *const *o = long_with_value; *o; o++) {
                if (len < 3 || strncmp(*o, v, len) != 0)
                    continue;
                const char *arg = v[len] == '=' ? v + len + 1
                                  : i + 1 < n   ? w[++i].value
                                                : "";
                if (strncmp(*o, "--file", 6) == 0)
                    return "an option that runs a program"; /* a script file */
                if (strncmp(*o, "--expression", 12) == 0) {
                    script_given = true;
                    if (sed_script_runs(arg))
                        return "an option that runs a program";
                }
            }
            continue;
        }
        if (v[0] == '-' && v[1] != '\0') { /* a cluster: e, f, l take a value */
            for (size_t k = 1; v[k]; k++) {
                if (v[k] != 'e' && v[k] != 'f' && v[k] != 'l')
                    continue;
                const char *arg = v[k + 1]    ? v + k + 1
                                  : i + 1 < n ? w[++i].value
                                              : "";
                if (v[k] == 'f')
                    return "an option that runs a program";
                if (v[k] == 'e') {
                    script_given = true;
                    if (sed_script_runs(arg))
                        return "an option that runs a program";
                }
                break;
            }
            continue;
        }
        if (first_operand == NULL && !script_given)
            first_operand = v;
    }
    if (!script_given && first_operand != NULL &&
        sed_script_runs(first_operand))
        return "an option that runs a program";
    return NULL;
}

const char *pol_command_effect(const struct pol_word *w, size_t n,
                               const char *base, char *buf, size_t size)
{
    if (n == 0 || w[0].dynamic)
        return NULL;
    const char *name = w[0].value;
    static const char *const declarations[] = {"declare", "typeset",  "local",
                                               "export",  "readonly", NULL};
    for (const char *const *d = declarations; *d; d++)
        if (strcmp(name, *d) == 0)
            return declaration(w, n, buf, size);
    const char *why = builtin_assignment(w, n, buf, size);
    if (why == NULL)
        why = builtin_runs(w, n, buf, size);
    if (why == NULL)
        why = running_option(w, n, base);
    if (why == NULL && strcmp(base, "git") == 0)
        why = git_config_write(w, n);
    if (why == NULL && strcmp(base, "git") == 0)
        why = git_runs(w, n);
    if (why == NULL && strcmp(base, "sed") == 0)
        why = sed_runs(w, n);
    return why;
}
