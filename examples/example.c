/* SPDX-License-Identifier: MIT */
/*
 * The README's example: run a command with a deadline, print its output
 * as it arrives and how it ended.
 */
#include <bsh/bsh.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    struct bsh_run_opts opts;
    bsh_run_opts_init(&opts);
    opts.command = argc > 1 ? argv[1] : "echo hello; echo oops >&2; exit 3";
    opts.timeout_ms = 5000;

    struct bsh_stream *stream;
    struct bsh_error err;
    if (bsh_run(&opts, &stream, &err) != BSH_OK) {
        fprintf(stderr, "rejected: %s\n", err.text_err);
        return 126;
    }
    struct bsh_item item;
    int rc;
    while ((rc = bsh_stream_next(stream, &item)) == 1) {
        if (item.kind == BSH_ITEM_STDOUT)
            fwrite(item.data, 1, item.len, stdout);
        else if (item.kind == BSH_ITEM_STDERR)
            fwrite(item.data, 1, item.len, stderr);
        else if (bsh_item_timed_out(&item))
            printf("[timed out]\n");
        else if (item.has_signal)
            printf("[killed by signal %d]\n", item.signal);
        else
            printf("[exit code %d]\n", item.exit_code);
    }
    if (rc < 0)
        fprintf(stderr, "error: %s\n", bsh_stream_error(stream));
    bsh_stream_free(stream); /* kills and reaps if it had not ended */
    return rc < 0 ? 125 : 0;
}
