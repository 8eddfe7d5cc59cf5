/* Job files written back: an atomic job's tree as YAML (the run's job.yaml, split's output),
 * read back by job_load as the same tree. */
#include "job_internal.h"

#include <stdio.h>
#include <string.h>

static int emit_scalar(yaml_emitter_t *e, const char *s, size_t n)
{
	yaml_event_t ev;
	/* Text that reads back as null must be quoted to stay text. */
	yaml_scalar_style_t style =
	    is_null_word(s, n) && s ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)(s ? s : ""), (int)n, 1, 1,
				     style);
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int emit_node(yaml_emitter_t *e, const json_t *v)
{
	yaml_event_t ev;
	char num[64];
	const char *k;
	json_t *c;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		json_object_foreach ((json_t *)v, k, c) {
			if (emit_scalar(e, k, strlen(k)) || emit_node(e, c))
				return -1;
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_ARRAY:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		json_array_foreach (v, i, c) {
			if (emit_node(e, c))
				return -1;
		}
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_STRING:
		return emit_scalar(e, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return emit_scalar(e, num, strlen(num));
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.17g", json_real_value(v));
		return emit_scalar(e, num, strlen(num));
	case JSON_TRUE:
		return emit_scalar(e, "true", 4);
	case JSON_FALSE:
		return emit_scalar(e, "false", 5);
	case JSON_NULL:
	default:
		return emit_scalar(e, NULL, 0);
	}
}

int job_write_yaml(const json_t *tree, FILE *out)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int ret = -1;

	if (!yaml_emitter_initialize(&e))
		return -1;
	yaml_emitter_set_output_file(&e, out);
	yaml_emitter_set_unicode(&e, 1);
	/* Never fold long values: a folded line could start with '%' and read as ERB.
	 */
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_indent(&e, 2);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(&e, &ev) || emit_node(&e, tree))
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (!yaml_emitter_emit(&e, &ev) || !yaml_emitter_flush(&e))
		goto out;
	ret = ferror(out) ? -1 : 0;
out:
	yaml_emitter_delete(&e);
	return ret;
}
