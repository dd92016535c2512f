/*
 * icc.pml: the mailbox, the wake protocol and migration (docs/icc.md,
 * "Model check").
 *
 * Two cores, each a process that does one thing at a time, as a core
 * with IRQs masked does: drain its mailbox (an IPI_ICC), switch, or run
 * a piece of thread code. One thread T is the subject: it parks itself
 * (thread_park), a waker wakes it (thread_wake_owed) and a mover
 * migrates it (thread_request(TASK_OUT), inline on the owner or as a
 * pool record, waited for or fire-and-forget), from either core, within
 * the budgets NPARK, NWAKE and NMIG.
 *
 * Granularity: one Promela step per atomic operation of the C on data
 * another core reads or writes (a load, a store, an exchange, a CAS);
 * a non-atomic read-modify-write is a load step and a store step. What
 * only the core itself reads (its run queue, need_resched, current, its
 * locals, a record it holds) goes with the neighbouring step, and so do
 * the ghost variables that state the properties. Comments name the C:
 * file:line at b93a1b4.
 *
 * Abstracted away: IPIs (a non-empty mailbox is drained eventually, as
 * icc_flush guarantees), other threads (the waker and the mover are
 * "some thread or interrupt on that core"), kills, timed sleeps, load
 * accounting, affinity and offline cores, weak memory (Spin interleaves
 * sequentially consistent steps: acquire/release pairs are not checked
 * here), spurious CAS failures, slot reuse (T never dies).
 *
 * Properties (assertions; the final check runs when nothing can move,
 * and every run ends there: `make model` checks that no cycle exists):
 *   no lost request  a record is posted only when not pending and
 *                    handled only when pending (pending[]), is never
 *                    pushed while on a mailbox (onq[]); at the end no
 *                    record is pending and every mailbox is empty
 *   no lost wake-up  T never ends BLOCKED with its token set, and the
 *                    wake record never ends in flight (wake_inflight)
 *   one core         the switch-in exchange of on_cpu never finds 1
 *                    (stats.overlap, sched.c:340-341); after every step
 *                    T is current on one core at most, queued on one at
 *                    most and only on its owner while READY (monitor);
 *                    at the end it is RUNNING on its owner or BLOCKED:
 *                    not lost in flight
 *   freed once       a free of a free record fails; every pool record
 *                    ends FREE, and no waiter is left
 *
 * The wake handler reads the owner, then the state: the fixed order
 * (branch fix19, 0b80c6d; thread_ops.c:170-172). -DFINDING2 puts back the
 * wrong order: it reads the state before the owner, as
 * thread_ops.c:143-144 did at f26159f.
 */

#ifndef NWAKE
#define NWAKE 2    /* thread_wake_owed calls */
#endif
#ifndef NMIG
#define NMIG 2     /* thread_request(TASK_OUT) calls */
#endif
#ifndef NPARK
#define NPARK 2    /* thread_park calls by T */
#endif
#define NCPU 2

#define NONE 255
#define IDLE 0     /* cur[c]: the idle thread */
#define T    1     /*         or T */

/* enum thread_state, kernel/thread.h:25-34: those T passes through */
mtype = { T_READY, T_RUNNING, T_BLOCKED, T_MIGRATING };
mtype = { TASK_IN, TASK_OUT, TASK_IPC };  /* for the trail's messages */

/* Request records: 0 is NULL; core c's pool is one record, POOL(c)
 * (ICC_POOL_SIZE is 64); T's embedded mig_req and wake_req. */
#define POOL(c) ((c) + 1)
#define MIG     (NCPU + 1)
#define WAKE    (NCPU + 2)
#define NREC    (NCPU + 3)

/* icc_req.state, kernel/icc.h */
#define REQ_FREE      0
#define REQ_OWNED     1
#define REQ_POSTED    2
#define REQ_DONE      3
#define REQ_ABANDONED 4

