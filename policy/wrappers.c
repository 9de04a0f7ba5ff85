/* SPDX-License-Identifier: MIT */
/* The wrappers' option tables: see wrappers.h. */
#include "wrappers.h"

#include <string.h>

enum wrapper_mode { W_PLAIN, W_ENV, W_XARGS, W_TIME, W_COMMAND, W_SU, W_SUDO };

struct pol_wrapper {
    const char *name;
    const char *flags;    /* short options without an argument */
    const char *args;     /* short options with an argument */
    const char *optional; /* short options whose argument is only attached */
    const char *const *long_flags;
    const char *const *long_args;
    const char *no_command; /* short options after which nothing is run */
    enum wrapper_mode mode;
    int operands;   /* operands before the command (timeout's duration) */
    bool exact;     /* a builtin: matched as written, never by basename */
    bool privilege; /* step 10: its own rules or the default apply too */
    bool digits;    /* `nice -5` */
    bool bare_runs_nothing;
};

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static const struct pol_wrapper wrappers[] = {
    {.name = "command",
     .exact = true,
     .flags = "pvV",
     .long_flags = L(""),
     .long_args = L(""),
     .bare_runs_nothing = true,
     .mode = W_COMMAND},
    {.name = "builtin",
     .exact = true,
     .flags = "",
     .long_flags = L(""),
     .long_args = L(""),
     .bare_runs_nothing = true,
     .mode = W_COMMAND},
    {.name = "exec",
     .exact = true,
     .flags = "cl",
     .args = "a",
     .long_flags = L(""),
     .long_args = L(""),
     .bare_runs_nothing = true},
    {.name = "env",
     .flags = "i0v",
     .args = "uCS",
     .long_flags =
         L("ignore-environment", "null", "debug", "list-signal-handling"),
     .long_args = L("unset", "chdir", "split-string"),
     .mode = W_ENV},
    {.name = "nice",
     .args = "n",
     .flags = "",
     .long_flags = L(""),
     .long_args = L("adjustment"),
     .digits = true},
    {.name = "nohup", .flags = "", .long_flags = L(""), .long_args = L("")},
    {.name = "time",
     .flags = "pavq",
     .args = "fo",
     .long_flags = L("portability", "append", "verbose", "quiet"),
     .long_args = L("format", "output"),
     .bare_runs_nothing = true,
     .mode = W_TIME},
    {.name = "timeout",
     .flags = "v",
     .args = "sk",
     .long_flags = L("preserve-status", "foreground", "verbose"),
     .long_args = L("signal", "kill-after"),
     .operands = 1},
    {.name = "stdbuf",
     .flags = "",
     .args = "ioe",
     .long_flags = L(""),
     .long_args = L("input", "output", "error")},
    {.name = "setsid",
     .flags = "cfw",
     .long_flags = L("ctty", "fork", "wait"),
     .long_args = L("")},
    {.name = "ionice",
     .flags = "t",
     .args = "cnpPu",
     .long_flags = L("ignore"),
     .long_args = L("class", "classdata", "pid", "pgid", "uid"),
     .no_command = "pPu"},
    {.name = "chrt",
     .flags = "abdfiormRevp",
     .args = "TPD",
     .long_flags = L("all-tasks", "batch", "deadline", "fifo", "idle", "other",
                     "rr", "reset-on-fork", "max", "pid", "verbose"),
     .long_args = L("sched-runtime", "sched-period", "sched-deadline"),
     .operands = 1,
     .no_command = "mp"},
    {.name = "taskset",
     .flags = "acp",
     .long_flags = L("all-tasks", "cpu-list", "pid"),
     .long_args = L(""),
     .operands = 1,
     .no_command = "p"},
    {.name = "xargs",
     .flags = "0prtxo",
     .args = "adEIkLnPs",
     .optional = "eil",
     /* --eof, --replace and --max-lines take a value only after `=` */
     .long_flags =
         L("null", "no-run-if-empty", "verbose", "interactive", "exit",
           "open-tty", "show-limits", "eof", "replace", "max-lines"),
     .long_args = L("arg-file", "delimiter", "max-args", "max-procs",
                    "max-chars", "process-slot-var"),
     .mode = W_XARGS},
    {.name = "sudo",
     .privilege = true,
     .flags = "AbEHiKklnPSsVv",
     .args = "CDghpRrTtUu",
     .long_flags =
         L("askpass", "background", "preserve-env", "set-home", "login",
           "remove-timestamp", "reset-timestamp", "list", "non-interactive",
           "preserve-groups", "stdin", "shell", "version", "validate", "bell"),
     .long_args = L("close-from", "chdir", "group", "host", "prompt", "chroot",
                    "role", "type", "command-timeout", "other-user", "user"),
     .no_command = "eKlVv",
     .mode = W_SUDO},
    {.name = "doas",
     .privilege = true,
     .flags = "nsL",
     .args = "uC",
     .long_flags = L(""),
     .long_args = L(""),
     .no_command = "L"},
    {.name = "pkexec",
     .privilege = true,
     .flags = "",
     .long_flags = L("disable-internal-agent", "keep-cwd", "help", "version"),
     .long_args = L("user")},
    {.name = "su",
     .privilege = true,
     .flags = "lmpPf",
     .args = "cgGsw",
     .long_flags = L("login", "preserve-environment", "pty", "fast"),
     .long_args = L("command", "session-command", "group", "supp-group",
                    "shell", "whitelist-environment"),
     .mode = W_SU},
    {.name = "runuser",
     .privilege = true,
     .flags = "lmpPf",
     .args = "cgGsuw",
     .long_flags = L("login", "preserve-environment", "pty", "fast"),
     .long_args = L("command", "session-command", "group", "supp-group",
                    "shell", "user", "whitelist-environment"),
     .mode = W_SU},
};

