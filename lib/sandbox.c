/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's plan: which layers this kernel offers, the Landlock
 * ruleset (read and run anywhere, write only in the writable places; no
 * TCP; no signal or abstract socket out of the run) and the seccomp
 * filter (seccomp.c). The Landlock rights are those of the kernel's ABI,
 * all of them, so that nothing it can restrict is left open.
 */
#define _GNU_SOURCE
#include "sandbox.h"
#include "internal.h"
#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The Landlock interface, as the kernel defines it; Debian 12's headers
 * stop at ABI 1. */
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH      1
#define LL_FS_EXECUTE             (1ull << 0)
#define LL_FS_WRITE_FILE          (1ull << 1)
#define LL_FS_READ_FILE           (1ull << 2)
#define LL_FS_READ_DIR            (1ull << 3)
#define LL_FS_REMOVE_DIR          (1ull << 4)
#define LL_FS_REMOVE_FILE         (1ull << 5)
#define LL_FS_MAKE_CHAR           (1ull << 6)
#define LL_FS_MAKE_DIR            (1ull << 7)
#define LL_FS_MAKE_REG            (1ull << 8)
#define LL_FS_MAKE_SOCK           (1ull << 9)
#define LL_FS_MAKE_FIFO           (1ull << 10)
#define LL_FS_MAKE_BLOCK          (1ull << 11)
#define LL_FS_MAKE_SYM            (1ull << 12)
#define LL_FS_REFER               (1ull << 13) /* ABI 2 */
#define LL_FS_TRUNCATE            (1ull << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV           (1ull << 15) /* ABI 5 */
#define LL_NET_BIND_TCP           (1ull << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP        (1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX    (1ull << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL           (1ull << 1)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* The ABI that brings each layer. */
#define FS_ABI    3 /* truncation: before it a file outside could be cut */
#define NET_ABI   4
#define SCOPE_ABI 6

static const char *const layer_names[BSH_SANDBOX_LAYERS] = {
    "no_new_privs",   "landlock_fs", "landlock_net",
    "landlock_scope", "seccomp",     "capabilities"};

const char *bsh_sandbox_layer_name(unsigned layer)
{
    for (unsigned i = 0; i < BSH_SANDBOX_LAYERS; i++)
        if (layer == 1u << i)
            return layer_names[i];
    return "unknown";
}

int bsh_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
                       LL_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

/* Whether this process may load a filter with a listener: the kernel has
 * seccomp filters and user notification, and no filter of the caller's
 * refuses seccomp() itself (as some container runtimes' do). */
static bool seccomp_available(void)
{
    uint32_t action = SECCOMP_RET_USER_NOTIF;
    return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
           syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

void bsh__sandbox_layers(const struct bsh_sandbox *sb, int abi, bool seccomp,
                         unsigned *planned, unsigned *missing, unsigned *off)
{
    *planned = BSH_LAYER_NO_NEW_PRIVS;
    *missing = *off = 0;
    *(abi >= FS_ABI ? planned : missing) |= BSH_LAYER_LANDLOCK_FS;
    if (sb->allow_net)
        *off |= BSH_LAYER_LANDLOCK_NET;
    else
        *(abi >= NET_ABI ? planned : missing) |= BSH_LAYER_LANDLOCK_NET;
    *(abi >= SCOPE_ABI ? planned : missing) |= BSH_LAYER_LANDLOCK_SCOPE;
    *(seccomp ? planned : missing) |= BSH_LAYER_SECCOMP;
    *planned |= BSH_LAYER_CAPABILITIES; /* capset and prctl: every kernel */
}

void bsh_sandbox_probe(const struct bsh_sandbox *sb,
                       struct bsh_sandbox_report *out)
{
    int abi = bsh_landlock_abi();
    unsigned planned, missing, off;
    struct bsh_sandbox eff = *sb;
    eff.allow_net = eff.allow_net && !sb->readonly; /* read-only: no net */
    bsh__sandbox_layers(&eff, abi, seccomp_available(), &planned, &missing,
                        &off);
    *out = (struct bsh_sandbox_report){sb->mode, abi, planned,
                                       missing,  off, sb->readonly};
}

/* The file rights of ABI `abi`, every one of them. */
static uint64_t fs_rights(int abi)
{
    uint64_t r = (LL_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0..12 */
    if (abi >= 2)
        r |= LL_FS_REFER;
    if (abi >= 3)
        r |= LL_FS_TRUNCATE;
    if (abi >= 5)
        r |= LL_FS_IOCTL_DEV;
    return r;
}

/* Rights that make sense on a file rather than a directory. */
#define FILE_RIGHTS                                                        \
    (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | \
     LL_FS_IOCTL_DEV)

/* A rule for the open file `fd`. */
static int add_fd(int ruleset, int fd, uint64_t rights)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        rights &= FILE_RIGHTS;
    struct ll_path_beneath pb = {rights, fd};
    return syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb,
                   0) < 0
               ? -errno
               : 0;
}

