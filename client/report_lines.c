/*
 * report_lines.c - a results file's lines and a kept input's, read into a
 * report (see report_lines.h).
 */
#include "report_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsontext.h"
#include "registry.h"

/* A whole record shown on the page is cut here: a record may be megabytes. */
#define RECORD_SHOWN_MAX 4096

struct cairn_rep_variant *cairn_report_variant(struct cairn_report *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->n_variants; i++)
        if (strcmp(r->variants[i].name, name) == 0)
            return &r->variants[i];
    if (cairn_grow((void **)&r->variants, &r->cap_variants, r->n_variants + 1,
                   sizeof(*r->variants)) != 0)
        return NULL;
    memset(&r->variants[i], 0, sizeof(r->variants[i]));
    if ((r->variants[i].name = strdup(name)) == NULL)
        return NULL;
    r->n_variants++;
    return &r->variants[i];
}

struct cairn_rep_count *cairn_report_counter(struct cairn_rep_count **v, size_t *n, size_t *cap,
                                             const char *name)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (strcmp((*v)[i].name, name) == 0)
            return &(*v)[i];
    if (cairn_grow((void **)v, cap, *n + 1, sizeof(**v)) != 0)
        return NULL;
    (*v)[i].n = 0;
    if (((*v)[i].name = strdup(name)) == NULL)
        return NULL;
    (*n)++;
    return &(*v)[i];
}

uint64_t cairn_report_count(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));

    return v > 0 ? (uint64_t)v : 0;
}

char *cairn_report_dup(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/* Text of n bytes, printable (raw UTF-8 in a string may hold C1
 * controls), for showing only; NULL when out of memory. */
static char *shown(const char *text, size_t n)
{
    char *raw = strndup(text, n), *p;

    if (raw == NULL)
        return NULL;
    p = cairn_text_printable(raw);
    free(raw);
    return p;
}

/* A member's JSON text as written, printable; NULL if absent. */
static char *member(const char *line, size_t len, const char *key)
{
    const char *v;
    size_t n;

    return cairn_json_member_text(line, len, key, &v, &n) ? shown(v, n) : NULL;
}

/* s cut to max bytes (not inside a UTF-8 character), "..." after. */
static void shorten(char *s, size_t max)
{
    size_t n = strlen(s);

    if (n <= max + 3) /* no shorter for the dots */
        return;
    max = cairn_utf8_cut(s, max);
    memcpy(s + max, "...", 4); /* max + 4 <= n: room for it */
}

static int where_of(struct cairn_rep_where *w, const char *job, size_t job_index, const json_t *o,
                    const char *line, size_t len, const char *vname)
{
    *w = (struct cairn_rep_where){ .job = strdup(job),
                                   .job_index = job_index,
                                   .line = cairn_report_count(o, "line"),
                                   .id = member(line, len, "id"),
                                   .variant = cairn_report_dup(vname) };
    return w->job != NULL && (vname == NULL || w->variant != NULL) ? 0 : -ENOMEM;
}

void cairn_report_where_free(struct cairn_rep_where *w)
{
    free(w->job);
    free(w->id);
    free(w->variant);
    free(w->position);
    free(w->record);
}

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
static int keep_blunder(struct cairn_report *r, const json_t *play, const char *play_text,
                        size_t play_len, const char *job, size_t job_index, const json_t *o,
                        const char *line, size_t len, const char *vname)
{
    struct cairn_rep_blunder b = { .ply = cairn_report_count(play, "ply") };
    size_t at = r->n_bl;

    num_add(&b.cost, json_object_get(play, "cost"));
    while (at > 0 && cairn_report_num_cmp(&r->bl[at - 1].cost, &b.cost) < 0)
        at--;
    if (at >= CAIRN_REPORT_BLUNDERS)
        return 0;
    b.by = cairn_report_dup(json_string_value(json_object_get(play, "by")));
    b.move = member(play_text, play_len, "move");
    b.best = member(play_text, play_len, "best");
    if (where_of(&b.at, job, job_index, o, line, len, vname) != 0 || b.by == NULL ||
        b.move == NULL || b.best == NULL) {
        cairn_report_blunder_free(&b);
        return -ENOMEM;
    }
    if (r->n_bl == CAIRN_REPORT_BLUNDERS)
        cairn_report_blunder_free(&r->bl[--r->n_bl]);
    memmove(&r->bl[at + 1], &r->bl[at], (r->n_bl - at) * sizeof(r->bl[0]));
    r->bl[at] = b;
    r->n_bl++;
    return 0;
}

/* Where a results line is, for what a report says about it. */
struct line_at {
    const char *file; /* as shown */
    unsigned long long no;
};

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
static int add_play(struct cairn_report *r, struct cairn_rep_variant *v, const json_t *o,
                    const char *line, size_t len, const char *job, size_t job_index,
                    const char *vname, const struct line_at *at)
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
    return keep_blunder(r, play, text, n, job, job_index, o, line, len, vname);
}

/* A mismatch, while fewer than CAIRN_REPORT_MISMATCHES are kept. */
static int add_mismatch(struct cairn_report *r, const json_t *o, const char *line, size_t len,
                        const char *job, size_t job_index, const char *vname)
{
    struct cairn_rep_mismatch *m;

    if (r->n_mm >= CAIRN_REPORT_MISMATCHES)
        return 0;
    m = &r->mm[r->n_mm++];
    m->expected = member(line, len, "expected");
    m->answer = member(line, len, "answer");
    return where_of(&m->at, job, job_index, o, line, len, vname);
}

