/* SPDX-License-Identifier: MIT */
/*
 * Two pieces of the sandbox, without a run: the private temporary
 * directory's removal (whatever the run left in it, at any depth, with
 * any modes, and never through a link), and which Unix sockets a run may
 * reach (the ones it bound, by their live binding, and the named ones;
 * never one from outside, nor a hard link to it).
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "bsh/bsh.h"
#include "sandbox.h"
#include "sockets.h"
#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static char base[64] = "/tmp/bsh-parts-XXXXXX";

static void put(const char *dir, const char *name)
{
    char path[600];
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A tree as a run might leave it: deep, with closed directories, links
 * out of it, a FIFO. */
static void fill(const char *dir, const char *outside)
{
    char path[8192];
    snprintf(path, sizeof(path), "%s", dir);
    for (int i = 0; i < 100; i++) { /* deeper than the removal holds open */
        size_t n = strlen(path);
        snprintf(path + n, sizeof(path) - n, "/d");
        mkdir(path, 0700);
        put(path, "f");
    }
    chmod(path, 0); /* the deepest: no permission at all */
    char closed[700], link[700];
    snprintf(closed, sizeof(closed), "%s/closed", dir);
    mkdir(closed, 0700);
    put(closed, "f");
    chmod(closed, 0500); /* no write: its file cannot go as it is */
    snprintf(link, sizeof(link), "%s/out-dir", dir);
    if (symlink(outside, link) < 0)
        perror("symlink");
    snprintf(link, sizeof(link), "%s/out-file", dir);
    char file[700];
    snprintf(file, sizeof(file), "%s/keep", outside);
    if (symlink(file, link) < 0)
        perror("symlink");
    snprintf(link, sizeof(link), "%s/fifo", dir);
    mkfifo(link, 0600);
}

static void test_tmpdir(void)
{
    char outside[600];
    snprintf(outside, sizeof(outside), "%s/outside", base);
    mkdir(outside, 0700);
    put(outside, "keep");
    char *dir;
    bsh__tmpdir_make(base, &dir);
    ok(dir != NULL && strncmp(dir, base, strlen(base)) == 0,
       "the private directory is made in its base");
    struct stat st;
    ok(dir != NULL && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
           (st.st_mode & 0777) == 0700,
       "it is a directory of ours alone (0700)");
    char *other;
    bsh__tmpdir_make(base, &other);
    ok(other != NULL && dir != NULL && strcmp(dir, other) != 0,
       "each run gets a directory of its own");
    if (dir == NULL || other == NULL)
        return;
    bsh__tmpdir_remove(other);
    ok(!exists(other), "an empty one is removed");
    fill(dir, outside);
    bsh__tmpdir_remove(dir);
    ok(!exists(dir), "a deep tree with closed directories is removed whole");
    char keep[700];
    snprintf(keep, sizeof(keep), "%s/keep", outside);
    ok(exists(keep), "what its links led to outside is untouched");
    char *moved;
    bsh__tmpdir_make(base, &moved);
    if (moved != NULL) { /* the run put a link to outside in its place */
        ok(rmdir(moved) == 0 && symlink(outside, moved) == 0,
           "the directory replaced with a link to outside");
        bsh__tmpdir_remove(moved);
        ok(!exists(moved) && exists(keep),
           "the link is removed, not what it leads to");
    }
    free(moved);
    free(dir);
    free(other);
}

/* Notes `sock` as the run's, as the supervisor does when its bind()
 * comes (before the kernel makes it). */
static void note(struct bsh__socket_reach *r, int sock)
{
    struct stat st;
    uint64_t cookie = 0;
    socklen_t len = sizeof(cookie);
    if (fstat(sock, &st) == 0 &&
        getsockopt(sock, SOL_SOCKET, SO_COOKIE, &cookie, &len) == 0)
        bsh__socket_reach_note(r, st.st_ino, cookie);
}

/* A listening Unix socket bound at `path`, noted by `r` first as a run's
 * bind is (NULL: a socket from outside): the fd. */
static int listen_at(const char *path, struct bsh__socket_reach *r)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    if (s >= 0 && r != NULL)
        note(r, s);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        listen(s, 1) < 0)
        perror("listen_at");
    return s;
}

