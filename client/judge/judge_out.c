/*
 * judge_out.c - `cairn judge`'s report (the object judge.c builds) as
 * text, as one JSON object, and as a self-contained HTML page.  Every
 * string that came from the candidate (its answers, its stderr) is shown
 * printable in text and escaped in HTML.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge_out.h"

/* A value as compact JSON text, printable; "(none)" for NULL. */
static char *text_of(const json_t *v)
{
    char *t, *shown;

    if (v == NULL)
        return strdup("(none)");
    if ((t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT)) == NULL)
        return NULL;
    shown = cairn_text_printable(t);
    free(t);
    return shown;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s != NULL ? s : "";
}

static void print_fault(const json_t *fault)
{
    const json_t *lines = json_object_get(fault, "stderr");
    size_t i;

    printf("candidate failed (%s): %s\n", str(fault, "during"), str(fault, "message"));
    if (json_array_size(lines) == 0) {
        printf("  stderr: (empty)\n");
        return;
    }
    printf("  stderr, the last lines:\n");
    for (i = 0; i < json_array_size(lines); i++)
        printf("    %s\n", json_string_value(json_array_get(lines, i)));
}

int cairn_judge_print_text(struct cairn_client *cl, const json_t *r)
{
    const json_t *failures = json_object_get(r, "failures"), *fault;
    json_int_t count = json_integer_value(json_object_get(r, "count"));
    json_int_t wrong = json_integer_value(json_object_get(r, "wrong"));
    size_t i;

    (void)cl;
    fault = json_object_get(r, "candidate_error");
    if (json_is_number(json_object_get(r, "pass_rate")))
        printf("cairn judge %s: %lld of %lld answers right, %lld wrong (pass rate %.1f%%)\n",
               str(r, "variant"), (long long)(count - wrong), (long long)count, (long long)wrong,
               100.0 * json_number_value(json_object_get(r, "pass_rate")));
    else
        printf("cairn judge %s: no answers graded (the candidate failed)\n", str(r, "variant"));
    printf("sandbox: %s\n", str(r, "sandbox"));
    printf("reproduce: %s\n", str(r, "reproduce"));
    printf("positions: %s (seed %lld)\n", str(r, "corpus"),
           (long long)json_integer_value(json_object_get(r, "seed")));
    if (fault != NULL)
        print_fault(fault);
    for (i = 0; i < json_array_size(failures); i++) {
        const json_t *f = json_array_get(failures, i), *also = json_object_get(f, "also");
        char *in = text_of(json_object_get(f, "input")),
             *given = text_of(json_object_get(f, "given"));
        char *exact = text_of(json_object_get(f, "exact")),
             *moves = text_of(json_object_get(f, "moves"));
        char *from = text_of(json_object_get(json_object_get(f, "from"), "input"));
        char *play = json_object_get(f, "play") ? text_of(json_object_get(f, "play")) : NULL;
        size_t k;

        if (in == NULL || given == NULL || exact == NULL || moves == NULL || from == NULL) {
            free(in), free(given), free(exact), free(moves), free(from), free(play);
            return -ENOMEM;
        }
        printf("\nfailure %zu of %zu: %s (shrunk from the %lld answers %s", i + 1,
               json_array_size(failures), str(f, "kind"),
               (long long)json_integer_value(json_object_get(json_object_get(f, "group"), "count")),
               str(json_object_get(f, "group"), "kind"));
        for (k = 0; k < json_array_size(also); k++)
            printf("; and the %lld %s",
                   (long long)json_integer_value(json_object_get(json_array_get(also, k), "count")),
                   str(json_array_get(also, k), "kind"));
        printf(")");
        printf("\n  %s input: %s\n",
               json_is_true(json_object_get(f, "minimal"))
                   ? "smallest failing (1-minimal)"
                   : "smallest failing found (shrinking stopped)",
               in);
        printf("  given: %s  exact: %s\n", given, exact);
        printf("  cairn's optimal line: %s\n", moves);
        if (play != NULL)
            printf("  the candidate's line of play: %s\n", play);
        printf("  shrunk from %s %s in %lld rounds of tries\n",
               str(json_object_get(f, "from"), "id"), from,
               (long long)json_integer_value(json_object_get(f, "rounds")));
        free(in), free(given), free(exact), free(moves), free(from), free(play);
    }
    return 0;
}

