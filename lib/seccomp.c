/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's seccomp filter, built with libseccomp and exported as
 * BPF for the child to load. Everything is allowed but what could leave
 * the sandbox or reach the machine: sockets of any family but AF_UNIX
 * (stream and seqpacket) and route netlink (and IPv4/IPv6 when the
 * network is allowed), mounts, new namespaces, kernel modules, BPF, kexec,
 * io_uring (it makes sockets without socket()), typing into a terminal
 * (TIOCSTI, TIOCLINUX), chown, device nodes, setuid and setgid files, the
 * limits and priorities of other processes, inode flags outside the
 * writable places and whole-file-system ioctls, the clock, the host name,
 * the kernel log, perf and fanotify, keyrings, SysV IPC and POSIX message
 * queues. Each fails with EPERM, as a denied call would without a sandbox,
 * so that programs report it rather than crash. Mode and time changes,
 * connect() and bind() are handed to the supervisor. Calls of another
 * architecture (32-bit) kill the process: their numbers are not filtered.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TIOCLINUX
#    define TIOCLINUX 0x541C
#endif
#ifndef FS_IOC_SHUTDOWN /* ext4, xfs, f2fs: EXT4_IOC_SHUTDOWN */
#    define FS_IOC_SHUTDOWN _IOR('X', 125, uint32_t)
#endif
#ifndef FS_IOC32_SETFLAGS
#    define FS_IOC32_SETFLAGS _IOW('f', 2, int)
#endif
/* Calls newer than some libseccomp: since Linux 5.1 (pidfd_send_signal,
 * 424) a new call has the same number on every architecture. */
#define FCHMODAT2_NR     452 /* Linux 6.6; older libseccomp has no name */
#define FILE_SETATTR_NR  469 /* Linux 6.17 */
#define OPENAT2_NR       437 /* Linux 5.6 */
#define SETXATTRAT_NR    463 /* Linux 6.13 */
#define REMOVEXATTRAT_NR 466

static const char *const denied[] = {
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "unshare",
    "setns",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "bpf",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "iopl",
    "ioperm",
    "open_by_handle_at",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "chown32",
    "fchown32",
    "lchown32",
};

/* The namespace flags of clone(): a new namespace is a way out. */
static const unsigned long clone_ns[] = {
    CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,    CLONE_NEWUSER,
    CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Every function that adds rules returns 0 or -errno, as libseccomp's
 * own calls do. */

/* `action` for each call in `names` this architecture has. */
static int add_by_name(scmp_filter_ctx ctx, uint32_t action,
                       const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        int nr = seccomp_syscall_resolve_name(names[i]), rc;
        if (nr != __NR_SCMP_ERROR &&
            (rc = seccomp_rule_add(ctx, action, nr, 0)) < 0)
            return rc;
    }
    return 0;
}

static int deny_clone_namespaces(scmp_filter_ctx ctx)
{
    for (size_t i = 0; i < COUNT(clone_ns); i++) {
        int rc = seccomp_rule_add(
            ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
            SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns[i], clone_ns[i]));
        if (rc < 0)
            return rc;
    }
    /* clone3 takes its flags in memory, out of the filter's sight: ENOSYS
     * sends glibc back to clone. */
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
}

/* `action` for a call newer than some libseccomp that names it: by name,
 * or by its number where this libseccomp does not know it (so that the
 * filter still catches it on a newer kernel). */
static int add_new_call(scmp_filter_ctx ctx, uint32_t action, const char *name,
                        int number)
{
    int nr = seccomp_syscall_resolve_name(name);
#if defined(__x86_64__) || defined(__aarch64__)
    if (nr == __NR_SCMP_ERROR)
        nr = number;
#else
    (void)number;
#endif
    return nr != __NR_SCMP_ERROR ? seccomp_rule_add(ctx, action, nr, 0) : 0;
}

/* ioctl's request is an int: compare its low 32 bits only. */
static int deny_ioctl(scmp_filter_ctx ctx, unsigned long request)
{
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                            SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, request));
}

/* Mode and time changes, and connecting to a Unix socket by path, go to
 * the supervisor (supervise.c), which carries them out in the writable
 * places only: Landlock has no right for them. */
