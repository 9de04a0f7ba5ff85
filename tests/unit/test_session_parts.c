/* SPDX-License-Identifier: MIT */
/*
 * Parts of a session run on their own: reading a plain value back out of
 * a `declare` line (checked against what bash itself prints for every
 * byte), and which variables go through execve's environment.
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "bashword.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The decoded value of `line`, or NULL when it is not a plain one. */
static char *plain(const char *line, bool *exported)
{
    struct bsh__statement st;
    char *out = malloc(strlen(line) + 1);
    if (out == NULL)
        abort();
    if (bsh__declare_plain_value(line, strlen(line), &st, exported, out) < 0) {
        free(out);
        return NULL;
    }
    return out;
}

static bool decodes_to(const char *line, const char *want, bool exported)
{
    bool x = !exported;
    char *v = plain(line, &x);
    bool same = v != NULL && strcmp(v, want) == 0 && x == exported;
    free(v);
    return same;
}

static void test_forms(void)
{
    ok(decodes_to("declare -x A=\"a\\\"b\\$c\\`d\\\\e\"", "a\"b$c`d\\e", true),
       "double quotes: the four escapes");
    ok(decodes_to("declare -x A=\"a\\qb\"", "a\\qb", true),
       "double quotes: another backslash stays");
    ok(decodes_to("declare -- B='it'\\''s'", "it's", false),
       "single quotes with an escaped quote between");
    ok(decodes_to("declare -x E=\"\"", "", true), "an empty value");
    bool x;
    ok(plain("declare -x C=$'a\\nb'", &x) == NULL, "$'...' is not plain");
    ok(plain("declare -x C=\"a\nb\"", &x) == NULL, "a newline is not plain");
    ok(plain("declare -x C=\"a\\\nb\"", &x) == NULL,
       "backslash-newline is not plain");
    ok(plain("declare -i D=\"1\"", &x) == NULL, "an attribute is not plain");
    ok(plain("declare -rx D=\"1\"", &x) == NULL, "read-only is not plain");
    ok(plain("declare -a E=([0]=\"x\")", &x) == NULL, "an array is not plain");
    ok(plain("declare -x F", &x) == NULL, "no value is not plain");
    ok(plain("declare -x G=\"$HOME\"", &x) == NULL, "an expansion is refused");
}

/* For every byte but NUL, in two locales: what bash prints for a value
 * holding it decodes to that value, or is refused; never another value. */
static void test_every_byte(const char *locale)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd),
             "LC_ALL=%s bash -c 'for ((i = 1; i < 256; i++)); do "
             "printf -v o %%03o $i; printf -v c \"\\\\$o\"; "
             "V=\"a${c}b\"; export V; declare -p V; done'",
             locale);
    FILE *p = popen(cmd, "r");
    char *line = NULL;
    size_t cap = 0;
    int byte = 0, wrong = 0, decoded = 0;
    ssize_t n;
    while (p != NULL && (n = getline(&line, &cap, p)) > 0) {
        byte++;
        line[n - 1] = '\0';
        bool x = false;
        char *v = plain(line, &x);
        char want[4] = {'a', (char)byte, 'b', '\0'};
        if (v != NULL) {
            decoded++;
            if (strcmp(v, want) != 0 || !x) {
                diag("byte %d: %s", byte, line);
                wrong++;
            }
        }
        free(v);
    }
    free(line);
    if (p != NULL)
        pclose(p);
    diag("%s: %d of 255 decoded", locale, decoded);
    ok(byte == 255 && wrong == 0, "every byte decodes to itself or is refused");
    ok(decoded >= 95, "the printable bytes decode");
}

static struct bsh_session *session_of(char **env)
{
    struct bsh_session *s = NULL;
    if (bsh_session_new("/", (char *const *)env, &s) != BSH_OK)
        abort();
    return s;
}

static bool has(char **envp, const char *entry)
{
    for (; *envp != NULL; envp++)
        if (strcmp(*envp, entry) == 0)
            return true;
    return false;
}

