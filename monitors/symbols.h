/* Symbol tables for perf-profile: kernel text symbols (kallsyms) and the function symbols of
 * ELF files, to name the addresses of sampled call chains. */
#ifndef SCALEBENCH_SYMBOLS_H
#define SCALEBENCH_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copy name to buf without the compiler's clone suffixes (.isra.N, .constprop.N, .part.N,
 * .cold[.N]), which the robot strips so clones count as their function.  Returns buf. */
char *symbol_strip_suffix(const char *name, char *buf, size_t len);

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

#endif
