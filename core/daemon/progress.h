/*
 * progress.h - `cairnd --once` on a terminal draws one live line on
 * stderr; off a terminal, nothing.
 */
#ifndef CAIRN_PROGRESS_H
#define CAIRN_PROGRESS_H

#include "daemon_ctx.h"

void cairn_progress_start(struct cairn_daemon *d);
void cairn_progress_stop(struct cairn_daemon *d);

#endif /* CAIRN_PROGRESS_H */
