/*
 * linecut.c - lines out of bytes that arrive a read at a time (linecut.h).
 */
#include "linecut.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_blank(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t')
            return 0;
    return 1;
}

static int push_line(struct cairn_lines *out, uint64_t no, size_t off, size_t len)
{
    if (out->n == out->cap) {
        size_t cap = out->cap ? out->cap * 2 : 256;
        struct cairn_line *l = realloc(out->v, cap * sizeof(*l));
        if (l == NULL)
            return -ENOMEM;
        out->v = l;
        out->cap = cap;
    }
    out->v[out->n++] = (struct cairn_line){ .no = no, .off = off, .len = len };
    return 0;
}

static int note_put(struct cairn_lines *out, const char *p, size_t n)
{
    if (out->notes_cap - out->notes_len < n) {
        size_t cap = out->notes_cap ? out->notes_cap : 256;
        char *notes;

        while (cap - out->notes_len < n)
            cap *= 2;
        if ((notes = realloc(out->notes, cap)) == NULL)
            return -ENOMEM;
        out->notes = notes;
        out->notes_cap = cap;
    }
    memcpy(out->notes + out->notes_len, p, n);
    out->notes_len += n;
    return 0;
}

/* The note of a line too long to keep (linecut.h), from its scan. */
static int push_note(struct cairn_lines *out, const struct cairn_idscan *sc)
{
    const char *id, *variant;
    size_t id_n = 0, variant_n = 0;
    int rc = 0;

    id = cairn_idscan_text(sc, 0, &id_n);
    variant = cairn_idscan_text(sc, 1, &variant_n);
    if (sc->opened) {
        rc |= note_put(out, "{", 1);
        if (id != NULL)
            rc |= note_put(out, "\"id\":", 5) | note_put(out, id, id_n);
        if (id != NULL && variant != NULL)
            rc |= note_put(out, ",", 1);
        if (variant != NULL)
            rc |= note_put(out, "\"variant\":", 10) | note_put(out, variant, variant_n);
        if (sc->complete && (variant != NULL || sc->variant.state == 0))
            rc |= note_put(out, "}", 1);
    }
    return rc | note_put(out, "\n", 1) ? -ENOMEM : 0;
}

static int push_too_long(struct cairn_linecut *c, struct cairn_lines *out, uint64_t no,
                         size_t bytes)
{
    int rc = push_note(out, &c->scan);

    return rc != 0 ? rc : push_line(out, no, bytes, CAIRN_LINE_TOO_LONG);
}

/* Records the complete line buf[off, off+len) (terminator excluded). */
static int take_line(struct cairn_linecut *c, const char *buf, size_t off, size_t len,
                     struct cairn_lines *out)
{
    const char *p = buf + off;

    c->line_no++;
    if (!c->seen_first) {
        c->seen_first = 1;
        /* A UTF-8 byte order mark is an editor's artefact, not data. */
        if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
            off += 3;
            len -= 3;
            p += 3;
        }
    }
    if (len > 0 && p[len - 1] == '\r')
        len--;
    /* Length first: a line too long to hold is an error whatever it holds,
     * so the answer cannot depend on whether it arrived in one read. */
    if (len > c->max_line_bytes) {
        cairn_idscan_init(&c->scan);
        cairn_idscan_feed(&c->scan, p, len);
        return push_too_long(c, out, c->line_no, len);
    }
    if (is_blank(p, len))
        return 0;
    return push_line(out, c->line_no, off, len);
}

/* Counts n bytes of a line too long to keep, remembering whether the last
 * one was a '\r' so the reported size does not depend on read sizes. */
static void skip_bytes(struct cairn_linecut *c, const char *p, size_t n)
{
    if (n == 0)
        return;
    c->skipped += n;
    c->skip_cr = p[n - 1] == '\r';
    cairn_idscan_feed(&c->scan, p, n);
}

/* The line over max_line_bytes has ended: out as one CAIRN_LINE_TOO_LONG
 * line, its size counted as take_line() counts one (a final '\r' is no
 * data). */
static int end_skipped(struct cairn_linecut *c, struct cairn_lines *out)
{
    c->skipped -= c->skip_cr;
    c->line_no++;
    c->seen_first = 1;
    c->skipping = 0;
    return push_too_long(c, out, c->line_no, c->skipped);
}

int cairn_linecut_cut(struct cairn_linecut *c, const char *buf, size_t *len, size_t from,
                      const struct cairn_batchsize *size, struct cairn_lines *out)
{
    const char *end = buf + *len;
    const char *p = buf + from;
    const char *nl;

    while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        int rc;

        if (c->skipping) {
            skip_bytes(c, p, (size_t)(nl - p));
            rc = end_skipped(c, out);
        } else {
            rc = take_line(c, buf, c->line_start, (size_t)(nl - (buf + c->line_start)), out);
        }
        if (rc != 0)
            return rc;
        p = nl + 1;
        c->line_start = (size_t)(p - buf);
        /* Cut by work, not only by bytes: 40 expensive records fit in
         * 256 KiB, and one worker would solve them all. */
        if (out->n > 0 && cairn_batchsize_full(size, out->n, c->line_start))
            return CAIRN_LINECUT_FULL;
    }
    if (c->skipping) {
        skip_bytes(c, p, (size_t)(end - p));
        *len = c->line_start;
    } else if (*len - c->line_start > c->max_line_bytes + 1 + (c->seen_first ? 0 : 3)) {
        /* Past max_line_bytes, a '\r' and a BOM (the first line only), the
         * line can only be an error: stop holding its bytes, and count them
         * the way take_line() would have. */
        const char *start = buf + c->line_start;
        size_t n = *len - c->line_start;

        if (!c->seen_first && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
            start += 3;
            n -= 3;
        }
        c->seen_first = 1;
        c->skipping = 1;
        c->skipped = 0;
        cairn_idscan_init(&c->scan);
        skip_bytes(c, start, n);
        *len = c->line_start;
    }
    return 0;
}

int cairn_linecut_end(struct cairn_linecut *c, const char *buf, size_t len, struct cairn_lines *out)
{
    int rc = 0;

    if (c->skipping)
        rc = end_skipped(c, out);
    else if (len > c->line_start)
        rc = take_line(c, buf, c->line_start, len - c->line_start, out);
    c->line_start = len;
    return rc;
}

const char *cairn_lines_note(const struct cairn_lines *l, size_t *at, size_t *n)
{
    const char *p, *nl;

    if (l->notes == NULL || *at >= l->notes_len) {
        *n = 0;
        return "";
    }
    p = l->notes + *at;
    nl = memchr(p, '\n', l->notes_len - *at);
    *n = (size_t)(nl - p);
    *at += *n + 1;
    return p;
}

void cairn_lines_free(struct cairn_lines *l)
{
    free(l->v);
    free(l->notes);
    memset(l, 0, sizeof(*l));
}
