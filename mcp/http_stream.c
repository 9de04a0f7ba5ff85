/* SPDX-License-Identifier: MIT */
#include "http_stream.h"
#include "mono.h"
#include "rpc.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct owner *owner_of(struct transport *t)
{
    return (struct owner *)((char *)t - offsetof(struct owner, out));
}

struct stream *stream_new(struct owner *o, json_t *request, json_t *params,
                          bool sse_ok)
{
    struct stream *s = calloc(1, sizeof(*s));
    if (s == NULL ||
        (s->events = calloc(STREAM_EVENTS_MAX, sizeof(*s->events))) == NULL) {
        free(s);
        return NULL;
    }
    s->owner = o;
    s->number = ++*o->next_stream;
    s->sse_ok = sse_ok;
    s->idle_since_ms = -1;
    if (request != NULL) {
        s->request_id = json_incref(request);
        json_t *meta = json_object_get(params, "_meta");
        s->progress_token = json_incref(json_object_get(meta, "progressToken"));
    }
    s->next = o->streams;
    o->streams = s;
    return s;
}

/* A whole decimal number at `*s`, moving past it; false when there is
 * none or it is too large. */
static bool take_number(const char **s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(*s, &end, 10);
    if (end == *s || **s < '0' || **s > '9' || errno != 0)
        return false;
    *out = v;
    *s = end;
    return true;
}

struct stream *stream_find(struct owner *o, const char *last,
                           uint64_t *next_seq)
{
    uint64_t number, seq;
    if (last == NULL || !take_number(&last, &number) || *last++ != '-' ||
        !take_number(&last, &seq) || *last != '\0')
        return NULL;
    for (struct stream *s = o->streams; s != NULL; s = s->next)
        if (s->number == number && seq < s->next_seq) {
            *next_seq = seq + 1;
            return s;
        }
    return NULL;
}

bool stream_is_one_answer(const struct stream *s)
{
    return s->ended && s->request_id != NULL && s->first_seq == 0 &&
           s->next_seq == 1;
}

void stream_end(struct stream *s)
{
    s->ended = true;
    if (s->reader != NULL)
        exchange_wake(s->reader);
}

static void unlink_stream(struct stream *s)
{
    for (struct stream **pp = &s->owner->streams; *pp != NULL;
         pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            return;
        }
}

void stream_free(struct stream *s)
{
    unlink_stream(s);
    if (s->reader != NULL)
        exchange_lose_stream(s->reader);
    if (s->owner->current == s)
        s->owner->current = NULL;
    for (uint64_t q = s->first_seq; q < s->next_seq; q++)
        free(s->events[q % STREAM_EVENTS_MAX].data);
    free(s->events);
    json_decref(s->request_id);
    json_decref(s->progress_token);
    free(s);
}

char *stream_event_text(const struct stream *s, uint64_t *seq, size_t *len)
{
    if (*seq < s->first_seq)
        *seq = s->first_seq;
    if (*seq >= s->next_seq)
        return NULL;
    const struct sse_event *e = &s->events[*seq % STREAM_EVENTS_MAX];
    char head[64];
    int n = snprintf(head, sizeof(head),
                     "id: %" PRIu64 "-%" PRIu64 "\ndata: ", s->number, *seq);
    size_t size = (size_t)n + e->len + sizeof("\n\n");
    char *text = malloc(size);
    if (text == NULL)
        return NULL;
    snprintf(text, size, "%s%.*s\n\n", head, (int)e->len, e->data);
    *len = size - 1;
    return text;
}

/* Adds `text` (malloc'd, taken) as an event; the oldest goes when the
 * ring is full. */
static void add_event(struct stream *s, char *text, size_t len)
{
    if (s->next_seq - s->first_seq == STREAM_EVENTS_MAX) {
        struct sse_event *old = &s->events[s->first_seq % STREAM_EVENTS_MAX];
        s->bytes -= old->len;
        free(old->data);
        s->first_seq++;
    }
    struct sse_event *e = &s->events[s->next_seq % STREAM_EVENTS_MAX];
    e->data = text;
    e->len = len;
    s->next_seq++;
    s->bytes += len;
    if (s->reader != NULL)
        exchange_wake(s->reader);
}

/* The request stream still going whose number is `key` (the id or the
 * progress token the space was given for it), or NULL. */
static struct stream *stream_of_key(struct owner *o, json_t *key)
{
    for (struct stream *s = o->streams; json_is_integer(key) && s != NULL;
         s = s->next)
        if (!s->ended && s->request_id != NULL &&
            (json_int_t)s->number == json_integer_value(key))
            return s;
    return NULL;
}

void stream_rename_request(const struct stream *s, json_t *msg)
{
    json_object_set_new(msg, "id", json_integer((json_int_t)s->number));
    json_t *meta = json_object_get(json_object_get(msg, "params"), "_meta");
    if (s->progress_token != NULL)
        json_object_set_new(meta, "progressToken",
                            json_integer((json_int_t)s->number));
}

