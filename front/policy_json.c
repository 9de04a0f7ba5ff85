/* SPDX-License-Identifier: MIT */
#include "policy_json.h"

#include "report_format.h" /* quote_json */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jbuf {
    char *s;
    size_t len, cap;
    bool failed;
};

static void add(struct jbuf *b, const char *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (s == NULL) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void add_s(struct jbuf *b, const char *s)
{
    add(b, s, strlen(s));
}

static void add_string(struct jbuf *b, const char *s)
{
    if (s == NULL) {
        add_s(b, "null");
        return;
    }
    char *q = malloc(strlen(s) * 6 + 3);
    if (q == NULL) {
        b->failed = true;
        return;
    }
    size_t n = quote_json(s, q);
    add(b, q, n);
    free(q);
}

static void add_uint(struct jbuf *b, size_t v)
{
    char num[32];
    int n = snprintf(num, sizeof(num), "%zu", v);
    add(b, num, (size_t)n);
}

static void add_rule(struct jbuf *b, const struct bsh_policy_rule *r)
{
    if (r == NULL) {
        add_s(b, "null");
        return;
    }
    add_s(b, "{\"file\":");
    add_string(b, r->file);
    add_s(b, ",\"line\":");
    add_uint(b, r->line);
    add_s(b, ",\"column\":");
    add_uint(b, r->column);
    add_s(b, ",\"pattern\":[");
    for (size_t i = 0; i < r->pattern_len; i++) {
        add_s(b, i ? ",[" : "[");
        for (size_t k = 0; k < r->alternatives[i]; k++) {
            if (k)
                add_s(b, ",");
            add_string(b, r->pattern[i][k]);
        }
        add_s(b, "]");
    }
    add_s(b, "],\"decision\":");
    add_string(b, r->decision);
    add_s(b, ",\"justification\":");
    add_string(b, r->justification);
    add_s(b, "}");
}

static void add_command(struct jbuf *b, const struct bsh_policy_command *c)
{
    add_s(b, "{\"words\":[");
    for (size_t i = 0; i < c->nwords; i++) {
        if (i)
            add_s(b, ",");
        add_string(b, c->words[i]);
    }
    add_s(b, "],\"dynamic\":[");
    for (size_t i = 0; i < c->nwords; i++)
        add_s(b, i ? (c->dynamic[i] ? ",true" : ",false")
                   : (c->dynamic[i] ? "true" : "false"));
    add_s(b, "],\"start\":");
    add_uint(b, c->start);
    add_s(b, ",\"end\":");
    add_uint(b, c->end);
    add_s(b, ",\"via\":[");
    for (size_t i = 0; i < c->nvia; i++) {
        if (i)
            add_s(b, ",");
        add_string(b, c->via[i]);
    }
    add_s(b, "],\"decision\":");
    add_string(b, bsh_decision_name(c->decision));
    add_s(b, ",\"rule\":");
    add_rule(b, c->rule);
    add_s(b, ",\"reason\":");
    add_string(b, c->reason);
    add_s(b, "}");
}

static void add_commands(struct jbuf *b, const struct bsh_policy_verdict *v)
{
    add_s(b, "[");
    for (size_t i = 0; v != NULL && i < v->ncommands; i++) {
        if (i)
            add_s(b, ",");
        add_command(b, &v->commands[i]);
    }
    add_s(b, "]");
}

static char *finish(struct jbuf *b)
{
    if (b->failed) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

char *policy_commands_json(const struct bsh_policy_verdict *v)
{
    struct jbuf b = {0};
    add_commands(&b, v);
    return finish(&b);
}

char *policy_verdict_json(const struct bsh_policy_verdict *v, const char *guard)
{
    struct jbuf b = {0};
    add_s(&b, "{\"decision\":");
    add_string(&b, guard != NULL ? "deny" : bsh_decision_name(v->decision));
    add_s(&b, ",\"guard\":");
    add_string(&b, guard);
    add_s(&b, ",\"commands\":");
    add_commands(&b, guard != NULL ? NULL : v);
    add_s(&b, "}");
    return finish(&b);
}
