/* SPDX-License-Identifier: MIT */
/*
 * The MCP reply's output handling: the budget with head and tail, the
 * spill file, UTF-8 repair and terminal clean-up.
 */
#include "../harness/tap.h"
#include "capture.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_small_output_whole(void)
{
    struct capture c;
    capture_init(&c, 100);
    capture_add(&c, false, (const unsigned char *)"out", 3);
    capture_add(&c, true, (const unsigned char *)"err", 3);
    struct capture_part o, e;
    capture_parts(&c, &o, &e);
    ok(o.len == 3 && memcmp(o.text, "out", 3) == 0 && o.omitted == 0,
       "small stdout kept whole");
    ok(e.len == 3 && memcmp(e.text, "err", 3) == 0, "small stderr too");
    ok(c.spill_fd < 0, "no log file for small output");
    free(o.text);
    free(e.text);
    capture_release(&c);
}

static void test_budget_head_tail_spill(void)
{
    struct capture c;
    capture_init(&c, 100);
    unsigned char buf[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = (unsigned char)('a' + i % 26);
    for (int i = 0; i < 10; i++) /* 10 chunks of 100 */
        capture_add(&c, false, buf + i * 100, 100);
    capture_add(&c, true, (const unsigned char *)"E", 1);
    struct capture_part o, e;
    capture_parts(&c, &o, &e);
    ok(memcmp(o.text, buf, 49) == 0, "head of stdout kept");
    ok(memcmp(o.text + o.len - 50, buf + 950, 50) == 0, "tail of stdout kept");
    is_int(o.omitted, 1000 - 99, "stdout's omitted bytes counted");
    ok(e.len == 1 && e.text[0] == 'E', "small stderr kept whole");
    char *marker = strstr(o.text, "bytes omitted; the whole output is in ");
    ok(marker != NULL, "the marker names the log file");
    struct stat st;
    ok(stat(c.spill_path, &st) == 0 && st.st_size == 1001,
       "the log file holds every byte, both streams");
    unlink(c.spill_path);
    free(o.text);
    free(e.text);
    capture_release(&c);
}

static void test_utf8_and_terminal(void)
{
    size_t n;
    char *s = utf8_sanitize("a\xff\xc3\xa9\xe2\x82", 6, &n);
    is_str(s, "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd",
           "invalid bytes become U+FFFD, valid ones stay");
    free(s);
    char t[] = "\x1b[31mred\x1b[0m\r\nx\x1b]0;title\x07y\r\n";
    size_t len = terminal_clean(t, sizeof(t) - 1);
    t[len] = '\0';
    is_str(t, "red\nxy\n", "ANSI escapes removed, CRLF becomes LF");
}

int main(void)
{
    test_small_output_whole();
    test_budget_head_tail_spill();
    test_utf8_and_terminal();
    return tap_done();
}
