/* SPDX-License-Identifier: MIT */
/*
 * `bsh session show FILE` and `bsh session reset FILE`: what a session
 * file holds, and emptying it, under the same lock and checks as a run.
 */
#include "commands.h"
#include "session_lock.h"

#include <stdio.h>
#include <string.h>

static void print_names(const struct bsh_session *s, enum bsh_session_kind kind,
                        const char *label)
{
    size_t n = bsh_session_count(s, kind);
    printf("%s (%zu):", label, n);
    for (size_t i = 0; i < n; i++)
        printf(" %s", bsh_session_name(s, kind, i));
    putchar('\n');
}

static void show(const struct bsh_session *s)
{
    printf("directory: %s\n", bsh_session_cwd(s));
    printf("base directory: %s\n", bsh_session_base_dir(s));
    print_names(s, BSH_SESSION_VARIABLES, "variables");
    print_names(s, BSH_SESSION_FUNCTIONS, "functions");
    print_names(s, BSH_SESSION_ALIASES, "aliases");
    printf("bytes: %zu of %zu\n", bsh_session_bytes(s),
           (size_t)BSH_SESSION_BOUND);
}

int cmd_session(const struct cli_args *a)
{
    bool reset = strcmp(a->session_action, "reset") == 0;
    struct cli_session cs;
    char why[1024];
    if (cli_session_open(&cs, a->session_file, NULL, false, why, sizeof(why)) <
        0) {
        cli_error(why);
        return EXIT_BSH_FAILED;
    }
    if (reset)
        bsh_session_reset(cs.session);
    else
        show(cs.session);
    if (cli_session_close(&cs, reset, why, sizeof(why)) < 0) {
        cli_error(why);
        return EXIT_BSH_FAILED;
    }
    return reset ? 0 : cli_stdout_status();
}
