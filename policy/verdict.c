/* SPDX-License-Identifier: MIT */
/*
 * A verdict as it is built: entries in the order the commands were found
 * (source order at each level, an inner command after the one that runs
 * it), and the strings they point to, owned by the verdict. Also how an
 * entry is shown: its words as bsh quotes them, and why it was decided.
 */
#include "decide.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pol_verdict_builder {
    struct bsh_policy_command *cmds;
    size_t n, cap;
    char **kept;
    size_t nkept, capkept;
    bool nomem;
};

struct pol_verdict_builder *pol_verdict_new(void)
{
    return calloc(1, sizeof(struct pol_verdict_builder));
}

static char *keep(struct pol_verdict_builder *vb, char *s)
{
    if (s == NULL) {
        vb->nomem = true;
        return NULL;
    }
    if (vb->nkept == vb->capkept) {
        size_t cap = vb->capkept ? vb->capkept * 2 : 16;
        char **v = realloc(vb->kept, cap * sizeof(*v));
        if (v == NULL) {
            free(s);
            vb->nomem = true;
            return NULL;
        }
        vb->kept = v;
        vb->capkept = cap;
    }
    vb->kept[vb->nkept++] = s;
    return s;
}

const char *pol_intern(struct pol_verdict_builder *vb, const char *s)
{
    const char *k = keep(vb, strdup(s));
    return k ? k : "";
}

static const char *keep_printf(struct pol_verdict_builder *vb, const char *a,
                               const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s%s%s", a, b, c);
    const char *k = keep(vb, s);
    return k ? k : "opaque";
}

const char *pol_reason_assignment(struct pol_verdict_builder *vb,
                                  const char *name)
{
    return keep_printf(vb, "assignment to ", name, "");
}

const char *pol_reason_unknown_option(struct pol_verdict_builder *vb,
                                      const char *wrapper, const char *option)
{
    char tail[160];
    snprintf(tail, sizeof(tail), " of %s", wrapper);
    return keep_printf(vb, "unknown option ", option, tail);
}

/* An entry's words, flags and via live in one block, at c->words. */
static void free_command(struct bsh_policy_command *c)
{
    free(c->words);
}

size_t pol_verdict_add(struct pol_verdict_builder *vb, size_t start, size_t end,
                       const char *const *via, size_t nvia,
                       const struct pol_word *words, size_t nwords)
{
    if (vb->n == vb->cap) {
        size_t cap = vb->cap ? vb->cap * 2 : 8;
        struct bsh_policy_command *v = realloc(vb->cmds, cap * sizeof(*v));
        if (v == NULL) {
            vb->nomem = true;
            return SIZE_MAX;
        }
        vb->cmds = v;
        vb->cap = cap;
    }
    size_t bytes = (nwords + nvia + 1) * sizeof(char *) + nwords + 1;
    for (size_t i = 0; i < nwords; i++)
        bytes += words[i].len + 1;
    for (size_t i = 0; i < nvia; i++)
        bytes += strlen(via[i]) + 1;
    char **block = malloc(bytes);
    if (block == NULL) {
        vb->nomem = true;
        return SIZE_MAX;
    }
    struct bsh_policy_command *c = &vb->cmds[vb->n];
    memset(c, 0, sizeof(*c));
    c->start = start;
    c->end = end;
    c->words = block;
    c->via = block + nwords;
    c->dynamic = (bool *)(block + nwords + nvia + 1);
    char *text = (char *)(c->dynamic + nwords + 1);
    for (size_t i = 0; i < nwords; i++) {
        memcpy(text, words[i].value, words[i].len);
        text[words[i].len] = '\0';
        c->words[i] = text;
        c->dynamic[i] = words[i].dynamic;
        text += words[i].len + 1;
    }
    for (size_t i = 0; i < nvia; i++) {
        size_t k = strlen(via[i]);
        memcpy(text, via[i], k + 1);
        c->via[i] = text;
        text += k + 1;
    }
    c->nwords = nwords;
    c->nvia = nvia;
    return vb->n++;
}

