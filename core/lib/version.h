/*
 * version.h - cairn's version string.  The build passes it (meson's
 * project version); this default is for builds that do not, such as the
 * fuzz targets, which compile the core sources on their own.
 */
#ifndef CAIRN_VERSION_H
#define CAIRN_VERSION_H

#ifndef CAIRN_VERSION
#define CAIRN_VERSION "0.0.0"
#endif

#endif /* CAIRN_VERSION_H */