static int add_path(int ruleset, const char *path, uint64_t rights)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = add_fd(ruleset, fd, rights);
    close(fd);
    return rc;
}

/* The Landlock ruleset, empty; or -errno with `why` set. */
static int create_ruleset(struct bsh__sandbox *box,
                          const struct bsh_sandbox *sb, int abi, char *why,
                          size_t why_size)
{
    struct ll_ruleset_attr attr = {fs_rights(abi), 0, 0};
    size_t size = sizeof(attr.handled_access_fs);
    if (abi >= NET_ABI) {
        size = offsetof(struct ll_ruleset_attr, scoped);
        if (!sb->allow_net)
            attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    }
    if (abi >= SCOPE_ABI) {
        size = sizeof(attr);
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
    }
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    /* Above stdio: the child's dup2 calls would cover it. */
    rs = rs < 0 ? -errno : bsh__above_stdio(rs);
    if (rs < 0) {
        bsh__format(why, why_size, "sandbox: landlock_fs: %s", strerror(-rs));
        return rs;
    }
    box->ruleset_fd = rs;
    return 0;
}

/* Grants `rights` on place `p` (when it exists) and tells the supervisor:
 * 0, or -errno when Landlock refused the rule. */
static int grant(struct bsh__sandbox *box, const struct bsh__place *p,
                 uint64_t rights)
{
    if (p->fd < 0)
        return 0;
    int err = add_fd(box->ruleset_fd, p->fd, rights);
    if (err < 0)
        return err;
    bsh__supervisor_allow(&box->sup, p->real);
    return 0;
}

/* The writable places: the working directory `dir`, /tmp, TMPDIR and the
 * --sandbox-write directories, each opened once, checked, and granted
 * from that one open. 0, or -errno with `why` set. */
static int grant_places(struct bsh__sandbox *box, const struct bsh_sandbox *sb,
                        uint64_t write, const char *dir, char *const *envp,
                        char *why, size_t why_size)
{
    const char *tmpdir = bsh__env_value(envp, "TMPDIR");
    struct bsh__place here, tmp, slash_tmp;
    struct bsh__place *writes = calloc(sb->write_count + 1, sizeof(*writes));
    if (writes == NULL) {
        bsh__format(why, why_size, "sandbox: out of memory");
        return -ENOMEM;
    }
    if (sb->readonly) { /* the run's own TMPDIR alone */
        free(writes);
        struct bsh__place own;
        bsh__place_open(&own, "the run's temporary directory", box->tmpdir);
        int err = own.fd < 0 ? -own.err : grant(box, &own, write);
        if (err < 0)
            bsh__format(why, why_size,
                        "sandbox: cannot grant the run's temporary directory: "
                        "%s",
                        strerror(-err));
        bsh__place_close(&own);
        return err;
    }
    bsh__place_open(&here, "the working directory", dir);
    bsh__place_open(&tmp, "TMPDIR",
                    tmpdir != NULL && tmpdir[0] == '/' ? tmpdir : NULL);
    bsh__place_open(&slash_tmp, "/tmp", "/tmp");
    int rc = 0;
    for (size_t i = 0; i < sb->write_count; i++) {
        bsh__place_open(&writes[i], "the directory", sb->write_dirs[i]);
        if (writes[i].fd < 0 && rc == 0) {
            bsh__format(why, why_size, "sandbox: cannot open '%s': %s",
                        sb->write_dirs[i], strerror(writes[i].err));
            rc = -writes[i].err;
        }
    }
    if (rc == 0)
        rc = bsh__places_check(&here, &tmp, writes, sb->write_count, envp, why,
                               why_size);
    if (rc == 0) { /* a missing working directory or /tmp gives nothing */
        grant(box, &here, write);
        grant(box, &slash_tmp, write);
        grant(box, &tmp, write);
        for (size_t i = 0; i < sb->write_count && rc == 0; i++)
            if ((rc = grant(box, &writes[i], write)) < 0)
                bsh__format(why, why_size, "sandbox: cannot grant '%s': %s",
                            sb->write_dirs[i], strerror(-rc));
    }
    bsh__place_close(&here);
    bsh__place_close(&tmp);
    bsh__place_close(&slash_tmp);
    for (size_t i = 0; i < sb->write_count; i++)
        bsh__place_close(&writes[i]);
    free(writes);
    return rc;
}

