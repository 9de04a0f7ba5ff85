/* SPDX-License-Identifier: MIT */
#include "reply.h"
#include "display.h"
#include "report_format.h"
#include "sessions.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *reply_text(const char *text)
{
    return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text",
                     text, "isError", 0);
}

json_t *reply_tool_error(const char *message)
{
    return json_pack("{s:[{s:s, s:s}], s:b, s:{s:n, s:n, s:b, s:s, s:s, s:i, "
                     "s:s}}",
                     "content", "type", "text", "text", message, "isError", 1,
                     "structuredContent", "exit_code", "signal", "timed_out", 0,
                     "stdout", "", "stderr", "", "truncated_bytes", 0, "error",
                     message);
}

/* What an ended run was doing, from its report's diagnosis, as a line
 * that goes before the ending: "still running: sleep (pid 12, sleeping
 * in hrtimer_nanosleep)"; "" when nothing was. */
static void still_running(const struct mcp_run *r, char *buf, size_t size)
{
    const struct bsh_report *rep = bsh_stream_report(r->stream);
    size_t len = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; rep != NULL && i < rep->diagnosis_count && shown < 3;
         i++) {
        const struct bsh_proc_info *p = &rep->diagnosis[i];
        if (strcmp(p->comm, "bash") == 0 && rep->diagnosis_count > 1)
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
 * that bsh ended gets a line before it that says what was still running,
 * and the session's lines (`session`) go just before the last. True when
 * there is an ending or a still-running line: the reply is an error. */
static bool ending_line(const struct mcp_run *r, const char *session, char *buf,
                        size_t size)
{
    const struct bsh_item *st = &r->status;
    enum bsh_end_reason why = bsh_stream_end_reason(r->stream);
    const struct bsh_report *rep = bsh_stream_report(r->stream);
    bool timed_out = r->error == NULL && bsh_item_timed_out(st);
    char last[BSH_ERROR_MAX + 64] = "", running[BSH_ERROR_MAX] = "";
    if (r->error != NULL)
        snprintf(last, sizeof(last), "error: %s", r->error);
    else if (timed_out && why == BSH_END_LIMIT && rep != NULL)
        snprintf(last, sizeof(last),
                 "ended: output limit of %llu bytes reached",
                 (unsigned long long)rep->stdout_bytes +
                     (unsigned long long)rep->stderr_bytes);
    else if (timed_out && why == BSH_END_IDLE)
        snprintf(last, sizeof(last), "timed out: no output for %lld ms",
                 (long long)r->idle_ms);
    else if (timed_out)
        snprintf(last, sizeof(last), "timed out after %lld ms",
                 (long long)r->timeout_ms);
    else if (st->has_signal)
        snprintf(last, sizeof(last), "signal: %d", st->signal);
    else if (st->exit_code != 0)
        snprintf(last, sizeof(last), "exit code: %d", st->exit_code);
    if (r->error == NULL && !timed_out && rep != NULL &&
        rep->limit != BSH_LIMIT_NONE && last[0] != '\0') {
        size_t n = strlen(last);
        snprintf(last + n, sizeof(last) - n, " (the %s limit)",
                 bsh_limit_name(rep->limit));
    }
    if (timed_out)
        still_running(r, running, sizeof(running));
    size_t len = 0;
    buf[0] = '\0';
    if (running[0] != '\0') {
        append(buf, size, &len, running);
        append(buf, size, &len, "\n");
    }
    /* The session's lines (each ends with a newline) just before the
     * ending, which stays the last line. */
    append(buf, size, &len, session);
    if (last[0] == '\0' && len > 0 && buf[len - 1] == '\n')
        buf[--len] = '\0';
    append(buf, size, &len, last);
    return running[0] != '\0' || last[0] != '\0'; /* a failure to show */
}

/* The line that says where a run that goes on stands. */
static void state_line(const struct mcp_run *r, enum run_phase phase, char *buf,
                       size_t size)
{
    if (phase == RUN_AWAITING_INPUT)
        snprintf(buf, size, "waiting for input (%s) as run %s",
                 bsh_input_wait_name(r->input_wait), r->id);
    else
        snprintf(buf, size, "still running as run %s", r->id);
}

/* The text: a going run's state line, the output (stdout, then stderr),
 * an ended run's ending on a line of its own. */
static json_t *joined_text(const struct display *lead,
                           const struct capture_part *out,
                           const struct capture_part *err,
                           const struct capture_part *reduced,
                           const struct display *ending)
{
    size_t cap = lead->len + 1 + out->len + err->len + 1 + reduced->len +
                 ending->len + 2;
    char *text = malloc(cap);
    if (text == NULL)
        return json_string("");
    size_t n = 0;
    memcpy(text, lead->text, lead->len);
    n = lead->len;
    if (lead->len > 0)
        text[n++] = '\n';
    memcpy(text + n, out->text, out->len);
    n += out->len;
    memcpy(text + n, err->text, err->len);
    n += err->len;
    if (reduced->len > 0) { /* the last line of the output part */
        if (n > 0 && text[n - 1] != '\n')
            text[n++] = '\n';
        memcpy(text + n, reduced->text, reduced->len);
        n += reduced->len;
    }
    if (ending->len > 0 && n > 0 && text[n - 1] != '\n')
        text[n++] = '\n';
    memcpy(text + n, ending->text, ending->len);
    json_t *s = json_stringn(text, n + ending->len);
    free(text);
    return s;
}

/* structuredContent.report: the engine's end report (SPEC 5.3). */
static void add_report(const struct mcp_run *r, json_t *structured)
{
    const struct bsh_report *rep = bsh_stream_report(r->stream);
    if (rep == NULL)
        return;
    char *text = report_json(rep, report_containment(rep, r->subreaper));
    json_t *report = text != NULL ? json_loads(text, 0, NULL) : NULL;
    free(text);
    const char *state =
        bsh_session_state_name(bsh_stream_session_state(r->stream));
    if (report != NULL)
        json_object_set_new(report, "session_state",
                            state != NULL ? json_string(state) : json_null());
    if (report != NULL)
        json_object_set_new(structured, "report", report);
}

/* Why a run in a session saved nothing, as SPEC 9.4 words it. */
static const char *unsaved_reason(const struct mcp_run *r)
{
    enum bsh_unsaved why = bsh_stream_session_unsaved(r->stream);
    if (r->killed_with == SIGKILL &&
        (why == BSH_UNSAVED_NOT_SAVED || why == BSH_UNSAVED_CANCEL))
        return "killed by bash_kill";
    return bsh_stream_session_note(r->stream);
}

/* The lines about the run's session: a directory that was gone, a state
 * not saved, a run that leaves its session. */
static void session_lines(struct mcp_run *r, enum run_phase phase, char *buf,
                          size_t size)
{
    size_t len = strlen(buf);
    char line[BSH_ERROR_MAX + 256];
    if (r->session == NULL)
        return;
    const char *missing = bsh_stream_session_missing_dir(r->stream);
    if (missing != NULL && phase == RUN_EXITED) {
        snprintf(line, sizeof(line),
                 "[bsh: the session's directory %s no longer exists; this run "
                 "started in %s]\n",
                 missing, bsh_session_base_dir(r->session->state));
        append(buf, size, &len, line);
    }
    enum bsh_session_state st = bsh_stream_session_state(r->stream);
    if (phase == RUN_EXITED && st == BSH_SESSION_UNCHANGED) {
        snprintf(line, sizeof(line),
                 "[bsh: session state not saved: %s; the session keeps the "
                 "state it had before this run]\n",
                 unsaved_reason(r));
        append(buf, size, &len, line);
    }
    if (phase != RUN_EXITED && st == BSH_SESSION_PENDING) {
        bsh_stream_detach_session(r->stream);
        r->detach_said = true;
        snprintf(line, sizeof(line),
                 "[bsh: run %s goes on detached from session '%s': what it "
                 "changes in the shell's state will not be kept]\n",
                 r->id, r->session->name);
        append(buf, size, &len, line);
    }
}

/* structuredContent's session, cwd and session_state. */
static void add_session(const struct mcp_run *r, json_t *s)
{
    const char *state =
        bsh_session_state_name(bsh_stream_session_state(r->stream));
    const char *cwd = r->session == NULL ? NULL
                      : bsh_stream_session_cwd(r->stream) != NULL
                          ? bsh_stream_session_cwd(r->stream)
                          : bsh_session_cwd(r->session->state);
    json_object_set_new(s, "session",
                        r->session != NULL ? json_string(r->session->name)
                                           : json_null());
    json_object_set_new(s, "cwd", cwd != NULL ? json_string(cwd) : json_null());
    json_object_set_new(s, "session_state",
                        state != NULL ? json_string(state) : json_null());
}

/* structuredContent.reduced: what the reduction left out, by kind. */
static void add_reduced(const struct capture_reduced *rd, json_t *s)
{
    const struct reduce_counts *k = &rd->counts;
    if (!reduce_counts_any(k))
        return;
    json_object_set_new(
        s, "reduced",
        json_pack("{s:I, s:I, s:I, s:I, s:I}", "progress_frames",
                  (json_int_t)k->progress_frames, "escape_sequences",
                  (json_int_t)k->escape_sequences, "repeated_lines",
                  (json_int_t)k->repeated_lines, "control_characters",
                  (json_int_t)k->control_characters, "invalid_utf8",
                  (json_int_t)k->invalid_utf8));
}

/* The error's words in the ending: what follows "error: " on the last line
 * that starts so (the session's notes may come before it). */
static json_t *error_words(const struct display *ending)
{
    const char *t = ending->text;
    size_t at = 0;
    for (size_t i = 0; i + 7 <= ending->len; i++)
        if ((i == 0 || t[i - 1] == '\n') && memcmp(t + i, "error: ", 7) == 0)
            at = i + 7;
    return json_stringn(t + at, ending->len - at);
}

static json_t *structured(const struct mcp_run *r, enum run_phase phase,
                          const struct capture_part *po,
                          const struct capture_part *pe,
                          const struct capture_reduced *rd,
                          const struct display *ending)
{
    bool ended = phase == RUN_EXITED, ok = ended && r->error == NULL;
    bool timed_out = ok && bsh_item_timed_out(&r->status);
    json_t *s = json_pack(
        "{s:o, s:o, s:b, s:s%, s:s%, s:I, s:s, s:s}", "exit_code",
        ok && r->status.has_exit_code ? json_integer(r->status.exit_code)
                                      : json_null(),
        "signal",
        ok && r->status.has_signal && !timed_out
            ? json_integer(r->status.signal)
            : json_null(),
        "timed_out", timed_out, "stdout", po->text, po->len, "stderr", pe->text,
        pe->len, "truncated_bytes",
        (json_int_t)po->omitted + (json_int_t)pe->omitted, "state",
        run_phase_name(phase), "run_id", r->id);
    if (phase == RUN_AWAITING_INPUT)
        json_object_set_new(s, "input_kind",
                            json_string(bsh_input_wait_name(r->input_wait)));
    if (ended && r->error != NULL)
        json_object_set_new(s, "error", error_words(ending));
    if (ended)
        add_report(r, s);
    add_session(r, s);
    add_reduced(rd, s);
    return s;
}

json_t *reply_for_slice(struct mcp_run *r, enum run_phase phase,
                        const struct capture_part *slice,
                        const struct capture_reduced *rd, json_t *page)
{
    char raw_ending[BSH_ERROR_MAX + 16] = "";
    if (phase == RUN_EXITED && r->error != NULL)
        snprintf(raw_ending, sizeof(raw_ending), "error: %s", r->error);
    struct display empty, ending;
    char nothing[1] = "";
    struct capture_part none = {nothing, 0, 0};
    if (display_make((const unsigned char *)"", 0, false, &empty) < 0 ||
        display_make((const unsigned char *)raw_ending, strlen(raw_ending),
                     false, &ending) < 0) {
        display_free(&empty);
        json_decref(page);
        return reply_tool_error("out of memory");
    }
    json_t *text = joined_text(&empty, slice, &none, &rd->line, &empty);
    json_t *s = structured(r, phase, slice, &none, rd, &ending);
    json_object_update(s, page);
    json_decref(page);
    display_free(&empty);
    display_free(&ending);
    return json_pack("{s:[{s:s, s:o}], s:b, s:o}", "content", "type", "text",
                     "text", text, "isError", 0, "structuredContent", s);
}

/* `text` cut to its first `chars` characters. */
static void cut_chars(char *text, size_t chars)
{
    size_t o = 0;
    for (size_t c = 0; c < chars && text[o] != '\0'; c++)
        for (o++; ((unsigned char)text[o] & 0xc0) == 0x80; o++)
            ;
    text[o] = '\0';
}

json_t *reply_for_screen(struct mcp_run *r, enum run_phase phase,
                         size_t max_output)
{
    char lead[BSH_ERROR_MAX + 64], *lines = NULL;
    if (phase == RUN_EXITED)
        snprintf(lead, sizeof(lead),
                 "run %s has ended; its last screen:", r->id);
    else
        state_line(r, phase, lead, sizeof(lead));
    json_t *screen = screen_json(r->screen, &lines);
    if (screen == NULL)
        return reply_tool_error("out of memory");
    size_t ll = strlen(lead), tl = strlen(lines);
    char *text = malloc(ll + 1 + tl + 1);
    if (text == NULL) {
        free(lines);
        json_decref(screen);
        return reply_tool_error("out of memory");
    }
    snprintf(text, ll + tl + 2, "%s\n%s", lead, lines);
    free(lines);
    /* The text within the budget (a screen of 200 by 500 is more); the
     * structured screen keeps every row. */
    cut_chars(text, max_output > 0 ? max_output : r->budget);
    struct display empty, ending;
    char nothing[1] = "", raw_ending[BSH_ERROR_MAX + 16] = "";
    struct capture_part none = {nothing, 0, 0};
    struct capture_reduced rd;
    memset(&rd, 0, sizeof(rd));
    if (phase == RUN_EXITED && r->error != NULL)
        snprintf(raw_ending, sizeof(raw_ending), "error: %s", r->error);
    json_t *s = NULL;
    if (display_make((const unsigned char *)"", 0, false, &empty) == 0 &&
        display_make((const unsigned char *)raw_ending, strlen(raw_ending),
                     false, &ending) == 0) {
        s = structured(r, phase, &none, &none, &rd, &ending);
        display_free(&ending);
    }
    display_free(&empty);
    json_t *res = NULL;
    if (s != NULL) {
        json_object_set_new(s, "screen", screen);
        res = json_pack("{s:[{s:s, s:s}], s:b, s:o}", "content", "type", "text",
                        "text", text, "isError", 0, "structuredContent", s);
    } else {
        json_decref(screen);
        res = reply_tool_error("out of memory");
    }
    free(text);
    return res;
}

/* "policy: ran read-only instead of asking: ..." before the text, and
 * the verdict in structuredContent.policy; once. */
static void add_policy_note(struct mcp_run *r, json_t *result)
{
    json_t *item = json_array_get(json_object_get(result, "content"), 0);
    const char *text = json_string_value(json_object_get(item, "text"));
    size_t n = strlen(r->policy_note) + (text != NULL ? strlen(text) : 0) + 2;
    char *joined = malloc(n);
    if (joined != NULL) {
        snprintf(joined, n, "%s\n%s", r->policy_note, text != NULL ? text : "");
        json_object_set_new(item, "text", json_string(joined));
        free(joined);
    }
    json_object_set(json_object_get(result, "structuredContent"), "policy",
                    r->policy);
    free(r->policy_note);
    r->policy_note = NULL;
}

json_t *reply_for_run(struct mcp_run *r, enum run_phase phase,
                      size_t max_output)
{
    char raw_lead[BSH_ERROR_MAX + 256] = "",
                                  raw_ending[3 * BSH_ERROR_MAX + 512] = "";
    char raw_session[2 * BSH_ERROR_MAX + 512] = "";
    bool failed = false;
    session_lines(r, phase, raw_session, sizeof(raw_session));
    if (phase == RUN_EXITED) {
        failed = ending_line(r, raw_session, raw_ending, sizeof(raw_ending)) ||
                 r->error != NULL;
    } else {
        state_line(r, phase, raw_lead, sizeof(raw_lead));
        size_t sl = strlen(raw_session), ll = strlen(raw_lead);
        if (sl > 0 && ll + 1 + sl <= sizeof(raw_lead)) { /* after it */
            raw_lead[ll] = '\n';
            memcpy(raw_lead + ll + 1, raw_session, sl - 1); /* no last \n */
            raw_lead[ll + sl] = '\0';
        }
    }
    struct display lead, ending;
    struct capture_part po, pe;
    if (display_make((const unsigned char *)raw_lead, strlen(raw_lead), false,
                     &lead) < 0)
        return reply_tool_error("out of memory");
    if (display_make((const unsigned char *)raw_ending, strlen(raw_ending),
                     false, &ending) < 0) {
        display_free(&lead);
        return reply_tool_error("out of memory");
    }
    size_t budget = max_output > 0 ? max_output : r->budget;
    size_t reserved = lead.chars + ending.chars + 2; /* and newlines */
    size_t chars = budget > reserved ? budget - reserved : 0;
    struct capture_reduced rd;
    if (capture_parts(&r->cap, r->pty, chars, &po, &pe, &rd) < 0) {
        display_free(&lead);
        display_free(&ending);
        return reply_tool_error("out of memory");
    }
    json_t *text = joined_text(&lead, &po, &pe, &rd.line, &ending);
    json_t *result =
        json_pack("{s:[{s:s, s:o}], s:b, s:o}", "content", "type", "text",
                  "text", text, "isError", failed, "structuredContent",
                  structured(r, phase, &po, &pe, &rd, &ending));
    capture_part_free(&po);
    capture_part_free(&pe);
    capture_part_free(&rd.line);
    display_free(&lead);
    display_free(&ending);
    if (phase != RUN_EXITED) { /* the next reply starts from here */
        capture_next_segment(&r->cap);
        r->unread = 0;
    }
    if (r->policy_note != NULL) /* the first reply of a read-only run */
        add_policy_note(r, result);
    return result;
}
