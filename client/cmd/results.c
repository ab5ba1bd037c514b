/*
 * results.c - `cairn results NAME [--join]`.
 *
 * Without --join the results file is copied to stdout byte for byte.  With
 * it, each result line is printed as
 *   {"line":N,"input":<the input line>,"result":<the result line>}
 * where the input line is spliced in as written when it is a JSON object
 * (so ids and numbers keep their exact text), and given as a JSON string
 * otherwise (a bad_json line).  Results are in input order and name their
 * physical line, so one pass over each file joins them.  Neither line is
 * parsed into a tree: memory is about the two lines' own size, whatever
 * they hold.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "jsonscan.h"
#include "jsontext.h"
#include "layout.h"
#include "names.h"

/* The bytes of a non-JSON input line escaped at a time. */
#define JOIN_PIECE 65536

static FILE *open_at(int dir_fd, const char *name)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    FILE *f;

    if (fd < 0)
        return NULL;
    if ((f = fdopen(fd, "r")) == NULL)
        close(fd);
    return f;
}

static size_t chomp(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    return n;
}

/* Why a job has no results to show, as an errno and a message. */
static int not_finished(struct cairn_client *cl, const char *file, const char *base)
{
    struct cairn_where w;
    int rc = cairn_client_open_input(cl, 0);

    if (rc != 0) /* no spool to look in: the output directory was the only hope */
        return cairn_client_fail(cl, -ENOENT, "no job %s: no summary in %s", base,
                                 cl->cfg.output_dir);
    if ((rc = cairn_client_locate(cl, file, &w)) != 0)
        return rc;
    if (w.waiting || w.active)
        return cairn_client_fail(cl, -EBUSY, "job %s is not finished: it is %s", base,
                                 w.active ? "being processed" : "waiting in the spool");
    return cairn_client_fail(cl, -ENOENT,
                             "no job %s: no summary in %s and nothing of that name in the "
                             "spool %s",
                             base, cl->cfg.output_dir, cl->cfg.input_dir);
}

static int copy_out(FILE *f)
{
    char buf[65536];
    size_t n;

    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        if (fwrite(buf, 1, n, stdout) != n)
            return -EIO;
    return ferror(f) ? -EIO : 0;
}

/* The input line as it stands in the joined line: as written when it is
 * one JSON value (an object, or an array or scalar: the daemon's
 * bad_record), read as strictly as cairnd reads a record; otherwise a
 * JSON string (the daemon's bad_json).  Checked by a scan and copied
 * through, so memory stays about the line's own size (jsonscan.h).
 * 0, -ENOMEM or -EIO. */
static int put_input(const char *text, size_t len, struct cairn_buf *tmp)
{
    struct cairn_json_fault f;
    enum cairn_json_kind kind;
    size_t i = 0, n;
    int rc = -EINVAL;

    /* A NUL would end a jansson reader's number early: never JSON here. */
    if (memchr(text, '\0', len) == NULL && (rc = cairn_json_scan(text, len, &kind, &f)) == -ENOMEM)
        return rc;
    if (rc == 0)
        return fwrite(text, 1, len, stdout) == len ? 0 : -EIO;
    /* As a string, a piece at a time (never cutting a character): each
     * piece's escaped text, without the quotes it comes in. */
    if (fputc('"', stdout) == EOF)
        return -EIO;
    while (i < len) {
        n = len - i > JOIN_PIECE ? cairn_utf8_cut(text + i, JOIN_PIECE) : len - i;
        if (n == 0)
            n = JOIN_PIECE;
        tmp->len = 0;
        if (cairn_buf_json_string(tmp, text + i, n) != 0)
            return -ENOMEM;
        if (fwrite(tmp->data + 1, 1, tmp->len - 2, stdout) != tmp->len - 2)
            return -EIO;
        i += n;
    }
    return fputc('"', stdout) == EOF ? -EIO : 0;
}

