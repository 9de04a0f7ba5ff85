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
    char **envp = bsh__session_env(s, in_env);
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
    size_t len = 0;
    char *script = bsh__session_script(st, in_env, NULL, 0, &len);
    ok(script != NULL && strstr(script, "X='it'") == NULL &&
           strstr(script, "IFS=':'") != NULL &&
           strstr(script, "builtin declare -x IFS=':' LANG='C' BIG=") != NULL,
       "the script restores the others in one declare");
    free(script);
    free(envp);
    free(in_env);
    bsh_session_free(s);
}

int main(void)
{
    test_forms();
    test_every_byte("C");
    test_every_byte("C.UTF-8");
    test_environment();
    return tap_done();
}
