/*
 * fulsim: the command line (docs/simulator.md, "Running it").
 *
 *   fulsim [opts] FILE.json            run a workload file
 *   fulsim [opts] --gen DIST --cores N --tasks T [--seed S]
 *                                      run a generated task set
 *   fulsim --quality [--sets N] [--core-list 4,16,64,256]
 *          [--policies a,b] [--seed S] the balance-quality suite
 *   fulsim --speed [--repeat N]        simulated events per second
 *   fulsim --alb [--runs N] [--seed S] paper 001's sets under count and
 *                                      alb as ubench=alb runs them
 *                                      (sim_alb.c), N seeded runs each
 *
 *   --policy NAME      mginkgo | fulcrum | alb | count | opzone (fulcrum)
 *   --triggers LIST    of timer, idle, wake, or none (timer,idle; opzone
 *                      adds wake); demand rounds come from the workload
 *   --ns-per-insn X    instruction-to-time conversion (1.0: 1 GHz, IPC 1)
 *   --sample-ms X      utilization sample length (10; 0: none)
 *   --icount           QEMU's -icount clock: with k cores busy, each runs
 *                      at 1 / k of simulated time (the emulator's
 *                      validation, docs/simulator.md "Validation
 *                      against the emulator")
 *   --jitter X         per-core speed jitter: speeds in 1 +- X, a level
 *                      per core and a wobble per epoch (sim_clock.c);
 *                      0..0.5 (0; --alb: 0.05)
 *   --jitter-ms X      the epoch (10 ms)
 *   --jitter-seed S    the speeds' seed (1; --alb draws one per run)
 *   --no-log           leave the decision log out
 *   --out FILE         write the JSON there instead of stdout
 *   --set NAME=VALUE   a policy tunable (up to 8; a policy without it
 *                      ignores it; out of range: exit 2)
 *
 * Exit status: 0, 1 (a failure of the run, or threads unfinished at the
 * time limit), 2 (bad input: the command line -- an option out of range,
 * an unknown policy -- or the workload; the message names the field and
 * its line).
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static const char *const all_policies[] = {"fulcrum", "mginkgo", "count",
					   "alb", "opzone"};
_Static_assert(sizeof(all_policies) / sizeof(*all_policies) == 5,
	       "the --set check walks five policies");

struct opts {
	struct sim_conf c;
	const char *file, *out, *gen, *policies, *core_list;
	unsigned cores, tasks, sets, repeat, runs;
	unsigned long seed;
	bool quality, speed, alb, triggers_set, jitter_set;
};

static void usage_exit(const char *fmt, const char *arg)
{
	fprintf(stderr, "fulsim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: fulsim [--policy P] [--triggers L] "
		"[--ns-per-insn X] [--sample-ms X] [--icount] [--no-log] [--out F] [--set N=V] "
		"(FILE.json | --gen uniform|bimodal|heavy --cores N --tasks T "
		"[--seed S] | --quality [--sets N] [--core-list L] "
		"[--policies L] | --speed [--repeat N] | --alb [--runs N] "
		"[--seed S]) [--jitter X] [--jitter-ms X] [--jitter-seed S]\n");
	exit(2);
}

/** A number option in [lo, hi]: exits 2 naming it otherwise. */
static double num_arg(const char *name, const char *v, double lo, double hi)
{
	char *end;
	if (!v)
		usage_exit("%s needs a value", name);
	double x = strtod(v, &end);
	if (end == v || *end) {
		fprintf(stderr, "fulsim: %s: \"%s\" is not a number\n", name, v);
		exit(2);
	}
	if (x < lo || x > hi) {
		fprintf(stderr, "fulsim: %s: %s is out of range %g..%g%s\n", name,
			v, lo, hi,
			!strcmp(name, "--cores") || !strcmp(name, "--tasks")
				? " (the simulator's limit)" : "");
		exit(2);
	}
	return x;
}

static void set_triggers(struct sim_conf *c, const char *list)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", list);
	c->trig_timer = c->trig_idle = c->trig_wake = false;
	for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
		if (!strcmp(t, "timer"))
			c->trig_timer = true;
		else if (!strcmp(t, "idle"))
			c->trig_idle = true;
		else if (!strcmp(t, "wake"))
			c->trig_wake = true;
		else if (!strcmp(t, "none"))
			; /* only the workload's demand rounds */
		else
			usage_exit("--triggers: unknown trigger \"%s\"", t);
	}
}

/** --set NAME=VALUE: a policy tunable (checked against the policy's
 *  range when a run starts; a policy without it ignores it). */
