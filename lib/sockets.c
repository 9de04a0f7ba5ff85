/* SPDX-License-Identifier: MIT */
/*
 * Which Unix sockets a sandboxed run may reach (see sockets.h). The
 * kernel's socket diagnostics answer a question about one socket, named
 * by its inode and cookie, synchronously and without privileges: where it
 * is bound, or that it is gone.
 */
#define _GNU_SOURCE
#include "sockets.h"
#include "internal.h"
#include "mono.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>

void bsh__socket_reach_init(struct bsh__socket_reach *r)
{
    static atomic_uint_fast64_t runs;
    memset(r, 0, sizeof(*r));
    r->diag = -1;
    r->run = atomic_fetch_add(&runs, 1) + 1;
}

static void forget_run(uint64_t run);

void bsh__socket_reach_release(struct bsh__socket_reach *r)
{
    forget_run(r->run); /* its processes, and so its sockets, are gone */
    free(r->named);
    bsh__close(r->diag);
    bsh__socket_reach_init(r);
}

struct bsh__socket_file bsh__socket_file_of(const struct stat *st)
{
    /* The kernel's internal dev_t, as unix_diag gives it. */
    uint32_t dev = (uint32_t)((major(st->st_dev) << 20) | minor(st->st_dev));
    return (struct bsh__socket_file){dev, (uint32_t)st->st_ino};
}

static bool same_file(struct bsh__socket_file a, struct bsh__socket_file b)
{
    return a.dev == b.dev && a.ino == b.ino;
}

int bsh__socket_reach_name(struct bsh__socket_reach *r, const struct stat *st)
{
    struct bsh__named_socket *grown =
        realloc(r->named, (r->nnamed + 1) * sizeof(*grown));
    if (grown == NULL)
        return -ENOMEM;
    r->named = grown;
    r->named[r->nnamed++] =
        (struct bsh__named_socket){bsh__socket_file_of(st), st->st_ctim};
    return 0;
}

/* Whether `st` is the named socket `n`, not a later one on its inode. */
static bool is_named(const struct bsh__named_socket *n, const struct stat *st)
{
    struct bsh__socket_file f = bsh__socket_file_of(st);
    return n->file.dev == f.dev && n->file.ino == f.ino &&
           n->ctime.tv_sec == st->st_ctim.tv_sec &&
           n->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* The file the diagnostics message `h` names, or NULL. */
static const struct unix_diag_vfs *vfs_of(const struct nlmsghdr *h)
{
    size_t off =
        NLMSG_ALIGN(sizeof(*h)) + NLMSG_ALIGN(sizeof(struct unix_diag_msg));
    while (off + sizeof(struct rtattr) <= h->nlmsg_len) {
        const struct rtattr *a = (const void *)((const char *)h + off);
        if (a->rta_len < sizeof(*a) || off + a->rta_len > h->nlmsg_len)
            break;
        if (a->rta_type == UNIX_DIAG_VFS &&
            a->rta_len >= RTA_LENGTH(sizeof(struct unix_diag_vfs)))
            return RTA_DATA(a);
        off += RTA_ALIGN(a->rta_len);
    }
    return NULL;
}

/* The answer to question `seq`, read without waiting (the kernel answers
 * before the question's sendto returns); older answers are passed over.
 * 1 with `*file` when the socket is bound to a file, 0 when it is open
 * but bound to none, or -errno (-ENOENT: it is gone). */
static int read_answer(int diag, uint32_t seq, struct bsh__socket_file *file)
{
    union {
        struct nlmsghdr h;
        char bytes[1024];
    } buf;
    for (;;) {
        ssize_t n = recv(diag, &buf, sizeof(buf), MSG_DONTWAIT);
        if (n < 0)
            return -errno;
        for (size_t off = 0; off + sizeof(struct nlmsghdr) <= (size_t)n;) {
            const struct nlmsghdr *h = (const void *)(buf.bytes + off);
            if (h->nlmsg_len < sizeof(*h) || off + h->nlmsg_len > (size_t)n)
                break;
            off += NLMSG_ALIGN(h->nlmsg_len);
            if (h->nlmsg_seq != seq)
                continue;
            if (h->nlmsg_type == NLMSG_ERROR) {
                if (h->nlmsg_len < NLMSG_ALIGN(sizeof(*h)) + sizeof(int))
                    return -EPROTO;
                const struct nlmsgerr *e = NLMSG_DATA(h);
                return e->error < 0 ? e->error : -EPROTO;
            }
            if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
                continue;
            const struct unix_diag_vfs *v = vfs_of(h);
            if (v == NULL)
                return 0;
            *file =
                (struct bsh__socket_file){v->udiag_vfs_dev, v->udiag_vfs_ino};
            return 1;
        }
    }
}

/* Where the socket `o` names is bound: see read_answer(). */
static int locate(struct bsh__socket_reach *r, const struct bsh__own_socket *o,
                  struct bsh__socket_file *file)
{
    if (r->diag < 0)
        r->diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
                         NETLINK_SOCK_DIAG);
    if (r->diag < 0)
        return -errno;
    struct {
        struct nlmsghdr h;
        struct unix_diag_req q;
    } ask;
    memset(&ask, 0, sizeof(ask));
    ask.h.nlmsg_len = sizeof(ask);
    ask.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    ask.h.nlmsg_flags = NLM_F_REQUEST;
    ask.h.nlmsg_seq = ++r->seq;
    ask.q.sdiag_family = AF_UNIX;
    ask.q.udiag_states = ~0u;
    ask.q.udiag_ino = (uint32_t)o->sock_ino;
    ask.q.udiag_show = UDIAG_SHOW_VFS;
    ask.q.udiag_cookie[0] = (uint32_t)o->cookie;
    ask.q.udiag_cookie[1] = (uint32_t)(o->cookie >> 32);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(r->diag, &ask, sizeof(ask), 0, (struct sockaddr *)&kernel,
               sizeof(kernel)) < 0)
        return -errno;
    return read_answer(r->diag, ask.h.nlmsg_seq, file);
}

