/* nightly's state file and the mbox look-up: whatever the file holds, the reader refuses it
 * with a message or reads a state that, written back and read again, is the same state; the
 * input read as an mbox never crashes the Message-ID search.
 * Corpus: tests/fuzz/corpus/nightly_state (state files as nightly writes them: version 2's lines,
 * names as {"hex"} among them, and version 1's document). */
#include "fuzz.h"
#include "../../analyze/nightly_state.h"

static void differ(const char *what)
{
	fprintf(stderr, "nightly state read back differs: %s\n", what);
	abort();
}

static void same_state(const struct nightly_state *a, const struct nightly_state *b)
{
	if (a->n != b->n)
		differ("message count");
	for (size_t i = 0; i < a->n; i++) {
		const struct nightly_message *x = &a->msgs[i], *y = &b->msgs[i];

		if (strcmp(x->message_id, y->message_id) || x->mailed != y->mailed ||
		    x->time != y->time || x->nkeys != y->nkeys)
			differ("a message");
		if (!x->mailed && strcmp(x->text, y->text))
			differ("a pending message's text");
		for (size_t k = 0; k < x->nkeys; k++)
			if (strcmp(x->keys[k].job, y->keys[k].job) ||
			    strcmp(x->keys[k].stat, y->keys[k].stat) ||
			    strcmp(x->keys[k].commit, y->keys[k].commit) ||
			    strcmp(x->keys[k].kind, y->keys[k].kind) ||
			    x->keys[k].nrange != y->keys[k].nrange)
				differ("a change");
			else
				for (size_t r = 0; r < x->keys[k].nrange; r++)
					if (strcmp(x->keys[k].range[r], y->keys[k].range[r]))
						differ("a change's range");
		if ((x->follow_up_of == NULL) != (y->follow_up_of == NULL) ||
		    (x->follow_up_of && strcmp(x->follow_up_of, y->follow_up_of)))
			differ("follow_up_of");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_file(data, size);
	char again[PATH_MAX], err[PATH_MAX + 512];
	struct nightly_state st, back;
	bool found;

	if (nightly_state_load(path, &st, err, sizeof(err)) == 0) {
		snprintf(again, sizeof(again), "%s/again.json", fuzz_scratch());
		free(st.path);
		st.path = strdup(again);
		if (!st.path || nightly_state_save(&st, err, sizeof(err)))
			fuzz_die("writing the state back");
		if (nightly_state_load(again, &back, err, sizeof(err)))
			differ(err);
		same_state(&st, &back);
		nightly_state_free(&back);
	} else {
		fuzz_check_opened(err);
		if (!strstr(err, path))
			differ("the refusal does not name the file");
	}
	nightly_state_free(&st);
	if (nightly_mbox_has(path, "<a@b>", &found, err, sizeof(err)))
		fuzz_check_opened(err);
	return 0;
}