static void add_set(struct sim_conf *c, const char *v)
{
	const char *eq = v ? strchr(v, '=') : NULL;
	if (!eq || eq == v || !eq[1])
		usage_exit("--set: NAME=VALUE expected (got \"%s\")", v ? v : "");
	if (c->nset == SIM_MAX_SETS)
		usage_exit("--set: at most 8 (%s)", v);
	char *end;
	long val = strtol(eq + 1, &end, 0);
	if (*end)
		usage_exit("--set: VALUE is not a number (%s)", v);
	c->set_name[c->nset] = strndup(v, (size_t)(eq - v));
	c->set_value[c->nset++] = val;
}

/** Option @a with value @v (NULL: none), if it is one that takes a
 *  value: true, with the value stored. */
static bool value_opt(struct opts *o, const char *a, const char *v)
{
	if (!strcmp(a, "--policy"))
		o->c.policy = v;
	else if (!strcmp(a, "--triggers"))
		set_triggers(&o->c, v ? v : ""), o->triggers_set = true;
	else if (!strcmp(a, "--ns-per-insn"))
		o->c.ns_per_insn = num_arg(a, v, 0.001, 1000);
	else if (!strcmp(a, "--sample-ms"))
		o->c.sample = (unsigned long)(num_arg(a, v, 0, 1e6) * SIM_MS);
	else if (!strcmp(a, "--out"))
		o->out = v;
	else if (!strcmp(a, "--gen"))
		o->gen = v;
	else if (!strcmp(a, "--cores"))
		o->cores = (unsigned)num_arg(a, v, 1, SIM_MAX_CPUS);
	else if (!strcmp(a, "--tasks"))
		o->tasks = (unsigned)num_arg(a, v, 1, SIM_MAX_THREADS);
	else if (!strcmp(a, "--seed"))
		o->seed = (unsigned long)num_arg(a, v, 0, 1e15);
	else if (!strcmp(a, "--sets"))
		o->sets = (unsigned)num_arg(a, v, 1, 1e6);
	else if (!strcmp(a, "--repeat"))
		o->repeat = (unsigned)num_arg(a, v, 1, 1000);
	else if (!strcmp(a, "--runs"))
		o->runs = (unsigned)num_arg(a, v, 1, 100000);
	else if (!strcmp(a, "--jitter"))
		o->c.jitter = num_arg(a, v, 0, 0.5), o->jitter_set = true;
	else if (!strcmp(a, "--jitter-ms"))
		o->c.jitter_epoch =
			(unsigned long)(num_arg(a, v, 0.001, 1e6) * SIM_MS);
	else if (!strcmp(a, "--jitter-seed"))
		o->c.jitter_seed = (unsigned long)num_arg(a, v, 0, 1e15);
	else if (!strcmp(a, "--core-list"))
		o->core_list = v;
	else if (!strcmp(a, "--policies"))
		o->policies = v;
	else if (!strcmp(a, "--set"))
		add_set(&o->c, v);
	else
		return false;
	return true;
}

/** The policy and every --set known and in range: exits 2 otherwise. */
static void check_policy(struct opts *o)
{
	struct lb_policy probe;
	if (!o->c.policy || lb_policy_init(&probe, o->c.policy)) {
		fprintf(stderr, "fulsim: --policy: no policy named \"%s\" "
			"(fulcrum, mginkgo, count, alb, opzone)\n",
			o->c.policy ? o->c.policy : "");
		exit(2);
	}
	for (unsigned i = 0; i < o->c.nset; i++) { /* known, in range */
		bool known = false;
		for (unsigned k = 0; k < 5; k++) {
			lb_policy_init(&probe, all_policies[k]);
			int e = lb_tunable_set(&probe, o->c.set_name[i],
					       o->c.set_value[i]);
			if (e == LB_E_RANGE)
				usage_exit("--set %s: out of the policy's range",
					   o->c.set_name[i]);
			known |= e == 0;
		}
		if (!known)
			usage_exit("--set %s: no policy has that tunable",
				   o->c.set_name[i]);
	}
}