/* ---- the C's data ---- */
byte head[NCPU];          /* cpus[c].mbox.head */
byte next[NREC];          /* icc_req.node.next */
byte rstate[NREC];        /* icc_req.state */
byte rdest[NREC];         /* icc_req.dest */
bool rauto[NREC];         /* icc_req.flags & ICC_F_AUTOFREE */
mtype st = T_RUNNING;     /* T->state */
byte tcpu = 0;            /* T->cpu, its owner */
bool on_cpu = 1;          /* T->on_cpu */
bool token;               /* T->wake_token */
bool inflight;            /* T->wake_inflight */
byte pending_dest = NONE; /* T->pending_dest */
byte cur[NCPU];           /* cpus[c].current: IDLE or T */
bool inrq[NCPU];          /* T on c's run queue (or cpus[c].handoff) */
bool need_resched[NCPU];
bool waiting[NCPU];       /* a thread of c waits in icc_wait(POOL(c)) */

/* ---- budgets and ghosts ---- */
byte wakes = NWAKE, moves = NMIG, parks = NPARK;
bool onq[NREC];           /* the record is on a mailbox */
bool pending[NREC];       /* posted and not yet handled */
bool live[NREC];          /* pool record allocated and not yet freed */
byte regs = 0;            /* the core T's registers are live on, or NONE */
bool iip[NCPU];           /* c idles in place on T */

/* c must call schedule() now: need_resched (irq_exit, a preemption
 * point: after T was moved while running), or T has just blocked
 * (thread_park, thread_ops.c:259). T queued on c is switched in
 * eventually, not at once: c may be busy with other threads meanwhile
 * (no thread but T is modelled, so sched_make_ready's need_resched for
 * an idle core, sched.c:47-56, is left to this). */
#define FORCED (need_resched[c] || blocking)

/* ---------------------------------------------------------------- */
/* the mailbox, kernel/mbox.h                                       */

/* mbox_push(&cpus[tgt].mbox, r), mbox.h:31-40, for icc_push_from
 * (icc.c:39-69) and the forward of thread_wake_handle (icc_forward,
 * thread_ops.c:180) */
inline push(r, tgt) {
	atomic {
		assert(!onq[r]);          /* mbox.h:29: on no mailbox */
		old = head[tgt]           /* mbox.h:33-34 */
	};
	do
	:: atomic {                   /* mbox.h:36 next, :37-38 CAS release */
		next[r] = old;
		if
		:: head[tgt] == old -> head[tgt] = r; onq[r] = 1; ok = 1
		:: else -> old = head[tgt]; ok = 0
		fi
	   };
	   if
	   :: ok -> break
	   :: else -> skip
	   fi
	od
}

/* ---------------------------------------------------------------- */
/* requests, kernel/icc.c                                           */

/* icc_req_free, icc.c:34-37 */
inline free_rec(r) {
	atomic {
		assert(live[r] && rstate[r] != REQ_FREE); /* not freed twice */
		live[r] = 0;
		rstate[r] = REQ_FREE
	}
}

/* icc_post, icc.c:76-82: POSTED (:80), then icc_push_from (:81) */
inline post(r, tgt) {
	atomic {
		rstate[r] = REQ_POSTED;
		assert(!pending[r]);      /* one post, one handling */
		pending[r] = 1;
		printf("MSC: cpu%d: posts %e to cpu%d\n", c,
		       (r == MIG -> TASK_IN : (r == WAKE -> TASK_IPC : TASK_OUT)),
		       tgt)
	};
	push(r, tgt)
}

/* the handler takes record r (icc_complete counts it, icc.c:106) */
#define TAKEN(r) assert(pending[r]); pending[r] = 0

/* icc_complete of a pool record, icc.c:103-121 */
inline complete(r) {
	if
	:: rauto[r] ->                /* :110-113 store FREE */
		atomic {
			TAKEN(r);
			assert(rstate[r] == REQ_POSTED && live[r]);
			live[r] = 0;
			rstate[r] = REQ_FREE
		}
	:: else ->                    /* :117-118 exchange DONE, acq_rel */
		atomic { TAKEN(r); pv = rstate[r]; rstate[r] = REQ_DONE };
		assert(pv == REQ_POSTED || pv == REQ_ABANDONED);
		if
		:: pv == REQ_ABANDONED -> free_rec(r)  /* :119-120 */
		:: else -> skip
		fi
	fi
}

