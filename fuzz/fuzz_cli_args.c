/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the CLI's argument parser: the input split at NUL bytes is argv;
 * a timeout it accepts also goes through the engine's deadline arithmetic.
 */
#include "args.h"
#include "mono.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[65];
    int argc = 0;
    argv[argc++] = (char *)"bsh";
    for (size_t i = 0; i <= size && argc < 64;) {
        argv[argc++] = copy + i;
        i += strlen(copy + i) + 1;
    }
    argv[argc] = NULL;
    struct cli_args a;
    if (cli_parse(argc, argv, &a) < 0 && a.error[0] == '\0')
        abort(); /* every usage error has a message */
    if (a.command == CLI_RUN && a.text == NULL && a.error[0] == '\0')
        abort();
    /* Whatever timeout the parser lets through, the engine's deadline
     * arithmetic must not overflow (UBSan aborts if it does). */
    if (a.timeout_given && a.run.timeout_ms >= 0) {
        struct timespec at = mono_add_ms(mono_now(), a.run.timeout_ms);
        if (mono_ns_until(at) < 0 && a.run.timeout_ms > 1000)
            abort();
    }
    cli_args_release(&a);
    free(copy);
    return 0;
}
