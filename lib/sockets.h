/* SPDX-License-Identifier: MIT */
/*
 * Which Unix sockets a sandboxed run may reach by path (sockets.c): those
 * the user named (--sandbox-socket) and those that a process of the run,
 * or of another run of the same process (an MCP server's), bound. Anything else
 * that lies in a writable place, such as the user's tmux server socket in /tmp
 * or a socket hard-linked there from outside, stays out of reach.
 *
 * A socket the run binds is noted when its bind() passes the supervisor,
 * by the socket's inode and cookie (unique for the life of the machine),
 * which the run cannot forge. When the run
 * connects to a socket file, the kernel's socket diagnostics (unix_diag)
 * say which file each noted socket is bound to, and whether it is still
 * open: a file matches only a live socket of the run bound to it.
 */
#ifndef BSH_SOCKETS_H
#define BSH_SOCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

/* A socket file, as the kernel's diagnostics name it. */
struct bsh__socket_file {
    uint32_t dev; /* the kernel's device number (major << 20 | minor) */
    uint32_t ino; /* the inode number's low 32 bits (unix_diag's width) */
};

/* A socket a process of the run bound. */
struct bsh__own_socket {
    uint64_t sock_ino;            /* the socket's own inode */
    uint64_t cookie;              /* and its cookie (SO_COOKIE): unique */
    struct bsh__socket_file file; /* where it is bound, once known */
    bool located;
    unsigned misses;       /* times asked and found bound to no file */
    uint64_t run;          /* the bsh__socket_reach (run) that noted it */
    struct timespec noted; /* when (monotonic) */
};

/* How many bound sockets of one run are kept at once: sockets.c keeps
 * them for all the runs of the process, so that a run reaches a socket
 * that another run of the same server bound, and a run's go when it
 * ends. */
#define BSH__OWN_SOCKETS_MAX 1024

/* A socket file the user named, as it was when the run was prepared:
 * its change time tells a new socket that took a freed inode number. */
struct bsh__named_socket {
    struct bsh__socket_file file;
    struct timespec ctime;
};

struct bsh__socket_reach {
    struct bsh__named_socket *named; /* --sandbox-socket */
    size_t nnamed;
    int diag;     /* NETLINK_SOCK_DIAG, opened when first needed; -1 */
    uint64_t run; /* which run: its noted sockets carry it */
    struct timespec pruned; /* when its closed sockets were last forgotten */
    uint32_t seq;           /* of the last question asked on it */
};

void bsh__socket_reach_init(struct bsh__socket_reach *r);
void bsh__socket_reach_release(struct bsh__socket_reach *r);

/* The socket file `st` describes. */
struct bsh__socket_file bsh__socket_file_of(const struct stat *st);

/* Names a socket file the run may reach: 0, or -ENOMEM. */
int bsh__socket_reach_name(struct bsh__socket_reach *r, const struct stat *st);

/* Notes the socket with inode `sock_ino` and cookie `cookie`, which a
 * process of the run is about to bind, as the run's; one already bound
 * to a file (bind fails on it, and it may have come from outside) is not
 * noted. */
void bsh__socket_reach_note(struct bsh__socket_reach *r, uint64_t sock_ino,
                            uint64_t cookie);

/* Whether the run may connect to the socket file `st` describes. */
bool bsh__socket_reachable(struct bsh__socket_reach *r, const struct stat *st);

#endif
