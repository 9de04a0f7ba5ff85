/* SPDX-License-Identifier: MIT */
/*
 * Environment variables: the name rule of SPEC 1.5 and the child's
 * environment, built in the parent before the spawn (the child must not
 * allocate).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

static bool name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool bsh_env_name_valid(const char *name)
{
    if (name == NULL || !name_start(name[0]))
        return false;
    for (const char *p = name + 1; *p != '\0'; p++)
        if (!name_start(*p) && !(*p >= '0' && *p <= '9'))
            return false;
    return true;
}

/* True when `entry` ("NAME=VALUE") sets `name`. */
static bool entry_names(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

const char *bsh__env_value(char *const *envp, const char *name)
{
    for (char *const *e = envp != NULL ? envp : environ;
         e != NULL && *e != NULL; e++)
        if (entry_names(*e, name))
            return *e + strlen(name) + 1;
    return NULL;
}

/* True when a later variable than `index` has the same name. */
static bool overridden_later(const struct bsh_env_var *vars, size_t count,
                             size_t index)
{
    for (size_t j = index + 1; j < count; j++)
        if (strcmp(vars[j].name, vars[index].name) == 0)
            return true;
    return false;
}

static bool set_by_vars(const struct bsh_env_var *vars, size_t count,
                        const char *entry)
{
    for (size_t j = 0; j < count; j++)
        if (entry_names(entry, vars[j].name))
            return true;
    return false;
}

char **bsh__env_build(const struct bsh_env_var *vars, size_t count)
{
    size_t inherited = 0, bytes = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++)
        inherited++;
    for (size_t j = 0; j < count; j++)
        bytes += strlen(vars[j].name) + strlen(vars[j].value) + 2;
    /* One block: the pointer array, then the strings of `vars`. */
    size_t slots = inherited + count + 1;
    char **envp = malloc(slots * sizeof(char *) + bytes);
    if (envp == NULL)
        return NULL;
    char *text = (char *)(envp + slots);
    size_t n = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++)
        if (!set_by_vars(vars, count, *e))
            envp[n++] = *e;
    for (size_t j = 0; j < count; j++) {
        if (overridden_later(vars, count, j))
            continue;
        size_t ln = strlen(vars[j].name), lv = strlen(vars[j].value);
        memcpy(text, vars[j].name, ln);
        text[ln] = '=';
        memcpy(text + ln + 1, vars[j].value, lv + 1);
        envp[n++] = text;
        text += ln + lv + 2;
    }
    envp[n] = NULL;
    return envp;
}

struct bsh_env_var *bsh__env_with_tmpdir(const struct bsh_run_opts *o,
                                         const char *tmpdir, size_t *count)
{
    size_t n = o->env != NULL ? o->env_count : 0;
    struct bsh_env_var *vars = malloc((n + 1) * sizeof(*vars));
    if (vars == NULL)
        return NULL;
    if (n > 0)
        memcpy(vars, o->env, n * sizeof(*vars));
    if (tmpdir != NULL)
        vars[n++] = (struct bsh_env_var){"TMPDIR", tmpdir};
    *count = n;
    return vars;
}