static int supervise_metadata(scmp_filter_ctx ctx)
{
    const char *const names[] = {"chmod",     "fchmod",  "fchmodat",
                                 "utimensat", "connect", "bind"};
    int rc = add_by_name(ctx, SCMP_ACT_NOTIFY, names, COUNT(names));
    if (rc == 0)
        rc = add_new_call(ctx, SCMP_ACT_NOTIFY, "fchmodat2", FCHMODAT2_NR);
    if (rc < 0)
        return rc;
    /* The old time calls (glibc uses utimensat) and extended attributes
     * (which no right covers either): as on a file system without them. */
    const char *const old[] = {"utime", "utimes", "futimesat"};
    const char *const xattr[] = {"setxattr",    "lsetxattr",    "fsetxattr",
                                 "removexattr", "lremovexattr", "fremovexattr"};
    if ((rc = add_by_name(ctx, SCMP_ACT_ERRNO(ENOSYS), old, COUNT(old))) < 0 ||
        (rc = add_by_name(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), xattr,
                          COUNT(xattr))) < 0)
        return rc;
    /* And their *at forms (Linux 6.13): an ACL is an extended attribute. */
    if ((rc = add_new_call(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), "setxattrat",
                           SETXATTRAT_NR)) < 0)
        return rc;
    return add_new_call(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), "removexattrat",
                        REMOVEXATTRAT_NR);
}

/* No setuid or setgid file made either: open, openat and creat with
 * O_CREAT or O_TMPFILE and such a mode, mknod of one; openat2, whose mode
 * is in memory out of the filter's sight, answers ENOSYS (callers fall
 * back to openat). */
static int no_setid_files(scmp_filter_ctx ctx)
{
    const scmp_datum_t bits[] = {S_ISUID, S_ISGID};
    /* O_TMPFILE includes O_DIRECTORY: its own bit alone */
    const scmp_datum_t creating[] = {O_CREAT, O_TMPFILE & ~O_DIRECTORY};
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    int rc = 0;
    for (size_t b = 0; b < COUNT(bits) && rc == 0; b++) {
        const scmp_datum_t bit = bits[b];
        for (size_t c = 0; c < COUNT(creating) && rc == 0; c++) {
            const scmp_datum_t how = creating[c];
            rc = seccomp_rule_add(ctx, deny, SCMP_SYS(open), 2,
                                  SCMP_A1(SCMP_CMP_MASKED_EQ, how, how),
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit));
            if (rc == 0)
                rc = seccomp_rule_add(ctx, deny, SCMP_SYS(openat), 2,
                                      SCMP_A2(SCMP_CMP_MASKED_EQ, how, how),
                                      SCMP_A3(SCMP_CMP_MASKED_EQ, bit, bit));
        }
        if (rc == 0)
            rc = seccomp_rule_add(ctx, deny, SCMP_SYS(creat), 1,
                                  SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit));
        if (rc == 0)
            rc = seccomp_rule_add(ctx, deny, SCMP_SYS(mknod), 1,
                                  SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit));
        if (rc == 0)
            rc = seccomp_rule_add(ctx, deny, SCMP_SYS(mknodat), 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit));
    }
    if (rc < 0)
        return rc;
    return add_new_call(ctx, SCMP_ACT_ERRNO(ENOSYS), "openat2", OPENAT2_NR);
}

/* The socket families a run may make: AF_UNIX; AF_NETLINK for routes
 * only (name resolution asks it for the addresses; without privileges it
 * changes nothing); AF_INET and AF_INET6 with the network. Every other
 * family (AF_PACKET, AF_VSOCK, AF_XDP, AF_ALG, ...) is refused. */
static bool family_allowed(unsigned family, bool allow_net)
{
    return family == AF_UNIX || family == AF_NETLINK ||
           (allow_net && (family == AF_INET || family == AF_INET6));
}

/* The kernel takes families below 64 (AF_MAX is 46 today); a value with
 * any higher bit set, which the kernel would cut to an int, is refused
 * whole. */
#define FAMILY_LIMIT 64

static int allow_families(scmp_filter_ctx ctx, int call, bool allow_net)
{
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), call, 1,
                              SCMP_A0(SCMP_CMP_GE, FAMILY_LIMIT, 0));
    for (unsigned f = 0; f < FAMILY_LIMIT && rc == 0; f++)
        if (!family_allowed(f, allow_net))
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), call, 1,
                                  SCMP_A0(SCMP_CMP_EQ, f, 0));
    return rc;
}

