/*
 * bad_totals - broken in one way: a 1.1 descriptor whose totals has a bit
 * outside enum cairn_totals (1 << 3), so the loader must refuse it, naming
 * the field.  (Every other 1.1 field rule is tested on in-memory
 * descriptors; this one goes through dlopen and cairnd --check.)
 */
#define FIXTURE_NAME    "bad-totals"
#define FIXTURE_ALIASES "bad-totals-alias", NULL
#define FIXTURE_TOTALS  (CAIRN_TOTALS_ALL | (1u << 3))
#include "fixture.h"