/* The sockets that runs of this process bound, shared by all of them: a
 * run reaches a socket that another run of the same server bound (a
 * server it started in an earlier call). A forked child's copy is not
 * its own. */
static struct {
    pthread_mutex_t lock;
    struct bsh__own_socket *list;
    size_t count, room;
    pid_t owner;
} bound = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

static void lock_bound(void)
{
    pthread_mutex_lock(&bound.lock);
    if (bound.owner != getpid()) {
        bound.owner = getpid();
        bound.count = 0;
    }
}

/* Whether a failed question (-errno `err`) says the socket is gone:
 * ENOENT, or ESTALE when its inode now belongs to another socket (the
 * cookie differs). */
static bool gone(int err)
{
    return err == -ENOENT || err == -ESTALE;
}

static void forget(size_t i)
{
    bound.list[i] = bound.list[--bound.count];
}

static void forget_run(uint64_t run)
{
    lock_bound();
    for (size_t i = 0; i < bound.count;)
        if (bound.list[i].run == run)
            forget(i);
        else
            i++;
    pthread_mutex_unlock(&bound.lock);
}

/* How often a run at its share asks which of its sockets are closed. */
#define PRUNE_EVERY_MS 1000

/* How many sockets run `run` has noted, after forgetting its closed ones
 * when it has many (at most once a PRUNE_EVERY_MS: each is a question to
 * the kernel, and a run that binds in a loop must not make every bind
 * ask them all). */
static size_t noted_by(struct bsh__socket_reach *r)
{
    size_t n = 0;
    for (size_t i = 0; i < bound.count; i++)
        n += bound.list[i].run == r->run;
    if (n < BSH__OWN_SOCKETS_MAX ||
        (r->pruned.tv_sec != 0 &&
         mono_ns_until(mono_add_ms(r->pruned, PRUNE_EVERY_MS)) > 0))
        return n;
    r->pruned = mono_now();
    struct bsh__socket_file file;
    for (size_t i = 0; i < bound.count;)
        if (bound.list[i].run == r->run &&
            gone(locate(r, &bound.list[i], &file))) {
            forget(i);
            n--;
        } else {
            i++;
        }
    return n;
}

