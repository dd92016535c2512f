/* hello: the smallest Fulcrum program. Says who and where it is. */
#include <stdio.h>

#include <ful/ful.h>

int main(void)
{
	struct ful_sysinfo si;
	long err = ful_sysinfo(&si);
	if (err < 0) {
		printf("hello: sysinfo failed: %ld\n", err);
		return 1;
	}
	printf("hello from %u on cpu %u\n", si.tid, si.cpu);
	return 0;
}
