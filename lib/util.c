/* SPDX-License-Identifier: MIT */
/*
 * Small helpers without a better home: the version, bounded formatting,
 * reading a small file, closing an fd, an ioctl and whether a path lies
 * in a directory.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int bsh__close(int fd)
{
    if (fd >= 0)
        close(fd);
    return -1;
}

int bsh__ioctl(int fd, unsigned long request, void *arg)
{
    return (int)syscall(SYS_ioctl, fd, request, arg);
}

ssize_t bsh__read_file(int dirfd, const char *path, char *buf, size_t size)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = 0;
    ssize_t n = 0;
    while (len + 1 < size) {
        size_t want = size - 1 - len;
        n = read(fd, buf + len, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if ((size_t)n < want)
            break; /* a kernel file gives all it has in one read */
    }
    int err = n < 0 ? -errno : 0;
    close(fd);
    buf[len] = '\0';
    return err < 0 ? err : (ssize_t)len;
}

int bsh__above_stdio(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int err = high < 0 ? -errno : 0;
    close(fd);
    return err < 0 ? err : high;
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

bool bsh__path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 &&
           (path[n] == '\0' || path[n] == '/' || strcmp(dir, "/") == 0);
}

int bsh__write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

char *bsh__pread_all(int fd, size_t size)
{
    char *buf = malloc(size + 1);
    size_t got = 0;
    while (buf != NULL && got < size) {
        ssize_t n = pread(fd, buf + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; /* the file is shorter than it said */
            free(buf);
            return NULL;
        }
        got += (size_t)n;
    }
    return buf;
}