/* Room for one more; false when out of memory. */
static bool make_room(void)
{
    if (bound.count < bound.room)
        return true;
    size_t room = bound.room > 0 ? 2 * bound.room : 64;
    struct bsh__own_socket *grown = realloc(bound.list, room * sizeof(*grown));
    if (grown == NULL)
        return false;
    bound.list = grown;
    bound.room = room;
    return true;
}

void bsh__socket_reach_note(struct bsh__socket_reach *r, uint64_t sock_ino,
                            uint64_t cookie)
{
    struct bsh__own_socket o = {sock_ino, cookie, {0, 0},    false,
                                0,        r->run, mono_now()};
    struct bsh__socket_file file;
    if (locate(r, &o, &file) != 0)
        return; /* bound already (or unknown): not made by this bind */
    lock_bound();
    bool known = false;
    for (size_t i = 0; i < bound.count && !known; i++)
        known = bound.list[i].sock_ino == sock_ino &&
                bound.list[i].cookie == cookie;
    /* A run's many sockets stay out of reach past its share, not others'. */
    if (!known && noted_by(r) < BSH__OWN_SOCKETS_MAX && make_room())
        bound.list[bound.count++] = o;
    pthread_mutex_unlock(&bound.lock);
}

/* A noted socket found bound to nothing is forgotten once that has been
 * so twice, each time at least BIND_SETTLE_MS after it was noted: before
 * that, its bind may just not have been made yet (the run's thread goes
 * on after bsh's answer); after it, the bind failed. */
#define MISSES_MAX     2
#define BIND_SETTLE_MS 100

/* Whether noted socket `i` is bound to `want` now. -1: it is gone. */
static int bound_to(struct bsh__socket_reach *r, size_t i,
                    struct bsh__socket_file want)
{
    struct bsh__own_socket *o = &bound.list[i];
    bool fresh = false;
    if (!o->located) {
        int rc = locate(r, o, &o->file);
        if (rc < 0)
            return gone(rc) ? -1 : 0;
        if (rc == 0 &&
            mono_ns_until(mono_add_ms(o->noted, BIND_SETTLE_MS)) <= 0)
            return ++o->misses >= MISSES_MAX ? -1 : 0;
        if (rc == 0)
            return 0;
        o->located = fresh = true;
    }
    if (!same_file(o->file, want))
        return 0;
    if (fresh)
        return 1;
    /* Located earlier: the file could have been removed since and its
     * inode number given to another socket's. */
    struct bsh__socket_file now = {0, 0};
    int rc = locate(r, o, &now);
    if (rc < 0)
        return gone(rc) ? -1 : 0;
    return rc > 0 && same_file(now, want);
}

bool bsh__socket_reachable(struct bsh__socket_reach *r, const struct stat *st)
{
    struct bsh__socket_file want = bsh__socket_file_of(st);
    for (size_t i = 0; i < r->nnamed; i++)
        if (is_named(&r->named[i], st))
            return true;
    lock_bound();
    bool found = false;
    for (size_t i = 0; i < bound.count && !found;) {
        int rc = bound_to(r, i, want);
        found = rc > 0;
        if (rc < 0)
            forget(i);
        else
            i++;
    }
    pthread_mutex_unlock(&bound.lock);
    return found;
}

bool bsh_sandbox_own_sockets(void)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
        return false;
    struct stat st;
    struct bsh__own_socket o = {0, 0, {0, 0}, false, 0, 0, {0, 0}};
    socklen_t len = sizeof(o.cookie);
    struct bsh__socket_reach r;
    bsh__socket_reach_init(&r);
    bool answered =
        fstat(pair[0], &st) == 0 &&
        getsockopt(pair[0], SOL_SOCKET, SO_COOKIE, &o.cookie, &len) == 0 &&
        (o.sock_ino = st.st_ino, locate(&r, &o, &o.file) >= 0);
    bsh__socket_reach_release(&r);
    close(pair[0]);
    close(pair[1]);
    return answered;
}