/* The Landlock ruleset of the run; 0, or -errno with `why` set. */
static int make_ruleset(struct bsh__sandbox *box, const struct bsh_sandbox *sb,
                        int abi, const char *cwd, char *const *envp, char *why,
                        size_t why_size)
{
    int err = create_ruleset(box, sb, abi, why, why_size);
    if (err < 0)
        return err;
    int rs = box->ruleset_fd;
    uint64_t fs = fs_rights(abi);
    /* No device ioctl outside: another terminal of the user could be
     * resized, silenced or given a new interrupt key. */
    uint64_t read = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
    /* Writable, but no device node may be made (a block device in the
     * project would be the disk itself). */
    uint64_t write = fs & ~(LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
    char here[4096];
    const char *dir = cwd != NULL ? cwd : getcwd(here, sizeof(here));
    if ((err = grant_places(box, sb, write, dir, envp, why, why_size)) < 0)
        return err;
    if ((err = add_path(rs, "/", read)) < 0) {
        bsh__format(why, why_size, "sandbox: landlock_fs: %s", strerror(-err));
        return err;
    }
    /* Not /dev/tty: a run that leaves its session (setsid) and opens a
     * terminal that has none (a console, a serial line, a test's pty)
     * makes it its own, and /dev/tty would then write to it and reach it
     * with ioctls. A PTY run writes its terminal by its name (tty(1)) and
     * through the fds it was given. */
    const char *devices[] = {"/dev/null", "/dev/zero", "/dev/full"};
    for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++)
        add_path(rs, devices[i], write); /* a missing one gives nothing */
    /* Read-only devices whose ioctls reach nothing outside. */
    const char *plain[] = {"/dev/random", "/dev/urandom"};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        add_path(rs, plain[i], read | (fs & LL_FS_IOCTL_DEV));
    return 0;
}

void bsh__sandbox_allow_file(struct bsh__sandbox *box, const char *path)
{
    if (box != NULL && box->ruleset_fd >= 0)
        add_path(box->ruleset_fd, path, FILE_RIGHTS & ~LL_FS_EXECUTE);
}

/* The capabilities a run keeps (see BSH_LAYER_CAPABILITIES): what a
 * root run writing only in its project may use. The rest reach the
 * machine (SYS_ADMIN, NET_ADMIN, SYS_TIME, SYSLOG, SYS_MODULE, PERFMON,
 * BPF, ...) or other processes (SYS_PTRACE, SYS_NICE, SYS_RESOURCE,
 * IPC_OWNER, ...), or are unknown to this build (a newer kernel's). */
#define CAPS_KEPT                                                       \
    ((1ull << CAP_CHOWN) | (1ull << CAP_DAC_OVERRIDE) |                 \
     (1ull << CAP_DAC_READ_SEARCH) | (1ull << CAP_FOWNER) |             \
     (1ull << CAP_FSETID) | (1ull << CAP_KILL) | (1ull << CAP_SETGID) | \
     (1ull << CAP_SETUID) | (1ull << CAP_SETPCAP) |                     \
     (1ull << CAP_NET_BIND_SERVICE))

/* Every capability this kernel knows (PR_CAPBSET_READ answers EINVAL
 * past the last one), found once: the kernel's, not the thread's, so it
 * holds for every thread and user namespace. The child drops from the
 * bounding set each one the run has no use for, whether the set still
 * holds it or not: dropping one that is gone does no harm, and reading
 * the thread's set would cost a call per capability per run. */
