/* SPDX-License-Identifier: MIT */
/*
 * The README's second example: several runs driven from one poll loop,
 * each fed on its stdin. Every run gets the same lines; what each prints
 * is shown with its number as it arrives.
 */
#include <bsh/bsh.h>

#include <poll.h>
#include <stdio.h>
#include <string.h>

#define RUNS 3

static const char *const commands[RUNS] = {"tr a-z A-Z", "wc -l",
                                           "grep -c bsh"};
static const char input[] = "hello from bsh\nsecond line\nbsh again\n";

struct run {
    struct bsh_stream *stream;
    size_t written; /* bytes of input the stream has taken */
    bool ended;
};

/* Hands the stream what it can take of the input; closes stdin (EOF)
 * once all is in. */
static void feed(struct run *r)
{
    size_t len = sizeof(input) - 1;
    if (r->written == len)
        return;
    int64_t n =
        bsh_stream_write(r->stream, input + r->written, len - r->written);
    if (n < 0) { /* the command closed its stdin: nothing more to send */
        r->written = len;
        return;
    }
    r->written += (size_t)n;
    if (r->written == len)
        bsh_stream_close_stdin(r->stream);
}

/* Takes what the stream has ready; false once it has ended. */
static bool drain(int number, struct run *r)
{
    struct bsh_item item;
    int rc;
    while ((rc = bsh_stream_try_next(r->stream, &item)) == 1) {
        if (item.kind == BSH_ITEM_STATUS)
            printf("[%d] exit %d\n", number, item.exit_code);
        else
            printf("[%d] %.*s", number, (int)item.len, (const char *)item.data);
    }
    return rc == BSH_EAGAIN;
}

int main(void)
{
    struct run runs[RUNS];
    struct pollfd fds[RUNS];
    int live = 0;
    for (int i = 0; i < RUNS; i++) {
        struct bsh_run_opts opts;
        bsh_run_opts_init(&opts);
        opts.command = commands[i];
        opts.stdin_pipe = true; /* a writable stdin */
        opts.timeout_ms = 10000;
        memset(&runs[i], 0, sizeof(runs[i]));
        if (bsh_run(&opts, &runs[i].stream, NULL) != BSH_OK)
            return 125;
        live++;
    }
    while (live > 0) {
        for (int i = 0; i < RUNS; i++) {
            if (!runs[i].ended)
                feed(&runs[i]);
            fds[i] = (struct pollfd){
                runs[i].ended ? -1 : bsh_stream_fd(runs[i].stream), POLLIN, 0};
        }
        poll(fds, RUNS, -1);
        for (int i = 0; i < RUNS; i++) {
            if (fds[i].revents != 0 && !drain(i, &runs[i])) {
                runs[i].ended = true;
                live--;
            }
        }
    }
    for (int i = 0; i < RUNS; i++)
        bsh_stream_free(runs[i].stream);
    return 0;
}
