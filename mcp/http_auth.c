/* SPDX-License-Identifier: MIT */
#include "http_auth.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* A token file longer than this is not one. */
#define TOKEN_FILE_MAX (1u << 20)

static bool add_token(struct tokens *t, const char *line, size_t len)
{
    while (len > 0 && isspace((unsigned char)line[len - 1]))
        len--;
    /* Leading whitespace too: HTTP strips it from the header, so a token
     * that kept it could never be sent. */
    while (len > 0 && isspace((unsigned char)*line)) {
        line++;
        len--;
    }
    if (len == 0)
        return true;
    char **grown = realloc(t->list, (t->count + 1) * sizeof(*grown));
    if (grown == NULL)
        return false;
    t->list = grown;
    if ((t->list[t->count] = strndup(line, len)) == NULL)
        return false;
    t->count++;
    return true;
}

/* The file's text (NUL-ended), or NULL with why. */
static char *read_token_file(const char *path, char *why, size_t why_size)
{
    FILE *f = fopen(path, "re");
    struct stat st;
    if (f == NULL || fstat(fileno(f), &st) < 0) {
        snprintf(why, why_size, "--token-file '%.200s': %s", path,
                 strerror(errno));
        if (f != NULL)
            fclose(f);
        return NULL;
    }
    if ((st.st_mode & (S_IRGRP | S_IROTH)) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size > TOKEN_FILE_MAX) {
        snprintf(why, why_size,
                 S_ISREG(st.st_mode) && st.st_size <= TOKEN_FILE_MAX
                     ? "--token-file '%.200s': its group or others can read "
                       "it (chmod 600 it)"
                     : "--token-file '%.200s': not a regular file of at "
                       "most 1 MiB",
                 path);
        fclose(f);
        return NULL;
    }
    char *text = calloc(1, (size_t)st.st_size + 1);
    size_t got = text != NULL ? fread(text, 1, (size_t)st.st_size, f) : 0;
    bool bad = text == NULL || ferror(f);
    fclose(f);
    if (bad) {
        snprintf(why, why_size, "--token-file '%.200s': cannot read it", path);
        free(text);
        return NULL;
    }
    text[got] = '\0';
    return text;
}

bool tokens_load(struct tokens *t, const char *path, char *why, size_t why_size)
{
    memset(t, 0, sizeof(*t));
    char *text = read_token_file(path, why, why_size);
    if (text == NULL)
        return false;
    bool ok = true;
    for (char *line = text; ok && *line != '\0';) {
        char *nl = strchr(line, '\n');
        size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
        ok = add_token(t, line, len);
        line += len + (nl != NULL);
    }
    free(text);
    if (ok && t->count > 0)
        return true;
    snprintf(why, why_size,
             ok ? "--token-file '%.200s': it holds no token"
                : "--token-file '%.200s': out of memory",
             path);
    tokens_free(t);
    return false;
}

void tokens_free(struct tokens *t)
{
    for (size_t i = 0; i < t->count; i++) {
        /* A token does not outlive its use in memory. */
        memset(t->list[i], 0, strlen(t->list[i]));
        free(t->list[i]);
    }
    free(t->list);
    memset(t, 0, sizeof(*t));
}

/* Whether `a` (of `alen`) is `b`, in time that depends on `b`'s length
 * only. */
static bool same_secret(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    unsigned char diff = alen != blen;
    for (size_t i = 0; i < blen; i++)
        diff |= (unsigned char)(b[i] ^ (i < alen ? a[i] : 0));
    return diff == 0;
}

int tokens_match(const struct tokens *t, const char *authorization)
{
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return -1;
    const char *given = authorization + 7;
    while (*given == ' ')
        given++;
    size_t len = strlen(given);
    while (len > 0 && given[len - 1] == ' ')
        len--;
    int found = -1;
    for (size_t i = 0; i < t->count; i++)
        if (same_secret(given, len, t->list[i]) && found < 0)
            found = (int)i;
    return len > 0 ? found : -1;
}

/* Whether `origin` is scheme://HOST with an optional :PORT after. */
static bool origin_is(const char *origin, const char *scheme, const char *host)
{
    size_t s = strlen(scheme), h = strlen(host);
    if (strncmp(origin, scheme, s) != 0 || strncmp(origin + s, host, h) != 0)
        return false;
    const char *rest = origin + s + h;
    if (*rest == '\0')
        return true;
    if (*rest++ != ':' || *rest == '\0')
        return false;
    for (; *rest != '\0'; rest++)
        if (!isdigit((unsigned char)*rest))
            return false;
    return true;
}

bool origin_allowed(const char *origin, const char *const *allowed,
                    size_t allowed_count)
{
    if (origin == NULL)
        return true;
    static const char *const hosts[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
        if (origin_is(origin, "http://", hosts[i]) ||
            origin_is(origin, "https://", hosts[i]))
            return true;
    for (size_t i = 0; i < allowed_count; i++)
        if (strcmp(origin, allowed[i]) == 0)
            return true;
    return false;
}