static int limit_sockets(scmp_filter_ctx ctx, bool allow_net)
{
    int rc = allow_families(ctx, SCMP_SYS(socket), allow_net);
    if (rc == 0)
        rc = allow_families(ctx, SCMP_SYS(socketpair), allow_net);
    if (rc < 0)
        return rc;
    /* Unix sockets of the connected kinds only (stream, seqpacket): a
     * datagram socket sends to any socket file by its path (sendto,
     * sendmsg), out of the filter's sight and the supervisor's reach (the
     * address is in memory, and a call let through would read it again).
     * The kernel makes a SOCK_RAW Unix socket a datagram one, so every
     * other type (the low 4 bits, as the kernel reads them) is refused,
     * for socket pairs too. */
    const int calls[] = {SCMP_SYS(socket), SCMP_SYS(socketpair)};
    for (size_t i = 0; i < COUNT(calls); i++)
        for (scmp_datum_t type = 0; type <= 0xf; type++)
            if (type != SOCK_STREAM && type != SOCK_SEQPACKET &&
                (rc = seccomp_rule_add(
                     ctx, SCMP_ACT_ERRNO(EPERM), calls[i], 2,
                     SCMP_A0(SCMP_CMP_EQ, AF_UNIX, 0),
                     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type))) < 0)
                return rc;
    /* Netlink for routes only: NETLINK_ROUTE is protocol 0. */
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 2,
                            SCMP_A0(SCMP_CMP_EQ, AF_NETLINK, 0),
                            SCMP_A2(SCMP_CMP_NE, 0, 0));
}

/* Calls whose only use in a run would be to reach past it: the clock, the
 * host name, the kernel log, watching every CPU or every open, quotas,
 * the user's keyrings, SysV IPC objects and POSIX message queues that
 * processes outside may share (a run has POSIX shared memory and
 * semaphores in /dev/shm). They
 * need capabilities a run has no use for, or reach objects of the user's
 * outside it. */
static const char *const beyond_the_run[] = {
    "sethostname",
    "setdomainname",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "stime",
    "syslog",
    "perf_event_open",
    "fanotify_init",
    "vhangup",
    "quotactl",
    "quotactl_fd",
    "lookup_dcookie",
    "add_key",
    "request_key",
    "keyctl",
    "shmget",
    "shmat",
    "shmctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "ipc",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
};

/* Device nodes: no run needs one, and a block device in the project is
 * the disk itself (Landlock's make-char and make-block rights are not
 * granted either). FIFOs, sockets and files may still be made. */
static int deny_device_nodes(scmp_filter_ctx ctx)
{
    const scmp_datum_t kinds[] = {S_IFCHR, S_IFBLK};
    int rc = 0;
    for (size_t i = 0; i < COUNT(kinds) && rc == 0; i++) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknod), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, S_IFMT, kinds[i]));
        if (rc == 0)
            rc = seccomp_rule_add(
                ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknodat), 1,
                SCMP_A2(SCMP_CMP_MASKED_EQ, S_IFMT, kinds[i]));
    }
    return rc;
}

/* Limits, priorities and CPUs of other processes (prlimit --pid, renice,
 * taskset -p, chrt -p, ionice -p): only the caller's own (pid 0). A
 * lowered file size limit kills its process with SIGXFSZ, a kill that no
 * signal scope sees. */
static int own_process_only(scmp_filter_ctx ctx)
{
    const char *const by_pid[] = {"sched_setaffinity", "sched_setscheduler",
                                  "sched_setparam",    "sched_setattr",
                                  "migrate_pages",     "move_pages"};
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    int rc = 0;
    for (size_t i = 0; i < COUNT(by_pid) && rc == 0; i++) {
        int nr = seccomp_syscall_resolve_name(by_pid[i]);
        if (nr != __NR_SCMP_ERROR)
            rc = seccomp_rule_add(ctx, deny, nr, 1, SCMP_A0(SCMP_CMP_NE, 0, 0));
    }
    /* prlimit64(pid, resource, new, old): reading another's is harmless. */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, deny, SCMP_SYS(prlimit64), 2,
                              SCMP_A0(SCMP_CMP_NE, 0, 0),
                              SCMP_A2(SCMP_CMP_NE, 0, 0));
    /* setpriority(which, who): PRIO_PROCESS 0 only (PRIO_USER 0 is every
     * process of the user); ioprio_set(which, who): IOPRIO_WHO_PROCESS 0. */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, deny, SCMP_SYS(setpriority), 1,
                              SCMP_A0(SCMP_CMP_NE, 0, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, deny, SCMP_SYS(setpriority), 1,
                              SCMP_A1(SCMP_CMP_NE, 0, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, deny, SCMP_SYS(ioprio_set), 1,
                              SCMP_A0(SCMP_CMP_NE, 1, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, deny, SCMP_SYS(ioprio_set), 1,
                              SCMP_A1(SCMP_CMP_NE, 0, 0));
    return rc;
}

/* File system ioctls that act on the whole file system (freeze, thaw,
 * trim, shut down, relabel), and inode flags, which no Landlock right
 * covers: chattr's FS_IOC_SETFLAGS goes to the supervisor, which carries
 * it out in the writable places only; the 32-bit variant and FSSETXATTR
 * (project ids, extended flags) are refused. */
static int limit_fs_ioctls(scmp_filter_ctx ctx)
{
    const unsigned long requests[] = {
        FIFREEZE,          FITHAW,          FITRIM,
        FS_IOC_SETFSLABEL, FS_IOC_SHUTDOWN, FS_IOC32_SETFLAGS,
        FS_IOC_FSSETXATTR,
    };
    int rc = 0;
    for (size_t i = 0; i < COUNT(requests) && rc == 0; i++)
        rc = deny_ioctl(ctx, requests[i]);
    /* file_setattr (Linux 6.17) sets the same extended flags by path. */
    if (rc == 0)
        rc = add_new_call(ctx, SCMP_ACT_ERRNO(EPERM), "file_setattr",
                          FILE_SETATTR_NR);
    if (rc < 0)
        return rc;
    return seccomp_rule_add(
        ctx, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1,
        SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, FS_IOC_SETFLAGS));
}

