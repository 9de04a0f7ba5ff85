/* SPDX-License-Identifier: MIT */
/*
 * The bash_run tool: a tools/call runs the command through the guards and
 * the engine with the server's configuration, reports progress while
 * output arrives, and answers with the output text (within the budget),
 * the way the run ended, and structured content.
 */
#include "tool.h"
#include "display.h"
#include "json.h"
#include "mono.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRESS_INTERVAL_MS 100.0

json_t *tool_description(void)
{
    return json_loads(bsh_bash_tool_json(), 0, NULL);
}

static json_t *text_content(const char *text, size_t len)
{
    return json_pack("[{s:s, s:s%}]", "type", "text", "text", text, len);
}

/* A tool error: the guards rejected the call, or it could not start. */
void tool_answer_error(json_t *id, const char *message)
{
    json_t *result = json_pack(
        "{s:o, s:b, s:{s:n, s:n, s:b, s:s, s:s, s:i, s:s}}", "content",
        text_content(message, strlen(message)), "isError", 1,
        "structuredContent", "exit_code", "signal", "timed_out", 0, "stdout",
        "", "stderr", "", "truncated_bytes", 0, "error", message);
    rpc_result(id, result);
}

/* Reads the arguments; false after answering a -32602 error. */
/* Reads the optional integer argument `key` (at least `min`) into `*v`;
 * false after answering a -32602 error. */
static bool integer_argument(json_t *id, json_t *args, const char *key,
                             json_int_t min, int64_t *v)
{
    json_t *t = json_object_get(args, key);
    if (t == NULL || json_is_null(t))
        return true;
    if (!json_is_integer(t) || json_integer_value(t) < min) {
        char why[128];
        snprintf(why, sizeof(why), "bash_run: %s must be an integer >= %lld",
                 key, (long long)min);
        rpc_error(id, RPC_INVALID_PARAMS, why);
        return false;
    }
    *v = json_integer_value(t);
    return true;
}

static bool parse_arguments(const struct mcp_config *cfg, json_t *id,
                            json_t *params, const char **command,
                            int64_t *timeout_ms, int64_t *idle_ms)
{
    json_t *name = json_object_get(params, "name");
    json_t *args = json_object_get(params, "arguments");
    if (!json_is_string(name)) {
        rpc_error(id, RPC_INVALID_PARAMS, "tools/call needs a string 'name'");
        return false;
    }
    if (strcmp(json_string_value(name), "bash_run") != 0 ||
        json_string_length(name) != strlen("bash_run")) {
        char why[200];
        snprintf(why, sizeof(why), "Unknown tool: %.100s",
                 json_string_value(name));
        rpc_error(id, RPC_INVALID_PARAMS, why);
        return false;
    }
    json_t *cmd = json_object_get(args, "command");
    if (!json_is_string(cmd)) {
        rpc_error(id, RPC_INVALID_PARAMS,
                  "bash_run needs arguments.command, a string");
        return false;
    }
    if (strlen(json_string_value(cmd)) != json_string_length(cmd)) {
        tool_answer_error(id, "bash_run: a command cannot contain a NUL "
                              "character");
        return false;
    }
    *timeout_ms = cfg->timeout_ms;
    *idle_ms = cfg->idle_timeout_ms;
    if (!integer_argument(id, args, "timeout_ms", 0, timeout_ms) ||
        !integer_argument(id, args, "idle_timeout_ms", 1, idle_ms))
        return false;
    *command = json_string_value(cmd);
    return true;
}

struct call *tool_start(const struct mcp_config *cfg, struct spill_dir *dir,
                        json_t *id, json_t *params)
{
    const char *command;
    int64_t timeout_ms, idle_ms;
    if (!parse_arguments(cfg, id, params, &command, &timeout_ms, &idle_ms))
        return NULL;
    if (cfg->dry_run) {
        struct bsh_error err;
        tool_answer_error(id, bsh_check(command, strlen(command), &err) ==
                                      BSH_EGUARD
                                  ? err.text_err
                                  : "dry run: nothing was run");
        return NULL;
    }
    struct call *c = calloc(1, sizeof(*c));
    if (c == NULL || capture_init(&c->cap, cfg->budget, dir) < 0) {
        if (c != NULL)
            capture_release(&c->cap);
        free(c);
        tool_answer_error(id, "out of memory");
        return NULL;
    }
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = command;
    o.cwd = cfg->cwd;
    o.env = cfg->env;
    o.env_count = cfg->env_count;
    o.timeout_ms = timeout_ms;
    o.pty = cfg->pty;
    o.idle_timeout_ms = idle_ms;
    o.grace_ms = cfg->grace_ms;
    o.limits = cfg->limits;
    o.containment = cfg->containment;
    o.report = true;
    struct bsh_error err;
    int rc = bsh_run(&o, &c->stream, &err);
    if (rc != BSH_OK) {
        tool_answer_error(id, rc == BSH_EGUARD ? err.text_err
                                               : "bsh could not start the run");
        tool_free(c);
        return NULL;
    }
    c->id = json_incref(id);
    json_t *meta = json_object_get(params, "_meta");
    json_t *token = json_object_get(meta, "progressToken");
    if (json_is_string(token) || json_is_integer(token))
        c->progress_token = json_incref(token);
    c->timeout_ms = timeout_ms;
    c->idle_ms = idle_ms;
    c->pty = cfg->pty;
    c->subreaper = cfg->subreaper;
    return c;
}

