/* SPDX-License-Identifier: MIT */
#include "policy_cli.h"

#include "commands.h"
#include "output.h"
#include "policy_setup.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void warn_stderr(void *data, const char *text)
{
    (void)data;
    cli_error(text);
}

int cli_policy_load(const struct cli_args *a, int bad_file_status,
                    struct bsh_policy **out)
{
    struct policy_options o = {.files = a->policy_files,
                               .nfiles = a->policy_count,
                               .default_name = a->policy_default,
                               .no_policy = a->no_policy,
                               .project = a->project_policy,
                               .trust_project = a->trust_project_policy,
                               .cwd = a->run.cwd};
    char message[1024];
    switch (
        policy_setup(&o, out, message, sizeof(message), warn_stderr, NULL)) {
    case POLICY_NONE:
    case POLICY_LOADED:
        return 0;
    case POLICY_BAD_FILE:
        cli_error(message);
        return bad_file_status;
    case POLICY_BAD_USAGE:
        cli_error(message);
        return EXIT_BSH_FAILED;
    case POLICY_NO_MEMORY:
        break;
    }
    cli_error("out of memory");
    return EXIT_BSH_FAILED;
}

bool cli_policy_has_tty(void)
{
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

enum bsh_approval cli_policy_readonly(const struct bsh_policy_verdict *v,
                                      void *data)
{
    (void)data;
    char note[BSH_ERROR_MAX];
    bsh_policy_message(v, false, note, sizeof(note));
    /* "policy: approval needed: CMD (WHY)" names what is run read-only */
    const char *rest =
        strchr(note, ':') != NULL ? strstr(note, "needed: ") : NULL;
    char line[BSH_ERROR_MAX + 64];
    int n = snprintf(line, sizeof(line),
                     "policy: ran read-only instead of asking: %s\n",
                     rest != NULL ? rest + 8 : note);
    if (n > 0)
        write_all(2, line,
                  (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
    return BSH_APPROVAL_READONLY;
}

enum bsh_approval cli_policy_approve_all(const struct bsh_policy_verdict *v,
                                         void *data)
{
    (void)v;
    (void)data;
    return BSH_APPROVAL_RUN;
}

/* One line from `fd` (at most size - 1 bytes kept); false at end of file
 * before any byte. */
static bool read_line(int fd, char *buf, size_t size)
{
    size_t n = 0;
    bool any = false;
    for (;;) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        any = true;
        if (c == '\n')
            break;
        if (n + 1 < size)
            buf[n++] = c;
    }
    buf[n] = '\0';
    return any;
}

enum bsh_approval cli_policy_ask_tty(const struct bsh_policy_verdict *v,
                                     void *data)
{
    (void)data;
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 || v->decider >= v->ncommands) {
        if (fd >= 0)
            close(fd);
        return BSH_APPROVAL_REFUSE;
    }
    const struct bsh_policy_command *c = &v->commands[v->decider];
    size_t tn = bsh_policy_command_text(c, NULL, 0),
           wn = bsh_policy_command_why(c, NULL, 0);
    char *text = malloc(tn + 1), *why = malloc(wn + 1);
    char *prompt = NULL;
    enum bsh_approval answer = BSH_APPROVAL_REFUSE;
    if (text != NULL && why != NULL) {
        bsh_policy_command_text(c, text, tn + 1);
        bsh_policy_command_why(c, why, wn + 1);
        size_t pn = tn + wn + 32;
        prompt = malloc(pn);
        if (prompt != NULL) {
            int len =
                snprintf(prompt, pn, "bsh: approve? %s (%s) [y/N] ", text, why);
            char line[64] = "";
            if (write_all(fd, prompt, (size_t)len) == 0 &&
                read_line(fd, line, sizeof(line))) {
                char *s = line;
                while (isspace((unsigned char)*s))
                    s++;
                size_t e = strlen(s);
                while (e > 0 && isspace((unsigned char)s[e - 1]))
                    s[--e] = '\0';
                if (strcasecmp(s, "y") == 0 || strcasecmp(s, "yes") == 0)
                    answer = BSH_APPROVAL_RUN;
            }
        }
    }
    free(prompt);
    free(text);
    free(why);
    close(fd);
    return answer;
}
