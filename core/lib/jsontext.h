/*
 * jsontext.h - JSON as text, for messages and echoes: where a top-level
 * member's value is written in a line, byte for byte; a value's type in
 * words.
 *
 * jansson keeps a real as a double, so 0.1 would be echoed back as
 * 0.10000000000000001 and 1.50 as 1.5; a record's id is echoed exactly as
 * written, since users join results on it.
 */
#ifndef CAIRN_JSONTEXT_H
#define CAIRN_JSONTEXT_H

#include <jansson.h>
#include <stddef.h>

/*
 * NAME     cairn_json_member_text - the text of member key of the object
 * ARGUMENTS line, len: one JSON object that a strict parser has accepted
 * RETURNS  1 with *val and *val_len set to the value's text (inside line);
 *          0 when there is no such member at the top level
 * NOTES    keys are compared after decoding their escapes, as a parser
 *          would; nested objects and arrays are skipped, not searched.
 */
int cairn_json_member_text(const char *line, size_t len, const char *key, const char **val,
                           size_t *val_len);

/*
 * NAME     cairn_json_member_before - the top-level member a byte is in
 * ARGUMENTS text, len: a JSON object a strict parser accepted up to pos,
 *          where it stopped (a number too big for it, say)
 * RETURNS  1 with *key and *key_len set to the raw name (inside text, its
 *          escapes kept) of the last member whose value starts at or
 *          before pos; 0 when there is none
 */
int cairn_json_member_before(const char *text, size_t len, size_t pos, const char **key,
                             size_t *key_len);

/* "an object", "a string", ...: a value's type, for messages. */
const char *cairn_json_type_name(const json_t *v);

#endif /* CAIRN_JSONTEXT_H */
