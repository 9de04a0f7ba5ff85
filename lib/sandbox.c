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

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
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
    bsh__sandbox_layers(sb, abi, seccomp_available(), &planned, &missing, &off);
    *out = (struct bsh_sandbox_report){sb->mode, abi, planned, missing, off};
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

static int add_path(int ruleset, const char *path, uint64_t rights)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        rights &= FILE_RIGHTS;
    struct ll_path_beneath pb = {rights, fd};
    long rc =
        syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc < 0 ? -1 : 0;
}

/* Directories that are never made writable: the system's trees (nor
 * anything in them), and directories that hold others' files (not
 * themselves: a project may lie in them). /dev/shm is the run's to use. */
static const char *const system_trees[] = {
    "/bin",       "/boot",        "/dev",         "/etc",       "/lib",
    "/lib32",     "/lib64",       "/libx32",      "/proc",      "/sbin",
    "/sys",       "/usr/bin",     "/usr/include", "/usr/lib",   "/usr/lib32",
    "/usr/lib64", "/usr/libexec", "/usr/sbin",    "/usr/share",
};
static const char *const system_dirs[] = {
    "/home", "/media", "/mnt",       "/opt",     "/run",     "/srv",
    "/usr",  "/var",   "/usr/local", "/var/lib", "/var/log", "/var/cache",
};

