/* The lz77 program: workload wl_lz77 (lz77.c) run by wl_prog.c. */
#include "../wl.h"

int main(int argc, char **argv)
{
	return wl_prog_main(&wl_lz77, argc, argv);
}
