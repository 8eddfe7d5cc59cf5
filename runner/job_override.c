/* Job files, before expansion: `scalebench run --set KEY=VALUE` (and --runtime, --nr-task)
 * applied to the parsed documents, so a value set on the command line is what the key
 * would be in the file: it replaces a list (one dimension fewer), lands in path_params and
 * in each run's job.yaml. */
#include "job_internal.h"

#include <string.h>

/* Where key is in one document: the object holding it and the key inside that object.
 * A bare key is looked for at the top and, as LKP's test/mode are, in the will-it-scale
 * block; a dotted key names a block and a key in it (cgroup2.memory.high), unless the
 * document has the whole dotted key at the top. */
static json_t *key_home(json_t *doc, const char *key, const char **inner, bool create)
{
	const char *dot = strchr(key, '.');
	json_t *block;

	*inner = key;
	if (json_object_get(doc, key))
		return doc;
	if (!dot) {
		block = json_object_get(doc, "will-it-scale");
		if (json_is_object(block) && json_object_get(block, key))
			return block;
		return create ? doc : NULL;
	}
	char head[256];
	size_t n = (size_t)(dot - key);

	if (n >= sizeof(head))
		return NULL;
	memcpy(head, key, n);
	head[n] = '\0';
	*inner = dot + 1;
	block = json_object_get(doc, head);
	if (json_is_object(block))
		return create || json_object_get(block, *inner) ? block : NULL;
	if (!create || (block && !json_is_null(block)))
		return NULL;
	block = json_object();
	json_object_set_new(doc, head, block);
	return block;
}

/* The value as the file would hold it written plain there: LKP's `-s KEY: VALUE` is YAML. */
static json_t *override_value(struct loader *l, const char *text)
{
	json_t *v = json_string(text);

	if (v && !job_plain_is_text(text, strlen(text)) && mark_plain(l, v)) {
		json_decref(v);
		return NULL;
	}
	return v;
}

int apply_overrides(struct loader *l, json_t *docs, const struct job_override *ov, size_t n_ov)
{
	if (!json_array_size(docs))
		return 0;
	for (size_t i = 0; i < n_ov; i++) {
		const char *key = ov[i].key, *inner;
		bool found = false;
		size_t d;
		json_t *doc, *home;

		if (!*key || key[0] == '.' || key[strlen(key) - 1] == '.')
			return fail(l, NULL, "--set '%s=%s': expected KEY=VALUE with a key name",
				    key, ov[i].value);
		/* Every document that has the key gets the value; where none has it, the
		 * first (the header of a multi-document file) does. */
		json_array_foreach (docs, d, doc) {
			home = key_home(doc, key, &inner, false);
			if (!home)
				continue;
			if (json_object_set_new(home, inner, override_value(l, ov[i].value)))
				return fail(l, NULL, "--set %s: the value is not UTF-8 text", key);
			found = true;
		}
		if (found)
			continue;
		home = key_home(json_array_get(docs, 0), key, &inner, true);
		if (!home)
			return fail(
			    l, NULL,
			    "--set %s: '%.*s' is not a map in the job file; expected KEY or "
			    "BLOCK.KEY with BLOCK a map (or absent)",
			    key, (int)(strchr(key, '.') - key), key);
		if (json_object_set_new(home, inner, override_value(l, ov[i].value)))
			return fail(l, NULL, "--set %s: the value is not UTF-8 text", key);
	}
	return 0;
}
