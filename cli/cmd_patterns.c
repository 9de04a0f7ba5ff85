/* SPDX-License-Identifier: MIT */
/*
 * `bsh patterns`: the critical patterns, one per line:
 * NUMBER TAB CATEGORY TAB REGEX.
 */
#include "commands.h"

#include <stdio.h>

int cmd_patterns(void)
{
    const struct bsh_pattern *p;
    for (size_t i = 0; (p = bsh_pattern_at(i)) != NULL; i++)
        printf("%d\t%s\t%s\n", p->number, p->category, p->regex);
    return cli_stdout_status();
}
