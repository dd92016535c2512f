/* The matmul program: workload wl_matmul (matmul.c) run by wl_prog.c. */
#include "../wl.h"

int main(int argc, char **argv)
{
	return wl_prog_main(&wl_matmul, argc, argv);
}