/* ---------------------------------------------------------------- */
/* the owner's operations, kernel/sched.c and kernel/thread_ops.c   */

/* sched_make_ready(c, T), sched.c:39-57: READY (:42), then the hand-off
 * or the run queue (:47-56), c's own */
#define MAKE_READY(c) \
	assert(tcpu == c && !inrq[c]); \
	st = T_READY; \
	inrq[c] = 1

/* thread_migrate_local(o = c, T, dd), thread_ops.c:30-70. Only c, the
 * owner, writes T's state: its load (:33) goes with the first store. */
inline migrate_local(c, dd) {
	atomic {
		assert(tcpu == c);
		s = st;                                   /* :33 */
		assert(s == T_READY || s == T_RUNNING || s == T_BLOCKED ||
		       s == T_MIGRATING);
		if
		:: s == T_MIGRATING ->                    /* :40-41, :21-24 */
			pending_dest = dd
		:: s != T_MIGRATING && dd != c && s == T_READY ->
			assert(inrq[c]);                      /* :47-48 unqueue */
			inrq[c] = 0;
			st = T_MIGRATING                      /* :49-51 */
		:: s != T_MIGRATING && dd != c && s == T_RUNNING ->
			st = T_MIGRATING                      /* :49-51 */
		:: else -> skip            /* :42-43 already here; blocked */
		fi
	};
	if
	:: s != T_MIGRATING && dd != c ->
		atomic {
			tcpu = dd;                            /* :59 release */
			printf("MSC: cpu%d: moves T (%e) to cpu%d: owner cpu%d\n",
			       c, s, dd, dd)
		};
		if
		:: s == T_READY -> post(MIG, dd)          /* :61-62 TASK_IN */
		:: s == T_RUNNING ->                      /* :63-64 */
			assert(cur[c] == T);
			need_resched[c] = 1
		:: s == T_BLOCKED -> skip                 /* owner change only */
		fi
	:: else -> skip
	fi
}

/* thread_accept, thread_ops.c:109-131: TASK_IN on c (icc.c:155-158) */
inline accept(c) {
	atomic {
		TAKEN(MIG);  /* icc_complete(mig_req) counts it after
		              * thread_accept (icc.c:157), which may post it
		              * again: the ghost takes it here */
		assert(st == T_MIGRATING && tcpu == c);   /* :112-115 panic */
		MAKE_READY(c);                            /* :122 */
		d = pending_dest;                         /* :126-128 */
		pending_dest = NONE;
		printf("MSC: cpu%d: TASK_IN: T READY\n", c)
	};
	if
	:: d != NONE -> migrate_local(c, d)           /* :129 */
	:: else -> skip
	fi
}

/* thread_wake_consume(T, s), thread_ops.c:135-140; tk: wake T */
inline consume(s) {
	atomic {
		TAKEN(WAKE);                              /* :137 */
		inflight = 0;                             /* :138 exchange */
		tk = 0
	};
	if
	:: s == T_BLOCKED -> atomic { tk = token; token = 0 } /* :139 */
	:: else -> skip
	fi
}

/* thread_wake_handle on c, thread_ops.c:166-184 (icc.c:171-172) */
inline wake_handle(c) {
#ifdef FINDING2
	atomic { s = st;         /* the state (:172) first, */
		printf("MSC: cpu%d: TASK_IPC: reads T's state: %e\n", c, s) };
	atomic { o = tcpu;       /* then the owner (:170): finding 2 */
		printf("MSC: cpu%d: TASK_IPC: reads T's owner: cpu%d\n", c, o) };
#else
	atomic { o = tcpu;       /* the owner, acquire (:170), then */
		printf("MSC: cpu%d: TASK_IPC: reads T's owner: cpu%d\n", c, o) };
	atomic { s = st;         /* the state (:172), as load_owned_here */
		printf("MSC: cpu%d: TASK_IPC: reads T's state: %e\n", c, s) };
#endif                       /* does (load.c:282-285) */
	/* :173-177 owner read again: not modelled (slot reuse, T never dies) */
	if
	:: o != c ->                                  /* :178-182 forward */
		printf("MSC: cpu%d: forwards TASK_IPC to cpu%d\n", c, o);
		push(WAKE, o)
	:: else ->                                    /* :183 */
		consume(s);                               /* :147 */
		if
		:: tk ->                                  /* :149 */
			atomic {
				MAKE_READY(c);
				printf("MSC: cpu%d: TASK_IPC: T woken\n", c)
			}
		:: else ->
			printf("MSC: cpu%d: TASK_IPC: wake_inflight cleared, T not woken\n", c)
		fi
	fi
}

