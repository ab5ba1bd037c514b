/*
 * results.c - `cairn results NAME [--join]`.
 *
 * Without --join the results file is copied to stdout byte for byte.  With
 * it, each result line is printed as
 *   {"line":N,"input":<the input line>,"result":<the result line>}
 * where the input line is spliced in as written when it is a JSON object
 * (so ids and numbers keep their exact text), and given as a JSON string
 * otherwise (a bad_json line).  Results are in input order and name their
 * physical line, so one pass over each file joins them.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "commands.h"

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

/* Whether line is one JSON value that can stand in the joined line as it
 * is: an object, or an array or scalar (the daemon's bad_record), read as
 * strictly as cairnd reads a record.  Anything else is shown as a string. */
static int is_json(const char *line, size_t len)
{
    json_error_t e;
    json_t *v;

    if (memchr(line, '\0', len) != NULL)
        return 0; /* jansson would stop at it, and the rest go unseen */
    v = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    json_decref(v);
    return v != NULL;
}

static int join(struct cairn_client *cl, FILE *results, const char *file, const char *base)
{
    char *rline = NULL, *iline = NULL;
    size_t rcap = 0, icap = 0;
    unsigned long long at = 0; /* input lines read so far */
    struct cairn_buf out = { 0 };
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
            return cairn_client_fail(cl, -ENOENT,
                                     "--join needs the input of %s, and it is gone: keep_inputs "
                                     "is false%s%s, so cairnd deletes each input once its job "
                                     "is done (set keep_inputs to true to keep them in "
                                     ".cairn/done/)",
                                     base, cl->config_file ? " in " : "",
                                     cl->config_file ? cl->config_file : "");
        return cairn_client_fail(cl, -ENOENT,
                                 "--join needs the input of %s, and %s/.cairn/done/%s is "
                                 "not there (removed since the job finished?)",
                                 base, cl->cfg.input_dir, file);
    }
    while ((rn = cairn_client_getline(results, &rline, &rcap)) > 0) {
        size_t rlen = chomp(rline, (size_t)rn);
        json_error_t e;
        json_t *r = json_loadb(rline, rlen, 0, &e);
        json_int_t want = json_integer_value(json_object_get(r, "line"));

        json_decref(r);
        /* Blank input lines have no result: skip to the line named. */
        while (at < (unsigned long long)want &&
               (in = cairn_client_getline(input, &iline, &icap)) > 0)
            at++;
        out.len = 0;
        cairn_buf_printf(&out, "{\"line\":%lld,\"input\":", (long long)want);
        if (at != (unsigned long long)want || in <= 0) {
            cairn_buf_puts(&out, "null");
        } else {
            size_t bom = cairn_client_bom(iline, (size_t)in, at);
            const char *text = iline + bom;
            size_t len = chomp(iline, (size_t)in) - bom;

            if (is_json(text, len))
                cairn_buf_append(&out, text, len);
            else
                cairn_buf_json_string(&out, text, len);
        }
        cairn_buf_puts(&out, ",\"result\":");
        cairn_buf_append(&out, rline, rlen);
        if (cairn_buf_puts(&out, "}\n") != 0) {
            rc = -ENOMEM;
            break;
        }
        if (fwrite(out.data, 1, out.len, stdout) != out.len) {
            rc = -EIO;
            break;
        }
    }
    if (rc == 0 && (rn < 0 || in < 0))
        rc = cairn_client_fail(cl, -EIO, "cannot read the results or the input of %s", base);
    fclose(input);
    free(rline);
    free(iline);
    cairn_buf_free(&out);
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
    sum = ob ? cairn_asprintf("%s.summary.json", ob) : NULL;
    res = ob ? cairn_asprintf("%s.results.jsonl", ob) : NULL;
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
    rc = want_join ? join(cl, f, file, base) : copy_out(f);
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
