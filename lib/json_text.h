/* Names read from the disk (directories, labels) into jansson documents, never dropped: jansson
 * takes UTF-8 only (json_string, json_pack "s" give NULL otherwise, and the member or the whole
 * object silently goes missing).  A name that is not UTF-8 is written with U+FFFD for each bad
 * byte, and its bytes beside it, so a script can tell it is not the name and still find it. */
#ifndef SCALEBENCH_JSON_TEXT_H
#define SCALEBENCH_JSON_TEXT_H

#include <jansson.h>

/* o[key] = s (NULL: null).  When s is not UTF-8: o[key] = s with U+FFFD for each byte that is
 * not, and o[key + "_bytes"] = s's bytes in hexadecimal (bytes.fromhex gives them back).  0, or
 * -1 when out of memory. */
int json_set_text(json_t *o, const char *key, const char *s);

/* s as a JSON string, with U+FFFD for each byte that is not UTF-8 (json_string would give
 * NULL); json_null() for NULL.  NULL only when out of memory. */
json_t *json_text(const char *s);

#endif
