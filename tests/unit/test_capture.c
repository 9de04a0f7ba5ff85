/* SPDX-License-Identifier: MIT */
/*
 * The MCP reply's output handling: the budget in characters with head and
 * tail, the log file and its limits, UTF-8 repair and terminal clean-up.
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "capture.h"
#include "display.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static struct spill_dir dir;

static void parts(struct capture *c, bool terminal, size_t chars,
                  struct capture_part *o, struct capture_part *e)
{
    if (capture_parts(c, terminal, chars, o, e, NULL) < 0)
        abort();
}

static void add_repeated(struct capture *c, bool is_err, const char *unit,
                         size_t times)
{
    for (size_t i = 0; i < times; i++)
        capture_add(c, is_err, (const unsigned char *)unit, strlen(unit));
}

static void test_small_output_whole(void)
{
    struct capture c;
    capture_init(&c, 100, &dir);
    capture_add(&c, false, (const unsigned char *)"out", 3);
    capture_add(&c, true, (const unsigned char *)"err", 3);
    struct capture_part o, e;
    parts(&c, false, 100, &o, &e);
    ok(o.len == 3 && memcmp(o.text, "out", 3) == 0 && o.omitted == 0,
       "small stdout kept whole");
    ok(e.len == 3 && memcmp(e.text, "err", 3) == 0, "small stderr too");
    ok(c.spill_fd < 0, "no log file for small output");
    capture_part_free(&o);
    capture_part_free(&e);
    capture_release(&c);
}

static void test_budget_head_tail_spill(void)
{
    struct capture c;
    capture_init(&c, 1000, &dir);
    char buf[10001];
    for (int i = 0; i < 10000; i++)
        buf[i] = (char)('a' + i % 26);
    buf[10000] = '\0';
    for (int i = 0; i < 100; i++) /* 100 chunks of 100 */
        capture_add(&c, false, (const unsigned char *)buf + i * 100, 100);
    capture_add(&c, true, (const unsigned char *)"E", 1);
    struct capture_part o, e;
    parts(&c, false, 1000, &o, &e);
    ok(utf8_chars(o.text, o.len) + e.len <= 1000,
       "stdout and stderr, marker included, within 1000 characters");
    char *marker = strstr(o.text, "\n[... ");
    ok(marker != NULL && memcmp(o.text, buf, (size_t)(marker - o.text)) == 0,
       "head of stdout kept");
    char *end = strstr(o.text, " ...]\n");
    size_t tail = end != NULL ? o.len - (size_t)(end + 6 - o.text) : 0;
    ok(tail > 300 && memcmp(end + 6, buf + 10000 - tail, tail) == 0,
       "tail of stdout kept");
    is_int(o.omitted, 10000 - (size_t)(marker - o.text) - tail,
           "stdout's omitted bytes counted exactly");
    ok(e.len == 1 && e.text[0] == 'E', "small stderr kept whole");
    ok(strstr(o.text, "bytes omitted; the whole output is in ") != NULL,
       "the marker names the log file");
    struct stat st;
    ok(stat(c.spill_path, &st) == 0 && st.st_size == 10001,
       "the log file holds every byte, both streams");
    ok((st.st_mode & 0777) == 0600, "the log file is private (0600)");
    ok(stat(dir.path, &st) == 0 && (st.st_mode & 0777) == 0700,
       "in a private directory (0700)");
    capture_part_free(&o);
    capture_part_free(&e);
    capture_release(&c);
}

/* The budget counts characters, not bytes, and cuts keep characters
 * whole. */
static void test_characters(void)
{
    struct capture c;
    capture_init(&c, 30000, &dir);
    add_repeated(&c, false, "\xc3\xa9", 20000); /* é: 40,000 bytes */
    struct capture_part o, e;
    parts(&c, false, 30000, &o, &e);
    ok(o.omitted == 0 && o.len == 40000, "20,000 é within 30,000: whole");
    capture_part_free(&o);
    capture_part_free(&e);
    capture_release(&c);

    capture_init(&c, 30000, &dir);
    capture_add(&c, false, (const unsigned char *)"x", 1); /* odd offsets */
    add_repeated(&c, false, "\xe2\x82\xac", 50000); /* €: 150,000 bytes */
    parts(&c, false, 30000, &o, &e);
    size_t chars = utf8_chars(o.text, o.len);
    ok(chars <= 30000 && chars > 29000, "50,001 characters cut to 30,000");
    ok(strstr(o.text, "\xef\xbf\xbd") == NULL,
       "no character split by the cut (no U+FFFD)");
    capture_part_free(&o);
    capture_part_free(&e);
    capture_release(&c);
}

/* An escape sequence in the head cannot swallow the marker and the tail
 * (terminal output). */
