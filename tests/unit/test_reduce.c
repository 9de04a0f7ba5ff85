/* SPDX-License-Identifier: MIT */
/*
 * The reducer, rule by rule (SPEC 10.1), and the same text and counts
 * whatever the chunking.
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct result {
    char *text;
    size_t len;
    struct reduce_counts counts;
};

/* `in` (`n` bytes) reduced, fed in chunks of `chunk` bytes (0: whole). */
static struct result reduce_chunked(const char *in, size_t n, size_t chunk)
{
    struct reducer r;
    struct reduce_text t = {0};
    if (reducer_init(&r) < 0)
        abort();
    size_t step = chunk > 0 ? chunk : (n > 0 ? n : 1);
    for (size_t i = 0; i < n; i += step)
        reducer_feed(&r, (const unsigned char *)in + i,
                     n - i < step ? n - i : step, &t);
    reducer_finish(&r, &t);
    struct result res = {t.buf != NULL ? t.buf : strdup(""), t.len, r.counts};
    reducer_release(&r);
    return res;
}

static struct result reduce(const char *in)
{
    return reduce_chunked(in, strlen(in), 0);
}

/* The text of `in` is `want`; the counts are checked by the caller. */
static struct reduce_counts check(const char *in, const char *want,
                                  const char *what)
{
    struct result r = reduce(in);
    ok(r.len == strlen(want) && memcmp(r.text, want, r.len) == 0, what);
    if (r.len != strlen(want) || memcmp(r.text, want, r.len) != 0)
        diag("got \"%s\"", r.text);
    free(r.text);
    return r.counts;
}

static void test_line_moves(void)
{
    struct reduce_counts c = check("AAAA\rBB\n", "BBAA\n", "CR overwrites");
    is_int(c.progress_frames, 1, "one progress frame");
    c = check("abc\r\n", "abc\n", "CR LF leaves a line as it was");
    is_int(c.progress_frames, 0, "CR LF is no frame");
    c = check("0%\r50%\r100%\n", "100%\n", "a progress bar's last frame");
    is_int(c.progress_frames, 2, "two frames written over");
    check("abc\b\bX\n", "aXc\n", "BS moves one left");
    check("\b\bX\n", "X\n", "BS never before column 1");
    check("abcdef\x1b[3GX\n", "abXdef\n", "CSI n G goes to column n");
    c = check("abc\x1b[GX\n", "Xbc\n", "CSI G is column 1");
    is_int(c.progress_frames, 1, "a return by CSI G is a frame");
    check("ab\x1b[3CX\n", "ab   X\n", "CSI n C moves right");
    check("abcdef\x1b[2DX\n", "abcdXf\n", "CSI n D moves left");
    check("abcdef\x1b[3D\x1b[K\n", "abc\n", "CSI K erases to the end");
    check("abcdef\x1b[3D\x1b[0K\n", "abc\n", "CSI 0 K erases to the end");
    check("abcdef\x1b[3D\x1b[1K\n", "    ef\n",
          "CSI 1 K erases up to the cursor");
    check("abc\x1b[2KX\n", "   X\n", "CSI 2 K erases the line");
    c = check("downloading 10%\r\x1b[Kdone\n", "done\n",
              "a spinner's erase and rewrite");
    is_int(c.progress_frames, 1, "the rewrite is a frame");
    check("a\tb\n", "a\tb\n", "TAB stays");
    check("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\rX\n",
          "X\xe2\x82\xac\xf0\x9f\x98\x80\n", "columns count code points");
}

static void test_bounds_of_moves(void)
{
    struct result r = reduce("\x1b[16383Ca\n");
    ok(r.len == REDUCE_PAD_MAX + 2 && r.text[REDUCE_PAD_MAX] == 'a',
       "a move far past the line's end leaves at most REDUCE_PAD_MAX blanks");
    free(r.text);
    struct reduce_counts c =
        check("abc\x1b[3DX\n", "Xbc\n", "CSI D back to column 1");
    is_int(c.progress_frames, 1, "is a return, and the rewrite a frame");
    c = check("ab\b\bX\n", "Xb\n", "BS back to column 1");
    is_int(c.progress_frames, 1, "is one too");
}