/* icc_handle(r) on c, icc.c:149-177 */
inline handle(c, r) {
	if
	:: r == MIG -> accept(c)                      /* :155-158 */
	:: r == WAKE -> wake_handle(c)                /* :171-172 */
	:: r != MIG && r != WAKE ->                   /* TASK_OUT :159-161 */
		atomic { o = tcpu; d = rdest[r] };        /* :134 acquire */
		if
		:: o != c ->                              /* :135-138 forward */
			printf("MSC: cpu%d: forwards TASK_OUT to cpu%d\n", c, o);
			push(r, o)
		/* :140-145 thread_still: always true here (no slot reuse) */
		:: else -> migrate_local(c, d); complete(r)
		fi
	fi
}

/* sched_switch_regs(c, prv, nxt), sched.c:337-346, then
 * sched_finish_switch(prv), sched.c:374-387 */
inline switch_regs(c, prv, nxt) {
	if
	:: nxt == T ->                                /* :340-341 exchange */
		atomic {
			assert(!on_cpu);                      /* stats.overlap */
			on_cpu = 1;
			regs = c
		}
	:: else -> skip
	fi;
	if                                            /* :342-345 */
	:: prv == T ->
		atomic { on_cpu = 0; regs = NONE };       /* :377 release */
		s = st;                                   /* :378 */
		if
		:: s == T_MIGRATING ->                    /* :379-382 */
			o = tcpu;
			post(MIG, o)
		:: else -> skip
		fi
	:: else -> skip
	fi
}