static void parse(struct opts *o, int argc, char **argv)
{
	sim_conf_default(&o->c);
	o->c.sample = 10 * SIM_MS;
	o->c.keep_log = true;
	o->sets = 1000;
	o->repeat = 3;
	o->runs = 200;
	o->seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (value_opt(o, a, v)) {
			if (!v)
				usage_exit("%s needs a value", a);
			i++;
		} else if (!strcmp(a, "--icount")) {
			o->c.icount = true;
		} else if (!strcmp(a, "--no-log")) {
			o->c.keep_log = false;
		} else if (!strcmp(a, "--quality")) {
			o->quality = true;
		} else if (!strcmp(a, "--speed")) {
			o->speed = true;
		} else if (!strcmp(a, "--alb")) {
			o->alb = true;
		} else if (a[0] == '-' && a[1]) {
			usage_exit("unknown option %s", a);
		} else if (o->file) {
			usage_exit("one workload file only (%s)", a);
		} else {
			o->file = a;
		}
	}
	check_policy(o);
	if (!o->triggers_set && !strcmp(o->c.policy, "opzone"))
		o->c.trig_wake = true; /* opzone declines the timer */
	if (o->alb && !o->jitter_set)
		o->c.jitter = 0.05; /* the paper 001 runs' default */
}

static enum sim_dist dist_of(const char *name)
{
	for (unsigned d = 0; d < DIST_COUNT; d++)
		if (name && !strcmp(name, sim_dist_names[d]))
			return (enum sim_dist)d;
	usage_exit("--gen: unknown distribution \"%s\"", name ? name : "");
	return DIST_UNIFORM;
}

/** Run one workload (file or generated) and print its JSON. */
static int run_one(struct opts *o)
{
	struct sim_workload w = {0};
	if (o->gen) {
		enum sim_dist d = dist_of(o->gen);
		if (!o->cores || !o->tasks)
			usage_exit("%s needs --cores and --tasks", "--gen");
		sim_work_gen(&w, o->cores, o->tasks, d, &o->seed);
	} else if (!o->file) {
		usage_exit("%s", "no workload (a file, or --gen)");
	} else if (sim_work_load(o->file, &w)) {
		return 2;
	}
	struct sim_result r;
	if (sim_run(&w, &o->c, &r)) {
		sim_work_free(&w);
		return 1;
	}
	FILE *f = o->out ? fopen(o->out, "w") : stdout;
	if (!f) {
		fprintf(stderr, "fulsim: cannot write %s\n", o->out);
		return 1;
	}
	sim_out_json(f, &w, &o->c, &r);
	if (f != stdout)
		fclose(f);
	int rc = r.unfinished ? 1 : 0;
	if (r.unfinished)
		fprintf(stderr, "fulsim: %lu threads had not finished at the "
			"time limit\n", r.unfinished);
	sim_result_free(&r);
	sim_work_free(&w);
	return rc;
}

int sim_quality(const struct sim_conf *base, const char *const *pols,
		unsigned npol, const unsigned *cores, unsigned ncores,
		unsigned sets, unsigned long seed, FILE *f);
int sim_speed(const struct sim_conf *base, unsigned repeat, FILE *f);
int sim_alb(const struct sim_conf *base, unsigned runs, unsigned long seed,
	    FILE *f);

/** Split a comma list of names (into @out, at most @max). */
static unsigned split(char *list, const char **out, unsigned max)
{
	unsigned n = 0;
	for (char *t = strtok(list, ","); t && n < max; t = strtok(NULL, ","))
		out[n++] = t;
	return n;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	parse(&o, argc, argv);
	if (!o.quality && !o.speed && !o.alb)
		return run_one(&o);
	FILE *f = o.out ? fopen(o.out, "w") : stdout;
	if (!f) {
		fprintf(stderr, "fulsim: cannot write %s\n", o.out);
		return 1;
	}
	int rc;
	if (o.speed) {
		rc = sim_speed(&o.c, o.repeat, f);
	} else if (o.alb) {
		rc = sim_alb(&o.c, o.runs, o.seed, f);
	} else {
		static char pbuf[128], cbuf[128];
		const char *pols[8], *cl[8];
		unsigned cores[8], np = 5, nc = 4;
		memcpy(pols, all_policies, sizeof(all_policies));
		unsigned dflt[] = {4, 16, 64, 256};
		memcpy(cores, dflt, sizeof(dflt));
		if (o.policies) {
			snprintf(pbuf, sizeof(pbuf), "%s", o.policies);
			np = split(pbuf, pols, 8);
		}
		if (o.core_list) {
			snprintf(cbuf, sizeof(cbuf), "%s", o.core_list);
			nc = split(cbuf, cl, 8);
			for (unsigned i = 0; i < nc; i++)
				cores[i] = (unsigned)num_arg("--core-list", cl[i],
							     2, SIM_MAX_CPUS);
		}
		rc = sim_quality(&o.c, pols, np, cores, nc, o.sets, o.seed, f);
	}
	if (f != stdout)
		fclose(f);
	return rc;
}