/* The number of the input line a result line answers (its "line"); 0 when
 * it names none; -ENOMEM. */
static long long result_line_no(const char *rline, size_t rlen)
{
    struct cairn_json_fault f;
    enum cairn_json_kind kind;
    const char *val;
    size_t vlen;
    char num[32], *end;
    long long no;
    int rc = cairn_json_scan(rline, rlen, &kind, &f);

    if (rc == -ENOMEM)
        return rc;
    if (rc != 0 || kind != CAIRN_JSON_KIND_OBJECT ||
        cairn_json_member_text(rline, rlen, "line", &val, &vlen) != 1 || vlen >= sizeof(num))
        return 0;
    memcpy(num, val, vlen);
    num[vlen] = '\0';
    errno = 0;
    no = strtoll(num, &end, 10);
    return errno == 0 && *end == '\0' && no > 0 ? no : 0;
}

static int join(struct cairn_client *cl, FILE *results, const char *res, const char *file,
                const char *base)
{
    char *rline = NULL, *iline = NULL;
    size_t rcap = 0, icap = 0;
    unsigned long long at = 0, rno = 0; /* input and result lines read so far */
    struct cairn_buf tmp = { 0 };
    ssize_t rn, in = 0;
    FILE *input = NULL;
    int fd, rc = 0;

    if ((rc = cairn_client_open_input(cl, 0)) != 0)
        return rc;
    fd = cairn_client_open_kept_input(cl->in_fd, file);
    if (fd >= 0 && (input = fdopen(fd, "r")) == NULL)
        close(fd);
    if (input == NULL) {
        if (!cl->cfg.keep_inputs)
            return cairn_client_fail(
                cl, -ENOENT,
                "--join needs the input of %s, and it is gone: keep_inputs "
                "is false%s%s, so cairnd deletes each input once its job "
                "is done (set keep_inputs to true to keep them in " CAIRN_DONE_PATH "/)",
                base, cl->config_file ? " in " : "", cl->config_file ? cl->config_file : "");
        return cairn_client_fail(cl, -ENOENT,
                                 "--join needs the input of %s, and %s/" CAIRN_DONE_PATH "/%s is "
                                 "not there (removed since the job finished?)",
                                 base, cl->cfg.input_dir, file);
    }
    while ((rn = cairn_client_getline(results, &rline, &rcap)) > 0) {
        size_t rlen = chomp(rline, (size_t)rn);
        long long want = result_line_no(rline, rlen);

        rno++;
        if (want < 0) {
            rc = cairn_client_fail(cl, (int)want,
                                   "%s:%llu: out of memory reading the results "
                                   "line",
                                   res, rno);
            break;
        }
        /* Blank input lines have no result: skip to the line named. */
        while (at < (unsigned long long)want &&
               (in = cairn_client_getline(input, &iline, &icap)) > 0)
            at++;
        if (in == -ENOMEM) {
            rc = cairn_client_fail(cl, (int)in,
                                   "%s:%llu: out of memory reading the input line (%zu bytes of "
                                   "it held so far)",
                                   file, at + 1, icap);
            break;
        }
        if (printf("{\"line\":%lld,\"input\":", want) < 0) {
            rc = -EIO;
            break;
        }
        if (at != (unsigned long long)want || in <= 0) {
            rc = fputs("null", stdout) == EOF ? -EIO : 0;
        } else {
            size_t bom = cairn_client_bom(iline, (size_t)in, at);

            rc = put_input(iline + bom, chomp(iline, (size_t)in) - bom, &tmp);
            if (rc == -ENOMEM)
                rc = cairn_client_fail(cl, rc, "%s:%llu: out of memory joining the input line",
                                       file, at);
        }
        if (rc != 0)
            break;
        if (fputs(",\"result\":", stdout) == EOF || fwrite(rline, 1, rlen, stdout) != rlen ||
            fputs("}\n", stdout) == EOF) {
            rc = -EIO;
            break;
        }
    }
    if (rc == 0 && rn == -ENOMEM)
        rc = cairn_client_fail(cl, (int)rn, "%s:%llu: out of memory reading the results line", res,
                               rno + 1);
    else if (rc == 0 && (rn < 0 || in < 0))
        rc = cairn_client_fail(cl, -EIO, "cannot read the results or the input of %s", base);
    fclose(input);
    free(rline);
    free(iline);
    cairn_buf_free(&tmp);
    return rc;
}

