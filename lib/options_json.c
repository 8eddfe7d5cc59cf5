/* The saved state of a command's options: its option table to a JSON object and back. */
#include "options.h"
#include "file.h"
#include "utf8.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The option's key: its state_key, else its name with '_' for '-'. */
static const char *state_key(const struct option_def *o, char *buf, size_t len)
{
	if (o->state_key)
		return o->state_key;
	snprintf(buf, len, "%s", o->name);
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
	return buf;
}

static bool saved(const struct option_def *o)
{
	return !(o->flags & OPTION_NO_STATE) && o->type != OPTION_TASKS &&
	       (o->type != OPTION_CALLBACK || (o->save && o->load));
}

/* o's value as JSON, or NULL when unset (*bad: it cannot be saved, err says why). */
static json_t *value_json(const struct option_def *o, bool *bad, char *err, size_t errlen)
{
	char abs[PATH_MAX], name[128];
	const char *s;
	json_t *v;

	*bad = false;
	switch (o->type) {
	case OPTION_FLAG:
		return json_boolean(*(bool *)o->value);
	case OPTION_STRING:
	case OPTION_CHOICE:
		s = *(const char **)o->value;
		if (!s)
			return NULL;
		if (o->flags & OPTION_PATH) {
			path_absolute(s, abs, sizeof(abs));
			s = abs;
		}
		snprintf(name, sizeof(name), "--%s", o->name);
		if (utf8_check(name, s, err, errlen)) {
			*bad = true;
			return NULL;
		}
		return json_string(s);
	case OPTION_COUNT:
		return json_integer(*(unsigned *)o->value);
	case OPTION_FLOAT:
	case OPTION_DURATION:
	case OPTION_PERCENT:
		return json_real(*(double *)o->value);
	case OPTION_CALLBACK:
		/* A save gives its value, never NULL: an array of what was given, maybe empty. */
		if (!(v = o->save(o))) {
			snprintf(err, errlen, "--%s: a value that is not UTF-8 text", o->name);
			*bad = true;
		}
		return v;
	default:
		return NULL;
	}
}

json_t *options_to_json(const struct option_def *opts, char *err, size_t errlen)
{
	json_t *obj = json_object();
	char key[128];
	bool bad = false;

	if (!obj)
		snprintf(err, errlen, "out of memory");
	for (const struct option_def *o = opts; obj && o->type != OPTION_END; o++) {
		json_t *v;

		if (!saved(o) || !(v = value_json(o, &bad, err, errlen))) {
			if (bad) {
				json_decref(obj);
				return NULL;
			}
			continue;
		}
		if (json_object_set_new(obj, state_key(o, key, sizeof(key)), v)) {
			snprintf(err, errlen, "out of memory");
			json_decref(obj);
			obj = NULL;
		}
	}
	return obj;
}

/* A saved value is set as the command line sets it (option_apply: the same parser, the same
 * bounds), so a log edited by hand cannot give what the command line refuses. */
static int value_set(const struct option_def *o, json_t *v, const char *key, char *err,
		     size_t errlen)
{
	const char *want = NULL;
	char text[64], why[256];

	switch (o->type) {
	case OPTION_FLAG:
		if (!json_is_boolean(v))
			want = "true or false";
		else
			*(bool *)o->value = json_is_true(v);
		break;
	case OPTION_STRING:
		if (!json_is_string(v))
			want = "a string";
		else
			*(const char **)o->value = json_string_value(v);
		break;
	case OPTION_CHOICE:
	case OPTION_COUNT:
	case OPTION_FLOAT:
	case OPTION_DURATION:
	case OPTION_PERCENT:
		if (o->type == OPTION_CHOICE ? !json_is_string(v)
		    : o->type == OPTION_COUNT ? !json_is_integer(v)
					      : !json_is_number(v)) {
			want = o->type == OPTION_CHOICE  ? "a string"
			       : o->type == OPTION_COUNT ? "a count"
							 : "a number";
			break;
		}
		if (json_is_integer(v))
			snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(text, sizeof(text), "%.17g", json_real_value(v));
		if (option_apply(o, json_is_string(v) ? json_string_value(v) : text, why,
				 sizeof(why))) {
			snprintf(err, errlen, "'%s': %s (the saved --%s)", key, why, o->name);
			return -1;
		}
		break;
	case OPTION_CALLBACK:
		return o->load(o, v, err, errlen);
	default:
		break;
	}
	if (want) {
		snprintf(err, errlen, "'%s': expected %s (the saved --%s)", key, want, o->name);
		return -1;
	}
	return 0;
}

int options_from_json(const struct option_def *opts, json_t *obj, char *err, size_t errlen)
{
	char key[128];

	if (!json_is_object(obj)) {
		snprintf(err, errlen, "the saved options: expected an object");
		return -1;
	}
	for (const struct option_def *o = opts; o->type != OPTION_END; o++) {
		const char *k;
		json_t *v;

		if (!saved(o))
			continue;
		k = state_key(o, key, sizeof(key));
		v = json_object_get(obj, k);
		if (v && value_set(o, v, k, err, errlen))
			return -1;
	}
	return 0;
}
