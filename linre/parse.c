/* SPDX-License-Identifier: MIT */
/*
 * Parser of the regular PCRE subset into a Thompson NFA (nfa.h).
 * Anything outside the subset makes the parse fail, so the caller can fall
 * back to PCRE2 rather than match with different semantics.
 */
#include "nfa.h"

#include <stdlib.h>
#include <string.h>

enum ast_type { AST_EMPTY, AST_SET, AST_ASSERT, AST_CAT, AST_ALT, AST_REPEAT };

struct ast {
    enum ast_type type;
    struct ast *left, *right; /* CAT, ALT; REPEAT uses left */
    struct byteset set;
    int assert_kind;
    int min, max; /* REPEAT; max -1 = unbounded */
};

struct parser {
    const char *p;
    bool icase;
    bool failed;
    int depth;
};

#define MAX_DEPTH  64
#define MAX_REPEAT 100

/* Appends a node; -1 when the NFA is full. */
static int nfa_add(struct nfa *nfa, enum node_type type, int out, int out1)
{
    if (nfa->count >= NFA_MAX_NODES)
        return -1;
    struct nfa_node *n = &nfa->nodes[nfa->count];
    memset(n, 0, sizeof(*n));
    n->type = type;
    n->out = out;
    n->out1 = out1;
    return nfa->count++;
}

static struct ast *ast_new(struct parser *ps, enum ast_type type)
{
    struct ast *a = calloc(1, sizeof(*a));
    if (a == NULL)
        ps->failed = true;
    else
        a->type = type;
    return a;
}

static void ast_free(struct ast *a)
{
    if (a == NULL)
        return;
    ast_free(a->left);
    ast_free(a->right);
    free(a);
}

static void set_add(struct byteset *s, unsigned c)
{
    s->bits[c >> 6] |= (uint64_t)1 << (c & 63);
}

static void set_add_range(struct byteset *s, unsigned lo, unsigned hi)
{
    for (unsigned c = lo; c <= hi; c++)
        set_add(s, c);
}

static void set_invert(struct byteset *s)
{
    for (int i = 0; i < 4; i++)
        s->bits[i] = ~s->bits[i];
}

static void set_union(struct byteset *s, const struct byteset *o)
{
    for (int i = 0; i < 4; i++)
        s->bits[i] |= o->bits[i];
}

static void set_fold_case(struct byteset *s)
{
    for (unsigned c = 'a'; c <= 'z'; c++) {
        unsigned up = c - 'a' + 'A';
        if (linre_byteset_has(s, c) || linre_byteset_has(s, up)) {
            set_add(s, c);
            set_add(s, up);
        }
    }
}

/* The shorthand classes \d \s \w and their negations; false if `c` is not
 * one of them. */