const struct pol_wrapper *pol_wrapper_find(const char *name, bool *privilege)
{
    for (size_t i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++) {
        if (strcmp(wrappers[i].name, name) == 0) {
            *privilege = wrappers[i].privilege;
            return &wrappers[i];
        }
    }
    return NULL;
}

const char *pol_wrapper_name(const struct pol_wrapper *w)
{
    return w->name;
}

bool pol_wrapper_exact(const struct pol_wrapper *w)
{
    return w->exact;
}

/* A long option by its name or an unambiguous prefix (GNU getopt):
 * 1 flag, 2 takes an argument, 0 unknown. */
static int long_option(const struct pol_wrapper *w, const char *name,
                       size_t len)
{
    int found = 0, count = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (const char *const *l = pass ? w->long_args : w->long_flags; *l;
             l++) {
            if (**l == '\0' || strncmp(*l, name, len) != 0)
                continue;
            if (strlen(*l) == len)
                return pass + 1; /* exact */
            found = pass + 1;
            count++;
        }
    }
    return count == 1 ? found : 0;
}

static bool is_assignment(const struct pol_word *w)
{
    if (w->dynamic && memchr(w->value, '=', w->len) == NULL)
        return false;
    const char *eq = memchr(w->value, '=', w->len);
    if (eq == NULL || eq == w->value)
        return false;
    for (const char *p = w->value; p < eq; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (p > w->value && c >= '0' && c <= '9')))
            return false;
    }
    return true;
}

/* One short-option cluster at words[*i]; false when it holds an unknown
 * option (u->unknown set). */
static bool short_cluster(const struct pol_wrapper *w,
                          const struct pol_word *words, size_t n, size_t *i,
                          struct pol_unwrap *u)
{
    const char *v = words[*i].value;
    for (size_t k = 1; v[k]; k++) {
        char c = v[k];
        if (w->digits && c >= '0' && c <= '9')
            continue;
        if (w->no_command != NULL && strchr(w->no_command, c) != NULL)
            u->no_command = true;
        if (w->mode == W_COMMAND && (c == 'v' || c == 'V'))
            u->query = u->no_command = true;
        if (w->optional != NULL && strchr(w->optional, c) != NULL) {
            if (w->mode == W_XARGS && c == 'i')
                u->replace = v[k + 1] ? v + k + 1 : "{}";
            return true; /* the rest of the word is its argument */
        }
        if (w->args != NULL && strchr(w->args, c) != NULL) {
            size_t at = *i;
            bool script =
                (w->mode == W_ENV && c == 'S') || (w->mode == W_SU && c == 'c');
            if (v[k + 1] == '\0') {
                if (*i + 1 >= n)
                    return true;
                at = ++*i;
                if (words[at].dynamic && !script)
                    u->dynamic = true; /* it may split into more words */
            }
            const char *arg =
                at == *i && v[k + 1] ? v + k + 1 : words[at].value;
            if ((w->mode == W_ENV && c == 'S') ||
                (w->mode == W_SU && c == 'c')) {
                u->script = arg;
                u->script_dynamic = words[at].dynamic;
            }
            if (w->mode == W_TIME && c == 'o') {
                u->output = arg;
                u->output_dynamic = words[at].dynamic;
            }
            if (w->mode == W_XARGS && c == 'I')
                u->replace = arg;
            if (w->mode == W_SU && c == 'u')
                u->user_command = true;
            if (w->mode == W_SU && c == 's') {
                u->shell = arg;
                u->shell_dynamic = words[at].dynamic;
            }
            return true;
        }
        if (w->flags == NULL || strchr(w->flags, c) == NULL) {
            u->unknown = v;
            return false;
        }
    }
    return true;
}

