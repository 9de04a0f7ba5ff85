/* SPDX-License-Identifier: MIT */
/*
 * `bsh policy explain`: the decision of every simple command of a command
 * and the rule (or reason) behind it, as lines or JSON; and `bsh policy
 * check FILE...`: a rule file's lint, its examples checked.
 */
#include "commands.h"
#include "policy_cli.h"
#include "policy_json.h"
#include "session_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit statuses of check and explain. */
enum { EXIT_ALLOW = 0, EXIT_DENY = 1, EXIT_BAD_POLICY = 2, EXIT_ASK = 3 };

static int decision_status(enum bsh_decision d)
{
    return d == BSH_ALLOW ? EXIT_ALLOW : d == BSH_ASK ? EXIT_ASK : EXIT_DENY;
}

/* Reads a whole file (or stdin for "-"); NULL with errno. */
static char *read_input(const char *path, size_t *len)
{
    int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf != NULL) {
        if (n == cap) {
            char *b = realloc(buf, cap * 2 + 1);
            if (b == NULL) {
                free(buf);
                buf = NULL;
                errno = ENOMEM;
                break;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            buf = NULL;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (fd != 0)
        close(fd);
    if (buf != NULL) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

/* One line of text per command, then `decision: D`. */
static int print_lines(const struct bsh_policy_verdict *v)
{
    for (size_t i = 0; i < v->ncommands; i++) {
        const struct bsh_policy_command *c = &v->commands[i];
        size_t tn = bsh_policy_command_text(c, NULL, 0),
               wn = bsh_policy_command_why(c, NULL, 0);
        char *text = malloc(tn + 1), *why = malloc(wn + 1);
        if (text == NULL || why == NULL) {
            free(text);
            free(why);
            return -1;
        }
        bsh_policy_command_text(c, text, tn + 1);
        bsh_policy_command_why(c, why, wn + 1);
        printf("%s\t", bsh_decision_name(c->decision));
        if (c->nvia > 0) {
            printf("[");
            for (size_t k = 0; k < c->nvia; k++)
                printf("%s%s", k ? " \u203a " : "", c->via[k]);
            printf("] ");
        }
        printf("%s\t%s\n", text, why);
        free(text);
        free(why);
    }
    printf("decision: %s\n", bsh_decision_name(v->decision));
    return 0;
}

/* Explains one command; returns its exit status. */
static int explain_one(const struct cli_args *a, const struct bsh_policy *p,
                       const struct bsh_session *session, const char *command,
                       size_t len)
{
    struct bsh_error err;
    if (bsh_check(command, len, &err) == BSH_EGUARD) {
        if (a->json) {
            char *j = policy_verdict_json(NULL, err.text_err);
            if (j == NULL)
                return EXIT_BSH_FAILED;
            printf("%s\n", j);
            free(j);
        } else {
            printf("deny\t%.*s\tguard: %s\n", (int)len, command, err.text_err);
        }
        return EXIT_DENY;
    }
    struct bsh_policy_verdict v;
    /* relative write targets: from here, or from the session's place */
    char *cwd = session == NULL ? getcwd(NULL, 0) : NULL;
    int d =
        bsh_policy_decide_run(p, NULL, command, len, session, cwd, NULL, 0, &v);
    free(cwd);
    if (d < 0) {
        cli_error("out of memory");
        return EXIT_BSH_FAILED;
    }
    int rc = 0;
    if (a->json) {
        char *j = policy_verdict_json(&v, NULL);
        if (j != NULL)
            printf("%s\n", j);
        else
            rc = -1;
        free(j);
    } else {
        rc = print_lines(&v);
    }
    bsh_policy_verdict_free(&v);
    if (rc != 0) {
        cli_error("out of memory");
        return EXIT_BSH_FAILED;
    }
    return decision_status((enum bsh_decision)d);
}

static int explain_input(const struct cli_args *a, const struct bsh_policy *p,
                         const struct bsh_session *s)
{
    size_t len = 0;
    char *text = read_input(a->input_file, &len);
    if (text == NULL) {
        char msg[512];
        snprintf(msg, sizeof(msg), "policy explain: %s: %s", a->input_file,
                 strerror(errno));
        cli_error(msg);
        return EXIT_BSH_FAILED;
    }
    int worst = EXIT_ALLOW;
    if (!a->each_line) {
        worst = explain_one(a, p, s, text, len);
    } else {
        /* the strictest status: deny (1) > ask (3) > allow (0) */
        for (char *line = text; line < text + len;) {
            char *nl = memchr(line, '\n', (size_t)(text + len - line));
            size_t n = nl ? (size_t)(nl - line) : (size_t)(text + len - line);
            int st = explain_one(a, p, s, line, n);
            if (st == EXIT_BSH_FAILED ||
                (st == EXIT_DENY && worst != EXIT_BSH_FAILED) ||
                (st == EXIT_ASK && worst == EXIT_ALLOW))
                worst = st;
            line += n + 1;
        }
    }
    free(text);
    return worst;
}

int cmd_policy_explain(const struct cli_args *a)
{
    struct bsh_policy *p = NULL;
    int rc = cli_policy_load(a, EXIT_BAD_POLICY, &p);
    if (rc != 0)
        return rc;
    if (p == NULL) {
        cli_error("policy: no policy configured: every command gets the "
                  "default decision");
        struct bsh_error err;
        enum bsh_decision d = BSH_ASK;
        const char *dn = a->policy_default != NULL
                             ? a->policy_default
                             : getenv("BSH_POLICY_DEFAULT");
        if (dn != NULL)
            d = strcmp(dn, "allow") == 0  ? BSH_ALLOW
                : strcmp(dn, "deny") == 0 ? BSH_DENY
                                          : BSH_ASK;
        if (bsh_policy_parse("", 0, "(none)", d, &p, &err) != BSH_OK)
            return EXIT_BSH_FAILED;
    }
    struct cli_session cs = {NULL, -1, NULL};
    char why[1024];
    if (a->session_file != NULL &&
        cli_session_open(&cs, a->session_file, NULL, false, why, sizeof(why)) <
            0) {
        cli_error(why);
        bsh_policy_free(p);
        return EXIT_BSH_FAILED;
    }
    rc = a->input_file != NULL
             ? explain_input(a, p, cs.session)
             : explain_one(a, p, cs.session, a->text, strlen(a->text));
    if (cs.session != NULL)
        cli_session_close(&cs, false, NULL, 0);
    bsh_policy_free(p);
    if (fflush(stdout) != 0)
        return cli_output_status("stdout", errno);
    return rc;
}

static void warn_stderr(void *data, const char *text)
{
    (void)data;
    cli_error(text);
}

int cmd_policy_check(const struct cli_args *a)
{
    for (int i = 0; i < a->check_count; i++) {
        struct bsh_policy_file f = {.path = a->check_files[i],
                                    .kind = BSH_POLICY_FILE_GIVEN};
        size_t rules = 0, examples = 0;
        struct bsh_policy_load_opts o = {.files = &f,
                                         .nfiles = 1,
                                         .default_decision = BSH_ASK,
                                         .warn = warn_stderr,
                                         .rules_count = &rules,
                                         .examples_count = &examples};
        struct bsh_policy *p = NULL;
        struct bsh_error err;
        int rc = bsh_policy_load(&o, &p, &err);
        if (rc != BSH_OK) {
            cli_error(rc == BSH_ENOMEM ? "out of memory" : err.text_err);
            return EXIT_BAD_POLICY;
        }
        bsh_policy_free(p);
        printf("%s: %zu rules, %zu examples\n", f.path, rules, examples);
    }
    if (fflush(stdout) != 0)
        return cli_output_status("stdout", errno);
    return 0;
}