static uint64_t known;
static pthread_once_t known_once = PTHREAD_ONCE_INIT;

static void find_known(void)
{
    for (int cap = 0; cap < 64 && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0;
         cap++)
        known |= 1ull << cap;
}

static uint64_t known_capabilities(void)
{
    pthread_once(&known_once, find_known);
    return known;
}

/* What the child drops, planned here: what it holds goes with capset
 * (no privilege needed); root gets its bounding set back at exec, so for
 * root what is left there goes too (that needs CAP_SETPCAP: without it
 * the layer fails). A process without capabilities and not root has
 * nothing to drop: no new privileges keeps it so. */
static void plan_capabilities(struct bsh__sandbox *box)
{
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capget, &head, data) < 0)
        memset(data, 0xff, sizeof(data)); /* unknown: drop as if held */
    uint64_t held = 0;
    for (size_t i = 0; i < 2; i++) {
        uint32_t keep = (uint32_t)(CAPS_KEPT >> (32 * i));
        held |= (uint64_t)(data[i].effective | data[i].permitted |
                           data[i].inheritable)
                << (32 * i);
        box->caps[3 * i] = data[i].effective & keep;
        box->caps[3 * i + 1] = data[i].permitted & keep;
        box->caps[3 * i + 2] = data[i].inheritable & keep;
    }
    box->drop_held = (held & ~CAPS_KEPT) != 0;
    bool root = getuid() == 0 || geteuid() == 0;
    box->drop = root ? known_capabilities() & ~CAPS_KEPT : 0;
}

/* The sockets from outside that the user lets the run reach: 0, or
 * -errno with `why` set. */
static int name_sockets(struct bsh__sandbox *box, const struct bsh_sandbox *sb,
                        char *why, size_t why_size)
{
    for (size_t i = 0; i < sb->socket_count; i++) {
        struct stat st;
        const char *path = sb->sockets[i];
        int err = stat(path, &st) < 0 ? -errno
                  : !S_ISSOCK(st.st_mode)
                      ? -ENOTSOCK
                      : bsh__socket_reach_name(&box->sup.reach, &st);
        if (err == -ENOMEM)
            bsh__format(why, why_size, "sandbox: out of memory");
        else if (err < 0)
            bsh__format(why, why_size, "sandbox: socket '%s': %s", path,
                        err == -ENOTSOCK ? "not a socket" : strerror(-err));
        if (err < 0)
            return err;
    }
    return 0;
}

/* The run's private temporary directory, in its TMPDIR (checked with
 * the writable places) or /tmp. */
static int make_tmpdir(struct bsh__sandbox *box, char *const *envp, char *why,
                       size_t why_size)
{
    const char *base = bsh__env_value(envp, "TMPDIR");
    struct stat st;
    if (base == NULL || base[0] != '/' || stat(base, &st) < 0 ||
        !S_ISDIR(st.st_mode))
        base = "/tmp"; /* a TMPDIR that is not there gives nothing */
    int err = bsh__tmpdir_make(base, &box->tmpdir);
    if (err < 0)
        bsh__format(why, why_size,
                    "sandbox: cannot make the run's temporary directory in "
                    "'%s': %s",
                    base, strerror(-err));
    return err;
}

/* The first layer in `mask`, for a message. */
static const char *first_layer(unsigned mask)
{
    for (unsigned i = 0; i < BSH_SANDBOX_LAYERS; i++)
        if (mask & (1u << i))
            return layer_names[i];
    return "none";
}

static void why_missing(unsigned missing, int abi, char *why, size_t why_size)
{
    const char *layer = first_layer(missing);
    if (missing & BSH_LAYER_SECCOMP &&
        !(missing & (BSH_LAYER_LANDLOCK_FS | BSH_LAYER_LANDLOCK_NET |
                     BSH_LAYER_LANDLOCK_SCOPE)))
        bsh__format(why, why_size,
                    "sandbox: seccomp cannot be applied: seccomp filters are "
                    "not to be had here (not in this kernel, or refused to "
                    "this process; --sandbox=best-effort runs without it)");
    else
        bsh__format(
            why, why_size,
            "sandbox: %s cannot be applied: this kernel's Landlock ABI "
            "is %d, %s needs %d (--sandbox=best-effort runs without it)",
            layer, abi, layer,
            missing & BSH_LAYER_LANDLOCK_FS    ? FS_ABI
            : missing & BSH_LAYER_LANDLOCK_NET ? NET_ABI
                                               : SCOPE_ABI);
}

