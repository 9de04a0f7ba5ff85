/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the reducer: any bytes, cut into chunks of sizes the input itself
 * picks, give the same text and counts as the bytes in one piece; the
 * text is valid UTF-8 and no longer than the input but for the fold
 * markers (each stands for at least two lines of at least one byte) and
 * the blanks a cursor move past the end of a line leaves (CSI n G).
 */
#include "reduce.h"
#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void reduce_all(const uint8_t *p, size_t n, unsigned seed,
                       struct reduce_text *t, struct reduce_counts *c,
                       uint64_t *padding)
{
    struct reducer r;
    if (reducer_init(&r) < 0)
        abort();
    for (size_t i = 0; i < n;) {
        size_t k = seed == 0 ? n : 1 + (seed % 17);
        seed = seed * 1103515245u + 12345u;
        if (k > n - i)
            k = n - i;
        reducer_feed(&r, p + i, k, t);
        i += k;
    }
    reducer_finish(&r, t);
    *c = r.counts;
    *padding = r.padding;
    reducer_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned seed = data[0] | 1u;
    struct reduce_text whole = {0}, cut = {0};
    struct reduce_counts cw, cc;
    uint64_t pw, pc;
    reduce_all(data + 1, size - 1, 0, &whole, &cw, &pw);
    reduce_all(data + 1, size - 1, seed, &cut, &cc, &pc);
    if (whole.failed || cut.failed)
        abort();
    if (whole.len != cut.len || whole.chars != cut.chars ||
        (whole.len > 0 && memcmp(whole.buf, cut.buf, whole.len) != 0) ||
        memcmp(&cw, &cc, sizeof(cw)) != 0)
        abort(); /* the chunking changed something */
    for (size_t i = 0; i < whole.len;) {
        size_t k =
            utf8_length((const unsigned char *)whole.buf + i, whole.len - i);
        if (k == 0)
            abort(); /* not valid UTF-8 */
        i += k;
    }
    if (whole.chars > size - 1 + pw + 28 * (cw.repeated_lines / 2 + 1))
        abort();
    reduce_text_free(&whole);
    reduce_text_free(&cut);
    return 0;
}
