/*
 * codes.h - the result codes of docs/contract.md, Errors, and the error a record's
 * checks carry up to the line that reports it.
 */
#ifndef CAIRN_CODES_H
#define CAIRN_CODES_H

enum cairn_code {
    CAIRN_CODE_BAD_JSON = 0,
    CAIRN_CODE_BAD_RECORD,
    CAIRN_CODE_UNKNOWN_VARIANT,
    CAIRN_CODE_INVALID_INPUT,
    CAIRN_CODE_CONSTRAINT,
    CAIRN_CODE_TOO_LARGE,
    CAIRN_CODE_INTERNAL,
    CAIRN_CODE_COUNT
};

/* "bad_json", "bad_record", ... as in docs/contract.md, Errors. */
const char *cairn_code_name(enum cairn_code code);

/* Why a record got an error line. */
struct cairn_rec_error {
    enum cairn_code code;
    int out_of_memory; /* internal because memory ran out: the machine's, not the record's */
    char msg[512];
};

/* Sets e (code and formatted message); returns -1, for
 * "return cairn_rec_fail(...)". */
int cairn_rec_fail(struct cairn_rec_error *e, enum cairn_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* cairn_rec_fail with CAIRN_CODE_INTERNAL for memory that ran out: the
 * tally counts it apart (out_of_memory), so a daemon can run the job again
 * rather than publish an answer the machine, not the record, denied. */
int cairn_rec_oom(struct cairn_rec_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* CAIRN_CODES_H */