int cairn_judge_print_json(struct cairn_client *cl, const json_t *r)
{
    (void)cl;
    if (json_dumpf(r, stdout, JSON_COMPACT) != 0 || putchar('\n') == EOF)
        return -EIO;
    return 0;
}

/* ---- HTML ------------------------------------------------------------------ */

static int esc(struct cairn_buf *b, const char *s)
{
    int rc = 0;

    for (; rc == 0 && *s != '\0'; s++)
        switch (*s) {
        case '<': rc = cairn_buf_puts(b, "&lt;"); break;
        case '>': rc = cairn_buf_puts(b, "&gt;"); break;
        case '&': rc = cairn_buf_puts(b, "&amp;"); break;
        case '"': rc = cairn_buf_puts(b, "&quot;"); break;
        default: rc = cairn_buf_append(b, s, 1);
        }
    return rc;
}

static int esc_json(struct cairn_buf *b, const json_t *v)
{
    char *t = text_of(v);
    int rc = t == NULL ? -ENOMEM : esc(b, t);

    free(t);
    return rc;
}

/* "<tr><th>label</th><td>value</td></tr>", the value escaped. */
static int row(struct cairn_buf *b, const char *label, const char *value)
{
    int rc = cairn_buf_printf(b, "<tr><th>%s</th><td>", label);

    if (rc == 0)
        rc = esc(b, value);
    return rc != 0 ? rc : cairn_buf_puts(b, "</td></tr>\n");
}

static int row_json(struct cairn_buf *b, const char *label, const json_t *v)
{
    int rc = cairn_buf_printf(b, "<tr><th>%s</th><td><code>", label);

    if (rc == 0)
        rc = esc_json(b, v);
    return rc != 0 ? rc : cairn_buf_puts(b, "</code></td></tr>\n");
}

static int html_failure(struct cairn_buf *b, const json_t *f, size_t i, size_t n)
{
    int rc = cairn_buf_printf(b, "<section><h2>Failure %zu of %zu: ", i + 1, n);

    if (rc == 0)
        rc = esc(b, str(f, "kind"));
    if (rc == 0)
        rc = cairn_buf_printf(
            b, " (shrunk from the %lld answers ",
            (long long)json_integer_value(json_object_get(json_object_get(f, "group"), "count")));
    if (rc == 0)
        rc = esc(b, str(json_object_get(f, "group"), "kind"));
    if (rc == 0)
        rc = cairn_buf_puts(b, ")</h2>\n<table>\n");
    if (rc == 0)
        rc = row_json(b,
                      json_is_true(json_object_get(f, "minimal")) ? "smallest failing input"
                                                                  : "smallest found (stopped)",
                      json_object_get(f, "input"));
    if (rc == 0)
        rc = row_json(b, "given", json_object_get(f, "given"));
    if (rc == 0)
        rc = row_json(b, "exact", json_object_get(f, "exact"));
    if (rc == 0)
        rc = row_json(b, "cairn's optimal line", json_object_get(f, "moves"));
    if (rc == 0 && json_object_get(f, "play") != NULL)
        rc = row_json(b, "the candidate's line", json_object_get(f, "play"));
    if (rc == 0)
        rc = row(b, "shrunk from", str(json_object_get(f, "from"), "id"));
    if (rc == 0)
        rc = row_json(b, "its input", json_object_get(json_object_get(f, "from"), "input"));
    return rc != 0 ? rc : cairn_buf_puts(b, "</table></section>\n");
}

