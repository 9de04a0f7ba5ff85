/* SPDX-License-Identifier: MIT */
#include "listen_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define BACKLOG 1024

/* The port after the last ':' of `s`: 0..65535 (0: any free one), or
 * -1. */
static int parse_port(const char *s)
{
    char *end;
    errno = 0;
    long port = strtol(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || port < 0 ||
        port > 65535)
        return -1;
    return (int)port;
}

/* "ADDR:PORT" or "[ADDR]:PORT" into a socket address; false with why. */
static bool parse_ip(const char *spec, struct sockaddr_storage *ss,
                     socklen_t *len, char *why, size_t why_size)
{
    char host[INET6_ADDRSTRLEN + 1];
    const char *colon = strrchr(spec, ':');
    int port = colon != NULL ? parse_port(colon + 1) : -1;
    size_t n = colon != NULL ? (size_t)(colon - spec) : 0;
    bool v6 = n >= 2 && spec[0] == '[' && spec[n - 1] == ']';
    const char *start = v6 ? spec + 1 : spec;
    if (v6)
        n -= 2;
    if (port < 0 || n == 0 || n >= sizeof(host)) {
        snprintf(why, why_size,
                 "--listen '%.200s': expected ADDR:PORT, [IPV6]:PORT or "
                 "unix:PATH, with a port from 0 (any free one) to 65535",
                 spec);
        return false;
    }
    memcpy(host, start, n);
    host[n] = '\0';
    memset(ss, 0, sizeof(*ss));
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        *len = sizeof(*a);
        if (inet_pton(AF_INET6, host, &a->sin6_addr) == 1)
            return true;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        *len = sizeof(*a);
        if (strcmp(host, "localhost") == 0)
            snprintf(host, sizeof(host), "127.0.0.1");
        if (inet_pton(AF_INET, host, &a->sin_addr) == 1)
            return true;
    }
    snprintf(why, why_size,
             "--listen: '%s' is not an IPv%c address (a name other than "
             "localhost is not looked up)",
             host, v6 ? '6' : '4');
    return false;
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    }
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
    return IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) ||
           (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) &&
            a->sin6_addr.s6_addr[12] == 127);
}

/* Whether a socket file at `path` is one nobody accepts on any more. */
static bool stale_socket(const struct sockaddr_un *a)
{
    struct stat st;
    if (lstat(a->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode))
        return false;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool stale = connect(fd, (const struct sockaddr *)a, sizeof(*a)) < 0 &&
                 errno == ECONNREFUSED;
    close(fd);
    return stale;
}

static int open_unix(const char *path, char *why, size_t why_size)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (path[0] == '\0' || strlen(path) >= sizeof(a.sun_path)) {
        snprintf(why, why_size,
                 "--listen unix:PATH: the path must be 1 to %zu bytes",
                 sizeof(a.sun_path) - 1);
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, why_size, "--listen: socket: %s", strerror(errno));
        return -1;
    }
    if (stale_socket(&a))
        unlink(path);
    /* Only its owner may connect (a unix socket goes without a token): the
     * socket is made 0600, not chmod'ed after, when another user could
     * already have connected. The umask is the process's, which the server
     * owns; nothing else runs while it is changed. */
    mode_t was = umask(0177);
    int bound = bind(fd, (struct sockaddr *)&a, sizeof(a));
    umask(was);
    if (bound < 0 || listen(fd, BACKLOG) < 0) {
        snprintf(why, why_size, "--listen unix:%.200s: %s", path,
                 strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int listen_open(const char *spec, bool *loopback, char *why, size_t why_size)
{
    *loopback = true;
    if (strncmp(spec, "unix:", 5) == 0)
        return open_unix(spec + 5, why, why_size);
    struct sockaddr_storage ss;
    socklen_t len;
    if (!parse_ip(spec, &ss, &len, why, why_size))
        return -1;
    *loopback = is_loopback(&ss);
    int fd =
        socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int on = 1;
    if (fd < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
        (ss.ss_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) < 0) ||
        bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, BACKLOG) < 0) {
        snprintf(why, why_size, "--listen %.200s: %s", spec, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

void listen_name(int fd, const char *spec, char *buf, size_t size)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char host[INET6_ADDRSTRLEN];
    if (strncmp(spec, "unix:", 5) == 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
        (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
        snprintf(buf, size, "%s", spec);
        return;
    }
    bool v6 = ss.ss_family == AF_INET6;
    const void *addr =
        v6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
           : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
    unsigned port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                             : ((struct sockaddr_in *)&ss)->sin_port);
    inet_ntop(ss.ss_family, addr, host, sizeof(host));
    snprintf(buf, size, v6 ? "http://[%s]:%u" : "http://%s:%u", host, port);
}

void listen_close(int fd, const char *spec)
{
    if (fd >= 0)
        close(fd);
    if (strncmp(spec, "unix:", 5) == 0)
        unlink(spec + 5);
}
