/* Unit tests of lib/options: options bound to variables, defaults from the table, ranges
 * through lib/num, messages naming the option and the value, and the generated help (wrapped
 * at 100 columns, defaults and units shown, the synopsis from the same table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/errors.h"
#include "../../lib/options.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct command_def demo_command = {
    .name = "demo",
    .args = "FILE...",
    .alt = "--list [--all-of-the-long-options-to-show-how-an-alternative-form-wraps SOMETHING]",
    .summary = "A command for the tests.",
    .details = "A details line that is much longer than one hundred columns, so that the help "
	       "must wrap it at a space before the hundredth column.\n"
	       "  an indented line\n",
};

struct vars {
	bool quiet, affinity;
	const char *name, *mode;
	unsigned repeat;
	double ratio, seconds, warmup, threshold;
	struct option_tasks tasks;
	const char *seen_by_callback;
};

static int callback(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct vars *v = opt->value;

	if (!strcmp(arg, "bad")) {
		snprintf(err, errlen, "the callback refuses '%s'", arg);
		return -1;
	}
	v->seen_by_callback = arg;
	return 0;
}

/* The table of the tests, bound to v. */
#define DEMO_OPTIONS(v)                                                                            \
	{OPT_FLAG("quiet", 'q', &(v)->quiet), .help = "say less"},                                 \
	    {OPT_FLAG("no-affinity", 0, &(v)->affinity), .flags = OPTION_CLEAR,                    \
	     .help = "do not pin"},                                                                \
	    {OPT_STRING("name", 'n', &(v)->name), .arg = "NAME", .def = "anon",                    \
	     .help = "the name"},                                                                  \
	    {OPT_CHOICE("mode", 'm', &(v)->mode), .choices = "process|thread|both",                \
	     .def = "process", .help = "the mode"},                                                \
	    {OPT_COUNT("repeat", 'r', &(v)->repeat), .def = "1", .min = 1, .max = 100,             \
	     .help = "runs"},                                                                      \
	    {OPT_FLOAT("ratio", 0, &(v)->ratio), .def = "0.5", .min = 0, .max = 1,                 \
	     .help = "a ratio"},                                                                   \
	    {OPT_DURATION("seconds", 's', &(v)->seconds), .def = "5",                              \
	     .help = "a help text long enough that it cannot fit in the seventy columns left of "  \
		     "the line beside the option's name, so it is wrapped under itself"},          \
	    {OPT_DURATION("warmup", 'w', &(v)->warmup), .def = "1", .min = 0, .max = 60,           \
	     .help = "warmup"},                                                                    \
	    {OPT_PERCENT("threshold", 0, &(v)->threshold), .def = "1", .max = 1000,                \
	     .help = "noise threshold"},                                                           \
	    {OPT_TASKS("tasks", 't', &(v)->tasks), .def = "1", .max = 4096, .help = "copies"},     \
	{                                                                                          \
		OPT_CALLBACK("hook", 0, callback, (v)), .arg = "X", .def_doc = "none",             \
							.help = "a callback"                       \
	}

/* argv (NULL-terminated, without the command) parsed into v; stderr captured into err. */
static int parse(struct vars *v, char *err, size_t errlen, int *first, ...)
{
	char *argv[32] = {"demo"};
	int argc = 1, saved = dup(2), fd, rc;
	char path[] = "/tmp/scalebench-test-options.XXXXXX";
	const struct option_def opts[] = {DEMO_OPTIONS(v), {OPT_END}};
	va_list ap;
	ssize_t n;

	va_start(ap, first);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	*v = (struct vars){.affinity = true};
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	dup2(fd, 2);
	rc = options_parse(&demo_command, opts, argc, argv, first, NULL);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, errlen - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	return rc;
}

