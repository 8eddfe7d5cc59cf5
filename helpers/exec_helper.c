/* exec1's helper: a small static binary that exits at once, so an exec costs the kernel's
 * exec path and nothing of the program. */
int main(void)
{
	return 0;
}
