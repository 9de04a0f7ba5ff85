/* SPDX-License-Identifier: MIT */
/*
 * A preload library for the benchmarks: counts the reads and the waits
 * (poll, ppoll, epoll_wait) that the process makes through libc, and
 * prints them at exit on stderr as
 *   syscount reads=N data_reads=N waits=N per_read=F
 * where per_read is (reads + waits) / data_reads: the syscalls spent per
 * read that brought data. Only the process that loaded it counts.
 * Usage: LD_PRELOAD=.../libbsh-syscount.so bsh-bench ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <unistd.h>

static atomic_ulong reads, data_reads, waits;
static pid_t owner;

__attribute__((constructor)) static void start(void)
{
    owner = getpid();
}

__attribute__((destructor)) static void report(void)
{
    if (getpid() != owner)
        return;
    unsigned long r = atomic_load(&reads), d = atomic_load(&data_reads);
    unsigned long w = atomic_load(&waits);
    fprintf(stderr,
            "syscount reads=%lu data_reads=%lu waits=%lu per_read=%.3f\n", r, d,
            w, d > 0 ? (double)(r + w) / (double)d : 0.0);
}

/* dlsym returns the function as an object pointer; POSIX allows the
 * conversion that ISO C does not, hence the union. */
#define NEXT(name)                          \
    (((union {                              \
         void *object;                      \
         __typeof__(&name) function;        \
     }){.object = dlsym(RTLD_NEXT, #name)}) \
         .function)

ssize_t read(int fd, void *buf, size_t n)
{
    static __typeof__(&read) real;
    if (real == NULL)
        real = NEXT(read);
    atomic_fetch_add(&reads, 1);
    ssize_t got = real(fd, buf, n);
    if (got > 0)
        atomic_fetch_add(&data_reads, 1);
    return got;
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    static __typeof__(&poll) real;
    if (real == NULL)
        real = NEXT(poll);
    atomic_fetch_add(&waits, 1);
    return real(fds, n, timeout);
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
          const sigset_t *mask)
{
    static __typeof__(&ppoll) real;
    if (real == NULL)
        real = NEXT(ppoll);
    atomic_fetch_add(&waits, 1);
    return real(fds, n, timeout, mask);
}

int epoll_wait(int epfd, struct epoll_event *ev, int n, int timeout)
{
    static __typeof__(&epoll_wait) real;
    if (real == NULL)
        real = NEXT(epoll_wait);
    atomic_fetch_add(&waits, 1);
    return real(epfd, ev, n, timeout);
}
