/* SPDX-License-Identifier: MIT */
/*
 * Output of the CLI. JSON here is only ever written, never read, and its
 * shapes are fixed; a JSON library would add nothing but a dependency.
 */
#include "output.h"
#include "utf8.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_error(const char *message)
{
    char line[BSH_ERROR_MAX + 16];
    int n = snprintf(line, sizeof(line), "bsh: %s\n", message);
    if (n > 0)
        (void)write_all(
            2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

size_t base64_encode(const unsigned char *in, size_t len, char *out)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v =
            (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
        out[o++] = abc[v >> 18];
        out[o++] = abc[(v >> 12) & 63];
        out[o++] = abc[(v >> 6) & 63];
        out[o++] = abc[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)in[i + 1] << 8;
        out[o++] = abc[v >> 18];
        out[o++] = abc[(v >> 12) & 63];
        out[o++] = (char)(i + 1 < len ? abc[(v >> 6) & 63] : '=');
        out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

static size_t put_optional_int(char *out, bool has, int value)
{
    return has ? (size_t)sprintf(out, "%d", value)
               : (size_t)sprintf(out, "null");
}

size_t format_json_item(const struct bsh_item *item, char *line)
{
    bool is_out = item->kind == BSH_ITEM_STDOUT;
    bool is_err = item->kind == BSH_ITEM_STDERR;
    size_t o = (size_t)sprintf(line, "{\"stdout\":\"");
    if (is_out)
        o += base64_encode(item->data, item->len, line + o);
    o += (size_t)sprintf(line + o, "\",\"stderr\":\"");
    if (is_err)
        o += base64_encode(item->data, item->len, line + o);
    o += (size_t)sprintf(line + o, "\",\"exit_code\":");
    o += put_optional_int(line + o, item->has_exit_code, item->exit_code);
    o += (size_t)sprintf(line + o, ",\"signal\":");
    o += put_optional_int(line + o, item->has_signal, item->signal);
    o += (size_t)sprintf(line + o, ",\"truncated\":%s}\n",
                         item->truncated ? "true" : "false");
    return o;
}

/* A {"KEY":"QUOTED",...} line built around one quoted message. */
static char *format_with_message(const char *before, const char *message,
                                 const char *after)
{
    size_t need = strlen(before) + 6 * strlen(message) + strlen(after) + 8;
    char *line = malloc(need);
    if (line == NULL)
        return NULL;
    size_t o = (size_t)sprintf(line, "%s", before);
    o += quote_json(message, line + o);
    sprintf(line + o, "%s\n", after);
    return line;
}

char *format_json_error(const char *message, const char *stage)
{
    char after[64];
    snprintf(after, sizeof(after), ",\"stage\":\"%s\"}", stage);
    return format_with_message("{\"error\":", message, after);
}

char *format_json_refusal(const char *message, const char *decision)
{
    char after[64];
    snprintf(after, sizeof(after), ",\"stage\":\"policy\",\"decision\":\"%s\"}",
             decision);
    return format_with_message("{\"error\":", message, after);
}

char *format_json_verdict(const char *message, const char *decision,
                          const char *stage)
{
    if (message == NULL) {
        char *line = malloc(64);
        if (line != NULL)
            snprintf(line, 64, "{\"allowed\":true,\"decision\":\"%s\"}\n",
                     decision);
        return line;
    }
    char head[64], after[64];
    snprintf(head, sizeof(head),
             "{\"allowed\":false,\"decision\":\"%s\",\"error\":", decision);
    snprintf(after, sizeof(after), ",\"stage\":\"%s\"}", stage);
    return format_with_message(head, message, after);
}

char *cli_format_error(const char *message)
{
    size_t need = strlen(message) + 8;
    char *line = malloc(need);
    if (line != NULL)
        snprintf(line, need, "bsh: %s\n", message);
    return line;
}

void free_line(char *line)
{
    free(line);
}

int write_line(char *line)
{
    int rc = line != NULL ? write_all(1, line, strlen(line)) : -1;
    free(line);
    return rc;
}

int write_json_check(const char *error)
{
    if (error == NULL)
        return write_all(1, "{\"allowed\":true}\n", 17);
    return write_line(
        format_with_message("{\"allowed\":false,\"error\":", error, "}"));
}

void cli_output_error(const char *what, int err)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "cannot write to %s: %s", what, strerror(err));
    cli_error(msg);
}

int cli_output_status(const char *what, int err)
{
    if (err == EPIPE) /* as a pipeline member killed by SIGPIPE */
        return 128 + SIGPIPE;
    cli_output_error(what, err);
    return 125;
}

int cli_stdout_status(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    return cli_output_status("stdout", errno != 0 ? errno : EIO);
}