int bsh__sandbox_prepare(struct bsh__sandbox *box,
                         const struct bsh_sandbox *asked, const char *cwd,
                         char *const *envp, char *why, size_t why_size)
{
    /* Read-only: no network, nothing writable but its own TMPDIR. */
    struct bsh_sandbox readonly = *asked;
    if (asked->readonly) {
        readonly.allow_net = false;
        readonly.write_count = readonly.socket_count = 0;
    }
    const struct bsh_sandbox *sb = &readonly;
    memset(box, 0, sizeof(*box));
    box->ruleset_fd = -1;
    box->notify_sock[0] = box->notify_sock[1] = -1;
    bsh__supervisor_init(&box->sup);
    box->sup.allow_net = sb->allow_net;
    box->strict = sb->mode == BSH_SANDBOX_STRICT;
    int abi = bsh_landlock_abi();
    unsigned planned, missing, off;
    bsh__sandbox_layers(sb, abi, seccomp_available(), &planned, &missing, &off);
    box->report = (struct bsh_sandbox_report){sb->mode, abi, 0,
                                              missing,  off, sb->readonly};
    if (box->strict && missing != 0) {
        why_missing(missing, abi, why, why_size);
        return -EOPNOTSUPP;
    }
    /* Read-only grants the private TMPDIR alone: it is made first. */
    int err = sb->readonly ? make_tmpdir(box, envp, why, why_size) : 0;
    /* Best effort still uses what an older Landlock has. */
    if (err == 0 && abi >= 1)
        err = make_ruleset(box, sb, abi, cwd, envp, why, why_size);
    if (err < 0)
        return err;
    if ((planned & BSH_LAYER_SECCOMP) &&
        (err = bsh__seccomp_build(sb->allow_net, &box->prog, why, why_size)) <
            0) {
        if (box->strict)
            return err;
        planned &= ~(unsigned)BSH_LAYER_SECCOMP; /* best effort: without it */
        box->report.missing |= BSH_LAYER_SECCOMP;
        box->prog.len = 0;
    }
    if ((planned & BSH_LAYER_SECCOMP) &&
        socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, box->notify_sock) <
            0) {
        err = -errno;
        bsh__format(why, why_size, "sandbox: seccomp: %s", strerror(-err));
        return err;
    }
    if ((err = name_sockets(box, sb, why, why_size)) < 0 ||
        (box->tmpdir == NULL &&
         (err = make_tmpdir(box, envp, why, why_size)) < 0))
        return err;
    plan_capabilities(box);
    box->planned = planned;
    return 0;
}

void bsh__sandbox_settle(struct bsh__sandbox *box)
{
    box->report.applied = box->planned & ~box->failed;
    box->report.missing |= box->planned & box->failed;
}

bool bsh__sandbox_take_listener(struct bsh__sandbox *box)
{
    if (box->notify_sock[0] < 0)
        return false;
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf)};
    if (recvmsg(box->notify_sock[0], &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 1)
        return false;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c == NULL || c->cmsg_type != SCM_RIGHTS)
        return false;
    memcpy(&box->sup.listener, CMSG_DATA(c), sizeof(int));
    return true;
}

void bsh__sandbox_release(struct bsh__sandbox *box)
{
    box->notify_sock[0] = bsh__close(box->notify_sock[0]);
    box->notify_sock[1] = bsh__close(box->notify_sock[1]);
    bsh__supervisor_release(&box->sup);
    box->ruleset_fd = bsh__close(box->ruleset_fd);
    box->prog.filter = NULL; /* the process's own, kept */
    box->prog.len = 0;
    if (box->tmpdir != NULL)
        bsh__tmpdir_remove(box->tmpdir);
    free(box->tmpdir);
    box->tmpdir = NULL;
}
