/*
 * floor-simdjson.cpp - the parser anchor: simdjson's On-Demand API does
 * the extraction cairnd's reader does, and nothing else.  For each line:
 * parse it, take id (any scalar, echoed as written), variant (a string)
 * and the first array of input into int64, then write a placeholder
 * result line.  No validation beyond what simdjson does, no solving, no
 * threads.  bench/run prints cairnd's time over this one's.
 *
 * Built only when Debian's libsimdjson-dev and a C++ compiler are present
 * (bench/meson.build); never a dependency of cairnd.
 *
 * usage: bench-floor-simdjson < corpus.jsonl > /dev/null
 */
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

using namespace simdjson;

namespace
{

/* Input is read in large blocks with simdjson's padding after the last
 * byte, so every line can be parsed in place: the bytes after a line (the
 * next lines, or the padding) are readable, which is all On-Demand asks. */
struct reader {
    std::vector<char> buf = std::vector<char>((4u << 20) + SIMDJSON_PADDING);
    size_t start = 0, end = 0;
    bool eof = false;

    /* Makes the next line [*p, *p + *n) available; false at the end. */
    bool next(const char **p, size_t *n, size_t *cap)
    {
        for (;;) {
            const char *b = buf.data() + start;
            const char *nl = static_cast<const char *>(memchr(b, '\n', end - start));
            if (nl != nullptr || (eof && end > start)) {
                *p = b;
                *n = nl != nullptr ? static_cast<size_t>(nl - b) : end - start;
                *cap = buf.size() - start;
                start += *n + (nl != nullptr);
                return true;
            }
            if (eof)
                return false;
            memmove(buf.data(), b, end - start);
            end -= start;
            start = 0;
            if (buf.size() - SIMDJSON_PADDING - end < (1u << 20))
                buf.resize(buf.size() * 2);
            ssize_t r = read(0, buf.data() + end, buf.size() - SIMDJSON_PADDING - end);
            if (r < 0) {
                perror("read");
                exit(1);
            }
            if (r == 0)
                eof = true;
            end += static_cast<size_t>(r);
            memset(buf.data() + end, 0, SIMDJSON_PADDING);
        }
    }
};

/* id, variant and the integer array of one record; false on any error. */
bool extract(ondemand::parser &parser, const char *p, size_t n, size_t cap, std::string_view *id,
             std::string_view *variant, std::vector<int64_t> *values)
{
    ondemand::document doc;
    ondemand::object obj;

    values->clear();
    *id = {};
    *variant = {};
    if (parser.iterate(padded_string_view(p, n, cap)).get(doc) || doc.get_object().get(obj))
        return false;
    for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key))
            return false;
        if (key == "id") {
            if (field.value().raw_json_token().get(*id))
                return false;
        } else if (key == "variant") {
            if (field.value().get_string().get(*variant))
                return false;
        } else if (key == "input") {
            ondemand::object input;
            if (field.value().get_object().get(input))
                return false;
            for (auto in_field : input) {
                ondemand::array arr;
                if (in_field.value().get_array().get(arr))
                    return false;
                for (auto v : arr) {
                    int64_t x;
                    if (v.get_int64().get(x))
                        return false;
                    values->push_back(x);
                }
                break;
            }
        }
    }
    return true;
}

} // namespace

int main()
{
    ondemand::parser parser;
    reader in;
    std::vector<int64_t> values;
    std::string out;
    const char *p;
    size_t n, cap;
    long long no = 0;

    while (in.next(&p, &n, &cap)) {
        std::string_view id, variant;
        char line[64];

        no++;
        if (n == 0)
            continue;
        snprintf(line, sizeof(line), "{\"line\":%lld", no);
        out += line;
        if (!extract(parser, p, n, cap, &id, &variant, &values)) {
            out += ",\"status\":\"error\"}\n";
        } else {
            if (!id.empty()) {
                out += ",\"id\":";
                out += id;
            }
            out += ",\"variant\":\"";
            out += variant;
            snprintf(line, sizeof(line), "\",\"status\":\"ok\",\"n\":%zu}\n", values.size());
            out += line;
        }
        if (out.size() >= (1u << 16)) {
            fwrite(out.data(), 1, out.size(), stdout);
            out.clear();
        }
    }
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
