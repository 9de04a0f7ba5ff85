/* SPDX-License-Identifier: MIT */
#include "http_checks.h"
#include "era.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The media type of the `n` bytes at `s`: its parameters (after ';') and
 * surrounding spaces left out; `*len` gets its length. */
static const char *media_type(const char *s, size_t n, size_t *len)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t end = i;
    while (end < n && s[end] != ';')
        end++;
    while (end > i && isspace((unsigned char)s[end - 1]))
        end--;
    *len = end - i;
    return s + i;
}

/* Whether the media range of the `n` bytes at `s` covers `type`. */
static bool media_matches(const char *s, size_t n, const char *type)
{
    size_t len;
    const char *m = media_type(s, n, &len);
    size_t major = strcspn(type, "/");
    return (len == strlen(type) && strncasecmp(m, type, len) == 0) ||
           (len == 3 && strncmp(m, "*/*", 3) == 0) ||
           (len == major + 2 && strncasecmp(m, type, major + 1) == 0 &&
            m[major + 1] == '*');
}

bool media_is_json(const char *content_type)
{
    if (content_type == NULL)
        return false;
    size_t len;
    const char *m = media_type(content_type, strlen(content_type), &len);
    return len == 16 && strncasecmp(m, "application/json", 16) == 0;
}

bool accept_admits(const char *accept, const char *type)
{
    if (accept == NULL)
        return true;
    for (const char *s = accept;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma != NULL ? (size_t)(comma - s) : strlen(s);
        if (media_matches(s, n, type))
            return true;
        if (comma == NULL)
            return false;
        s = comma + 1;
    }
}

static int b64_value(int c)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c != 0 ? strchr(digits, c) : NULL;
    return p != NULL ? (int)(p - digits) : -1;
}

/* Decodes standard base64 with its padding into `out`; false when it is
 * not that. */
static bool b64_decode(const char *s, size_t n, char *out, size_t size)
{
    if (n % 4 != 0 || n / 4 * 3 >= size)
        return false;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        unsigned v[4];
        int pads = 0;
        for (size_t k = 0; k < 4; k++) {
            bool pad = s[i + k] == '=' && i + 4 == n && k >= 2 &&
                       (k == 3 || s[i + 3] == '=');
            int d = pad ? 0 : b64_value((unsigned char)s[i + k]);
            if (d < 0)
                return false;
            pads += pad;
            v[k] = (unsigned)d;
        }
        out[o++] = (char)(v[0] << 2 | v[1] >> 4);
        if (pads < 2)
            out[o++] = (char)((v[1] & 15) << 4 | v[2] >> 2);
        if (pads < 1)
            out[o++] = (char)((v[2] & 3) << 6 | v[3]);
    }
    out[o] = '\0';
    return true;
}

/* A header's value as the body would hold it: optional whitespace
 * trimmed, the =?base64?...?= form decoded. False when it is malformed
 * (bad base64, control characters). */
static bool header_value(const char *raw, char *out, size_t size)
{
    while (*raw == ' ' || *raw == '\t')
        raw++;
    size_t n = strlen(raw);
    while (n > 0 && (raw[n - 1] == ' ' || raw[n - 1] == '\t'))
        n--;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)raw[i] < 0x20 || raw[i] == 0x7f)
            return false;
    if (n >= 12 && strncmp(raw, "=?base64?", 9) == 0 &&
        strncmp(raw + n - 2, "?=", 2) == 0)
        return b64_decode(raw + 9, n - 11, out, size);
    if (n >= size)
        return false;
    memcpy(out, raw, n);
    out[n] = '\0';
    return true;
}

/* NULL when header `name` is there and carries `want` (optional
 * whitespace trimmed, base64 decoded); else what is wrong, in `buf`. */
static const char *check_one(header_fn header, void *ctx, const char *name,
                             const char *want, char *buf, size_t size)
{
    const char *raw = header(ctx, name);
    char value[1024];
    if (raw == NULL) {
        snprintf(buf, size, "Header mismatch: the %s header is missing", name);
        return buf;
    }
    if (!header_value(raw, value, sizeof(value))) {
        snprintf(buf, size, "Header mismatch: the %s header is malformed",
                 name);
        return buf;
    }
    if (strcmp(value, want) != 0) {
        snprintf(buf, size,
                 "Header mismatch: %s header value '%.200s' does not match "
                 "body value '%.200s'",
                 name, value, want);
        return buf;
    }
    return NULL;
}

/* The body value Mcp-Name mirrors for `method`, or NULL. */
static json_t *name_of(const char *method, json_t *params)
{
    if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
        return json_object_get(params, "name");
    if (strcmp(method, "resources/read") == 0)
        return json_object_get(params, "uri");
    return NULL;
}

/* check_one() for a string of the body: one that holds a NUL matches no
 * header (a header cannot carry it, and C would compare only up to it). */
static const char *check_string(header_fn header, void *ctx, const char *name,
                                json_t *want, char *buf, size_t size)
{
    const char *text = json_string_value(want);
    if (text != NULL && strlen(text) == json_string_length(want))
        return check_one(header, ctx, name, text, buf, size);
    snprintf(buf, size,
             "Header mismatch: the body's value for %s holds a NUL byte", name);
    return buf;
}

const char *modern_headers_mismatch(json_t *msg, header_fn header, void *ctx,
                                    char *buf, size_t size)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *params = json_object_get(msg, "params");
    const char *version = era_requested_version(params);
    const char *why = NULL;
    if (version != NULL)
        why =
            check_one(header, ctx, "MCP-Protocol-Version", version, buf, size);
    if (why == NULL && method != NULL && json_object_get(msg, "id") != NULL)
        why = check_one(header, ctx, "Mcp-Method", method, buf, size);
    json_t *name = method != NULL ? name_of(method, params) : NULL;
    if (why == NULL && json_is_string(name))
        why = check_string(header, ctx, "Mcp-Name", name, buf, size);
    json_t *run_id =
        json_object_get(json_object_get(params, "arguments"), "run_id");
    if (why == NULL && method != NULL && strcmp(method, "tools/call") == 0 &&
        json_is_string(run_id))
        why = check_string(header, ctx, "Mcp-Param-Run-Id", run_id, buf, size);
    return why;
}
