/* SPDX-License-Identifier: MIT */
/*
 * Small helpers without a better home: the version and bounded formatting.
 */
#include "internal.h"

#include <stdio.h>
#include <unistd.h>

int bsh__close(int fd)
{
    if (fd >= 0)
        close(fd);
    return -1;
}

const char *bsh_version(void)
{
    return BSH_VERSION_STRING;
}

void bsh__format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 && size > 0)
        buf[0] = '\0';
}

void bsh_run_opts_init(struct bsh_run_opts *opts)
{
    if (opts != NULL)
        *opts = (struct bsh_run_opts)BSH_RUN_OPTS_INIT;
}