/* Whether `real` is `dir` or lies under it. */
static bool within(const char *real, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(real, dir, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

/* Why the directory at real path `real` may not be writable, or NULL. The
 * working directory and TMPDIR come from the caller (and through it from
 * a model): `-e TMPDIR=/` must not make / writable. */
static const char *refused_place(const char *real, const char *home)
{
    if (strcmp(real, "/") == 0)
        return "it is the root directory";
    if (within(real, "/dev/shm"))
        return NULL;
    for (size_t i = 0; i < sizeof(system_trees) / sizeof(system_trees[0]); i++)
        if (within(real, system_trees[i]))
            return "it is a system directory";
    for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
        if (strcmp(real, system_dirs[i]) == 0)
            return "it is a system directory";
    if (home != NULL && strcmp(real, home) != 0 && within(home, real))
        return "it holds the home directory";
    return NULL;
}

/* Refuses (-1, `why` set) a writable place the run names that may not be
 * one; a missing place passes (it gives nothing). */
static int check_place(const char *what, const char *path, char *const *envp,
                       char *why, size_t why_size)
{
    if (path == NULL)
        return 0;
    char *real = realpath(path, NULL);
    if (real == NULL)
        return 0;
    const char *home_env = bsh__env_value(envp, "HOME");
    char *home = home_env != NULL ? realpath(home_env, NULL) : NULL;
    const char *reason = refused_place(real, home);
    if (reason != NULL)
        bsh__format(why, why_size, "sandbox: cannot make %s '%s' writable: %s",
                    what, path, reason);
    free(home);
    free(real);
    return reason != NULL ? -1 : 0;
}

/* The working directory, TMPDIR and the extra places: none may be one
 * that must not be writable. */
static int check_places(const struct bsh_sandbox *sb, const char *dir,
                        const char *tmpdir, char *const *envp, char *why,
                        size_t why_size)
{
    if (check_place("the working directory", dir, envp, why, why_size) < 0 ||
        check_place("TMPDIR", tmpdir, envp, why, why_size) < 0)
        return -1;
    for (size_t i = 0; i < sb->write_count; i++)
        if (check_place("the directory", sb->write_dirs[i], envp, why,
                        why_size) < 0)
            return -1;
    return 0;
}

/* The Landlock ruleset of the run; -1 with `why` set. */
static int make_ruleset(struct bsh__sandbox *box, const struct bsh_sandbox *sb,
                        int abi, const char *cwd, char *const *envp, char *why,
                        size_t why_size)
{
    uint64_t fs = fs_rights(abi);
    struct ll_ruleset_attr attr = {fs, 0, 0};
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
    if (rs < 0) {
        bsh__format(why, why_size, "sandbox: landlock_fs: %s", strerror(errno));
        return -1;
    }
    if (rs < 3) { /* the child's stdio would cover it */
        int high = fcntl(rs, F_DUPFD_CLOEXEC, 3);
        close(rs);
        rs = high;
    }
    box->ruleset_fd = rs;
    if (rs < 0) {
        bsh__format(why, why_size, "sandbox: landlock_fs: %s", strerror(errno));
        return -1;
    }
    uint64_t read = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR |
                    (fs & LL_FS_IOCTL_DEV);
    const char *tmpdir = bsh__env_value(envp, "TMPDIR");
    char here[4096];
    const char *dir = cwd != NULL ? cwd : getcwd(here, sizeof(here));
    const char *fixed[] = {dir,         "/tmp",      "/dev/null",
                           "/dev/zero", "/dev/full", "/dev/tty"};
    if (check_places(sb, dir,
                     tmpdir != NULL && tmpdir[0] == '/' ? tmpdir : NULL, envp,
                     why, why_size) < 0)
        return -1;
    if (add_path(rs, "/", read) < 0) {
        bsh__format(why, why_size, "sandbox: landlock_fs: %s", strerror(errno));
        return -1;
    }
    /* Writable, but no device node may be made (a block device in the
     * project would be the disk itself). */
    uint64_t write = fs & ~(LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        if (fixed[i] != NULL)
            add_path(rs, fixed[i], write); /* a missing one gives nothing */
    bsh__supervisor_allow(&box->sup, dir);
    bsh__supervisor_allow(&box->sup, "/tmp");
    if (tmpdir != NULL && tmpdir[0] == '/') {
        add_path(rs, tmpdir, write);
        bsh__supervisor_allow(&box->sup, tmpdir);
    }
    for (size_t i = 0; i < sb->write_count; i++) {
        if (add_path(rs, sb->write_dirs[i], write) < 0) {
            bsh__format(why, why_size, "sandbox: cannot open '%s': %s",
                        sb->write_dirs[i], strerror(errno));
            return -1;
        }
        bsh__supervisor_allow(&box->sup, sb->write_dirs[i]);
    }
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

/* The highest capability this kernel knows. */
static int last_cap(void)
{
    int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
    char text[16] = "";
    ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
    if (fd >= 0)
        close(fd);
    int last = n > 0 ? atoi(text) : 0;
    return last > 0 && last < 64 ? last : 40; /* CAP_CHECKPOINT_RESTORE */
}

/* What the child drops: planned here, where /proc may be read. Root gets
 * its bounding set back at exec, so that is dropped too; a process with
 * no capability has nothing to drop. */
static void plan_capabilities(struct bsh__sandbox *box)
{
    int last = last_cap();
    box->drop = (last == 63 ? ~0ull : (2ull << last) - 1) & ~CAPS_KEPT;
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capget, &head, data) < 0)
        memset(data, 0xff, sizeof(data)); /* unknown: drop as if held */
    uint64_t held = 0;
    for (int i = 0; i < 2; i++) {
        held |= (uint64_t)(data[i].effective | data[i].permitted |
                           data[i].inheritable)
                << (32 * i);
        box->caps[3 * i] = data[i].effective & (uint32_t)(~box->drop >> 32 * i);
        box->caps[3 * i + 1] =
            data[i].permitted & (uint32_t)(~box->drop >> 32 * i);
        box->caps[3 * i + 2] =
            data[i].inheritable & (uint32_t)(~box->drop >> 32 * i);
    }
    box->drop_held = (held & box->drop) != 0;
    box->drop_bounding = getuid() == 0 || geteuid() == 0 || box->drop_held;
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

int bsh__sandbox_prepare(struct bsh__sandbox *box, const struct bsh_sandbox *sb,
                         const char *cwd, char *const *envp, char *why,
                         size_t why_size)
{
    memset(box, 0, sizeof(*box));
    box->ruleset_fd = -1;
    box->notify_sock[0] = box->notify_sock[1] = -1;
    bsh__supervisor_init(&box->sup);
    box->strict = sb->mode == BSH_SANDBOX_STRICT;
    int abi = bsh_landlock_abi();
    unsigned planned, missing, off;
    bsh__sandbox_layers(sb, abi, seccomp_available(), &planned, &missing, &off);
    box->report = (struct bsh_sandbox_report){sb->mode, abi, 0, missing, off};
    if (box->strict && missing != 0) {
        why_missing(missing, abi, why, why_size);
        return -1;
    }
    /* Best effort still uses what an older Landlock has. */
    if (abi >= 1 && make_ruleset(box, sb, abi, cwd, envp, why, why_size) < 0)
        return -1;
    if ((planned & BSH_LAYER_SECCOMP) &&
        bsh__seccomp_build(sb->allow_net, &box->prog, why, why_size) < 0) {
        if (box->strict)
            return -1;
        planned &= ~(unsigned)BSH_LAYER_SECCOMP; /* best effort: without it */
        box->report.missing |= BSH_LAYER_SECCOMP;
        box->prog.len = 0;
    }
    if ((planned & BSH_LAYER_SECCOMP) &&
        socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, box->notify_sock) <
            0) {
        bsh__format(why, why_size, "sandbox: seccomp: %s", strerror(errno));
        return -1;
    }
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
}
