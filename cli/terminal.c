/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "terminal.h"
#include "signal_read.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

static bool window_size(int fd, int *rows, int *cols)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) < 0 || ws.ws_row == 0 || ws.ws_col == 0)
        return false;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return true;
}

/* SIGWINCH is read from a signalfd, like every signal bsh acts on. */
static int watch_winch(void)
{
    sigset_t winch;
    sigemptyset(&winch);
    sigaddset(&winch, SIGWINCH);
    if (sigprocmask(SIG_BLOCK, &winch, NULL) < 0)
        return -1;
    return signalfd(-1, &winch, SFD_CLOEXEC | SFD_NONBLOCK);
}

bool terminal_take(struct terminal *t, int fd)
{
    t->fd = -1;
    t->raw = false;
    t->winch_fd = -1;
    t->rows = t->cols = 0;
    if (!isatty(fd) || tcgetattr(fd, &t->saved) < 0)
        return false;
    t->fd = fd;
    window_size(fd, &t->rows, &t->cols);
    struct termios raw = t->saved;
    cfmakeraw(&raw);
    t->raw = tcsetattr(fd, TCSANOW, &raw) == 0;
    t->winch_fd = watch_winch();
    return true;
}

bool terminal_resized(struct terminal *t, int *rows, int *cols)
{
    while (signal_read(t->winch_fd) != 0)
        ; /* one resize for all that came */
    return window_size(t->fd, rows, cols);
}

void terminal_restore(struct terminal *t)
{
    if (t->raw)
        tcsetattr(t->fd, TCSANOW, &t->saved);
    t->raw = false;
    if (t->winch_fd >= 0)
        close(t->winch_fd);
    t->winch_fd = -1;
}