proctype core(byte c)
{
	byte old, l, fifo, n, nx, o, d, pv, prv, nxt;
	mtype s;
	bool ok, tk, blocking;

end:
	do
	:: if
	/* schedule(), sched.c:274-297. Only c writes T's state here (T
	 * is c's current: RUNNING or BLOCKED on c, or MIGRATING with its
	 * TASK_IN still to be posted by c), so the loads go with stores. */
	:: atomic {
		(FORCED || (cur[c] == IDLE && inrq[c])) ->
		need_resched[c] = 0;                      /* :279 */
		blocking = 0;
		prv = cur[c];
		if
		:: prv == T && st == T_RUNNING ->         /* :280-283 requeue */
			st = T_READY;
			inrq[c] = 1
		:: else -> skip
		fi;
		if                                        /* :284 sched_pick */
		:: inrq[c] -> inrq[c] = 0; nxt = T
		:: else -> nxt = IDLE
		fi
	   };
		if
		:: nxt == prv ->                          /* :285-291 */
			if
			:: nxt == T -> st = T_RUNNING
			:: else -> skip
			fi
		:: nxt != prv && nxt == IDLE && st == T_BLOCKED ->
			/* :292-295 sched_may_idle_in_place: idle in place,
			 * sched_idle_in_place :252-272 (not when a thread of c
			 * waits in icc_wait: it is runnable, so schedule picks
			 * it); or idle_poll is off: the plain switch */
			if
			:: atomic {
				!waiting[c] ->
				cur[c] = IDLE;                    /* :255 books */
				iip[c] = 1;
				printf("MSC: cpu%d: T BLOCKED, idles in place\n", c)
			   };
end_iip:		if                                /* :257 wfi: an IPI */
				:: head[c] != 0
				:: skip                           /* or anything else */
				fi;
				/* thread_wake_take_own, thread_ops.c:186-196,
				 * mbox_take_only, mbox.h:62-71 */
				l = head[c];                      /* mbox.h:64-66 */
				ok = 0;
				tk = 0;
				if
				:: l == WAKE && next[WAKE] == 0 ->
					atomic {                      /* mbox.h:68-70 CAS */
						if
						:: head[c] == WAKE ->
							head[c] = 0; onq[WAKE] = 0; ok = 1
						:: else -> skip
						fi
					}
				:: else -> skip
				fi;
				if
				:: ok -> s = st; consume(s)       /* thread_ops.c:192 */
				:: else -> skip
				fi;
				if
				:: tk ->                          /* sched.c:264-265 */
					atomic {
						st = T_RUNNING;
						cur[c] = T;
						iip[c] = 0;
						printf("MSC: cpu%d: T woken in place\n", c)
					}
				:: else ->                        /* sched.c:259 */
					atomic {
						iip[c] = 0;
						printf("MSC: cpu%d: completes the switch to idle\n", c)
					};
					switch_regs(c, T, IDLE)
				fi
			:: atomic {                           /* sched_switch :296 */
				cur[c] = IDLE;
				printf("MSC: cpu%d: T BLOCKED, switched out\n", c)
			   };
				switch_regs(c, T, IDLE)
			fi
		:: nxt != prv && !(nxt == IDLE && st == T_BLOCKED) ->
			/* :296 sched_switch, sched_switch_books :302-316 */
			if
			:: nxt == T ->                        /* :308, :313 */
				atomic {
					st = T_RUNNING;
					cur[c] = T;
					printf("MSC: cpu%d: switches T in\n", c)
				}
			:: else ->                            /* :313 */
				atomic {
					cur[c] = IDLE;
					printf("MSC: cpu%d: switches T out: %e\n", c, st)
				}
			fi;
			switch_regs(c, prv, nxt)
		fi

	/* IPI_ICC: icc_drain, icc.c:179-208 (sched.c:491-493) */
	:: atomic {
		!FORCED && head[c] != 0 ->
		l = head[c];                              /* mbox.h:45-46 */
		head[c] = 0;                              /* exchange acquire */
		fifo = 0;                                 /* mbox.h:47-53 */
		do                                        /* reverse (private) */
		:: l != 0 -> nx = next[l]; next[l] = fifo; onq[l] = 0;
		             fifo = l; l = nx
		:: else -> break
		od;
		n = fifo
	   };
		do
		:: atomic { n != 0 -> nx = next[n] };     /* icc.c:185 first */
			handle(c, n);                         /* icc.c:189 */
			n = nx
		:: else -> break
		od

	/* T on c: thread_park, thread_ops.c:252-262 */
	:: atomic {
		!FORCED && cur[c] == T && st == T_RUNNING && parks > 0 ->
		parks--;
		tk = token;                               /* :256 exchange */
		token = 0;
		if
		:: !tk ->
			st = T_BLOCKED;                       /* :257-258 */
			blocking = 1;                         /* :259 schedule */
			printf("MSC: cpu%d: T parks: BLOCKED\n", c)
		:: else ->
			printf("MSC: cpu%d: T parks: token, runs on\n", c)
		fi
	   }

	/* thread_wake_owed(T) on c, thread_ops.c:231-240,
	 * thread_wake_post :209-215 */
	:: atomic {
		!FORCED && wakes > 0 ->
		wakes--;
		token = 1;                                /* :233 exchange */
		printf("MSC: cpu%d: wake T: token set\n", c)
	   };
		atomic { ok = inflight; inflight = 1 };   /* :211 exchange */
		if
		:: ok -> printf("MSC: cpu%d: wake T: in flight already\n", c)
		:: else ->
			o = tcpu;                             /* :213 acquire */
			if
			:: o != c -> post(WAKE, o)            /* icc.c:87-89 */
			:: else ->                            /* icc.c:91-93 */
				atomic {
					rstate[WAKE] = REQ_POSTED;
					assert(!pending[WAKE]);
					pending[WAKE] = 1
				};
				wake_handle(c)
			fi
		fi

	/* thread_request(TASK_OUT, T, d, wait or not) on c,
	 * thread_ops.c:272-303 */
	:: atomic {
		!FORCED && moves > 0 && !waiting[c] ->
		moves--;
		if
		:: d = 0
		:: d = 1
		fi;
		o = tcpu                                  /* :283-284 acquire */
	   };
		if
		:: o == c -> migrate_local(c, d)          /* :285-287: */
			/* thread_still always true here (no slot reuse) */
		:: else ->
			atomic {                              /* :288 icc_req_alloc */
				if                                /* icc.c:20-23 */
				:: rstate[POOL(c)] == REQ_FREE ->
					rstate[POOL(c)] = REQ_OWNED;
					live[POOL(c)] = 1;
					ok = 1;
					rdest[POOL(c)] = d;           /* :292 */
					if                            /* :293 */
					:: rauto[POOL(c)] = 1
					:: rauto[POOL(c)] = 0
					fi
				:: else -> ok = 0                 /* :289 -FUL_EAGAIN */
				fi
			};
			if
			:: ok ->
				o = tcpu;                         /* :294 again */
				post(POOL(c), o);
				waiting[c] = !rauto[POOL(c)]      /* :300-302 */
			:: else -> skip
			fi
		fi

	/* icc_wait(POOL(c)), icc.c:248-251 and
	 * icc_wait_out :222-246: DONE, or the 10 s timeout */
	:: atomic {
		!FORCED && waiting[c] && rstate[POOL(c)] == REQ_DONE ->
		assert(live[POOL(c)]);                    /* :231-245 */
		live[POOL(c)] = 0;
		rstate[POOL(c)] = REQ_FREE;
		waiting[c] = 0
	   }
	:: atomic {
		!FORCED && waiting[c] ->                  /* :233 icc_abandon */
		ok = (rstate[POOL(c)] == REQ_POSTED);     /* :212-218 CAS */
		if
		:: ok -> rstate[POOL(c)] = REQ_ABANDONED; waiting[c] = 0
		:: else -> skip
		fi
	   };
		if
		:: ok -> skip                             /* :234 */
		:: else -> free_rec(POOL(c)); waiting[c] = 0  /* DONE :241-244 */
		fi
	fi;
	/* forget the temporaries: the C's locals die here too */
	atomic {
		old = 0; l = 0; fifo = 0; n = 0; nx = 0; s = 0; o = 0; d = 0;
		pv = 0; prv = 0; nxt = 0; ok = 0; tk = 0; s = 0
	}
	od
}