static void test_terminal_cut(void)
{
    struct capture c;
    capture_init(&c, 30000, &dir);
    add_repeated(&c, false, "a", 14990);
    add_repeated(&c, false, "\x1b]", 1);
    add_repeated(&c, false, "b", 40000);
    add_repeated(&c, false, "END", 1);
    struct capture_part o, e;
    parts(&c, true, 30000, &o, &e);
    ok(o.len > 3 && memcmp(o.text + o.len - 3, "END", 3) == 0,
       "terminal output: the tail survives a stray ESC ]");
    ok(strstr(o.text, "bytes omitted") != NULL && o.text[0] == 'a',
       "head, marker, tail");
    capture_part_free(&o);
    capture_part_free(&e);
    capture_release(&c);
}

static void test_log_limit(void)
{
    struct spill_dir small;
    spill_dir_init(&small, false, 5000, 1 << 20);
    struct capture c;
    capture_init(&c, 100, &small);
    add_repeated(&c, false, "0123456789", 2000);
    struct capture_part o, e;
    parts(&c, false, 400, &o, &e); /* room for the marker's full form */
    struct stat st;
    ok(stat(c.spill_path, &st) == 0 && st.st_size == 5000,
       "the log stops at its size limit");
    ok(strstr(o.text, "the first 5000 bytes of the output are in") != NULL &&
           strstr(o.text, "cut at its size limit") != NULL,
       "and the marker says so, and where");
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s", small.path);
    capture_part_free(&o);
    capture_part_free(&e);
    capture_release(&c);
    spill_dir_finish(&small);
    ok(access(path, F_OK) < 0, "the spill directory is removed at the end");
}

static void test_utf8_and_terminal(void)
{
    struct display d;
    display_make((const unsigned char *)"a\xff\xc3\xa9\xe2\x82", 6, false, &d);
    is_str(d.text, "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd",
           "invalid bytes become U+FFFD, valid ones stay");
    display_free(&d);
    const char t[] = "\x1b[31mred\x1b[0m\r\nx\x1b]0;title\x07y\r\n";
    display_make((const unsigned char *)t, sizeof(t) - 1, true, &d);
    is_str(d.text, "red\nxy\n", "ANSI escapes removed, CRLF becomes LF");
    display_free(&d);
}

/* The lines "n\n" from `from` to `to`: their bytes. */
static size_t line_bytes(long from, long to)
{
    size_t n = 0;
    char buf[32];
    for (long i = from; i <= to; i++)
        n += (size_t)snprintf(buf, sizeof(buf), "%ld\n", i);
    return n;
}

/* Reducing, cut in head and tail at line ends: the marker counts exactly
 * the bytes of the lines between, for a tail joined to the head and for
 * one apart from it. */
static void test_reduced_cut_exact(void)
{
    static const long totals[] = {1500, 3000, 300000};
    for (size_t t = 0; t < 3; t++) {
        long total = totals[t];
        struct capture c;
        capture_init(&c, 2000, &dir);
        if (capture_reduce(&c) < 0)
            abort();
        char buf[32];
        for (long i = 1; i <= total; i++) {
            int n = snprintf(buf, sizeof(buf), "%ld\n", i);
            capture_add(&c, false, (const unsigned char *)buf, (size_t)n);
        }
        struct capture_part o, e;
        struct capture_reduced rd;
        if (capture_parts(&c, false, 600, &o, &e, &rd) < 0)
            abort();
        long head_last = 0, tail_first = 0;
        const char *marker = strstr(o.text, "[... ");
        ok(marker != NULL && utf8_chars(o.text, o.len) <= 600,
           "a cut within the characters given");
        if (marker != NULL) {
            for (const char *p = o.text; p < marker; p = strchr(p, '\n') + 1)
                head_last = strtol(p, NULL, 10);
            tail_first = strtol(strchr(marker, '\n') + 1, NULL, 10);
        }
        is_int(o.omitted, line_bytes(head_last + 1, tail_first - 1),
               "the marker counts the bytes between exactly");
        ok(rd.line.len == 0 && !reduce_counts_any(&rd.counts),
           "nothing reduced, no line");
        capture_part_free(&o);
        capture_part_free(&e);
        capture_part_free(&rd.line);
        capture_release(&c);
    }
}

int main(void)
{
    spill_dir_init(&dir, false, SPILL_FILE_MAX, SPILL_TOTAL_MAX);
    test_small_output_whole();
    test_budget_head_tail_spill();
    test_characters();
    test_terminal_cut();
    test_log_limit();
    test_utf8_and_terminal();
    test_reduced_cut_exact();
    spill_dir_finish(&dir);
    return tap_done();
}
