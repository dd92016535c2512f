/* The crc program: workload wl_crc (crc.c) run by wl_prog.c. */
#include "../wl.h"

int main(int argc, char **argv)
{
	return wl_prog_main(&wl_crc, argc, argv);
}
