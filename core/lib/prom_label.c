/*
 * prom_label.c - Prometheus label names and values as the text exposition
 * format wants them (see prom_label.h).
 */
#include "prom_label.h"

#include <errno.h>
#include <string.h>

/* The labels cairn sets on its own series: a configured label of the same
 * name would give one sample two values of it, which the format forbids. */
static const char *const own_labels[] = { "status", "variant", "code", "name", "version", "le" };

/* Label values may hold anything (a plugin's version string); the format
 * allows only these three escapes. */
static int put_label_value(struct cairn_buf *b, const char *s)
{
    size_t run = 0, i;

    for (i = 0; s[i] != '\0'; i++) {
        const char *esc;

        switch (s[i]) {
        case '\\': esc = "\\\\"; break;
        case '"': esc = "\\\""; break;
        case '\n': esc = "\\n"; break;
        default: continue;
        }
        if (cairn_buf_append(b, s + run, i - run) != 0 || cairn_buf_puts(b, esc) != 0)
            return -ENOMEM;
        run = i + 1;
    }
    return cairn_buf_append(b, s + run, i - run);
}

int cairn_prom_label_check(const char *name, const char **why)
{
    size_t i;

    *why = NULL;
    if (!(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') ||
          (name[0] >= 'A' && name[0] <= 'Z')) ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
            strlen(name)) {
        *why = "not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)";
        return -EINVAL;
    }
    if (strncmp(name, "__", 2) == 0) {
        *why = "label names starting with \"__\" are reserved for Prometheus";
        return -EINVAL;
    }
    for (i = 0; i < sizeof(own_labels) / sizeof(own_labels[0]); i++)
        if (strcmp(name, own_labels[i]) == 0) {
            *why = "cairn sets this label itself (status, variant, code, name, version, le)";
            return -EINVAL;
        }
    return 0;
}

int cairn_prom_label_put(struct cairn_buf *b, const char *name, const char *value)
{
    if (cairn_buf_puts(b, name) != 0 || cairn_buf_puts(b, "=\"") != 0 ||
        put_label_value(b, value) != 0 || cairn_buf_puts(b, "\"") != 0)
        return -ENOMEM;
    return 0;
}
