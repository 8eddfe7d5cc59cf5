#include "interrupt.h"

#include <stdbool.h>
#include <stddef.h>

volatile sig_atomic_t interrupt_caught;

void interrupt_handler(int sig)
{
	interrupt_caught = sig;
}

void interrupt_catch(void)
{
	static const int sigs[] = {SIGINT, SIGTERM};
	static bool installed;
	struct sigaction sa = {.sa_handler = interrupt_handler}, old;

	if (installed)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	installed = true;
}