size_t pol_verdict_count(const struct pol_verdict_builder *vb)
{
    return vb->n;
}

void pol_verdict_set(struct pol_verdict_builder *vb, size_t index,
                     enum bsh_decision d, const struct bsh_policy_rule *rule,
                     const char *reason)
{
    struct bsh_policy_command *c = &vb->cmds[index];
    c->decision = d;
    c->rule = rule;
    c->reason = reason;
}

/* What a verdict keeps apart from its commands. */
struct verdict_private {
    char **kept;
    size_t nkept;
};

int pol_verdict_finish(struct pol_verdict_builder *vb,
                       enum bsh_decision decision,
                       struct bsh_policy_verdict *out)
{
    memset(out, 0, sizeof(*out));
    struct verdict_private *priv = calloc(1, sizeof(*priv));
    if (vb->nomem || priv == NULL) {
        free(priv);
        pol_verdict_discard(vb);
        return -1;
    }
    priv->kept = vb->kept;
    priv->nkept = vb->nkept;
    out->decision = decision;
    out->commands = vb->cmds;
    out->ncommands = vb->n;
    out->decider = SIZE_MAX;
    for (size_t i = 0; i < vb->n; i++) {
        if (vb->cmds[i].decision == decision) {
            out->decider = i;
            break;
        }
    }
    out->priv = priv;
    free(vb);
    return 0;
}

int pol_verdict_prepend(struct bsh_policy_verdict *v,
                        struct bsh_policy_verdict *extra,
                        enum bsh_decision decision)
{
    struct verdict_private *p = v->priv, *q = extra->priv;
    size_t n = v->ncommands + extra->ncommands;
    struct bsh_policy_command *cmds = malloc((n ? n : 1) * sizeof(*cmds));
    char **kept = malloc((p->nkept + q->nkept + 1) * sizeof(*kept));
    if (cmds == NULL || kept == NULL) {
        free(cmds);
        free(kept);
        bsh_policy_verdict_free(extra);
        return -1;
    }
    for (size_t i = 0; i < extra->ncommands; i++) {
        cmds[i] = extra->commands[i];
        cmds[i].start = cmds[i].end = 0; /* not in the command's text */
    }
    if (v->ncommands > 0)
        memcpy(cmds + extra->ncommands, v->commands,
               v->ncommands * sizeof(*cmds));
    if (p->nkept > 0)
        memcpy(kept, p->kept, p->nkept * sizeof(*kept));
    if (q->nkept > 0)
        memcpy(kept + p->nkept, q->kept, q->nkept * sizeof(*kept));
    free(v->commands);
    free(p->kept);
    v->commands = cmds;
    v->ncommands = n;
    p->kept = kept;
    p->nkept += q->nkept;
    free(extra->commands);
    free(q->kept);
    free(q);
    memset(extra, 0, sizeof(*extra));
    v->decision = decision;
    v->decider = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (cmds[i].decision == decision) {
            v->decider = i;
            break;
        }
    }
    return 0;
}

void pol_verdict_discard(struct pol_verdict_builder *vb)
{
    if (vb == NULL)
        return;
    for (size_t i = 0; i < vb->n; i++)
        free_command(&vb->cmds[i]);
    free(vb->cmds);
    for (size_t i = 0; i < vb->nkept; i++)
        free(vb->kept[i]);
    free(vb->kept);
    free(vb);
}

void bsh_policy_verdict_free(struct bsh_policy_verdict *v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < v->ncommands; i++)
        free_command(&v->commands[i]);
    free(v->commands);
    struct verdict_private *priv = v->priv;
    if (priv != NULL) {
        for (size_t i = 0; i < priv->nkept; i++)
            free(priv->kept[i]);
        free(priv->kept);
        free(priv);
    }
    memset(v, 0, sizeof(*v));
}