static void maybe_progress(struct call *c)
{
    double now = mono_ms();
    if (c->progress_token == NULL ||
        now - c->last_progress_ms < PROGRESS_INTERVAL_MS)
        return;
    c->last_progress_ms = now;
    char msg[64];
    snprintf(msg, sizeof(msg), "%llu bytes of output",
             (unsigned long long)c->bytes);
    rpc_notify("notifications/progress",
               json_pack("{s:O, s:I, s:s}", "progressToken", c->progress_token,
                         "progress", (json_int_t)c->bytes, "message", msg));
}

/* What an ended run was doing, from its report's diagnosis, as a line
 * that goes before the ending: "still running: sleep (pid 12, sleeping
 * in hrtimer_nanosleep)"; "" when nothing was. */
static void still_running(const struct call *c, char *buf, size_t size)
{
    const struct bsh_report *r = bsh_stream_report(c->stream);
    size_t len = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; r != NULL && i < r->diagnosis_count && shown < 3; i++) {
        const struct bsh_proc_info *p = &r->diagnosis[i];
        if (strcmp(p->comm, "bash") == 0 && r->diagnosis_count > 1)
            continue; /* the shell waiting for its command says little */
        const char *state = p->state == 'R'   ? "running"
                            : p->state == 'D' ? "blocked"
                            : p->state == 'T' ? "stopped"
                                              : "sleeping";
        int n = snprintf(buf + len, size - len, "%s%s (pid %d, %s%s%s)",
                         shown ? ", " : "still running: ", p->comm, p->pid,
                         state, p->wchan[0] ? " in " : "", p->wchan);
        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
        shown++;
    }
}

/* Appends `text` to `buf` (`size` bytes, holding `*len`), cut to fit. */
static void append(char *buf, size_t size, size_t *len, const char *text)
{
    size_t n = strlen(text);
    if (n > size - 1 - *len)
        n = size - 1 - *len;
    memcpy(buf + *len, text, n);
    *len += n;
    buf[*len] = '\0';
}

/* How the run ended, as the last line of the text ("" for exit 0); a run
 * that bsh ended gets a line before it that says what was still running. */
static void ending_line(const struct call *c, const struct bsh_item *st,
                        const char *error, char *buf, size_t size)
{
    enum bsh_end_reason why = bsh_stream_end_reason(c->stream);
    const struct bsh_report *r = bsh_stream_report(c->stream);
    bool timed_out = error == NULL && bsh_item_timed_out(st);
    char last[BSH_ERROR_MAX + 64] = "", running[BSH_ERROR_MAX] = "";
    if (error != NULL)
        snprintf(last, sizeof(last), "error: %s", error);
    else if (timed_out && why == BSH_END_LIMIT && r != NULL)
        snprintf(last, sizeof(last),
                 "ended: output limit of %llu bytes reached",
                 (unsigned long long)r->stdout_bytes +
                     (unsigned long long)r->stderr_bytes);
    else if (timed_out && why == BSH_END_IDLE)
        snprintf(last, sizeof(last), "timed out: no output for %lld ms",
                 (long long)c->idle_ms);
    else if (timed_out)
        snprintf(last, sizeof(last), "timed out after %lld ms",
                 (long long)c->timeout_ms);
    else if (st->has_signal)
        snprintf(last, sizeof(last), "signal: %d", st->signal);
    else if (st->exit_code != 0)
        snprintf(last, sizeof(last), "exit code: %d", st->exit_code);
    if (error == NULL && !timed_out && r != NULL &&
        r->limit != BSH_LIMIT_NONE && last[0] != '\0') {
        size_t n = strlen(last);
        snprintf(last + n, sizeof(last) - n, " (the %s limit)",
                 bsh_limit_name(r->limit));
    }
    if (timed_out)
        still_running(c, running, sizeof(running));
    size_t len = 0;
    buf[0] = '\0';
    if (running[0] != '\0') {
        append(buf, size, &len, running);
        append(buf, size, &len, "\n");
    }
    append(buf, size, &len, last);
}

