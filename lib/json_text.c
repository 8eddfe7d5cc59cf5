#include "json_text.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int json_set_text(json_t *o, const char *key, const char *s)
{
	char *shown, *hex, *bytes_key;
	size_t len;
	int rc;

	if (!s)
		return json_object_set_new(o, key, json_null());
	if (!utf8_first_bad(s))
		return json_object_set_new(o, key, json_string(s));
	len = strlen(s);
	shown = utf8_replaced(s);
	hex = malloc(2 * len + 1);
	bytes_key = malloc(strlen(key) + sizeof("_bytes"));
	rc = -1;
	if (shown && hex && bytes_key) {
		for (size_t i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
		hex[2 * len] = '\0';
		strcpy(bytes_key, key);
		strcat(bytes_key, "_bytes");
		rc = json_object_set_new(o, key, json_string(shown)) ||
			     json_object_set_new(o, bytes_key, json_string(hex))
			 ? -1
			 : 0;
	}
	free(shown);
	free(hex);
	free(bytes_key);
	return rc;
}

json_t *json_text(const char *s)
{
	char *shown;
	json_t *j;

	if (!s)
		return json_null();
	if (!utf8_first_bad(s))
		return json_string(s);
	shown = utf8_replaced(s);
	j = shown ? json_string(shown) : NULL;
	free(shown);
	return j;
}
