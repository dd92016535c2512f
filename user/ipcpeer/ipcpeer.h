/* Protocol between the rootserver's benchmarks (ubench.c) and ipcpeer. */
#ifndef IPCPEER_H
#define IPCPEER_H

enum ipcpeer_mode {
	PEER_SERVER = 1, /* reply_recv loop on slot 4; replies carry cycle stamps */
	PEER_CLIENT,     /* timed calls to slot 4; prints BENCH lines */
	PEER_RTT,        /* untimed round trips, total counter ticks reported */
};

/* PEER_CLIENT arg1: bytes | runs << 16 | bench id << 32. */
#define PEER_ARG(len, runs, id) \
	((unsigned long)(len) | (unsigned long)(runs) << 16 | (unsigned long)(id) << 32)
#define PEER_LEN(a) ((a) & 0xffff)
#define PEER_RUNS(a) (((a) >> 16) & 0xffff)
#define PEER_ID(a) ((a) >> 32)

#define PEER_WARMUP 5
#define PEER_MAX_RUNS 200

#endif