/* Where the reducer let out its text, in raw bytes: after a LF, all of
 * the line; in a line broken for length, not the character that broke
 * it. */
static void test_emitted(void)
{
    struct reducer r;
    struct reduce_text t = {0};
    if (reducer_init(&r) < 0)
        abort();
    reducer_feed(&r, (const unsigned char *)"ab\ncd", 6, &t);
    is_int(r.emitted, 3, "after a line: its bytes and the LF");
    size_t n = REDUCE_LINE_MAX + 10;
    unsigned char *p = malloc(n);
    memset(p, 'x', n);
    reducer_feed(&r, p, n, &t);
    is_int(r.emitted, 6 + REDUCE_LINE_MAX - 2,
           "a line broken for length: the bytes of what went out");
    free(p);
    reducer_finish(&r, &t);
    is_int(r.emitted, 6 + n, "at the end: every byte");
    reduce_text_free(&t);
    reducer_release(&r);
}

static void test_escapes(void)
{
    struct reduce_counts c =
        check("\x1b[1;31mred\x1b[0m\n", "red\n", "SGR colour removed");
    is_int(c.escape_sequences, 2, "two escape sequences");
    c = check("\x1b]0;title\x07text\n", "text\n", "OSC ended by BEL");
    is_int(c.escape_sequences, 1, "one sequence");
    c = check("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n",
              "OSC ended by ST (a hyperlink)");
    is_int(c.escape_sequences, 2, "two sequences, ST part of them");
    check("\x1bPq#0;2;0;0;0\x1b\\ok\n", "ok\n", "DCS removed");
    check("\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\ok\n", "ok\n",
          "APC, PM and SOS removed");
    c = check("\x1b(Bok\x1b=\x1b"
              "7\n",
              "ok\n", "two-byte ESC sequences");
    is_int(c.escape_sequences, 3, "three sequences");
    c = check("\xc2\x9b"
              "31mred\n",
              "red\n", "C1 CSI in UTF-8");
    is_int(c.escape_sequences, 1, "one sequence");
    check("\xc2\x9d"
          "0;t\xc2\x9cx\n",
          "x\n", "C1 OSC ended by C1 ST");
    check("\x1b[?25l\x1b[?1049hx\n", "x\n", "private sequences removed");
    check("\x1b[2Jx\x1b[5;1Hy\x1b[Az\n", "xyz\n",
          "moves to other lines are removed without effect");
    check("ab\x1b[1\n2mcd\n", "ab\ncd\n", "LF acts inside a CSI");
    c = check("a\x1b[3\x18"
              "b\n",
              "ab\n", "CAN cancels a sequence");
    is_int(c.escape_sequences, 1, "a cancelled sequence counts");
    c = check("a\x1b", "a", "a lone ESC at the end");
    is_int(c.escape_sequences, 1, "counted");
}

static void test_controls_and_utf8(void)
{
    struct reduce_counts c = check("a\x01"
                                   "b\x07"
                                   "c\x7f\n",
                                   "abc\n", "C0 controls and DEL removed");
    is_int(c.control_characters, 3, "three controls");
    c = check("\xc2\x85x\n", "x\n", "a C1 control removed");
    is_int(c.control_characters, 1, "one control");
    c = check("a\xff"
              "b\n",
              "a\xef\xbf\xbd"
              "b\n",
              "an invalid byte is U+FFFD");
    is_int(c.invalid_utf8, 1, "one invalid byte");
    c = check("\xe2\x82x\n", "\xef\xbf\xbdx\n", "a cut sequence is one U+FFFD");
    is_int(c.invalid_utf8, 2, "two bytes replaced");
    c = check("\xed\xa0\x80\n", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n",
              "a surrogate is invalid");
    c = check("\xc0\xaf\n", "\xef\xbf\xbd\xef\xbf\xbd\n",
              "an overlong form is invalid");
    c = check("\xe2\x82", "\xef\xbf\xbd", "a sequence cut by the end");
    is_int(c.invalid_utf8, 2, "its bytes counted");
    c = check("plain text\nsecond line\n", "plain text\nsecond line\n",
              "plain text unchanged");
    ok(!reduce_counts_any(&c), "nothing reduced, no counts");
}

