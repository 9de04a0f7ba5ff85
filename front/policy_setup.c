/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "policy_setup.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct file_list {
    struct bsh_policy_file *v;
    char **owned;
    size_t n, cap;
    bool failed;
};

static void add(struct file_list *l, char *path, enum bsh_policy_file_kind kind)
{
    if (path == NULL) {
        l->failed = true;
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        struct bsh_policy_file *v = realloc(l->v, cap * sizeof(*v));
        char **o = realloc(l->owned, cap * sizeof(*o));
        if (v != NULL)
            l->v = v;
        if (o != NULL)
            l->owned = o;
        if (v == NULL || o == NULL) {
            free(path);
            l->failed = true;
            return;
        }
        l->cap = cap;
    }
    l->owned[l->n] = path;
    l->v[l->n] = (struct bsh_policy_file){.path = path, .kind = kind};
    l->n++;
}

static void release(struct file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->owned[i]);
    free(l->owned);
    free(l->v);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static char *config_dir(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    char *dir = NULL;
    if (xdg != NULL && xdg[0] == '/') {
        if (asprintf(&dir, "%s/bsh", xdg) < 0)
            return NULL;
        return dir;
    }
    const char *home = getenv("HOME");
    if (home == NULL || home[0] != '/')
        return NULL;
    if (asprintf(&dir, "%s/.config/bsh", home) < 0)
        return NULL;
    return dir;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int rules_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 6 && d->d_name[0] != '.' &&
           strcmp(d->d_name + n - 6, ".rules") == 0;
}

/* ~/.config/bsh/policy.rules, then every ~/.config/bsh/rules/NAME.rules
 * in byte order of the names. */
static void user_files(struct file_list *l)
{
    char *dir = config_dir();
    if (dir == NULL)
        return;
    char *main_file = NULL;
    if (asprintf(&main_file, "%s/policy.rules", dir) >= 0) {
        if (exists(main_file))
            add(l, main_file, BSH_POLICY_FILE_USER);
        else
            free(main_file);
    }
    char *rules = NULL;
    if (asprintf(&rules, "%s/rules", dir) >= 0) {
        struct dirent **names = NULL;
        int n = scandir(rules, &names, rules_file, by_name);
        for (int i = 0; i < n; i++) {
            char *p = NULL;
            if (asprintf(&p, "%s/%s", rules, names[i]->d_name) >= 0)
                add(l, p, BSH_POLICY_FILE_USER);
            free(names[i]);
        }
        free(names);
        free(rules);
    }
    free(dir);
}

/* .bsh/policy.rules in the directory or a parent, up to the first that
 * holds .git, or /. */
static void project_file(struct file_list *l, const struct policy_options *o)
{
    char *dir = realpath(o->cwd != NULL && o->cwd[0] ? o->cwd : ".", NULL);
    while (dir != NULL) {
        char *p = NULL, *git = NULL;
        if (asprintf(&p, "%s%s.bsh/policy.rules", dir,
                     strcmp(dir, "/") == 0 ? "" : "/") < 0 ||
            asprintf(&git, "%s%s.git", dir, strcmp(dir, "/") == 0 ? "" : "/") <
                0) {
            free(p);
            break;
        }
        if (exists(p)) {
            add(l, p,
                o->trust_project ? BSH_POLICY_FILE_GIVEN
                                 : BSH_POLICY_FILE_UNTRUSTED);
            free(git);
            break;
        }
        free(p);
        bool top = exists(git) || strcmp(dir, "/") == 0;
        free(git);
        if (top)
            break;
        char *slash = strrchr(dir, '/');
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    free(dir);
}

static bool decision_from(const char *name, enum bsh_decision *d)
{
    if (strcmp(name, "allow") == 0)
        *d = BSH_ALLOW;
    else if (strcmp(name, "ask") == 0)
        *d = BSH_ASK;
    else if (strcmp(name, "deny") == 0)
        *d = BSH_DENY;
    else
        return false;
    return true;
}

enum policy_setup_result
policy_setup(const struct policy_options *o, struct bsh_policy **out,
             char *message, size_t size,
             void (*warn)(void *data, const char *text), void *data)
{
    *out = NULL;
    message[0] = '\0';
    if (o->no_policy)
        return POLICY_NONE;
    enum bsh_decision d = BSH_ASK;
    const char *dname = o->default_name != NULL ? o->default_name
                                                : getenv("BSH_POLICY_DEFAULT");
    if (dname != NULL && dname[0] != '\0' && !decision_from(dname, &d)) {
        snprintf(message, size,
                 "invalid BSH_POLICY_DEFAULT '%s': expected allow, ask or deny",
                 dname);
        return POLICY_BAD_USAGE;
    }
    struct file_list l = {0};
    const char *env = getenv("BSH_POLICY");
    if (o->nfiles > 0) {
        for (size_t i = 0; i < o->nfiles; i++)
            add(&l, strdup(o->files[i]), BSH_POLICY_FILE_GIVEN);
    } else if (env != NULL && env[0] != '\0') {
        char *copy = strdup(env), *save = NULL;
        for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t;
             t = strtok_r(NULL, ":", &save))
            add(&l, strdup(t), BSH_POLICY_FILE_GIVEN);
        if (copy == NULL)
            l.failed = true;
        free(copy);
    }
    if (o->nfiles == 0 && l.n == 0 && !l.failed) /* BSH_POLICY=":" is unset */
        user_files(&l);
    if (o->project)
        project_file(&l, o);
    if (l.failed) {
        release(&l);
        return POLICY_NO_MEMORY;
    }
    if (l.n == 0) {
        release(&l);
        return POLICY_NONE;
    }
    struct bsh_policy_load_opts lo = {.files = l.v,
                                      .nfiles = l.n,
                                      .default_decision = d,
                                      .warn = warn,
                                      .warn_data = data};
    struct bsh_error err;
    int rc = bsh_policy_load(&lo, out, &err);
    release(&l);
    if (rc == BSH_ENOMEM)
        return POLICY_NO_MEMORY;
    if (rc != BSH_OK) {
        snprintf(message, size, "%s", err.text_err);
        return POLICY_BAD_FILE;
    }
    return POLICY_LOADED;
}
