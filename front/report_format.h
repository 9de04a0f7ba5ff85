/* SPDX-License-Identifier: MIT */
/*
 * JSON text written by hand where no JSON library is linked (the CLI),
 * and the end report as JSON, which the MCP server parses into its reply:
 * one writer of each for both.
 */
#ifndef BSH_FRONT_REPORT_FORMAT_H
#define BSH_FRONT_REPORT_FORMAT_H

#include "bsh/bsh.h"

#include <stddef.h>

/* Appends `s` as a JSON string literal (quotes included) to `out`, which
 * has room for 6 * strlen(s) + 3 bytes. Invalid UTF-8 becomes U+FFFD. */
size_t quote_json(const char *s, char *out);

/* The report as a JSON object (SPEC 5.3 keys), `containment` naming what
 * held the run; malloc'd, NULL when out of memory. */
char *report_json(const struct bsh_report *r, const char *containment);

/* The report as one line of text for people, without a newline:
 * "reason exit, exit code 0, wall 5 ms, ..."; malloc'd or NULL. */
char *report_text(const struct bsh_report *r, const char *containment);

/* The report's containment, as the report's `containment` key says it:
 * "cgroup", or for a session "subreaper" when the caller is one. */
const char *report_containment(const struct bsh_report *r, bool subreaper);

/* One layer of a sandbox as the report says it: "applied", "missing" or
 * "off". */
const char *report_layer_state(const struct bsh_sandbox_report *sb,
                               unsigned layer);

#endif
