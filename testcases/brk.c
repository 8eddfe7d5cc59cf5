/* The break is per process, so in thread mode every copy moves the same one, as in
 * will-it-scale.  That is safe because each call names an absolute address: global_prepare
 * picks one base for the whole run, and every copy only ever asks for base + one page or for
 * base.  Whatever the interleaving, each call reaches its target (the kernel serialises them
 * on mmap_lock, which is what thread mode measures), so each is checked and counted.
 *
 * The base is not the break malloc left: it sits a gap above it.  If anything in the process
 * (glibc's main arena, in the host thread) grew the heap during a run, a loop at the old
 * break would unmap that memory on its next step down.  Moving the break by raw syscall
 * leaves glibc's cached break where it was, so such growth lands in the gap, which is mapped,
 * never touched, and far from the pages the copies move.
 *
 * A PROT_NONE page ends the gap, so the VMA below the base never has the flags of a new brk
 * page: at the base itself (brk1) each step up makes a new VMA and each step down removes
 * it; one page above it (brk2) the page grown first is a VMA of its own that each step
 * extends and shrinks. */
#include "brk.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Room for several of glibc's 128 KiB heap steps, yet inside valgrind's 8 MiB brk segment. */
#define GAP (1ul << 20)

/* brk(2) as the kernel has it: returns the new break, or the old one on failure. */
static uintptr_t set_break(uintptr_t addr)
{
	return (uintptr_t)syscall(SYS_brk, addr);
}

int brk_global_prepare(struct tc_run *run, unsigned grown_pages)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	/* sbrk(0) first: it makes glibc cache the break as it is now, if it had not yet. */
	uintptr_t libc_break = (uintptr_t)sbrk(0);
	uintptr_t cur = set_break(0) > libc_break ? set_break(0) : libc_break;
	uintptr_t base = (cur + GAP + page - 1) & ~(page - 1);
	uintptr_t top = base + grown_pages * page;

	if (set_break(base) != base)
		return tc_run_error(run, "cannot move the break from %#lx to %#lx",
				    (unsigned long)cur, (unsigned long)base);
	if (mprotect((void *)(base - page), page, PROT_NONE))
		return tc_run_error(run, "mprotect of the page below the break base: %m");
	/* Only now, past the guard: grown with the gap, the page would share the heap's
	 * anon_vma, and a forked copy could then never merge a new page into it. */
	if (set_break(top) != top)
		return tc_run_error(run, "cannot grow the break to %#lx", (unsigned long)top);
	run->shared = (void *)top;
	return 0;
}

int brk_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t base = (uintptr_t)copy->shared;

	for (;;) {
		if (set_break(base + page) != base + page)
			return tc_error(copy, "brk up to %#lx failed",
					(unsigned long)(base + page));
		if (set_break(base) != base)
			return tc_error(copy, "brk down to %#lx failed", (unsigned long)base);
		(*iterations) += 2;
	}
}
