/* SPDX-License-Identifier: MIT */
/*
 * The stdio transport's framing: whole lines become messages whatever
 * the chunks they come in, CR LF and empty lines are handled, a line too
 * long is refused once and skipped to its end, and a last line without
 * its newline still counts when the input ends.
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "stdio_transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seen {
    char text[4096];
    int messages, refused;
};

/* Messages are joined with '|' into `text`. */
static void on_message(void *ctx, const char *text, size_t len)
{
    struct seen *s = ctx;
    size_t have = strlen(s->text);
    snprintf(s->text + have, sizeof(s->text) - have, "%.*s|", (int)len, text);
    s->messages++;
}

static void on_refused(void *ctx, const char *why)
{
    struct seen *s = ctx;
    (void)why;
    s->refused++;
}

/* Feeds `input` in chunks of `chunk` bytes, then ends it. */
static void feed(struct seen *s, size_t max_line, const char *input,
                 size_t chunk)
{
    memset(s, 0, sizeof(*s));
    struct transport_handler on = {on_message, on_refused, s};
    struct transport *t = stdio_open(max_line, on);
    if (t == NULL)
        abort();
    size_t len = strlen(input);
    for (size_t at = 0; at < len;) {
        size_t n = len - at < chunk ? len - at : chunk;
        at += stdio_feed(t, input + at, n);
        while (stdio_backlog(t))
            stdio_feed(t, NULL, 0);
    }
    stdio_end_input(t);
    ok(t->ops->ended(t), "the transport says its input ended");
    t->ops->close(t);
}

int main(void)
{
    const char *input = "{\"a\":1}\n\r\n\n{\"b\":2}\r\n{\"c\":3}";
    for (size_t chunk = 1; chunk <= 8; chunk++) {
        struct seen s;
        feed(&s, 64, input, chunk);
        char what[96];
        snprintf(what, sizeof(what),
                 "chunks of %zu bytes: three messages, CR LF and empty lines "
                 "dropped",
                 chunk);
        is_str(s.text, "{\"a\":1}|{\"b\":2}|{\"c\":3}|", what);
    }

    struct seen s;
    char big[300];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    char input2[512];
    snprintf(input2, sizeof(input2), "{\"a\":1}\n%s\n{\"b\":2}\n", big);
    feed(&s, 64, input2, 7);
    is_str(s.text, "{\"a\":1}|{\"b\":2}|",
           "a line past max_line is skipped to its end");
    is_int(s.refused, 1, "and refused once");

    feed(&s, 64, big, 50);
    is_int(s.messages, 0, "an endless line is never a message");
    is_int(s.refused, 1, "it is refused once however long it goes on");
    return tap_done();
}