static void test_defaults(void **state)
{
	struct vars v;
	char err[1024];
	int first;
	(void)state;

	assert_int_equal(parse(&v, err, sizeof(err), &first, "a.txt", NULL), -1);
	assert_string_equal(err, "");
	assert_int_equal(first, 1);
	assert_false(v.quiet);
	assert_true(v.affinity); /* flags keep the caller's value */
	assert_string_equal(v.name, "anon");
	assert_string_equal(v.mode, "process");
	assert_int_equal(v.repeat, 1);
	assert_true(v.ratio == 0.5);
	assert_true(v.seconds == 5);
	assert_true(v.warmup == 1);
	assert_true(v.threshold == 1);
	assert_int_equal(v.tasks.n, 1);
	assert_int_equal(v.tasks.v[0], 1);
	assert_null(v.seen_by_callback);
	free(v.tasks.v);
}

static void test_binding(void **state)
{
	struct vars v;
	char err[1024];
	int first;
	(void)state;

	assert_int_equal(parse(&v, err, sizeof(err), &first, "-q", "--no-affinity", "x", "-n",
			       "bob", "--mode=thread", "-r", "7", "--ratio", "0.25", "-s", "2m",
			       "-w", "0", "--threshold", "5%", "-t", "1,2,4", "--hook", "hi", "y",
			       NULL),
			 -1);
	assert_string_equal(err, "");
	assert_true(v.quiet);
	assert_false(v.affinity);
	assert_string_equal(v.name, "bob");
	assert_string_equal(v.mode, "thread");
	assert_int_equal(v.repeat, 7);
	assert_true(v.ratio == 0.25);
	assert_true(v.seconds == 120);
	assert_true(v.warmup == 0);
	assert_true(v.threshold == 5);
	assert_int_equal(v.tasks.n, 3);
	assert_int_equal(v.tasks.v[2], 4);
	assert_string_equal(v.seen_by_callback, "hi");
	free(v.tasks.v);
	/* The operands, options taken out from among them. */
	assert_int_equal(first, 20);
}

/* Every refusal: exit status 2, one line naming the option as typed and the value. */
static void test_refusals(void **state)
{
	static const struct {
		const char *opt, *val, *says;
	} bad[] = {
	    {"-r", "0", "-r '0': expected a whole number from 1 to 100"},
	    {"--repeat", "101", "--repeat '101': expected a whole number from 1 to 100"},
	    {"--repeat", "5s", "--repeat '5s'"},
	    {"--ratio", "nan", "--ratio 'nan': expected a number from 0 to 1"},
	    {"--ratio", "1.5", "--ratio '1.5'"},
	    {"-s", "0", "-s '0': expected a duration"},
	    {"-s", "0.0000001", "-s '0.0000001'"},
	    {"-s", "inf", "-s 'inf'"},
	    {"-w", "61", "-w '61': expected a duration from 0s to 1m"},
	    {"--threshold", "5s", "--threshold '5s': expected a percentage from 0 to 1000"},
	    {"--threshold", "-nan", "--threshold '-nan'"},
	    {"-m", "fibre", "-m 'fibre': expected process, thread or both"},
	    {"-t", "0", "-t '0': expected at least 1 task"},
	    {"-t", "3-1", "backwards"},
	    {"--hook", "bad", "demo: the callback refuses 'bad'"},
	};
	struct vars v;
	char err[1024];
	int first;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sb_set_command("demo");
		if (parse(&v, err, sizeof(err), &first, bad[i].opt, bad[i].val, NULL) != 2)
			fail_msg("%s %s accepted", bad[i].opt, bad[i].val);
		if (!strstr(err, bad[i].says) || strncmp(err, "scalebench demo: ", 17) ||
		    strchr(err, '\n') != err + strlen(err) - 1)
			fail_msg("%s %s: '%s' is not one line with '%s'", bad[i].opt, bad[i].val,
				 err, bad[i].says);
		free(v.tasks.v);
	}
	assert_int_equal(parse(&v, err, sizeof(err), &first, "--frobnicate", NULL), 2);
	assert_non_null(strstr(err, "unknown option '--frobnicate'"));
	free(v.tasks.v);
	assert_int_equal(parse(&v, err, sizeof(err), &first, "-X", NULL), 2);
	assert_non_null(strstr(err, "unknown option '-X'"));
	free(v.tasks.v);
	assert_int_equal(parse(&v, err, sizeof(err), &first, "--quiet=yes", NULL), 2);
	assert_non_null(strstr(err, "option '--quiet' takes no value"));
	free(v.tasks.v);
	assert_int_equal(parse(&v, err, sizeof(err), &first, "-t", NULL), 2);
	assert_non_null(strstr(err, "option '-t' needs a value"));
	free(v.tasks.v);
	sb_set_command(NULL);
}