/* The counts a summary would have given, from one line of a results file
 * that has none. */
static void add_whole(struct cairn_report *r, struct cairn_rep_job *whole,
                      struct cairn_rep_variant *v, const char *ecode, const json_t *match)
{
    whole->records++;
    v->records++;
    if (ecode == NULL) {
        whole->ok++;
        v->ok++;
    } else {
        struct cairn_rep_count *cc =
            cairn_report_counter(&r->codes, &r->n_codes, &r->cap_codes, ecode);
        v->errors++;
        r->errors++;
        if (cc != NULL)
            cc->n++;
    }
    if (json_is_true(match))
        whole->matches++;
    else if (json_is_false(match))
        whole->mismatches++;
}

static int add_line(struct cairn_report *r, const char *line, size_t len, const char *job,
                    size_t job_index, struct cairn_rep_job *whole, const struct line_at *at)
{
    json_error_t e;
    json_t *o = json_loadb(line, len, 0, &e), *match = json_object_get(o, "match");
    const char *vname = json_string_value(json_object_get(o, "variant"));
    const char *ecode = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
    struct cairn_rep_variant *v;
    int rc = 0;

    if (o == NULL)
        return 0;
    v = cairn_report_variant(r, vname ? vname : CAIRN_VARIANT_UNRESOLVED);
    if (v == NULL) {
        json_decref(o);
        return -ENOMEM;
    }
    if (whole != NULL)
        add_whole(r, whole, v, ecode, match);
    if (ecode != NULL) {
        struct cairn_rep_count *cc =
            cairn_report_counter(&v->codes, &v->n_codes, &v->cap_codes, ecode);
        if (cc != NULL)
            cc->n++;
    }
    if (json_is_boolean(match)) {
        v->checked++;
        r->checked++;
        if (json_is_true(match))
            v->matches++;
        else
            rc = add_mismatch(r, o, line, len, job, job_index, vname);
    }
    if (rc == 0)
        rc = add_play(r, v, o, line, len, job, job_index, vname, at);
    json_decref(o);
    return rc;
}

int cairn_report_read_results(struct cairn_report *r, int dir_fd, const char *res_name,
                              const char *shown_as, const char *job, size_t job_index,
                              struct cairn_rep_job *whole)
{
    int fd = openat(dir_fd, res_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = 0;
    struct line_at at = { .file = shown_as };
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    FILE *f;

    if (fd < 0 || (f = fdopen(fd, "r")) == NULL) {
        if (fd >= 0)
            close(fd);
        return 0; /* the summary still counts; accuracy lacks this job */
    }
    while (rc == 0 && (n = cairn_client_getline(f, &line, &cap)) > 0) {
        at.no++;
        rc = add_line(r, line, (size_t)n - (line[n - 1] == '\n'), job, job_index, whole, &at);
    }
    free(line);
    fclose(f);
    return rc;
}

/* A record's position and line into w, if w is this job's and lacks them. */
static void fill_where(struct cairn_rep_where *w, size_t job_index, uint64_t no, const char *line,
                       size_t len)
{
    if (w->job_index != job_index || w->line != no || w->record != NULL)
        return;
    w->record = shown(line, len < RECORD_SHOWN_MAX ? len : RECORD_SHOWN_MAX);
    if (w->record != NULL && len > RECORD_SHOWN_MAX)
        shorten(w->record, strlen(w->record) - 4); /* say it was cut */
    w->position = member(line, len, "input");
    if (w->position != NULL)
        shorten(w->position, CAIRN_REPORT_POSITION_MAX);
}

/* The last line of job_index's records still to read, 0 for none. */
static uint64_t last_wanted(const struct cairn_report *r, size_t job_index)
{
    uint64_t last = 0;
    size_t i;

    for (i = 0; i < r->n_mm; i++)
        if (r->mm[i].at.job_index == job_index && r->mm[i].at.line > last)
            last = r->mm[i].at.line;
    for (i = 0; i < r->n_bl; i++)
        if (r->bl[i].at.job_index == job_index && r->bl[i].at.line > last)
            last = r->bl[i].at.line;
    return last;
}

void cairn_report_read_records(struct cairn_report *r, int in_fd, const char *input_esc,
                               uint64_t bytes, size_t job_index)
{
    char *file = input_esc ? cairn_client_unescape(input_esc) : NULL, *line = NULL;
    uint64_t last = last_wanted(r, job_index), no = 0;
    size_t i, cap = 0;
    struct stat st;
    ssize_t n;
    FILE *f = NULL;
    int fd = -1;

    if (last == 0 || in_fd < 0 || file == NULL)
        goto out;
    fd = cairn_client_open_kept_input(in_fd, file);
    if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size != bytes ||
        (f = fdopen(fd, "r")) == NULL)
        goto out;
    fd = -1;
    while (no < last && (n = cairn_client_getline(f, &line, &cap)) > 0) {
        size_t len = (size_t)n - (line[n - 1] == '\n');

        no++;
        for (i = 0; i < r->n_mm; i++) {
            struct cairn_rep_mismatch *m = &r->mm[i];

            if (m->at.job_index == job_index && m->at.line == no && m->expected == NULL)
                m->expected = member(line, len, "expected");
            fill_where(&m->at, job_index, no, line, len);
        }
        for (i = 0; i < r->n_bl; i++)
            fill_where(&r->bl[i].at, job_index, no, line, len);
    }
out:
    if (f != NULL)
        fclose(f);
    if (fd >= 0)
        close(fd);
    free(line);
    free(file);
}
