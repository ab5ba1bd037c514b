/*
 * floor.c - the naive jansson floor: parse each line with json_loadb's
 * defaults, pull out the input array, dump a small result.  No solving, no
 * threads.  cairnd --filter --threads 1 must not be slower than this,
 * although it also validates, solves and writes full results.
 *
 * usage: bench-floor < corpus.jsonl > /dev/null
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long long no = 0;

    while ((n = getline(&line, &cap, stdin)) > 0) {
        json_error_t err;
        json_t *rec, *input, *arr, *out;
        const char *key;
        char *text;

        no++;
        rec = json_loadb(line, (size_t)n, 0, &err);
        if (rec == NULL) {
            printf("{\"line\":%lld,\"status\":\"error\"}\n", no);
            continue;
        }
        input = json_object_get(rec, "input");
        arr = NULL;
        json_object_foreach(input, key, arr) break;
        out = json_pack("{s:I,s:s,s:I}", "line", (json_int_t)no, "status", "ok", "n",
                        (json_int_t)json_array_size(arr));
        text = json_dumps(out, JSON_COMPACT);
        puts(text);
        free(text);
        json_decref(out);
        json_decref(rec);
    }
    free(line);
    return 0;
}
