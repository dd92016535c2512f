#ifndef ARCH_AARCH64_GIC_H
#define ARCH_AARCH64_GIC_H
#include <stdint.h>

#define TIMER_PPI 30 /* CNTP, non-secure physical timer */

void gic_init(void);
void gic_init_cpu(void);
void gic_enable_spi(unsigned intid);
unsigned gic_lines(void);
void gic_mask(unsigned intid);
void gic_unmask(unsigned intid);
void gic_route(unsigned intid, unsigned cpu);
uint32_t gic_targets(unsigned intid);
void gic_raise(unsigned intid);
void gic_send_sgi(uint32_t mask, unsigned sgi);
uint32_t gic_ack(void);
void gic_eoi(uint32_t iar);
#endif