static bool long_opt(const struct pol_wrapper *w, const struct pol_word *words,
                     size_t n, size_t *i, struct pol_unwrap *u)
{
    const char *v = words[*i].value + 2;
    const char *eq = strchr(v, '=');
    size_t len = eq ? (size_t)(eq - v) : strlen(v);
    int kind = long_option(w, v, len);
    if (kind == 0) {
        u->unknown = words[*i].value;
        return false;
    }
    size_t at = *i;
    bool script =
        (w->mode == W_ENV && strncmp(v, "split-string", len) == 0) ||
        (w->mode == W_SU && (strncmp(v, "command", len) == 0 ||
                             strncmp(v, "session-command", len) == 0));
    if (kind == 2 && eq == NULL) {
        if (*i + 1 >= n)
            return true;
        at = ++*i;
        if (words[at].dynamic && !script)
            u->dynamic = true; /* it may split into more words */
    }
    const char *arg = eq != NULL ? eq + 1 : words[at].value;
    if ((w->mode == W_ENV && strncmp(v, "split-string", len) == 0) ||
        (w->mode == W_SU && (strncmp(v, "command", len) == 0 ||
                             strncmp(v, "session-command", len) == 0))) {
        u->script = arg;
        u->script_dynamic = words[at].dynamic;
    }
    if (w->mode == W_TIME && strncmp(v, "output", len) == 0) {
        u->output = arg;
        u->output_dynamic = words[at].dynamic;
    }
    if (w->mode == W_SU && strncmp(v, "user", len) == 0)
        u->user_command = true;
    if (w->mode == W_SU && strncmp(v, "shell", len) == 0) {
        u->shell = arg;
        u->shell_dynamic = words[at].dynamic;
    }
    if (w->mode == W_XARGS && strncmp(v, "replace", len) == 0)
        u->replace = eq != NULL ? eq + 1 : "{}";
    if (w->mode == W_COMMAND)
        u->unknown = words[*i].value;
    return u->unknown == NULL;
}

void pol_unwrap(const struct pol_wrapper *w, const struct pol_word *words,
                size_t n, struct pol_unwrap *u)
{
    memset(u, 0, sizeof(*u));
    u->skip_functions = w->mode == W_COMMAND;
    u->bare_runs_nothing = w->bare_runs_nothing;
    u->bare_echo = w->mode == W_XARGS;
    u->reads_stdin_args = w->mode == W_XARGS;
    size_t i = 1;
    bool options = true;
    int operands = w->operands;
    bool su_user = false;
    u->assign_from = u->assign_to = 0;
    for (; i < n; i++) {
        const struct pol_word *word = &words[i];
        if (options && word->dynamic &&
            (w->mode == W_ENV || w->mode == W_SUDO) && is_assignment(word)) {
            /* NAME=$(...): a dynamic value, a static name */
        } else if (options && word->dynamic) {
            u->dynamic = true;
            break;
        }
        const char *v = word->value;
        if (options && strcmp(v, "--") == 0) {
            options = false;
            continue;
        }
        if (options && w->mode == W_ENV && strcmp(v, "-") == 0)
            continue;
        if (options && w->mode == W_SU && strcmp(v, "-") == 0)
            continue;
        if (options && v[0] == '-' && v[1] == '-' && v[2] != '\0') {
            if (!long_opt(w, words, n, &i, u))
                return;
            continue;
        }
        if (options && v[0] == '-' && v[1] != '\0') {
            if (!short_cluster(w, words, n, &i, u))
                return;
            continue;
        }
        if ((w->mode == W_ENV || w->mode == W_SUDO) && is_assignment(word)) {
            if (u->assign_to == 0)
                u->assign_from = i;
            u->assign_to = i + 1;
            continue;
        }
        if (w->mode == W_SU && !u->user_command) {
            /* su [options] [USER [ARG...]] (options may follow USER): an
             * argument after USER goes to the shell, unknown here */
            if (su_user) {
                u->unknown = v;
                return;
            }
            su_user = true;
            continue;
        }
        if (operands > 0) {
            operands--;
            continue;
        }
        break;
    }
    u->next = i;
}
