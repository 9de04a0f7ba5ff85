/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the rule-file loader. Any input either loads or is
 * rejected with one message naming a line and column; nothing crashes,
 * leaks or hangs. A loaded policy then decides a few commands.
 */
#include <bsh/bsh.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bsh_policy *p = NULL;
    struct bsh_error err;
    int rc = bsh_policy_parse((const char *)data, size, "fuzz.rules", BSH_ASK,
                              &p, &err);
    if (rc == BSH_OK) {
        static const char *const commands[] = {
            "git status", "rm -rf x",         "ls > out", "/usr/bin/git log",
            "sudo ls",    "bash -c 'curl x'", ". ./env",  "find . -delete"};
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
            struct bsh_policy_verdict v;
            if (bsh_policy_decide(p, commands[i], strlen(commands[i]), NULL,
                                  &v) >= 0)
                bsh_policy_verdict_free(&v);
        }
        bsh_policy_free(p);
    } else if (rc == BSH_EPOLICYFILE &&
               strncmp(err.text_err, "policy: fuzz.rules", 18) != 0) {
        abort(); /* every message names the file */
    }
    return 0;
}
