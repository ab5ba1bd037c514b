/*
 * layout.h - every name cairn gives a file or folder on disk, spelled
 * once (as Postfix's mail_queue.h spells its queues), for cairnd and the
 * client alike.  docs/contract.md, "The spool", describes the layout.
 *
 *   INPUT/NAME.jsonl                   a job, waiting
 *   INPUT/.cairn/active/NAME.jsonl     claimed, running (NAME~2.jsonl ...
 *                                      when a finished run has the name)
 *   INPUT/.cairn/active/.cairn-KIND.HASH
 *                                      what a job was submitted as, or is
 *                                      handed back as (marks.h), its crash
 *                                      count on some file systems
 *   INPUT/.cairn/done/, failed/        its input once it ended
 *   INPUT/.cairn/status/HOST.PID.R.json  each live daemon's status file
 *   OUTPUT/NAME.results.jsonl, NAME.summary.json, NAME.reason.json
 *   .cairn.<32 hex>.<kind>.tmp         a temporary, anywhere (tmpfile.h)
 *
 * The crash count rides on the input itself, as an extended attribute.
 */
#ifndef CAIRN_LAYOUT_H
#define CAIRN_LAYOUT_H

#define CAIRN_JOB_SUFFIX     ".jsonl"
#define CAIRN_JOB_SUFFIX_LEN (sizeof(CAIRN_JOB_SUFFIX) - 1)
#define CAIRN_RESULTS_SUFFIX ".results.jsonl"
#define CAIRN_SUMMARY_SUFFIX ".summary.json"
#define CAIRN_REASON_SUFFIX  ".reason.json"

/* NAME~N.jsonl: the Nth run of a name whose earlier runs' outputs stay. */
#define CAIRN_RUN_MARK "~"

/* The daemon's own state, a hidden folder in the input directory. */
#define CAIRN_STATE_DIR      ".cairn"
#define CAIRN_ACTIVE_DIR     "active"
#define CAIRN_DONE_DIR       "done"
#define CAIRN_FAILED_DIR     "failed"
#define CAIRN_STATUS_DIR     "status"
#define CAIRN_ATTEMPTS_XATTR "user.cairn.attempts"

/* The state folders as paths from the input directory, for messages
 * (names.h's cairn_state_path() builds one at run time). */
#define CAIRN_ACTIVE_PATH CAIRN_STATE_DIR "/" CAIRN_ACTIVE_DIR
#define CAIRN_DONE_PATH   CAIRN_STATE_DIR "/" CAIRN_DONE_DIR
#define CAIRN_FAILED_PATH CAIRN_STATE_DIR "/" CAIRN_FAILED_DIR
#define CAIRN_STATUS_PATH CAIRN_STATE_DIR "/" CAIRN_STATUS_DIR

/* Records beside a claimed job in active/, .cairn-KIND.HASH (names.h):
 * its crash count where the file system keeps no user attributes
 * (attempts.h), what it was submitted as and handed back as (marks.h). */
#define CAIRN_RECORD_PREFIX    ".cairn-"
#define CAIRN_RECORD_ATTEMPTS  "attempts"
#define CAIRN_RECORD_SUBMITTED "submitted"
#define CAIRN_RECORD_HANDBACK  "handback"

#endif /* CAIRN_LAYOUT_H */