/* ---- Showing an entry ---- */

struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->len < o->size) {
        size_t room = o->size - o->len - 1;
        memcpy(o->buf + o->len, s, n < room ? n : room);
        o->buf[o->len + (n < room ? n : room)] = '\0';
    }
    o->len += n;
}

static bool plain_byte(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c);
}

size_t bsh_policy_command_text(const struct bsh_policy_command *c, char *buf,
                               size_t size)
{
    struct out o = {.buf = buf, .size = size};
    if (size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < c->nwords; i++) {
        if (i > 0)
            put(&o, " ", 1);
        const char *w = c->words[i];
        size_t n = strlen(w);
        bool plain = n > 0;
        for (size_t k = 0; k < n && plain; k++)
            plain = plain_byte((unsigned char)w[k]);
        if (plain || c->dynamic[i]) {
            put(&o, w, n);
            continue;
        }
        bool control = false;
        for (size_t k = 0; k < n && !control; k++)
            control = (unsigned char)w[k] < 0x20 || w[k] == 0x7f;
        if (control) { /* $'...': a control byte shown, never sent to a tty */
            put(&o, "$'", 2);
            for (size_t k = 0; k < n; k++) {
                unsigned char b = (unsigned char)w[k];
                if (b < 0x20 || b == 0x7f || b == '\'' || b == '\\') {
                    char esc[8];
                    int len = snprintf(esc, sizeof(esc), "\\x%02x", b);
                    put(&o, esc, (size_t)len);
                } else {
                    put(&o, w + k, 1);
                }
            }
            put(&o, "'", 1);
            continue;
        }
        put(&o, "'", 1);
        for (size_t k = 0; k < n; k++) {
            if (w[k] == '\'')
                put(&o, "'\\''", 4);
            else
                put(&o, w + k, 1);
        }
        put(&o, "'", 1);
    }
    return o.len;
}

size_t bsh_policy_command_why(const struct bsh_policy_command *c, char *buf,
                              size_t size)
{
    struct out o = {.buf = buf, .size = size};
    if (size > 0)
        buf[0] = '\0';
    char head[64];
    if (c->reason != NULL) {
        put(&o, "opaque: ", 8);
        put(&o, c->reason, strlen(c->reason));
    } else if (c->rule != NULL) {
        put(&o, c->rule->file, strlen(c->rule->file));
        int n = snprintf(head, sizeof(head), ":%u", c->rule->line);
        put(&o, head, (size_t)n);
        if (c->rule->justification != NULL) {
            put(&o, ": ", 2);
            put(&o, c->rule->justification, strlen(c->rule->justification));
        }
    } else {
        put(&o, "default", 7);
    }
    return o.len;
}

size_t bsh_policy_message(const struct bsh_policy_verdict *v, bool asked,
                          char *buf, size_t size)
{
    struct out o = {.buf = buf, .size = size};
    if (size > 0)
        buf[0] = '\0';
    if (v->decision == BSH_ALLOW || v->decider >= v->ncommands)
        return 0;
    const char *head = v->decision == BSH_DENY ? "policy: denied: "
                       : asked                 ? "policy: not approved: "
                                               : "policy: approval needed: ";
    put(&o, head, strlen(head));
    const struct bsh_policy_command *c = &v->commands[v->decider];
    size_t n = bsh_policy_command_text(c, NULL, 0);
    char *text = malloc(n + 1);
    size_t w = bsh_policy_command_why(c, NULL, 0);
    char *why = malloc(w + 1);
    if (text != NULL && why != NULL) {
        bsh_policy_command_text(c, text, n + 1);
        bsh_policy_command_why(c, why, w + 1);
        put(&o, text, n);
        put(&o, " (", 2);
        put(&o, why, w);
        put(&o, ")", 1);
    }
    free(text);
    free(why);
    return o.len;
}
