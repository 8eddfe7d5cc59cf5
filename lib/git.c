#include "git.h"
#include "run_command.h"
#include "strvec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int git_run(const char *repo, const char *const *args, unsigned flags, char **out, char *err,
	    size_t errlen)
{
	struct strvec argv = STRVEC_INIT;
	struct child_process git = {.out = out ? RUN_OUT_CAPTURE : RUN_OUT_NULL,
				    .err = flags & GIT_STDERR_TO_OUT ? RUN_OUT_STDOUT
								     : RUN_OUT_CAPTURE,
				    .err_text = {.max = 4096},
				    .end_group = true,
				    .no_forward = (flags & GIT_NO_FORWARD) != 0};
	char why[512];
	int rc = -1;

	if (out)
		*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (strvec_push(&argv, "git") || strvec_push(&argv, "-C") || strvec_push(&argv, repo))
		goto nomem;
	for (size_t i = 0; args[i]; i++)
		if (strvec_push(&argv, args[i]))
			goto nomem;
	git.argv = (const char *const *)argv.v;
	if (child_run(&git, why, sizeof(why))) {
		if (errlen)
			snprintf(err, errlen, "%s", why);
		goto done;
	}
	rc = child_status(&git);
	if (rc != 0 && errlen) {
		const char *e = git.err_text.p ? git.err_text.p : "";

		if (flags & GIT_STDERR_TO_OUT)
			e = git.out_text.p ? git.out_text.p : "";
		snprintf(err, errlen, "git -C %s %s%s%s failed: %.*s", repo, args[0] ? args[0] : "",
			 args[0] && args[1] ? " " : "", args[0] && args[1] ? args[1] : "",
			 (int)strcspn(e, "\n"), e);
	}
	if (out) {
		*out = git.out_text.p ? git.out_text.p : strdup("");
		git.out_text.p = NULL;
		if (!*out) {
			rc = -1;
			goto nomem;
		}
	}
	goto done;
nomem:
	if (errlen)
		snprintf(err, errlen, "git: %s", strerror(ENOMEM));
done:
	child_release(&git);
	strvec_clear(&argv);
	return rc;
}

int git_line(const char *repo, const char *const *args, char *line, size_t len)
{
	char *out = NULL;
	int rc = repo ? git_run(repo, args, 0, &out, NULL, 0) : -1;

	line[0] = '\0';
	if (rc == 0 && out && *out)
		snprintf(line, len, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	return line[0] ? 0 : -1;
}

bool git_is_oid(const char *s)
{
	size_t n = 0;

	while (isxdigit((unsigned char)s[n]) && !isupper((unsigned char)s[n]))
		n++;
	return !s[n] && (n == 40 || n == 64);
}

bool git_is_abbrev(const char *s, size_t min)
{
	size_t n = 0;

	while (isxdigit((unsigned char)s[n]))
		n++;
	return !s[n] && n >= min && n <= 64;
}

int git_commit_oid(const char *repo, const char *rev, char *oid, size_t len)
{
	char spec[512];

	oid[0] = '\0';
	if (rev[0] == '-' ||
	    (size_t)snprintf(spec, sizeof(spec), "%s^{commit}", rev) >= sizeof(spec))
		return -1;
	if (git_line(repo, GIT_ARGS("rev-parse", "--verify", "--quiet", spec), oid, len) ||
	    !git_is_oid(oid)) {
		oid[0] = '\0';
		return -1;
	}
	return 0;
}
