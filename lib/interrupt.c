#include "interrupt.h"

#include <stdbool.h>
#include <stddef.h>

volatile sig_atomic_t interrupt_caught;

static void on_signal(int sig)
{
	interrupt_caught = sig;
}

void interrupt_catch(void)
{
	static const int sigs[] = {SIGINT, SIGTERM};
	static bool installed;
	struct sigaction sa = {.sa_handler = on_signal}, old;

	if (installed)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	installed = true;
}