static void test_environment(void)
{
    static char big[20000];
    memset(big, 'v', sizeof(big) - 1);
    char bigvar[sizeof(big) + 8];
    snprintf(bigvar, sizeof(bigvar), "BIG=%s", big);
    char path[] = "PATH=/usr/bin:/bin", x[] = "X=it's",
         ifs[] = "IFS=:", lang[] = "LANG=C", shlvl[] = "SHLVL=3",
         bash_env[] = "BASH_ENV=/x";
    char *env[] = {path, x, ifs, lang, shlvl, bash_env, bigvar, NULL};
    struct bsh_session *s = session_of(env);
    const struct bsh__state *st = s->state;
    bool *in_env = calloc(st->count + 1, sizeof(bool));
    size_t bytes = 0;
    char **envp = bsh__session_env(s, in_env, &bytes);
    ok(envp != NULL && has(envp, "PATH=/usr/bin:/bin") && has(envp, "X=it's"),
       "exported plain variables go through the environment");
    ok(envp != NULL && !has(envp, "IFS=:") && !has(envp, "LANG=C"),
       "names bash reads at start-up do not");
    ok(envp != NULL && !has(envp, bigvar), "a value over 16 KiB does not");
    ok(envp != NULL && has(envp, "SHLVL=3") && has(envp, "BASH_ENV=/x"),
       "never carried: from the session's environment, as in a plain run");
    size_t marked = 0;
    for (size_t i = 0; i < st->count; i++)
        marked += in_env[i];
    is_int(marked, 2, "the two are marked for the script to leave out");
    char **copy = envp != NULL ? bsh__session_env_copy(envp, bytes) : NULL;
    bool same = copy != NULL;
    for (size_t i = 0; same && envp[i] != NULL; i++)
        same = copy[i] != NULL && strcmp(copy[i], envp[i]) == 0 &&
               ((copy[i] >= (char *)copy && copy[i] < (char *)copy + bytes) ==
                (envp[i] >= (char *)envp && envp[i] < (char *)envp + bytes));
    free(envp);
    ok(same, "a copy of the block stands alone, the session's strings shared");
    free(copy);
    size_t len = 0;
    struct bsh__script_parts parts;
    char *script = bsh__session_script_parts(st, in_env, false, &parts) == 0
                       ? bsh__session_script(&parts, NULL, 0, false, &len)
                       : NULL;
    ok(script != NULL && strstr(script, "X='it'") == NULL &&
           strstr(script, "IFS=':'") != NULL &&
           strstr(script, "builtin declare -x IFS=':' LANG='C' BIG=") != NULL,
       "the script restores the others in one declare");
    free(script);
    bsh__script_parts_free(&parts);
    free(in_env);
    bsh_session_free(s);
}

/* A state with a function, an alias and the given options on. */
static struct bsh__state *state_with(const char *const *options)
{
    struct bsh__state *st = calloc(1, sizeof(*st));
    if (st == NULL ||
        bsh__state_add(st, REC_FUNC, "fn", 2, "declare -f fn", 13, 0) < 0 ||
        bsh__state_add(st, REC_ALIAS, "al", 2, "alias al='x'", 12, 0) < 0)
        abort();
    for (; options != NULL && *options != NULL; options++) {
        char text[64];
        int n = snprintf(text, sizeof(text), "set -o %s", *options);
        if (bsh__state_add(st, REC_OPTION, *options, strlen(*options), text,
                           (size_t)n, 0) < 0)
            abort();
    }
    return st;
}

