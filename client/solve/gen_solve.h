/*
 * gen_solve.h - cairn's own answers to records, for the commands that
 * need them (`cairn gen`'s expected answers, `cairn judge`'s grades, the
 * report's lines of play through the solver the command layer hands it):
 * the plugin host loads the plugins as cairnd does, and each record goes
 * through cairn_record_process(), the function cairnd's workers run.
 * client/solve/ is the only part of the client that links core's host/
 * and record/.
 */
#ifndef CAIRN_CLIENT_GEN_SOLVE_H
#define CAIRN_CLIENT_GEN_SOLVE_H

#include <stddef.h>

#include "client.h"

struct cairn_plugin;
struct cairn_gen_solver;

/* Loads dir's plugins the way cairnd does (vetting, private copies, ABI
 * versions); refusals go to stderr.  0 with *out; -EINVAL when none
 * loaded, or -ENOMEM, with a message in cl. */
int cairn_gen_solver_open(struct cairn_client *cl, const char *dir, struct cairn_gen_solver **out);
/* The same for another command: who ("report", "judge") names it in the
 * refusals logged and the messages ("report: plugin refused ...");
 * cairn_gen_solver_open() is who "gen". */
int cairn_gen_solver_open_as(struct cairn_client *cl, const char *dir, const char *who,
                             struct cairn_gen_solver **out);
/* The plugin answering to name (or alias), or NULL. */
const struct cairn_plugin *cairn_gen_solver_find(const struct cairn_gen_solver *s,
                                                 const char *name);
/*
 * NAME     cairn_gen_solve - cairn's answer to one record
 * ARGUMENTS line/len: the record without "expected"
 * RETURNS  0 with the answer's JSON text in *answer (valid until the next
 *          call); -EPROTO with the result line in cl's message when the
 *          record is refused; -ENOMEM
 * NOTES    the record goes through cairn_record_process(), the function
 *          every worker of cairnd runs, so "expected" is cairnd's answer
 *          byte for byte.
 */
int cairn_gen_solve(struct cairn_gen_solver *s, struct cairn_client *cl, const char *line,
                    size_t len, const char **answer);
/* The whole result line cairnd would write for the record (an error
 * line too), valid until the next call: 0, or -ENOMEM. */
int cairn_gen_solve_line(struct cairn_gen_solver *s, const char *line, size_t len,
                         const char **result, size_t *result_len);
/*
 * NAME     cairn_gen_solve_result - one record's whole result line, parsed
 * RETURNS  0 with *res (the caller's to json_decref), whatever its status;
 *          -ENOMEM
 * NOTES    `cairn judge` reads "status" (legal or not), "answer", "moves"
 *          and "play" from it.
 */
struct json_t;
int cairn_gen_solve_result(struct cairn_gen_solver *s, const char *line, size_t len,
                           struct json_t **res);
void cairn_gen_solver_close(struct cairn_gen_solver *s);

#endif /* CAIRN_CLIENT_GEN_SOLVE_H */
