/* SPDX-License-Identifier: MIT */
#include "screen.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

struct screen {
    VTerm *vt;
    VTermScreen *vs;
    int rows, cols;
    bool alternate;
};

static int on_termprop(VTermProp prop, VTermValue *val, void *user)
{
    struct screen *s = user;
    if (prop == VTERM_PROP_ALTSCREEN)
        s->alternate = val->boolean != 0;
    return 1;
}

static const VTermScreenCallbacks callbacks = {.settermprop = on_termprop};

struct screen *screen_new(int rows, int cols)
{
    struct screen *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->vt = vterm_new(rows, cols)) == NULL) {
        free(s);
        return NULL;
    }
    s->rows = rows;
    s->cols = cols;
    vterm_set_utf8(s->vt, 1);
    s->vs = vterm_obtain_screen(s->vt);
    vterm_screen_set_callbacks(s->vs, &callbacks, s);
    vterm_screen_enable_altscreen(s->vs, 1);
    vterm_screen_reset(s->vs, 1);
    return s;
}

void screen_free(struct screen *s)
{
    if (s == NULL)
        return;
    vterm_free(s->vt);
    free(s);
}

void screen_feed(struct screen *s, const unsigned char *p, size_t n)
{
    vterm_input_write(s->vt, (const char *)p, n);
    char drop[256]; /* what the terminal would answer: not sent */
    while (vterm_output_read(s->vt, drop, sizeof(drop)) > 0)
        ;
}

static size_t put_utf8(char *o, uint32_t u)
{
    if (u < 0x80) {
        o[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        o[0] = (char)(0xc0 | (u >> 6));
        o[1] = (char)(0x80 | (u & 0x3f));
        return 2;
    }
    if (u < 0x10000) {
        o[0] = (char)(0xe0 | (u >> 12));
        o[1] = (char)(0x80 | ((u >> 6) & 0x3f));
        o[2] = (char)(0x80 | (u & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (u >> 18));
    o[1] = (char)(0x80 | ((u >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((u >> 6) & 0x3f));
    o[3] = (char)(0x80 | (u & 0x3f));
    return 4;
}

/* Row `row` as UTF-8 into `buf` (room for cols * 6 * 4 bytes), trailing
 * blanks trimmed; a wide character once. Its length. */
static size_t row_text(const struct screen *s, int row, char *buf)
{
    size_t len = 0, kept = 0;
    for (int col = 0; col < s->cols;) {
        VTermScreenCell cell;
        VTermPos pos = {row, col};
        if (!vterm_screen_get_cell(s->vs, pos, &cell)) {
            col++;
            continue;
        }
        if (cell.chars[0] == 0) {
            buf[len++] = ' ';
        } else {
            for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i]; i++)
                if (cell.chars[i] <= 0x10ffff &&
                    !(cell.chars[i] >= 0xd800 && cell.chars[i] <= 0xdfff))
                    len += put_utf8(buf + len, cell.chars[i]);
            if (cell.chars[0] != ' ')
                kept = len;
        }
        col += cell.width > 0 ? cell.width : 1;
    }
    return kept;
}

json_t *screen_json(const struct screen *s, char **text)
{
    size_t row_max = (size_t)s->cols * VTERM_MAX_CHARS_PER_CELL * 4 + 1;
    char *row = malloc(row_max);
    char *all = malloc((size_t)s->rows * (row_max + 1) + 1);
    json_t *lines = json_array();
    if (row == NULL || all == NULL || lines == NULL) {
        free(row);
        free(all);
        json_decref(lines);
        return NULL;
    }
    size_t len = 0, shown = 0; /* shown: up to the last line not empty */
    for (int r = 0; r < s->rows; r++) {
        size_t n = row_text(s, r, row);
        json_array_append_new(lines, json_stringn(row, n));
        memcpy(all + len, row, n);
        len += n;
        if (n > 0)
            shown = len;
        all[len++] = '\n';
    }
    all[shown] = '\0';
    free(row);
    *text = all;
    VTermPos cur;
    vterm_state_get_cursorpos(vterm_obtain_state(s->vt), &cur);
    return json_pack("{s:o, s:{s:i, s:i}, s:b, s:i, s:i}", "lines", lines,
                     "cursor", "row", cur.row + 1, "col", cur.col + 1,
                     "alternate", s->alternate, "rows", s->rows, "cols",
                     s->cols);
}