static bool reachable(struct bsh__socket_reach *r, const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && bsh__socket_reachable(r, &st);
}

static void test_sockets(void)
{
    if (!bsh_sandbox_own_sockets()) {
        ok(true, "# SKIP no unix_diag here: no socket of a run is known");
        return;
    }
    char own[200], outside[200], hard[200], named[200];
    snprintf(own, sizeof(own), "%s/own.sock", base);
    snprintf(outside, sizeof(outside), "%s/outside.sock", base);
    snprintf(hard, sizeof(hard), "%s/link.sock", base);
    snprintf(named, sizeof(named), "%s/named.sock", base);
    struct bsh__socket_reach r;
    bsh__socket_reach_init(&r);
    int mine = listen_at(own, &r), theirs = listen_at(outside, NULL);
    int given = listen_at(named, NULL);
    ok(reachable(&r, own), "a socket the run bound is reachable");
    note(&r, theirs);
    ok(!reachable(&r, outside),
       "one bound already when the run's bind comes is not noted");
    struct bsh__socket_reach other;
    bsh__socket_reach_init(&other);
    ok(reachable(&other, own), "by another run of the same process too");
    struct bsh__socket_reach ended;
    bsh__socket_reach_init(&ended);
    char gone[200];
    snprintf(gone, sizeof(gone), "%s/ended.sock", base);
    int left = listen_at(gone, &ended);
    bsh__socket_reach_release(&ended);
    ok(!reachable(&other, gone),
       "a run's sockets are forgotten when it ends (their processes are gone)");
    close(left);
    unlink(gone);
    bsh__socket_reach_release(&other);
    ok(!reachable(&r, outside), "one bound outside the run is not");
    ok(link(outside, hard) == 0 && !reachable(&r, hard),
       "nor a hard link to it in a writable place");
    struct stat st;
    ok(stat(named, &st) == 0 && bsh__socket_reach_name(&r, &st) == 0 &&
           reachable(&r, named),
       "a socket named by the user is reachable");
    close(mine);
    ok(!reachable(&r, own),
       "once the run's socket is closed its file leads nowhere");
    close(given);
    unlink(named);
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL); /* a change time of its own for the next */
    given = listen_at(named, NULL);
    ok(!reachable(&r, named),
       "a new socket where a named one was (perhaps on its inode) is not it");
    close(theirs);
    close(given);
    bsh__socket_reach_release(&r);
    unlink(own);
    unlink(outside);
    unlink(hard);
    unlink(named);
}

/* A writable place is checked as it was opened: a path swapped to point
 * elsewhere after the open changes neither the check nor the grant. */
static void places_opened_once(void)
{
    char dir[700], link[700];
    snprintf(dir, sizeof(dir), "%s/project", base);
    snprintf(link, sizeof(link), "%s/link", base);
    mkdir(dir, 0700);
    struct bsh__place here, tmp = {"TMPDIR", NULL, -1, ENOENT, NULL};
    ok(symlink(dir, link) == 0, "a link to the project");
    bsh__place_open(&here, "the working directory", link);
    ok(here.fd >= 0 && here.real != NULL && strcmp(here.real, dir) == 0,
       "the place is where the link led when it was opened");
    unlink(link);
    ok(symlink("/etc", link) == 0, "the link now leads to /etc");
    char why[256] = "";
    ok(bsh__places_check(&here, &tmp, NULL, 0, NULL, why, sizeof(why)) == 0,
       "the check is of the directory opened, not of /etc");
    bsh__place_close(&here);
    bsh__place_open(&here, "the working directory", link);
    ok(bsh__places_check(&here, &tmp, NULL, 0, NULL, why, sizeof(why)) < 0 &&
           strstr(why, "system directory") != NULL,
       "opened now, it is /etc: refused");
    bsh__place_close(&here);
    unlink(link);
    rmdir(dir);
}

int main(void)
{
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_tmpdir();
    test_sockets();
    places_opened_once();
    char outside[600];
    snprintf(outside, sizeof(outside), "%s/outside", base);
    bsh__tmpdir_remove(outside);
    rmdir(base);
    return tap_done();
}
