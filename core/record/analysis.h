/*
 * analysis.h - options.analysis and options.play (ABI 1.2): every legal
 * move of the start position with its value, and the grade of a line of
 * play, asked of the plugin's analyze() and rendered after the answer.
 */
#ifndef CAIRN_ANALYSIS_H
#define CAIRN_ANALYSIS_H

#include <jansson.h>
#include <stddef.h>

#include "cairn/plugin.h"
#include "codes.h"
#include "scratch.h"
#include "util.h"

/* An analysis lists at most this many moves: a row of 10^5 stones where
 * any stone may be taken would make a 2.5 MB result line nobody reads.
 * Over it the record gets too_large (play grading has no such bound). */
#define CAIRN_ANALYSIS_MAX_LISTED 10000

/* What a record asked for: options.play as jansson read it (an array),
 * or as the plain reader did (its text, n_play moves, fastparse.h), or
 * neither. */
struct cairn_analysis_req {
    int want_analysis;
    const json_t *play;
    const char *play_text;
    const char *play_end;
    size_t n_play;
};

/* 1 when the record asks for analysis or play. */
int cairn_analysis_wanted(const struct cairn_analysis_req *req);

/*
 * NAME     cairn_analysis_offered - can d answer what req asks?
 * RETURNS  0, or -1 with e set (bad_record naming the plugin and the
 *          option) when d has no analyze() (ABI 1.0 or 1.1, or left out)
 */
int cairn_analysis_offered(const struct cairn_plugin *d, const struct cairn_analysis_req *req,
                           struct cairn_rec_error *e);

/*
 * NAME     cairn_analysis_render - run analyze() and append
 *          ,"analysis":[...] and/or ,"play":{...} to out
 * ARGUMENTS prob as solve() had it (want_moves is cleared for analyze)
 * RETURNS  0, or -1 with e set: invalid_input for a move of options.play
 *          of the wrong shape or not legal (naming options.play[i]),
 *          too_large, or what the plugin reported
 */
int cairn_analysis_render(const struct cairn_plugin *d, const struct cairn_problem *prob,
                          const struct cairn_analysis_req *req, struct cairn_scratch *s,
                          struct cairn_buf *out, struct cairn_rec_error *e);

#endif /* CAIRN_ANALYSIS_H */
