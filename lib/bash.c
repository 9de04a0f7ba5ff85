/* SPDX-License-Identifier: MIT */
/*
 * The wrapper (the reference's Bash): one execution context, owned copies
 * of its working directory and environment, and runs whose streams drop
 * the raw engine's errors as the reference documents.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bsh_bash {
    struct bsh_run_opts opts;
    char *cwd;
    struct bsh_env_var *env;
    char *strings; /* names and values of `env`, one block */
};

static const char tool_json[] =
    "{\"name\":\"bash_run\","
    "\"description\":\"Run a bash command (bash -c) and return its output "
    "and exit status. Commands are checked against tripwires for "
    "catastrophic mistakes first; absolute command paths are rejected.\","
    "\"inputSchema\":{\"type\":\"object\","
    "\"properties\":{"
    "\"command\":{\"type\":\"string\",\"description\":\"The bash command "
    "line to run.\"},"
    "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":0,\"description\":"
    "\"Deadline of the run in milliseconds; everything it started is "
    "killed when it passes.\"},"
    "\"idle_timeout_ms\":{\"type\":\"integer\",\"minimum\":1,"
    "\"description\":\"End the run when it has printed nothing for this "
    "many milliseconds.\"}},"
    "\"required\":[\"command\"]}}";

const char *bsh_bash_tool_json(void)
{
    return tool_json;
}

static size_t env_bytes(const struct bsh_run_opts *o)
{
    size_t n = 0;
    for (size_t i = 0; i < o->env_count; i++)
        n += strlen(o->env[i].name) + strlen(o->env[i].value) + 2;
    return n;
}

static char *copy_into(char **cursor, const char *s)
{
    size_t n = strlen(s) + 1;
    char *dst = memcpy(*cursor, s, n);
    *cursor += n;
    return dst;
}

static int copy_env(struct bsh_bash *b, const struct bsh_run_opts *o)
{
    if (o->env == NULL || o->env_count == 0)
        return 0;
    for (size_t i = 0; i < o->env_count; i++)
        if (o->env[i].name == NULL || o->env[i].value == NULL)
            return -EINVAL;
    b->env = calloc(o->env_count, sizeof(*b->env));
    b->strings = malloc(env_bytes(o));
    if (b->env == NULL || b->strings == NULL)
        return -ENOMEM;
    char *cursor = b->strings;
    for (size_t i = 0; i < o->env_count; i++) {
        b->env[i].name = copy_into(&cursor, o->env[i].name);
        b->env[i].value = copy_into(&cursor, o->env[i].value);
    }
    b->opts.env = b->env;
    b->opts.env_count = o->env_count;
    return 0;
}

struct bsh_bash *bsh_bash_new(const struct bsh_run_opts *opts)
{
    static const struct bsh_run_opts defaults = BSH_RUN_OPTS_INIT;
    const struct bsh_run_opts *o = opts != NULL ? opts : &defaults;
    struct bsh_bash *b = calloc(1, sizeof(*b));
    if (b == NULL)
        return NULL;
    b->opts.timeout_ms = o->timeout_ms;
    b->opts.pty = o->pty;
    b->opts.idle_timeout_ms = o->idle_timeout_ms;
    b->opts.grace_ms = o->grace_ms;
    if (o->cwd != NULL && (b->cwd = strdup(o->cwd)) == NULL)
        goto fail;
    b->opts.cwd = b->cwd;
    if (copy_env(b, o) < 0)
        goto fail;
    return b;
fail:
    bsh_bash_free(b);
    return NULL;
}

int bsh_bash_run(const struct bsh_bash *bash, const char *command,
                 struct bsh_stream **out, struct bsh_error *err)
{
    if (bash == NULL)
        return BSH_EINVAL;
    struct bsh_run_opts o = bash->opts;
    o.command = command;
    return bsh__run_quiet(&o, out, err);
}

void bsh_bash_free(struct bsh_bash *bash)
{
    if (bash == NULL)
        return;
    free(bash->cwd);
    free(bash->env);
    free(bash->strings);
    free(bash);
}
