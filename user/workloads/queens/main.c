/* The queens program: workload wl_queens (queens.c) run by wl_prog.c. */
#include "../wl.h"

int main(int argc, char **argv)
{
	return wl_prog_main(&wl_queens, argc, argv);
}