static bool shorthand_class(char c, struct byteset *out)
{
    struct byteset s = {{0, 0, 0, 0}};
    switch (c | 0x20) {
    case 'd':
        set_add_range(&s, '0', '9');
        break;
    case 's':
        set_add_range(&s, '\t', '\r'); /* \t \n \v \f \r */
        set_add(&s, ' ');
        break;
    case 'w':
        set_add_range(&s, '0', '9');
        set_add_range(&s, 'A', 'Z');
        set_add_range(&s, 'a', 'z');
        set_add(&s, '_');
        break;
    default:
        return false;
    }
    if (c >= 'A' && c <= 'Z')
        set_invert(&s);
    *out = s;
    return true;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

/* A single-byte escape (after the backslash) such as \n, \x41 or \/;
 * returns -1 for anything else. Advances past it. */
static int escaped_byte(struct parser *ps)
{
    char c = *ps->p;
    static const char controls[] = "t\tn\nr\rf\fv\va\ae\033";
    for (const char *k = controls; *k != '\0'; k += 2) {
        if (c == k[0]) {
            ps->p++;
            return (unsigned char)k[1];
        }
    }
    if (c == 'x') {
        int hi = hex_value(ps->p[1]), lo = hi < 0 ? -1 : hex_value(ps->p[2]);
        if (lo < 0)
            return -1;
        ps->p += 3;
        return hi * 16 + lo;
    }
    /* Escaped punctuation stands for itself; letters and digits are
     * classes, assertions or backreferences handled elsewhere. */
    if (c != '\0' &&
        !((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))) {
        ps->p++;
        return (unsigned char)c;
    }
    return -1;
}

/* One member of a bracket class: a byte (returned) or a shorthand class
 * (added to `s`, returns -2). -1 on an unsupported member. */
static int class_member(struct parser *ps, struct byteset *s)
{
    if (*ps->p == '[' && ps->p[1] == ':')
        return -1; /* POSIX [:alpha:] classes are not supported */
    if (*ps->p != '\\')
        return (unsigned char)*ps->p++;
    ps->p++;
    struct byteset sh;
    if (shorthand_class(*ps->p, &sh)) {
        ps->p++;
        set_union(s, &sh);
        return -2;
    }
    return escaped_byte(ps);
}

static struct ast *parse_class(struct parser *ps)
{
    struct ast *a = ast_new(ps, AST_SET);
    if (a == NULL)
        return NULL;
    bool negate = *ps->p == '^';
    if (negate)
        ps->p++;
    bool first = true;
    while (*ps->p != '\0' && (*ps->p != ']' || first)) {
        first = false;
        int lo = class_member(ps, &a->set);
        if (lo == -1)
            goto fail;
        if (lo == -2)
            continue;
        if (*ps->p == '-' && ps->p[1] != ']' && ps->p[1] != '\0') {
            ps->p++;
            int hi = class_member(ps, &a->set);
            if (hi < lo)
                goto fail;
            set_add_range(&a->set, (unsigned)lo, (unsigned)hi);
        } else {
            set_add(&a->set, (unsigned)lo);
        }
    }
    if (*ps->p != ']')
        goto fail;
    ps->p++;
    if (ps->icase)
        set_fold_case(&a->set);
    if (negate)
        set_invert(&a->set);
    return a;
fail:
    ps->failed = true;
    return a;
}

static struct ast *parse_alt(struct parser *ps);

static struct ast *parse_escape(struct parser *ps)
{
    char c = *ps->p;
    static const char asserts[] = "bBAz";
    const char *k = c != '\0' ? strchr(asserts, c) : NULL;
    if (k != NULL) {
        struct ast *a = ast_new(ps, AST_ASSERT);
        if (a != NULL)
            a->assert_kind = (int)(k - asserts) + ASSERT_WORD;
        ps->p++;
        return a;
    }
    struct ast *a = ast_new(ps, AST_SET);
    if (a == NULL)
        return NULL;
    if (shorthand_class(c, &a->set)) {
        ps->p++;
        return a;
    }
    int b = escaped_byte(ps);
    if (b < 0)
        ps->failed = true;
    else
        set_add(&a->set, (unsigned)b);
    if (ps->icase)
        set_fold_case(&a->set);
    return a;
}

static struct ast *parse_group(struct parser *ps)
{
    if (*ps->p == '?') {
        if (ps->p[1] != ':') {
            ps->failed = true; /* lookaround, named groups, inline flags */
            return NULL;
        }
        ps->p += 2;
    }
    if (++ps->depth > MAX_DEPTH) {
        ps->failed = true;
        return NULL;
    }
    struct ast *a = parse_alt(ps);
    ps->depth--;
    if (*ps->p != ')')
        ps->failed = true;
    else
        ps->p++;
    return a;
}

static struct ast *parse_atom(struct parser *ps)
{
    char c = *ps->p++;
    struct ast *a;
    switch (c) {
    case '(':
        return parse_group(ps);
    case '[':
        return parse_class(ps);
    case '\\':
        return parse_escape(ps);
    case '^':
    case '$':
        a = ast_new(ps, AST_ASSERT);
        if (a != NULL)
            a->assert_kind = c == '^' ? ASSERT_BEGIN : ASSERT_END;
        return a;
    case '.':
        a = ast_new(ps, AST_SET);
        if (a != NULL) {
            set_add(&a->set, '\n');
            set_invert(&a->set);
        }
        return a;
    case '*':
    case '+':
    case '?':
    case ')':
        ps->failed = true; /* a quantifier with nothing to repeat */
        return NULL;
    default:
        a = ast_new(ps, AST_SET);
        if (a != NULL) {
            set_add(&a->set, (unsigned char)c);
            if (ps->icase)
                set_fold_case(&a->set);
        }
        return a;
    }
}

static int parse_int(struct parser *ps)
{
    int v = -1;
    while (*ps->p >= '0' && *ps->p <= '9') {
        v = (v < 0 ? 0 : v) * 10 + (*ps->p++ - '0');
        if (v > MAX_REPEAT)
            return MAX_REPEAT + 1;
    }
    return v;
}

/* Parses {n}, {n,} or {n,m}; false (nothing consumed) if not a counted
 * repeat, which PCRE then reads as a literal brace. */
static bool parse_counted(struct parser *ps, int *min, int *max)
{
    const char *save = ps->p;
    ps->p++;
    *min = parse_int(ps);
    *max = *min;
    if (*ps->p == ',') {
        ps->p++;
        *max = parse_int(ps);
    }
    if (*min < 0 || *ps->p != '}') {
        ps->p = save;
        return false;
    }
    ps->p++;
    if (*min > MAX_REPEAT || *max > MAX_REPEAT || (*max >= 0 && *max < *min))
        ps->failed = true;
    return true;
}

static struct ast *parse_repeat(struct parser *ps)
{
    struct ast *atom = parse_atom(ps);
    for (;;) {
        int min, max;
        char q = *ps->p;
        if (q == '*' || q == '+' || q == '?') {
            ps->p++;
            min = q == '+' ? 1 : 0;
            max = q == '?' ? 1 : -1;
        } else if (!(q == '{' && parse_counted(ps, &min, &max))) {
            return atom;
        }
        if (*ps->p == '?') /* laziness does not change whether it matches */
            ps->p++;
        else if (*ps->p == '+') /* possessive does: not supported */
            ps->failed = true;
        struct ast *r = ast_new(ps, AST_REPEAT);
        if (r == NULL)
            return atom;
        r->left = atom;
        r->min = min;
        r->max = max;
        atom = r;
    }
}

static struct ast *join(struct parser *ps, enum ast_type type, struct ast *l,
                        struct ast *r)
{
    struct ast *a = ast_new(ps, type);
    if (a == NULL) {
        ast_free(l);
        ast_free(r);
        return NULL;
    }
    a->left = l;
    a->right = r;
    return a;
}

static struct ast *parse_concat(struct parser *ps)
{
    struct ast *a = ast_new(ps, AST_EMPTY);
    while (!ps->failed && *ps->p != '\0' && *ps->p != '|' && *ps->p != ')')
        a = join(ps, AST_CAT, a, parse_repeat(ps));
    return a;
}

static struct ast *parse_alt(struct parser *ps)
{
    struct ast *a = parse_concat(ps);
    while (!ps->failed && *ps->p == '|') {
        ps->p++;
        a = join(ps, AST_ALT, a, parse_concat(ps));
    }
    return a;
}

/* Compiles `a` so that it continues to `next`; returns its start node
 * (continuation-passing Thompson construction: no patch lists). */
static int compile(struct nfa *nfa, const struct ast *a, int next);

static int compile_repeat(struct nfa *nfa, const struct ast *a, int next)
{
    int start = next;
    if (a->max < 0) {
        /* x* : loop = split(x -> loop, next) */
        int loop = nfa_add(nfa, NODE_SPLIT, -1, next);
        if (loop < 0)
            return -1;
        int body = compile(nfa, a->left, loop);
        if (body < 0)
            return -1;
        nfa->nodes[loop].out = body;
        start = loop;
    } else {
        /* the optional tail: (x(x(x)?)?)? */
        for (int i = a->min; i < a->max; i++) {
            int body = compile(nfa, a->left, start);
            start = body < 0 ? -1 : nfa_add(nfa, NODE_SPLIT, body, next);
            if (start < 0)
                return -1;
        }
    }
    for (int i = 0; i < a->min && start >= 0; i++)
        start = compile(nfa, a->left, start);
    return start;
}

static int compile(struct nfa *nfa, const struct ast *a, int next)
{
    int l;
    switch (a->type) {
    case AST_EMPTY:
        return next;
    case AST_SET:
        l = nfa_add(nfa, NODE_SET, next, -1);
        if (l >= 0)
            nfa->nodes[l].set = a->set;
        return l;
    case AST_ASSERT:
        l = nfa_add(nfa, NODE_ASSERT, next, -1);
        if (l >= 0)
            nfa->nodes[l].assert_kind = a->assert_kind;
        return l;
    case AST_CAT:
        l = compile(nfa, a->right, next);
        return l < 0 ? -1 : compile(nfa, a->left, l);
    case AST_ALT:
        l = compile(nfa, a->left, next);
        if (l < 0)
            return -1;
        int r = compile(nfa, a->right, next);
        return r < 0 ? -1 : nfa_add(nfa, NODE_SPLIT, l, r);
    case AST_REPEAT:
        return compile_repeat(nfa, a, next);
    }
    return -1;
}

int linre_nfa_parse(const char *pattern, struct nfa *nfa)
{
    struct parser ps = {pattern, false, false, 0};
    if (strncmp(ps.p, "(?i)", 4) == 0) {
        ps.icase = true;
        ps.p += 4;
    }
    struct ast *root = parse_alt(&ps);
    int rc = -1;
    if (!ps.failed && root != NULL && *ps.p == '\0') {
        int match = nfa_add(nfa, NODE_MATCH, -1, -1);
        nfa->start = match < 0 ? -1 : compile(nfa, root, match);
        rc = nfa->start < 0 ? -1 : 0;
    }
    ast_free(root);
    return rc;
}