static void test_stateless(void)
{
    static const char *const yes[] = {"true",
                                      "ls -la",
                                      "git status --short",
                                      "make -j2 CC=gcc all",
                                      "echo 'a $b `c`' \"d e\"",
                                      "ls *.c src/[ab]?.h",
                                      "cat a > b 2>&1",
                                      "a && b || c; d | e & f\n g",
                                      "cat <in >>out 2>&- 3<>f 1>|g",
                                      "echo h\xc3\xa9llo",
                                      ": ; false",
                                      "x ''",
                                      "echo fn al",
                                      "\"ls\" -l",
                                      "'/bin/ls'",
                                      "env FOO=1 cmd",
                                      "ls >&1- 2>&-",
                                      "ls 2>&1 >&2",
                                      "999999999>f ls",
                                      NULL};
    static const char *const no[] = {"echo $x",
                                     "echo `id`",
                                     "cd /tmp",
                                     "x=1",
                                     "FOO=1 make",
                                     "export A",
                                     "fn",
                                     "al",
                                     "echo a; fn",
                                     "true && al x",
                                     "set -e",
                                     "shopt -s x",
                                     "[[ -n x ]]",
                                     "(( x ))",
                                     "(ls)",
                                     "{ ls; }",
                                     "a\\ b",
                                     "echo \"$x\"",
                                     "echo \"a\\\"b\"",
                                     "cat <<EOF\nx\nEOF",
                                     "cat <<< x",
                                     "cat <(x)",
                                     "echo ~",
                                     "echo !x",
                                     "ls # c",
                                     "if true; then :; fi",
                                     "for a in b; do :; done",
                                     "time ls",
                                     "command ls",
                                     "builtin echo",
                                     "exec ls",
                                     "source f",
                                     ". f",
                                     "eval x",
                                     "read x",
                                     "printf -v x y",
                                     "test -v x",
                                     "[ -v x ]",
                                     "ls{,}",
                                     "l*s",
                                     "''",
                                     "'' x",
                                     "ls &> f",
                                     "ls |& cat",
                                     "a;; b",
                                     "echo 'open",
                                     "echo \"open",
                                     "ls\r",
                                     "ls >&f",
                                     "ls >",
                                     "ls > ''",
                                     "\"f\"n",
                                     "'al'",
                                     "pwd",
                                     "kill %1",
                                     "wait",
                                     "a=b=c",
                                     "echo a{b,c}",
                                     "ls ^x",
                                     "echo (",
                                     "x=(1)",
                                     "coproc ls",
                                     ">&1- cd /tmp",
                                     "<&0- x=5",
                                     ">&1'-' cd /tmp",
                                     ">&2x cd /tmp",
                                     "ls >&1x",
                                     "2147483648>f echo",
                                     "1000000000>f echo",
                                     "__bsh_f",
                                     ">&- al",
                                     "function f",
                                     NULL};
    struct bsh__state *st = state_with(NULL);
    bool all = true;
    for (const char *const *c = yes; *c != NULL; c++)
        if (!bsh__session_stateless(*c, st, NULL)) {
            diag("not stateless: %s", *c);
            all = false;
        }
    ok(all, "plain commands are stateless");
    all = true;
    for (const char *const *c = no; *c != NULL; c++)
        if (bsh__session_stateless(*c, st, NULL)) {
            diag("stateless: %s", *c);
            all = false;
        }
    ok(all, "expansions, assignments, builtins, keywords and the session's "
            "functions and aliases are not");
    bsh__state_free(st);
    static const char *const keyword[] = {"keyword", NULL};
    static const char *const histexpand[] = {"histexpand", NULL};
    st = state_with(keyword);
    ok(!bsh__session_stateless("ls a=b", st, NULL),
       "with set -k, no command is");
    bsh__state_free(st);
    st = state_with(histexpand);
    ok(!bsh__session_stateless("ls", st, NULL), "with set -H, no command is");
    bsh__state_free(st);
    st = state_with(NULL);
    if (bsh__state_add(st, REC_FUNC, "command_not_found_handle", 24, "x", 1,
                       0) < 0)
        abort();
    ok(!bsh__session_stateless("ls", st, NULL),
       "with a command_not_found_handle, no command is");
    bsh__state_free(st);
    st = state_with(NULL);
    if (bsh__state_add(st, REC_FUNC, "ex", 2, "declare -fx ex", 14, 0) < 0)
        abort();
    ok(!bsh__session_stateless("ls", st, NULL),
       "with an exported function, no command is");
    bsh__state_free(st);
    st = state_with(NULL);
    if (bsh__state_add(st, REC_VAR, "PATH", 4, "declare -n PATH=\"P\"", 20, 0) <
        0)
        abort();
    ok(!bsh__session_stateless("ls", st, NULL),
       "with a nameref, no command is");
    bsh__state_free(st);
    st = state_with(NULL);
    static const char *const envs[] = {"BASH_ENV=/x", "ENV=/x",
                                       "BASH_FUNC_f%%=() { :; }",
                                       "SHELLOPTS=xtrace", "BASHOPTS=extglob"};
    all = bsh__session_stateless("ls", st, NULL);
    for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
        char *env[] = {(char *)"PATH=/bin", (char *)envs[i], NULL};
        all = all && !bsh__session_stateless("ls", st, env);
    }
    ok(all, "nor when bash's environment defines code or options");
    bsh__state_free(st);
    st = state_with(NULL);
    if (bsh__state_add(st, REC_VAR, "UP", 2, "declare -u UP", 13, 0) < 0 ||
        bsh__state_add(st, REC_VAR, "EX", 2, "declare -x EX=\"1\"", 17, 0) <
            0 ||
        bsh__state_add(st, REC_VAR, "PL", 2, "declare -- PL=\"1\"", 17, 0) < 0)
        abort();
    struct bsh_env_var up[] = {{"UP", "a"}},
                       plain[] = {{"EX", "a"}, {"PL", "b"}};
    ok(!bsh__session_call_env_plain(st, up, 1) &&
           bsh__session_call_env_plain(st, plain, 2),
       "a call's variable on a name with attributes is not lean");
    bsh__state_free(st);
    char *big = malloc(5000);
    memset(big, 'a', 4999);
    big[4999] = '\0';
    st = state_with(NULL);
    ok(!bsh__session_stateless(big, st, NULL),
       "a command over 4 KiB is not looked at");
    bsh__state_free(st);
    free(big);
}

int main(void)
{
    test_forms();
    test_every_byte("C");
    test_every_byte("C.UTF-8");
    test_environment();
    test_stateless();
    return tap_done();
}