struct stream *stream_rename_cancel(struct owner *o, json_t *msg)
{
    json_t *params = json_object_get(msg, "params");
    json_t *asked = json_object_get(params, "requestId");
    struct stream *found = NULL; /* the newest: the list is newest first */
    for (struct stream *s = o->streams; asked != NULL && s != NULL && !found;
         s = s->next)
        if (!s->ended && s->request_id != NULL &&
            json_equal(s->request_id, asked))
            found = s;
    if (found != NULL)
        json_object_set_new(params, "requestId",
                            json_integer((json_int_t)found->number));
    return found;
}

/* The owner's own stream (GET) that is going, or NULL. */
static struct stream *own_stream(struct owner *o)
{
    for (struct stream *s = o->streams; s != NULL; s = s->next)
        if (!s->ended && s->request_id == NULL && s->reader != NULL)
            return s;
    return NULL;
}

/* Where a message of the space goes: a reply to the stream of its
 * request (one without an id: to the request being handled), a
 * notification to the stream of the request it is about or to the
 * owner's own; NULL: nowhere (the client no longer waits for it). The
 * space knows each request by its stream's number (stream_rename_
 * request()): the client's own id and progress token are put back. */
static struct stream *route(struct owner *o, json_t *msg, bool *answer)
{
    json_t *method = json_object_get(msg, "method");
    *answer = method == NULL;
    if (!*answer && json_object_get(msg, "id") != NULL) {
        /* a request of the server's own (elicitation/create): on the
         * stream of the call it is about, else the owner's own */
        return o->current != NULL && !o->current->ended ? o->current
                                                        : own_stream(o);
    }
    if (*answer) {
        json_t *id = json_object_get(msg, "id");
        struct stream *s = id != NULL ? stream_of_key(o, id) : o->current;
        if (s != NULL && id != NULL)
            json_object_set(msg, "id", s->request_id);
        return s;
    }
    json_t *params = json_object_get(msg, "params");
    struct stream *s =
        stream_of_key(o, json_object_get(params, "progressToken"));
    if (s != NULL && s->progress_token != NULL) {
        json_object_set(params, "progressToken", s->progress_token);
        return s;
    }
    return own_stream(o);
}

/* The outbox's send: each message onto its stream. */
// NOLINTNEXTLINE(readability-non-const-parameter): the transport's signature
static void outbox_send(struct transport *t, char *text, size_t len,
                        bool droppable)
{
    struct owner *o = owner_of(t);
    json_t *msg = json_loadb(text, len, JSON_ALLOW_NUL, NULL);
    bool answer = false;
    struct stream *s = msg != NULL ? route(o, msg, &answer) : NULL;
    char *out = s != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
    if (s != NULL && answer)
        s->answer_error = json_integer_value(
            json_object_get(json_object_get(msg, "error"), "code"));
    json_decref(msg);
    if (out != NULL &&
        (answer || (s->sse_ok && !(droppable && s->bytes > STREAM_BYTES_MAX))))
        add_event(s, out, strlen(out));
    else
        free(out);
    if (s != NULL && out == NULL)
        mcp_log("out of memory: a message to an HTTP client is lost");
    if (s != NULL && answer && s->request_id != NULL)
        stream_end(s);
}

/* The poll loop sees an outbox through its owner's HTTP server. */
// NOLINTBEGIN(readability-non-const-parameter): the transport's signature
static int outbox_pollfds(struct transport *t, struct pollfd *p, int max,
                          int *timeout_ms)
// NOLINTEND(readability-non-const-parameter)
{
    (void)t, (void)p, (void)max, (void)timeout_ms;
    return 0;
}

static void outbox_polled(struct transport *t, const struct pollfd *p, int n)
{
    (void)t, (void)p, (void)n;
}

static bool outbox_ended(const struct transport *t)
{
    (void)t;
    return false;
}

static bool outbox_flush(struct transport *t, int stop_fd)
{
    (void)t, (void)stop_fd;
    return false;
}

static void outbox_close(struct transport *t)
{
    (void)t;
}

static const struct transport_ops outbox_ops = {
    outbox_pollfds, outbox_polled, outbox_send, outbox_ended,
    outbox_flush,   outbox_close,  NULL,
};

void owner_init(struct owner *o, uint64_t *next_stream)
{
    memset(o, 0, sizeof(*o));
    o->out.ops = &outbox_ops;
    o->token = -1;
    o->next_stream = next_stream;
    o->used_ms = mono_ms();
}

void owner_sweep(struct owner *o, double now)
{
    for (struct stream *s = o->streams, *next; s != NULL; s = next) {
        next = s->next;
        if (s->reader != NULL || (!s->ended && s->request_id != NULL)) {
            s->idle_since_ms = -1;
            continue;
        }
        if (s->idle_since_ms < 0)
            s->idle_since_ms = now;
        else if (now - s->idle_since_ms > STREAM_KEEP_MS)
            stream_free(s);
    }
}

void owner_end(struct owner *o)
{
    for (struct stream *s = o->streams, *next; s != NULL; s = next) {
        next = s->next;
        stream_free(s);
    }
}
