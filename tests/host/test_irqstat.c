/* Host tests for kernel/irqstat.h: the figures of the IRQ-masked
 * stretches (histogram buckets, the longest one and its cause). */
#define HTEST_MAIN
#include "host_test.h"

#include "irqstat.h"

HTEST(buckets_are_log2)
{
	CHECK_EQ(irqstat_bucket(0), 0);
	CHECK_EQ(irqstat_bucket(1), 0);
	CHECK_EQ(irqstat_bucket(2), 1);
	CHECK_EQ(irqstat_bucket(3), 1);
	CHECK_EQ(irqstat_bucket(4), 2);
	CHECK_EQ(irqstat_bucket(42999), 15);
	CHECK_EQ(irqstat_bucket(43000), 15);
	CHECK_EQ(irqstat_bucket(65535), 15);
	CHECK_EQ(irqstat_bucket(65536), 16);
	CHECK_EQ(irqstat_bucket((1ull << 31) - 1), 30);
	CHECK_EQ(irqstat_bucket(1ull << 31), 31);
	CHECK_EQ(irqstat_bucket(~0ull), FUL_IRQSTAT_BUCKETS - 1);
}

HTEST(longest_keeps_its_cause)
{
	struct ful_irqstat s = {0};
	uint32_t sys16 = FUL_IRQS_CAUSE(FUL_IRQS_SYSCALL, 16);
	uint32_t tick = FUL_IRQS_CAUSE(FUL_IRQS_IRQ_EL0, 30);
	irqstat_add(&s, 0, 5, tick, FUL_IRQS_END_ERET);
	CHECK_EQ(s.count, 1);
	CHECK_EQ(s.max, 0);
	CHECK_EQ(s.max_cause, tick); /* the first one, even of length 0 */
	irqstat_add(&s, 43000, 100, sys16 | FUL_IRQS_RESUMED,
		    FUL_IRQS_END_WINDOW);
	irqstat_add(&s, 700, 200, tick, FUL_IRQS_END_ERET);
	irqstat_add(&s, 43000, 300, tick, FUL_IRQS_END_ERET); /* a tie */
	CHECK_EQ(s.count, 4);
	CHECK_EQ(s.total, 86700);
	CHECK_EQ(s.max, 43000);
	CHECK_EQ(s.max_cause, sys16 | FUL_IRQS_RESUMED);
	CHECK_EQ(FUL_IRQS_KIND(s.max_cause), FUL_IRQS_SYSCALL);
	CHECK_EQ(FUL_IRQS_DETAIL(s.max_cause), 16);
	CHECK_EQ(s.max_end, FUL_IRQS_END_WINDOW);
	CHECK_EQ(s.max_start, 100);
	CHECK_EQ(s.hist[0], 1);
	CHECK_EQ(s.hist[9], 1);
	CHECK_EQ(s.hist[15], 2);
}

HTEST(cause_fields_do_not_overlap)
{
	uint32_t c = FUL_IRQS_CAUSE(FUL_IRQS_IDLE, FUL_IRQS_NO_DETAIL) |
		     FUL_IRQS_RESUMED;
	CHECK_EQ(FUL_IRQS_KIND(c), FUL_IRQS_IDLE);
	CHECK_EQ(FUL_IRQS_DETAIL(c), FUL_IRQS_NO_DETAIL);
	CHECK_EQ(FUL_IRQS_CAUSE(FUL_IRQS_EXC, 0x1ffff), /* detail masked */
		 FUL_IRQS_CAUSE(FUL_IRQS_EXC, 0xffff));
}
