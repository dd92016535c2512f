/* The memcpy program: workload wl_memcpy (memcpy.c) run by wl_prog.c. */
#include "../wl.h"

int main(int argc, char **argv)
{
	return wl_prog_main(&wl_memcpy, argc, argv);
}