static int html_page(struct cairn_buf *b, const json_t *r)
{
    const json_t *failures = json_object_get(r, "failures"), *fault;
    char line[160];
    size_t i;
    int rc;

    rc = cairn_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                           "<title>cairn judge ");
    if (rc == 0)
        rc = esc(b, str(r, "variant"));
    if (rc == 0)
        rc = cairn_buf_puts(
            b, "</title>\n<style>body{font:15px/1.45 sans-serif;max-width:70em;margin:1em auto;"
               "padding:0 1em}table{border-collapse:collapse;margin:.5em 0}th,td{border:1px "
               "solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}th{background:"
               "#f4f4f4;white-space:nowrap}code,pre{font:13px monospace;overflow-wrap:anywhere}"
               ".bad{color:#a00}.good{color:#070}</style></head><body>\n<h1>cairn judge ");
    if (rc == 0)
        rc = esc(b, str(r, "variant"));
    if (rc == 0)
        rc = cairn_buf_puts(b, "</h1>\n<table>\n");
    if (rc == 0) {
        if (json_is_number(json_object_get(r, "pass_rate")))
            snprintf(line, sizeof(line), "%lld of %lld right (%.1f%%)",
                     (long long)json_integer_value(json_object_get(r, "right")),
                     (long long)json_integer_value(json_object_get(r, "count")),
                     100.0 * json_number_value(json_object_get(r, "pass_rate")));
        else
            snprintf(line, sizeof(line), "no answers graded (the candidate failed)");
        rc = row(b, "pass rate", line);
    }
    if (rc == 0)
        rc = row(b, "sandbox", str(r, "sandbox"));
    if (rc == 0)
        rc = row(b, "reproduce", str(r, "reproduce"));
    if (rc == 0)
        rc = row(b, "positions", str(r, "corpus"));
    if (rc == 0)
        rc = cairn_buf_puts(b, "</table>\n");
    fault = json_object_get(r, "candidate_error");
    if (rc == 0 && fault != NULL) {
        const json_t *lines = json_object_get(fault, "stderr");

        rc = cairn_buf_puts(b, "<section class=\"bad\"><h2>The candidate failed</h2><p>");
        if (rc == 0)
            rc = esc(b, str(fault, "message"));
        if (rc == 0)
            rc = cairn_buf_puts(b, " (");
        if (rc == 0)
            rc = esc(b, str(fault, "during"));
        if (rc == 0)
            rc = cairn_buf_puts(b, ")</p><pre>");
        for (i = 0; rc == 0 && i < json_array_size(lines); i++)
            if ((rc = esc(b, json_string_value(json_array_get(lines, i)))) == 0)
                rc = cairn_buf_puts(b, "\n");
        if (rc == 0)
            rc = cairn_buf_puts(b, "</pre></section>\n");
    }
    if (rc == 0 && json_array_size(failures) == 0 && fault == NULL)
        rc = cairn_buf_puts(b, "<p class=\"good\">Every answer is right.</p>\n");
    for (i = 0; rc == 0 && i < json_array_size(failures); i++)
        rc = html_failure(b, json_array_get(failures, i), i, json_array_size(failures));
    return rc != 0 ? rc : cairn_buf_puts(b, "</body></html>\n");
}

int cairn_judge_write_html(struct cairn_client *cl, const json_t *r, const char *file)
{
    struct cairn_buf b = { 0 };
    int fd, rc = html_page(&b, r);

    if (rc != 0) {
        cairn_buf_free(&b);
        return rc;
    }
    fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = -errno;
        cairn_buf_free(&b);
        return cairn_client_fail(cl, rc, "judge: --html %s: %s", file, strerror(-rc));
    }
    rc = cairn_write_all(fd, b.data, b.len);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    cairn_buf_free(&b);
    if (rc != 0)
        return cairn_client_fail(cl, rc, "judge: --html %s: %s", file, strerror(-rc));
    return 0;
}
