/*
 * linecut.h - cutting bytes into lines, as a job file or stdin arrives:
 * one read at a time, a line's bytes possibly split over several reads.
 *
 * A line ends at '\n'; a '\r' before it is no data, nor is a UTF-8 byte
 * order mark opening the first line; a line of blanks (spaces, tabs) is
 * skipped but counted.  A line over max_line_bytes is not held: its bytes
 * are counted, its top-level id and variant looked for as they pass
 * (idscan.h), and it comes out as a CAIRN_LINE_TOO_LONG line with a note
 * of what was found, whatever the reads it arrived in.
 *
 * Plain C: no loop, no threads (the engine's streams use it on the loop
 * thread).
 */
#ifndef CAIRN_LINECUT_H
#define CAIRN_LINECUT_H

#include <stddef.h>
#include <stdint.h>

#include "batchsize.h"
#include "idscan.h"

/* One line of a buffer; len == CAIRN_LINE_TOO_LONG marks a line that was
 * skipped for being over max_line_bytes (its byte count is in off). */
#define CAIRN_LINE_TOO_LONG SIZE_MAX
struct cairn_line {
    uint64_t no; /* 1-based line number in the input */
    size_t off;
    size_t len;
};

/* Zero-initialise; grown by the cutter.  notes holds, for each
 * CAIRN_LINE_TOO_LONG line in order, a '\n'-ended note: empty, or the
 * small JSON text {"id":ID,"variant":V} of what its bytes showed of those
 * two (either may be missing), its closing brace only when the line's
 * object ended with no unreadable variant.  Emptied with n = 0. */
struct cairn_lines {
    struct cairn_line *v;
    size_t n;
    size_t cap;
    char *notes;
    size_t notes_len;
    size_t notes_cap;
};

/* Zero-initialise, then set max_line_bytes. */
struct cairn_linecut {
    size_t max_line_bytes;
    size_t line_start;        /* where the unfinished line begins in the buffer */
    uint64_t line_no;         /* lines fully seen so far */
    int skipping;             /* inside a line over max_line_bytes */
    size_t skipped;           /* its bytes so far */
    int skip_cr;              /* the last of them was '\r' */
    int seen_first;           /* the byte order mark check is done */
    struct cairn_idscan scan; /* the id and variant of the line skipped */
};

/* cairn_linecut_cut() stopped after a line: the buffer holds as much
 * work as a batch should (batchsize.h), and the bytes from line_start on
 * belong to the next one. */
#define CAIRN_LINECUT_FULL 1

/*
 * NAME     cairn_linecut_cut - cuts buf[from, *len) at newlines into out
 * NOTES    buf[0, *len) is the buffer so far; c->line_start (0 for a new
 *          buffer) says where its unfinished line begins, before and
 *          after.  Past a line's max_line_bytes, *len shrinks back to
 *          line_start: its bytes are counted, not kept.
 * RETURNS  0, CAIRN_LINECUT_FULL, or -ENOMEM
 */
int cairn_linecut_cut(struct cairn_linecut *c, const char *buf, size_t *len, size_t from,
                      const struct cairn_batchsize *size, struct cairn_lines *out);

/* The input has ended: the unfinished line in buf[line_start, len), if
 * any, counts though it lacks its newline.  0 or -ENOMEM. */
int cairn_linecut_end(struct cairn_linecut *c, const char *buf, size_t len,
                      struct cairn_lines *out);

/* The note of the next CAIRN_LINE_TOO_LONG line, *at (0 for the first)
 * moved past it: its text, n bytes, no '\n'. */
const char *cairn_lines_note(const struct cairn_lines *l, size_t *at, size_t *n);

void cairn_lines_free(struct cairn_lines *l);

#endif /* CAIRN_LINECUT_H */