/* After every step: T is current on one core at most, queued on one at
 * most and only on its owner while READY; a core idling in place keeps
 * T blocked, owned and loaded; on_cpu says whether T's registers are
 * live somewhere. */
#define ONE_CORE \
	(!(cur[0] == T && cur[1] == T) && \
	 !(inrq[0] && inrq[1]) && \
	 (!inrq[0] || (st == T_READY && tcpu == 0)) && \
	 (!inrq[1] || (st == T_READY && tcpu == 1)) && \
	 (!iip[0] || (st == T_BLOCKED && tcpu == 0 && regs == 0)) && \
	 (!iip[1] || (st == T_BLOCKED && tcpu == 1 && regs == 1)) && \
	 ((regs != NONE) == on_cpu))

active proctype monitor()
{
end:	atomic { !ONE_CORE -> assert(ONE_CORE) }
}

/* The end: nothing can move (every budget spent, every core idle). */
active proctype final()
{
	byte i;
	timeout ->
	for (i : 0 .. NCPU - 1) {
		assert(head[i] == 0);            /* no request left behind */
		assert(!waiting[i]);
		assert(!live[POOL(i)] && rstate[POOL(i)] == REQ_FREE); /* freed */
	}
	for (i : 1 .. NREC - 1) {
		assert(!pending[i])              /* every post handled */
	}
	assert(!inflight);                   /* the wake record came home */
	assert(st == T_RUNNING || st == T_BLOCKED); /* not lost in flight */
	assert(st != T_RUNNING || (cur[tcpu] == T && regs == tcpu));
	assert(st != T_BLOCKED || regs == NONE || iip[tcpu]);
	assert(!(st == T_BLOCKED && token)); /* no lost wake-up */
}

init
{
	atomic {
		cur[0] = T;                      /* T runs on core 0 */
		run core(0);
		run core(1)
	}
}
