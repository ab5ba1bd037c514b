/*
 * engine.h - the record engine: bytes in, ordered result lines out.
 *
 * Three parts, each with its own header: the line cutter (linecut.h,
 * plain C), the batches and workers (pool.h), and the stream that reads a
 * source into batches and hands their results to a sink in input order
 * (stream.h).  A job file's source and results sink are source.h and
 * filesink.h.
 */
#ifndef CAIRN_ENGINE_H
#define CAIRN_ENGINE_H

#include "linecut.h"
#include "pool.h"
#include "stream.h"

#endif /* CAIRN_ENGINE_H */