static void test_folding(void)
{
    struct reduce_counts c =
        check("x\nx\nx\nx\ny\n", "x\n[... repeated 3 more times]\ny\n",
              "four identical lines fold");
    is_int(c.repeated_lines, 3, "three lines folded away");
    c = check("x\nx\ny\n", "x\nx\ny\n", "two stay two");
    is_int(c.repeated_lines, 0, "nothing folded");
    check("x\nx\nx\n", "x\n[... repeated 2 more times]\n",
          "a fold at the end keeps its LF");
    check("x\nx\nx", "x\n[... repeated 2 more times]",
          "a fold that ends without LF");
    check("a\rx\nx\nx\n", "x\n[... repeated 2 more times]\n",
          "lines are compared as shown");
    check("\n\n\n\n", "\n[... repeated 3 more times]\n", "empty lines too");
}

/* The same text and counts for every split in two and for bytes one at a
 * time. */
static void test_chunking(void)
{
    static const char in[] =
        "\x1b[32m\xe2\x9c\x93\x1b[0m ok\r\n50%\r100%\n"
        "\x1b]0;t\x1b\\x\nx\nx\nx\n\xf0\x9f\x98\x80\xff\x1b[3D\x1b[K"
        "\xc2\x9b"
        "1mz\xc2\x9d"
        "0;a\xc2\x9c"
        "tail";
    size_t n = sizeof(in) - 1;
    struct result whole = reduce_chunked(in, n, 0);
    int bad = 0;
    for (size_t cut = 0; cut <= n; cut++) {
        struct reducer r;
        struct reduce_text t = {0};
        if (reducer_init(&r) < 0)
            abort();
        reducer_feed(&r, (const unsigned char *)in, cut, &t);
        reducer_feed(&r, (const unsigned char *)in + cut, n - cut, &t);
        reducer_finish(&r, &t);
        if (t.len != whole.len || memcmp(t.buf, whole.text, t.len) != 0 ||
            memcmp(&r.counts, &whole.counts, sizeof(r.counts)) != 0)
            bad++;
        reduce_text_free(&t);
        reducer_release(&r);
    }
    ok(bad == 0, "every split in two gives the same text and counts");
    struct result bytes = reduce_chunked(in, n, 1);
    ok(bytes.len == whole.len &&
           memcmp(bytes.text, whole.text, bytes.len) == 0 &&
           memcmp(&bytes.counts, &whole.counts, sizeof(bytes.counts)) == 0,
       "byte by byte gives the same");
    free(whole.text);
    free(bytes.text);
}

static void test_bounds(void)
{
    size_t n = 100000;
    char *in = malloc(n + 1);
    memset(in, 'a', n);
    in[n] = '\0';
    struct result r = reduce_chunked(in, n, 4096);
    ok(r.len == n, "a line longer than the line bound comes out whole");
    free(r.text);
    in[0] = '\x1b';
    in[1] = ']';
    r = reduce_chunked(in, n, 4096);
    ok(r.len == 0 && r.counts.escape_sequences == 1,
       "an OSC that never ends swallows the rest, as a terminal does");
    free(r.text);
    free(in);
}

int main(void)
{
    test_line_moves();
    test_bounds_of_moves();
    test_emitted();
    test_escapes();
    test_controls_and_utf8();
    test_folding();
    test_chunking();
    test_bounds();
    return tap_done();
}
