/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "spill.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void spill_dir_init(struct spill_dir *d, bool keep, uint64_t file_max,
                    uint64_t total_max)
{
    memset(d, 0, sizeof(*d));
    d->keep = keep;
    d->file_max = file_max;
    d->total_max = total_max;
}

static int make_dir(struct spill_dir *d)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(d->path, sizeof(d->path), "%s/bsh-mcp-XXXXXX",
                     tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (n < 0 || (size_t)n >= sizeof(d->path) || mkdtemp(d->path) == NULL) {
        int err = n >= 0 && (size_t)n >= sizeof(d->path) ? ENAMETOOLONG : errno;
        d->path[0] = '\0';
        errno = err;
        return -1;
    }
    return 0;
}

int spill_dir_open(struct spill_dir *d, char *path, size_t path_size)
{
    if (d->path[0] == '\0' && make_dir(d) < 0)
        return -1;
    int n = snprintf(path, path_size, "%s/call-%u.log", d->path, ++d->next_id);
    if (n < 0 || (size_t)n >= path_size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
}

size_t spill_dir_take(struct spill_dir *d, uint64_t have, size_t n)
{
    uint64_t room = have < d->file_max ? d->file_max - have : 0;
    uint64_t left = d->used < d->total_max ? d->total_max - d->used : 0;
    if (room > left)
        room = left;
    size_t take = n < room ? n : (size_t)room;
    d->used += take;
    return take;
}

void spill_dir_finish(struct spill_dir *d)
{
    if (d->keep || d->path[0] == '\0')
        return;
    DIR *dir = opendir(d->path);
    if (dir != NULL) {
        const struct dirent *e;
        while ((e = readdir(dir)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(dir), e->d_name, 0);
        closedir(dir);
    }
    rmdir(d->path);
    d->path[0] = '\0';
}