/* These results are NAME's, but a newer NAME.jsonl waiting in the spool
 * is another job: it runs as NAME~N (a used name never overwrites), and
 * whoever dropped it wants that run's results, not these.  Said on
 * stderr, once the summary is known to be there. */
static void note_newer(struct cairn_client *cl, const char *file, const char *base)
{
    struct cairn_where w;

    if (cairn_client_open_input(cl, 0) == 0 && cairn_client_locate(cl, file, &w) == 0 && w.waiting)
        fprintf(stderr,
                "cairn: note: a newer %s waits in the spool; it will run as %s~N (its summary "
                "says submitted_as), and these are the earlier run's results\n",
                file, base);
    free(cl->msg);
    cl->msg = NULL;
}

int cairn_cmd_results(struct cairn_client *cl, const char *name, int want_join)
{
    char *file = NULL, *base = NULL, *ob = NULL, *sum = NULL, *res = NULL;
    json_t *summary = NULL;
    const char *status;
    json_error_t e;
    FILE *f = NULL;
    int rc, fd;

    if ((rc = cairn_client_job_names(cl, name, &file, &base)) != 0)
        return rc;
    if ((rc = cairn_client_open_output(cl)) != 0) {
        /* No output directory yet (no daemon ever ran): a job waiting in
         * the spool is still better told as "not finished". */
        struct cairn_where w;
        char *why = cl->msg;

        cl->msg = NULL;
        if (cairn_client_open_input(cl, 0) == 0 && cairn_client_locate(cl, file, &w) == 0 &&
            (w.waiting || w.active)) {
            free(why);
            rc = not_finished(cl, file, base);
        } else {
            free(cl->msg);
            cl->msg = why;
        }
        goto out;
    }
    ob = cairn_output_base(file);
    sum = ob ? cairn_output_name(ob, CAIRN_SUMMARY_SUFFIX) : NULL;
    res = ob ? cairn_output_name(ob, CAIRN_RESULTS_SUFFIX) : NULL;
    if (sum == NULL || res == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    fd = openat(cl->out_fd, sum, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        rc = not_finished(cl, file, base);
        goto out;
    }
    summary = json_loadfd(fd, 0, &e);
    close(fd);
    if (summary == NULL) {
        rc = cairn_client_fail(cl, -EIO, "%s/%s: %s", cl->cfg.output_dir, sum, e.text);
        goto out;
    }
    status = json_string_value(json_object_get(summary, "status"));
    if (status == NULL || strcmp(status, "ok") != 0) {
        const char *reason = json_string_value(json_object_get(summary, "reason"));
        rc = cairn_client_fail(cl, -ENODATA,
                               "job %s failed, so it has no results: %s (cairn retry %s "
                               "requeues it)",
                               base, reason ? reason : "no reason given", base);
        goto out;
    }
    if ((f = open_at(cl->out_fd, res)) == NULL) {
        rc = cairn_client_fail(cl, -errno, "cannot open %s/%s: %s", cl->cfg.output_dir, res,
                               strerror(errno));
        goto out;
    }
    note_newer(cl, file, base);
    rc = want_join ? join(cl, f, res, file, base) : copy_out(f);
    if (rc == -EIO && cl->msg == NULL)
        rc = cairn_client_fail(cl, rc, "cannot write the results: %s", strerror(EIO));
out:
    if (f != NULL)
        fclose(f);
    json_decref(summary);
    free(file);
    free(base);
    free(ob);
    free(sum);
    free(res);
    return rc;
}
