/* perf-profile's pure parts: symbol tables (kallsyms, ELF) and the reduction of symbolized call
 * chains to the robot's perf-profile.{self,children,calltrace}.<event>.* percentages. */
#ifndef SCALEBENCH_PROFILE_H
#define SCALEBENCH_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Stats under this percentage of all samples are left out, as the robot does. */
#define PROFILE_MIN_PCT 0.05
/* How many frames a calltrace stat names, from its symbol outward. */
#define PROFILE_CALLTRACE_DEPTH 5

/* Copy name to buf without the compiler's clone suffixes (.isra.N, .constprop.N, .part.N,
 * .cold[.N]), which the robot strips so clones count as their function.  Returns buf. */
char *profile_strip_suffix(const char *name, char *buf, size_t len);

/* Kernel text symbols from a /proc/kallsyms file, sorted by address. */
struct ksyms {
	uint64_t *addr;
	char **name; /* suffix-stripped */
	size_t n;
	bool zeroed; /* every address read as 0: kptr_restrict hides them */
};

int ksyms_load(const char *path, struct ksyms *k, char *err, size_t errlen);
/* The function containing addr, or NULL (before the first symbol, or zeroed). */
const char *ksyms_lookup(const struct ksyms *k, uint64_t addr);
void ksyms_free(struct ksyms *k);

/* Function symbols of one ELF file (.symtab, else .dynsym) and its loadable segments. */
struct elf_segment {
	uint64_t vaddr, offset, filesz;
};

struct elf_syms {
	uint64_t *addr, *size;
	char **name;
	size_t n;
	struct elf_segment *seg;
	size_t nr_seg;
};

int elf_syms_load(const char *path, struct elf_syms *es, char *err, size_t errlen);
/* The function at file offset off (an address in a mapping minus its start plus its file
 * offset), or NULL. */
const char *elf_syms_lookup_offset(const struct elf_syms *es, uint64_t off);
void elf_syms_free(struct elf_syms *es);

/* Unique symbolized chains (leaf first) with their sample counts. */
struct profile_chain {
	char **frames;
	size_t depth;
	uint64_t count;
};

struct profile {
	struct profile_chain *chain;
	size_t n, cap;
	json_t *index; /* joined frames -> index in chain */
	uint64_t samples;
};

int profile_init(struct profile *p);
/* Count one more (or count more) sample(s) of the chain frames[0..depth), leaf first. */
int profile_add(struct profile *p, const char *const *frames, size_t depth, uint64_t count);
void profile_free(struct profile *p);

/* Add perf-profile.self.<event>.<sym> (leaf), .children.<event>.<sym> (anywhere in the chain,
 * once per sample) and .calltrace.<event>.<f>.<caller>... (each frame with up to
 * PROFILE_CALLTRACE_DEPTH - 1 callers, once per sample) as percentages of all samples, those
 * at least min_pct.  Returns 0, or -1 (out of memory). */
int profile_reduce(const struct profile *p, const char *event, double min_pct, json_t *stats);

/* [{"count": n, "chain": [leaf, caller, ...]}, ...], most samples first. */
json_t *profile_to_json(const struct profile *p);
/* The reverse; -1 with err naming what was wrong. */
int profile_from_json(const json_t *chains, struct profile *p, char *err, size_t errlen);
/* The same, added to p (initialized): several runs in one profile.  On error p keeps what
 * was added before it. */
int profile_add_json(const json_t *chains, struct profile *p, char *err, size_t errlen);

/* A perf-report-like text tree: each symbol with its children and self percentages, sorted
 * by children (or self when by_self), and below it the callers it was reached through,
 * callee first, branches under min_pct left out. */
void profile_print_report(const struct profile *p, FILE *out, bool by_self, double min_pct);

#endif