/* The filter as BPF: exported into a memory file, read back whole. */
static int export(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
    int fd = memfd_create("bsh-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = seccomp_export_bpf(ctx, fd);
    off_t size = rc == 0 ? lseek(fd, 0, SEEK_END) : 0;
    if (rc == 0 && (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0))
        rc = -EIO; /* not a filter: never seen, but never loaded either */
    if (rc == 0 && (prog->filter = malloc((size_t)size)) == NULL)
        rc = -ENOMEM;
    if (rc == 0 && pread(fd, prog->filter, (size_t)size, 0) != size)
        rc = -EIO;
    if (rc == 0)
        prog->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
    close(fd);
    return rc;
}

/* The filter depends only on allow_net: each is built once per process
 * (a tenth of a millisecond, 5 % of a spawn) and kept for its life. */
static struct sock_fprog built[2];
static int built_rc[2];
static pthread_once_t built_once[2] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};

static int build(bool allow_net, struct sock_fprog *prog);

static void build_closed(void)
{
    built_rc[0] = build(false, &built[0]);
}

static void build_open(void)
{
    built_rc[1] = build(true, &built[1]);
}

int bsh__seccomp_build(bool allow_net, struct sock_fprog *prog, char *why,
                       size_t why_size)
{
    int k = allow_net ? 1 : 0;
    pthread_once(&built_once[k], allow_net ? build_open : build_closed);
    *prog = built[k];
    if (built_rc[k] < 0)
        bsh__format(why, why_size,
                    "sandbox: seccomp: cannot build the filter: %s",
                    strerror(-built_rc[k]));
    return built_rc[k];
}

static int build(bool allow_net, struct sock_fprog *prog)
{
    prog->filter = NULL;
    prog->len = 0;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL)
        return -ENOMEM;
    /* A binary tree of the calls: a shorter check per call and at load
     * (the kernel's cache emulation); an older libseccomp keeps its list. */
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    /* No new privileges is a layer of its own, set by the child. */
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
    if (rc == 0)
        rc = add_by_name(ctx, SCMP_ACT_ERRNO(EPERM), denied, COUNT(denied));
    if (rc == 0)
        rc = deny_clone_namespaces(ctx);
    if (rc == 0)
        rc = deny_ioctl(ctx, TIOCSTI);
    if (rc == 0)
        rc = deny_ioctl(ctx, TIOCLINUX);
    if (rc == 0)
        rc = supervise_metadata(ctx);
    if (rc == 0)
        rc = add_by_name(ctx, SCMP_ACT_ERRNO(EPERM), beyond_the_run,
                         COUNT(beyond_the_run));
    if (rc == 0)
        rc = deny_device_nodes(ctx);
    if (rc == 0)
        rc = no_setid_files(ctx);
    if (rc == 0)
        rc = own_process_only(ctx);
    if (rc == 0)
        rc = limit_fs_ioctls(ctx);
    if (rc == 0)
        rc = limit_sockets(ctx, allow_net);
    if (rc == 0)
        rc = export(ctx, prog);
    seccomp_release(ctx);
    if (rc < 0) {
        free(prog->filter);
        prog->filter = NULL;
        prog->len = 0;
    }
    return rc;
}
