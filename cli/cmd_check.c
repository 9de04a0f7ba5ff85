/* SPDX-License-Identifier: MIT */
/*
 * `bsh check`: only the pre-spawn guards. The verdict goes to stdout as a
 * line (the rejection message) or, with --json, as one JSON object.
 */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int cmd_check(const struct cli_args *a)
{
    struct bsh_error err;
    int rc = bsh_check(a->text, strlen(a->text), &err);
    const char *msg = rc == BSH_EGUARD ? err.text_err : NULL;
    int written = 0;
    if (a->json) {
        written = write_json_check(msg);
    } else if (msg != NULL) {
        char line[BSH_ERROR_MAX + 2];
        int n = snprintf(line, sizeof(line), "%s\n", msg);
        written = write_all(1, line, (size_t)n);
    }
    if (written < 0)
        return cli_output_status("stdout", errno);
    return msg != NULL ? 1 : 0;
}
