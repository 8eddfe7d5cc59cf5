/* scalebench: one binary, subcommands dispatched from a table (as git and perf do). */
#include "builtin/builtin.h"
#include "lib/exit.h"
#include "lib/options.h"
#include "lib/text.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SCALEBENCH_VERSION
#define SCALEBENCH_VERSION "0.1"
#endif

struct command {
	const struct command_def *def;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
    {&bench_command, cmd_bench},     {&bisect_command, cmd_bisect},
    {&compare_command, cmd_compare}, {&list_command, cmd_list},
    {&plot_command, cmd_plot},	     {&report_command, cmd_report},
    {&profile_command, cmd_profile}, {&run_command, cmd_run},
    {&split_command, cmd_split},     {&lkp_matrix_command, cmd_lkp_matrix},
    {&trend_command, cmd_trend},     {&index_command, cmd_index},
    {&results_command, cmd_results}, {&nightly_command, cmd_nightly},
    {&html_command, cmd_html},	     {&status_command, cmd_status},
    {&wait_command, cmd_wait},	     {&submit_command, cmd_submit},
};

#define SUMMARY "Scalability regression detection for the Linux kernel."

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: scalebench COMMAND [options]\n\n" SUMMARY "\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].def->name, commands[i].def->summary);
	fprintf(out, "\n'scalebench COMMAND --help' (or 'scalebench help COMMAND') shows a "
		     "command's options.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].def->name))
			return &commands[i];
	return NULL;
}

/* An unknown command: the closest ones named (git's "did you mean"), else a pointer to the
 * list, not the list itself. */
static void unknown_command(const char *name)
{
	struct text_closest c = TEXT_CLOSEST_INIT(name);
	char list[256] = "";
	size_t len = 0;

	for (size_t i = 0; i < NR_COMMANDS; i++)
		text_closest_offer(&c, commands[i].def->name);
	for (size_t i = 0; i < NR_COMMANDS && c.best; i++) /* every one as close */
		if (text_distance(name, commands[i].def->name) == c.d && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'",
						len ? " or " : "", commands[i].def->name);
	if (len)
		sb_error("unknown command '%s'; did you mean %s?", name, list);
	else
		sb_error("unknown command '%s' (see 'scalebench --help')", name);
}

/* Nothing to do: a write to a closed pipe then fails with EPIPE instead of killing us, so
 * a pager that quits early costs neither the benchmark in progress nor its results, and the
 * lost output is said at exit.  A handler, unlike SIG_IGN, is reset by exec: the programs
 * we start (gnuplot, git, a bisect's build) get the default back. */
static void on_sigpipe(int sig)
{
	(void)sig;
}

/* The format pages: scalebench help NAME shows scalebench-NAME(SECTION).  (results is a
 * command: its format page is man 5 scalebench-results.) */
static const struct {
	const char *name;
	char section;
} format_pages[] = {{"job", '5'}, {"testcases", '7'}, {"monitors", '7'}};

/* The installed page scalebench-NAME.SECTION, as make install lays it beside the binary
 * (bin/../share/man/manSECTION/), into path: false when there is none. */
static bool installed_page(const char *name, char section, char *path, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	snprintf(path, len, "%s/../share/man/man%c/scalebench-%s.%c", exe, section, name, section);
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* man shows the page, or returns when it cannot be started. */
static void show_page(const char *path)
{
	fflush(stdout);
	execlp("man", "man", "-l", path, (char *)NULL);
}

/* The parts of scalebench(1) that come from the command table, in AsciiDoc (the build's). */
static void man_main(FILE *out, enum options_help_format part)
{
	if (part == OPTIONS_HELP_MAN_HEAD) {
		fprintf(out, "== NAME\n\nscalebench - " SUMMARY
			     "\n\n== SYNOPSIS\n\n....\nscalebench [--version] [--help] COMMAND "
			     "[ARGS]\nscalebench help [COMMAND | PAGE]\n....\n");
		return;
	}
	fprintf(out, "== COMMANDS\n\n");
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		fprintf(out, "*scalebench-%s*(1)::\n", commands[i].def->name);
		options_adoc_text(out, commands[i].def->summary);
		fprintf(out, "\n\n");
	}
}

/* scalebench help [--format=F] [COMMAND | PAGE]: a command's page when it is installed, else
 * its --help; a format page (job, testcases, monitors) when installed.  The formats
 * beside text are the build's (Documentation/): the pages' parts generated from the tables. */
static int help(int argc, char **argv)
{
	static const char *const formats[] = {[OPTIONS_HELP_TEXT] = "text",
					      [OPTIONS_HELP_MAN_HEAD] = "man-head",
					      [OPTIONS_HELP_MAN_OPTIONS] = "man-options"};
	char flag[] = "--help", *args[3] = {NULL, flag, NULL}, path[PATH_MAX + 64];
	const struct command *cmd;
	int format = -1, i = 2;

	if (argc > 2 && !strncmp(argv[2], "--format=", 9)) {
		for (format = 0; format < 3 && strcmp(argv[2] + 9, formats[format]); format++)
			;
		if (format == 3) {
			sb_error(
			    "help: unknown format '%s'; expected text, man-head or man-options",
			    argv[2] + 9);
			return SB_EXIT_ERROR;
		}
		i++;
	}
	if (argc > i + 1) {
		sb_error("help: one command at a time");
		usage(stderr);
		return SB_EXIT_ERROR;
	}
	if (argc == i) {
		if (format > OPTIONS_HELP_TEXT) {
			man_main(stdout, (enum options_help_format)format);
			return SB_EXIT_OK;
		}
		usage(stdout);
		return SB_EXIT_OK;
	}
	cmd = find_command(argv[i]);
	if (!cmd) {
		for (size_t k = 0; k < sizeof(format_pages) / sizeof(format_pages[0]); k++) {
			if (strcmp(argv[i], format_pages[k].name))
				continue;
			if (installed_page(argv[i], format_pages[k].section, path, sizeof(path)))
				show_page(path);
			sb_error(
			    "help: scalebench-%s(%c) is not installed (make install; its source "
			    "is Documentation/scalebench-%s.%c.txt)",
			    argv[i], format_pages[k].section, argv[i], format_pages[k].section);
			return SB_EXIT_ERROR;
		}
		unknown_command(argv[i]);
		return SB_EXIT_ERROR;
	}
	if (format < 0 && installed_page(cmd->def->name, '1', path, sizeof(path)))
		show_page(path);
	if (format > 0)
		options_set_help_format((enum options_help_format)format);
	sb_set_command(cmd->def->name);
	args[0] = argv[i];
	return cmd->fn(2, args);
}

static int dispatch(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stderr);
		return SB_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return SB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("scalebench %s\n", SCALEBENCH_VERSION);
		return SB_EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	cmd = find_command(argv[1]);
	if (!cmd) {
		unknown_command(argv[1]);
		return SB_EXIT_ERROR;
	}
	sb_set_command(cmd->def->name);
	return cmd->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_sigpipe, .sa_flags = SA_RESTART};
	int rc;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	rc = dispatch(argc, argv);
	/* Whatever the command did, output that did not arrive is an error. */
	if (sb_close_stdout() && rc < SB_EXIT_ERROR)
		rc = SB_EXIT_ERROR;
	return rc;
}