/* stdout, stderr, then the ending on a line of its own. */
static json_t *joined_text(const struct capture_part *out,
                           const struct capture_part *err,
                           const struct display *ending)
{
    size_t n = out->len + err->len;
    char *text = malloc(n + ending->len + 2);
    if (text == NULL)
        return json_string("");
    memcpy(text, out->text, out->len);
    memcpy(text + out->len, err->text, err->len);
    if (ending->len > 0 && n > 0 && text[n - 1] != '\n')
        text[n++] = '\n';
    memcpy(text + n, ending->text, ending->len);
    json_t *s = json_stringn(text, n + ending->len);
    free(text);
    return s;
}

/* structuredContent.report: the engine's end report (SPEC 5.3). */
static void add_report(const struct call *c, json_t *structured)
{
    const struct bsh_report *r = bsh_stream_report(c->stream);
    if (r == NULL)
        return;
    char *text = report_json(r, report_containment(r, c->subreaper));
    json_t *report = text != NULL ? json_loads(text, 0, NULL) : NULL;
    free(text);
    if (report != NULL)
        json_object_set_new(structured, "report", report);
}

/* Answers the call from what it captured and how it ended (`st`, or the
 * stream error `error`), within the budget of characters. */
static void answer(struct call *c, const struct bsh_item *st, const char *error)
{
    char raw_ending[2 * BSH_ERROR_MAX + 128];
    ending_line(c, st, error, raw_ending, sizeof(raw_ending));
    struct display ending;
    struct capture_part po, pe;
    if (display_make((const unsigned char *)raw_ending, strlen(raw_ending),
                     false, &ending) < 0) {
        tool_answer_error(c->id, "out of memory");
        return;
    }
    size_t reserved = ending.chars + 1; /* and its newline */
    size_t chars = c->cap.budget > reserved ? c->cap.budget - reserved : 0;
    if (capture_parts(&c->cap, c->pty, chars, &po, &pe) < 0) {
        display_free(&ending);
        tool_answer_error(c->id, "out of memory");
        return;
    }
    json_t *text = joined_text(&po, &pe, &ending);
    bool timed_out = error == NULL && bsh_item_timed_out(st);
    bool failed = error != NULL || ending.len > 0;
    json_int_t omitted = (json_int_t)po.omitted + (json_int_t)pe.omitted;
    json_t *structured = json_pack(
        "{s:o, s:o, s:b, s:s%, s:s%, s:I}", "exit_code",
        error == NULL && st->has_exit_code ? json_integer(st->exit_code)
                                           : json_null(),
        "signal",
        error == NULL && st->has_signal && !timed_out ? json_integer(st->signal)
                                                      : json_null(),
        "timed_out", timed_out, "stdout", po.text, po.len, "stderr", pe.text,
        pe.len, "truncated_bytes", omitted);
    if (error != NULL)
        json_object_set_new(structured, "error",
                            json_stringn(ending.text + 7, ending.len - 7));
    add_report(c, structured);
    json_t *content = json_pack("[{s:s, s:o}]", "type", "text", "text", text);
    rpc_result(c->id,
               json_pack("{s:o, s:b, s:o}", "content", content, "isError",
                         failed, "structuredContent", structured));
    capture_part_free(&po);
    capture_part_free(&pe);
    display_free(&ending);
}

bool tool_pump(struct call *c)
{
    struct bsh_item it;
    int rc;
    while ((rc = bsh_stream_try_next(c->stream, &it)) == 1) {
        if (it.kind == BSH_ITEM_STATUS) {
            if (!c->cancelled)
                answer(c, &it, NULL);
            return true;
        }
        capture_add(&c->cap, it.kind == BSH_ITEM_STDERR, it.data, it.len);
        c->bytes += it.len;
        maybe_progress(c);
    }
    if (rc == BSH_EAGAIN)
        return false;
    if (!c->cancelled && rc < 0) {
        struct bsh_item none;
        memset(&none, 0, sizeof(none));
        answer(c, &none, bsh_stream_error(c->stream));
    } else if (!c->cancelled) { /* ended without a status: cannot happen */
        rpc_error(c->id, RPC_SERVER_BUSY, "the run ended without a status");
    }
    return true;
}

void tool_free(struct call *c)
{
    if (c == NULL)
        return;
    bsh_stream_free(c->stream);
    capture_release(&c->cap);
    json_decref(c->id);
    json_decref(c->progress_token);
    free(c);
}