/* A command's declared rules: conflicts and needs, on what the command line gave. */
static const struct command_def rules_command = {
    .name = "ruled",
    .summary = "A command with rules.",
    .rules = (const struct option_rule[]){{OPTION_CONFLICTS, "png", "svg", NULL},
					  {OPTION_CONFLICTS, "json", "svg", "both print"},
					  {OPTION_NEEDS, "branch", "repo", "its order"},
					  {OPTION_NEEDS, "since", "repo", NULL},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

static int ruled(const struct command_def *cmd, char *err, size_t errlen, char **argv)
{
	const char *png = NULL, *svg = NULL, *branch = NULL, *repo = NULL, *since = NULL;
	bool json = false;
	const struct option_def opts[] = {
	    {OPT_STRING("png", 0, &png), .help = "p"},
	    {OPT_STRING("svg", 0, &svg), .help = "s"},
	    {OPT_FLAG("json", 0, &json), .help = "j"},
	    {OPT_STRING("branch", 0, &branch), .help = "b"},
	    {OPT_STRING("repo", 0, &repo), .help = "r"},
	    {OPT_STRING("since", 0, &since), .help = "x"},
	    {OPT_END},
	};
	char path[] = "/tmp/scalebench-test-options.XXXXXX";
	int argc = 0, first, saved = dup(2), fd = mkstemp(path), rc;
	ssize_t n;

	while (argv[argc])
		argc++;
	assert_true(fd >= 0);
	unlink(path);
	dup2(fd, 2);
	rc = options_parse(cmd, opts, argc, argv, &first, NULL);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, errlen - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	return rc;
}

static void test_rules(void **state)
{
	char err[512];
	(void)state;

	assert_int_equal(ruled(&rules_command, err, sizeof(err),
			       (char *[]){"ruled", "--png", "a", "--svg", "b", NULL}),
			 2);
	assert_string_equal(err, "scalebench: --png and --svg: one or the other\n");
	assert_int_equal(ruled(&rules_command, err, sizeof(err),
			       (char *[]){"ruled", "--svg", "b", "--json", NULL}),
			 2);
	assert_string_equal(err, "scalebench: --json and --svg: both print\n");
	assert_int_equal(
	    ruled(&rules_command, err, sizeof(err), (char *[]){"ruled", "--branch", "main", NULL}),
	    2);
	assert_string_equal(err, "scalebench: --branch needs --repo: its order\n");
	assert_int_equal(
	    ruled(&rules_command, err, sizeof(err), (char *[]){"ruled", "--since", "1d", NULL}), 2);
	assert_string_equal(err, "scalebench: --since needs --repo\n");
	/* What the rules allow */
	assert_int_equal(ruled(&rules_command, err, sizeof(err),
			       (char *[]){"ruled", "--branch", "main", "--repo", ".", "--png", "a",
					  "--json", NULL}),
			 -1);
	assert_string_equal(err, "");
	/* A rule naming an option the table lacks is a bug, said at once. */
	const struct command_def broken = {
	    .name = "broken",
	    .rules = (const struct option_rule[]){{OPTION_NEEDS, "png", "pgn", NULL},
						  {OPTION_RULES_END, NULL, NULL, NULL}}};
	assert_int_equal(ruled(&broken, err, sizeof(err), (char *[]){"broken", NULL}), 2);
	assert_string_equal(err,
			    "scalebench: a rule of 'broken' names --pgn, which its table lacks\n");
	const struct command_def broken_list = {
	    .name = "broken",
	    .rules = (const struct option_rule[]){{OPTION_NEEDS, "png svgg", "repo", NULL},
						  {OPTION_RULES_END, NULL, NULL, NULL}}};
	assert_int_equal(ruled(&broken_list, err, sizeof(err), (char *[]){"broken", NULL}), 2);
	assert_string_equal(err,
			    "scalebench: a rule of 'broken' names --svgg, which its table lacks\n");
}

/* Rules over lists of options, and an option given alone. */
static const struct command_def lists_command = {
    .name = "listed",
    .summary = "A command with rules over lists.",
    .rules = (const struct option_rule[]){{OPTION_ALONE, "since", "json", "it says it all"},
					  {OPTION_NEEDS, "png svg", "branch repo", NULL},
					  {OPTION_CONFLICTS, "json", "png svg", NULL},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

static void test_rule_lists(void **state)
{
	char err[512];
	(void)state;

	/* Any of a needs one of b: named, the one given and every alternative. */
	assert_int_equal(
	    ruled(&lists_command, err, sizeof(err), (char *[]){"listed", "--svg", "s", NULL}), 2);
	assert_string_equal(err, "scalebench: --svg needs --branch or --repo\n");
	assert_int_equal(ruled(&lists_command, err, sizeof(err),
			       (char *[]){"listed", "--svg", "s", "--repo", ".", NULL}),
			 -1);
	assert_int_equal(ruled(&lists_command, err, sizeof(err),
			       (char *[]){"listed", "--png", "p", "--branch", "b", NULL}),
			 -1);
	/* Any of a with any of b: the two given named. */
	assert_int_equal(ruled(&lists_command, err, sizeof(err),
			       (char *[]){"listed", "--repo", ".", "--svg", "s", "--json", NULL}),
			 2);
	assert_string_equal(err, "scalebench: --json and --svg: one or the other\n");
	/* Alone: with the options b lists, and no other. */
	assert_int_equal(ruled(&lists_command, err, sizeof(err),
			       (char *[]){"listed", "--since", "1d", "--json", NULL}),
			 -1);
	assert_string_equal(err, "");
	assert_int_equal(ruled(&lists_command, err, sizeof(err),
			       (char *[]){"listed", "--since", "1d", "--repo", ".", NULL}),
			 2);
	assert_string_equal(err, "scalebench: --since and --repo: it says it all\n");
	assert_int_equal(ruled(&lists_command, err, sizeof(err),
			       (char *[]){"listed", "--branch", "b", "--since", "1d", NULL}),
			 2);
	assert_string_equal(err, "scalebench: --since and --branch: it says it all\n");
}

static void test_required_and_bad_default(void **state)
{
	const char *who = NULL, *out = NULL;
	unsigned n = 0;
	const struct option_def req[] = {
	    {OPT_STRING("who", 0, &who), .arg = "NAME", .flags = OPTION_REQUIRED, .help = "who"},
	    {OPT_END},
	};
	const struct option_def wrong[] = {
	    {OPT_COUNT("n", 0, &n), .def = "many", .help = "n"},
	    {OPT_STRING("out", 'o', &out), .help = "out"},
	    {OPT_END},
	};
	char *argv[] = {"demo", "x", NULL}, *argv2[] = {"demo", "--who", "me", NULL};
	char *help[] = {"demo", "--help", NULL};
	int first, saved = dup(2), null = open("/dev/null", O_WRONLY);
	(void)state;

	dup2(null, 2);
	fflush(stdout);
	int saved_out = dup(1);
	dup2(null, 1);
	assert_int_equal(options_parse(&demo_command, req, 2, argv, &first, NULL), 2);
	assert_int_equal(options_parse(&demo_command, req, 3, argv2, &first, NULL), -1);
	assert_string_equal(who, "me");
	/* --help needs no required option. */
	assert_int_equal(options_parse(&demo_command, req, 2, help, &first, NULL), 0);
	/* A default the table's own type refuses is a bug, found on the first run. */
	assert_int_equal(options_parse(&demo_command, wrong, 2, argv, &first, NULL), 2);
	fflush(stdout);
	dup2(saved_out, 1);
	close(saved_out);
	dup2(saved, 2);
	close(saved);
	close(null);
}

static char *help_text(void)
{
	struct vars v = {0};
	const struct option_def opts[] = {DEMO_OPTIONS(&v), {OPT_END}};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	options_help(&demo_command, opts, f);
	fclose(f);
	return text;
}

static void test_help(void **state)
{
	char *text = help_text(), *line, *save = NULL;
	(void)state;

	/* Defaults from the table, with units; a default in words. */
	assert_non_null(strstr(text, "(default 5 s)"));
	assert_non_null(strstr(text, "(default 1%)"));
	assert_non_null(strstr(text, "(default anon)"));
	assert_non_null(strstr(text, "(default process)"));
	assert_non_null(strstr(text, "(default: none)"));
	assert_non_null(strstr(text, "  -s, --seconds SECONDS  "));
	assert_non_null(strstr(text, "  -h, --help "));
	assert_non_null(strstr(text, "\n  an indented line\n"));
	/* The synopsis from the same table. */
	assert_true(!strncmp(text,
			     "usage: scalebench demo FILE... [-q] [--no-affinity] [-n NAME] "
			     "[-m process|thread|both] [-r N]",
			     90));
	assert_non_null(strstr(text, "       scalebench demo --list\n"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > OPTIONS_WIDTH)
			fail_msg("help line over %d columns: '%s'", OPTIONS_WIDTH, line);
	free(text);
}

static void test_help_wraps_under_itself(void **state)
{
	char *text = help_text();
	char *at = strstr(text, "--seconds SECONDS");
	char *nl = at ? strchr(at, '\n') : NULL;
	(void)state;

	/* The long help goes on over two lines, the second starting in column 31. */
	assert_non_null(nl);
	assert_true(nl - at < 100);
	assert_int_equal(strspn(nl + 1, " "), 31);
	free(text);
}

/* The man page's parts from the same table: NAME from the summary, the synopsis wrapped for a
 * page, each option (help, default, the AsciiDoc of every character as it is) in OPTIONS. */
static void test_man_parts(void **state)
{
	struct vars v = {0};
	const struct option_def opts[] = {
	    DEMO_OPTIONS(&v),
	    {OPT_STRING("odd", 0, &v.name), .help = "brackets] and *stars* stay text"},
	    {OPT_END}};
	char *head = NULL, *options = NULL, *line, *save = NULL;
	size_t len;
	FILE *f;
	(void)state;

	f = open_memstream(&head, &len);
	options_man(&demo_command, opts, OPTIONS_HELP_MAN_HEAD, f);
	fclose(f);
	f = open_memstream(&options, &len);
	options_man(&demo_command, opts, OPTIONS_HELP_MAN_OPTIONS, f);
	fclose(f);
	assert_true(!strncmp(head,
			     "== NAME\n\nscalebench-demo - A command for the tests.\n\n"
			     "== SYNOPSIS\n\n....\nscalebench demo FILE... [-q]",
			     82));
	assert_non_null(strstr(head, "\n                scalebench demo --list\n") ||
			strstr(head, "\nscalebench demo --list"));
	/* (A single word longer than a line stays whole: the demo's bracketed group.) */
	for (line = strtok_r(head, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > OPTIONS_MAN_WIDTH && !strstr(line, "[--all-of-the-long"))
			fail_msg("synopsis line over %d columns: '%s'", OPTIONS_MAN_WIDTH, line);
	assert_non_null(strstr(options, "== OPTIONS\n\n*pass:c[-q]*, *pass:c[--quiet]*::\n"
					"pass:c[say less].\nifdef::opt-quiet[]\n+\n{opt-quiet}\n"
					"endif::[]\n"));
	assert_non_null(strstr(options, "*pass:c[-s]*, *pass:c[--seconds]* _pass:c[SECONDS]_::\n"));
	assert_non_null(strstr(options, "pass:c[ (default 5 s)]"));
	assert_non_null(strstr(options, "pass:c[brackets\\] and *stars* stay text]"));
	assert_non_null(strstr(options, "*pass:c[-h]*, *pass:c[--help]*::\n"));
	free(head);
	free(options);
}

/* With a man format set, --help prints that part instead of the help (the build's way in). */
static void test_help_format(void **state)
{
	struct vars v = {0};
	const struct option_def opts[] = {DEMO_OPTIONS(&v), {OPT_END}};
	char *argv[] = {"demo", "--help", NULL}, buf[8192] = "";
	int first, rc, out = dup(STDOUT_FILENO), pipefd[2];
	ssize_t n;
	(void)state;

	assert_int_equal(pipe(pipefd), 0);
	fflush(stdout);
	dup2(pipefd[1], STDOUT_FILENO);
	options_set_help_format(OPTIONS_HELP_MAN_OPTIONS);
	rc = options_parse(&demo_command, opts, 2, argv, &first, NULL);
	options_set_help_format(OPTIONS_HELP_TEXT);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	close(out);
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	buf[n > 0 ? n : 0] = '\0';
	free(v.tasks.v);
	assert_int_equal(rc, 0);
	if (strncmp(buf, "== OPTIONS\n", 11))
		fail_msg("--help printed '%.200s'", buf);
	assert_null(strstr(buf, "usage:"));
}

/* The saved state: written from the table, read back into the variables; NO_STATE options
 * left out, paths absolute, an absent key leaves the default, a wrong type is refused naming
 * the key. */
static void test_state_json(void **state)
{
	const char *repo = NULL, *good = NULL;
	unsigned runs = 0;
	double timeout = 0;
	bool slurm = false;
	const struct option_def opts[] = {
	    {OPT_STRING("repo", 0, &repo), .def = "rel/dir", .flags = OPTION_PATH},
	    {OPT_STRING("good", 0, &good), .flags = OPTION_NO_STATE},
	    {OPT_COUNT("max-runs", 0, &runs), .def = "10", .min = 3, .max = 100},
	    {OPT_DURATION("boot-timeout", 0, &timeout), .def = "600"},
	    {OPT_FLAG("slurm", 0, &slurm)},
	    {OPT_END},
	};
	char *argv[] = {"x", "--good", "abc", "--max-runs", "7", "--slurm", NULL};
	char err[256];
	int first;
	json_t *j, *k;

	(void)state;
	assert_int_equal(
	    options_parse(&(struct command_def){.name = "x"}, opts, 6, argv, &first, NULL), -1);
	j = options_to_json(opts, err, sizeof(err));
	assert_non_null(j);
	assert_null(json_object_get(j, "good"));
	assert_int_equal(json_integer_value(json_object_get(j, "max_runs")), 7);
	assert_true(json_is_true(json_object_get(j, "slurm")));
	assert_true(json_number_value(json_object_get(j, "boot_timeout")) == 600);
	assert_int_equal(json_string_value(json_object_get(j, "repo"))[0], '/');
	assert_non_null(strstr(json_string_value(json_object_get(j, "repo")), "/rel/dir"));
	/* Back: every saved value, defaults where a key is absent. */
	runs = 0;
	slurm = false;
	timeout = 5;
	json_object_del(j, "boot_timeout");
	assert_int_equal(options_from_json(opts, j, err, sizeof(err)), 0);
	assert_int_equal(runs, 7);
	assert_true(slurm);
	assert_true(timeout == 5);
	assert_ptr_equal(repo, json_string_value(json_object_get(j, "repo")));
	/* Out of range or of the wrong type: refused, the key named. */
	k = json_deep_copy(j);
	json_object_set_new(k, "max_runs", json_integer(1000));
	assert_int_equal(options_from_json(opts, k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'max_runs'"));
	json_object_set_new(k, "max_runs", json_string("7"));
	assert_int_equal(options_from_json(opts, k, err, sizeof(err)), -1);
	json_decref(k);
	json_decref(j);
	/* A value JSON cannot hold (not UTF-8) is refused, naming the option, never dropped. */
	repo = "/caf\xe9";
	assert_null(options_to_json(opts, err, sizeof(err)));
	assert_non_null(strstr(err, "--repo: byte 0xe9 at 5 is not UTF-8"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_json),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_binding),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_required_and_bad_default),
	    cmocka_unit_test(test_rules),
	    cmocka_unit_test(test_rule_lists),
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_help_wraps_under_itself),
	    cmocka_unit_test(test_man_parts),
	    cmocka_unit_test(test_help_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
