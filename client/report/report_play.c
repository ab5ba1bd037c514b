/*
 * report_play.c - a results file's graded lines of play (options.play)
 * read into a report (report_lines.h): counted per variant, the first
 * non-optimal ply bucketed, costs summed exactly, and the costliest
 * blunders kept with where they are.
 */
#include "report_play.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsontext.h"
#include "report_format.h"

void cairn_report_blunder_free(struct cairn_rep_blunder *b)
{
    cairn_report_where_free(&b->at);
    free(b->by);
    free(b->move);
    free(b->best);
}

static size_t ply_bucket(uint64_t ply)
{
    size_t b = 0;

    if (ply < 4)
        return (size_t)ply;
    for (b = 4, ply >>= 3; ply > 0 && b < CAIRN_REPORT_PLY_BUCKETS - 1; ply >>= 1)
        b++;
    return b;
}

/* v added to n: exact while both are integers and the sum fits. */
static void num_add(struct cairn_rep_num *n, const json_t *v)
{
    int64_t sum;

    if (!n->real && json_is_integer(v) &&
        !__builtin_add_overflow(n->i, (int64_t)json_integer_value(v), &sum)) {
        n->i = sum;
        return;
    }
    if (!n->real) {
        n->d = (double)n->i;
        n->real = 1;
    }
    n->d += json_number_value(v);
}

/* Keeps the costliest blunders, costliest first (the earlier of equal
 * ones first).  play_text: the line's "play" as written; it has every key
 * read here (play_lacks). */
static int keep_blunder(struct cairn_rep_variant *r, const json_t *play, const char *play_text,
                        size_t play_len, const char *job, size_t job_index, const json_t *o,
                        const char *line, size_t len, const char *vname,
                        const struct cairn_rep_rec *rec)
{
    struct cairn_rep_blunder b = { .ply = cairn_report_count(play, "ply"),
                                   .mismatch = json_is_false(json_object_get(o, "match")) };
    size_t at = r->n_bl;

    num_add(&b.cost, json_object_get(play, "cost"));
    while (at > 0 && cairn_report_num_cmp(&r->bl[at - 1].cost, &b.cost) < 0)
        at--;
    if (at >= CAIRN_REPORT_BLUNDERS)
        return 0;
    b.by = cairn_report_dup(json_string_value(json_object_get(play, "by")));
    b.move = cairn_report_member(play_text, play_len, "move");
    b.best = cairn_report_member(play_text, play_len, "best");
    if (cairn_report_where_of(&b.at, job, job_index, o, line, len, vname) != 0 || b.by == NULL ||
        b.move == NULL || b.best == NULL) {
        cairn_report_blunder_free(&b);
        return -ENOMEM;
    }
    cairn_report_fill_where(&b.at, rec);
    if (r->n_bl == CAIRN_REPORT_BLUNDERS)
        cairn_report_blunder_free(&r->bl[--r->n_bl]);
    memmove(&r->bl[at + 1], &r->bl[at], (r->n_bl - at) * sizeof(r->bl[0]));
    r->bl[at] = b;
    r->n_bl++;
    return 0;
}

/* The key a non-optimal "play" lacks (or has in another type), or NULL
 * when it has all a blunder needs: a results file edited or cut by hand is
 * not what cairnd writes. */
static const char *play_lacks(const json_t *play, const char *text, size_t n)
{
    static const char *const raw[] = { "move", "best" };
    const char *v;
    size_t i, vn;

    if (!json_is_integer(json_object_get(play, "ply")))
        return "ply";
    if (!json_is_string(json_object_get(play, "by")))
        return "by";
    for (i = 0; i < 2; i++)
        if (!cairn_json_member_text(text, n, raw[i], &v, &vn))
            return raw[i];
    if (!json_is_number(json_object_get(play, "cost")))
        return "cost";
    return NULL;
}

/* A graded line of play (options.play) into its variant and r. */
int cairn_report_add_play(struct cairn_report *r, struct cairn_rep_variant *v, const json_t *o,
                          const char *line, size_t len, const char *job, size_t job_index,
                          const char *vname, const struct cairn_rep_line_at *at)
{
    const char *lacks;
    const json_t *play = json_object_get(o, "play");
    const char *text;
    size_t n;

    if (!json_is_object(play) || !cairn_json_member_text(line, len, "play", &text, &n))
        return 0;
    v->graded++;
    r->graded++;
    if (json_is_true(json_object_get(play, "optimal"))) {
        v->optimal++;
        r->optimal++;
        return 0;
    }
    if ((lacks = play_lacks(play, text, n)) != NULL) {
        /* Graded and not optimal, but where, by whom and at what cost is
         * not known: counted, said, and left out of the rest. */
        fprintf(stderr,
                "cairn: warning: %s:%llu: \"play\" has no \"%s\" (or not of its type): the "
                "line counts as graded and not optimal, but is left out of the costs and "
                "blunders\n",
                at->file, at->no, lacks);
        return 0;
    }
    v->first_ply[ply_bucket(cairn_report_count(play, "ply"))]++;
    num_add(&v->cost, json_object_get(play, "cost"));
    return keep_blunder(v, play, text, n, job, job_index, o, line, len, vname, at->rec);
}
