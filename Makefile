# Fulcrum: build, run, test and benchmark.
#   make run      boot CPUS cores (default 4), run the demo, stay at the console
#   make demo     the same, but power off after the demo
#   make user     only the user programs -> build/user/<prog>.elf
#   make debug    boot halted with the gdb stub on :1234
#   make test     host unit tests + in-QEMU suites on 1 to 8 cores (GICv2),
#                 4 and 16 cores on GICv3 [CPUS=N > 8: N instead of 16],
#                 every kernel variant built, and bench-smoke
#   make bench-smoke  each benchmark of make bench booted once with tiny
#                 counts (bench_quick): well-formed results, no bounds
#   make test-long  the slow kernel tests (real sleeps of 35 s and more),
#                 then ext2's power loss at every write and 27,000 damaged images
#   make model    Spin model check of the ICC protocol (tools/model/)
#   make torture  the ICC torture run: a million requests on 2, 4 and 8
#                 cores [CPUS=..] [SEED=..] [TORTURE_OPS=..]
#   make bench    every benchmark once -> build/bench/results.json and
#                 their plots (installs python3-matplotlib)
#   make bench-timed  the timed rows from N=20 boots -> build/bench/timed.json
#   make bench-check  deterministic bounds, and the timed rows' decisions
#   make report   per family of benchmarks, every result beside the paper's
#                 figure, its bound and decision -> build/report/*.md
#   make docs-figures  the headline rows and timed decisions into
#                 docs/results/, and the generated blocks of the docs
#   make fuzz     the fuzzer for SECS seconds on CPUS cores, seed SEED
#   make fs-fuzz  the ext2 file-system model test: OPS steps from SEED
#   make soak     one suite of make test SOAK_N times (SOAK=user4)
#   make trace    SCENARIO=demo|matmul|latency|ipc with the trace rings on
#                 -> build/trace/trace.txt (ftrace), trace.json (Chrome)
#   make plots    the plots of build/bench/results.json and build/trace

CPUS ?= 4
BUILD := build
CROSS ?= aarch64-linux-gnu-
CC := $(CROSS)gcc
HOSTCC ?= gcc
PYTHON ?= python3
SETUP := $(BUILD)/.setup-done
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

KCFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -ffreestanding \
	-fno-stack-protector -fno-pie -no-pie -mcpu=cortex-a53 \
	-mgeneral-regs-only -mno-outline-atomics -mcmodel=small \
	-fno-omit-frame-pointer -Iarch/aarch64/include -Iinclude -Ikernel -MMD -MP
KLDFLAGS := -nostdlib -static -no-pie -Wl,--no-warn-rwx-segments -Wl,--build-id=none \
	-T arch/aarch64/kernel.ld
KSRCS := $(wildcard kernel/*.c arch/aarch64/*.c) \
	$(wildcard arch/aarch64/*.S)
KOBJS := $(patsubst %,$(BUILD)/k/%.o,$(KSRCS))
KERNEL := $(BUILD)/kernel.elf
# The kernel's self-tests (tests/kernel/, KTEST) and their runner go into
# the test kernel only, build/kernel-test.elf: the objects of kernel.elf
# with tests/kernel/*.c, whose ktest.c takes the place of
# kernel/ktest_none.c (which refuses test=). The suites of kind kernel
# boot it (tests/suites.txt), and make torture.
KTEST_SRCS := $(wildcard tests/kernel/*.c)
KERNEL_TEST := $(BUILD)/kernel-test.elf

# ---- user space: variables (begin) ---------------------------------------
# Programs in user/<prog>/ (every .c/.S there and every .c one folder
# down, as user/rootserver/storage/), linked with libfulcrum
# (user/lib, plus the shared ELF parser kernel/elf.c) and picolibc, without
# picolibc's crt0 (it writes EL1 registers): user/lib/crt0.S is the entry.
# Each becomes build/user/<prog>.elf; its stripped copy is packed into the
# kernel as a boot module (build/k/modules.S, kernel/module.h).
# Every user/<prog>/ with a main.c is a program; the rootserver comes first.
# So is every tests/user/<prog>/ with a main.c, a test program (tests,
# fuzz, badinput, ...): built and packed the same way, named <prog>,
# in the same sorted list as user/'s (udir: a program's folder).
# A folder without one is a library of sources some programs take in
# (UEXTRA_<prog>): user/policy, user/balancer.
# The OS servers of paper 002 live in user/servers/<name>/ (program
# servers/<name>, boot module <name>), paper 001's workloads in
# user/workloads/<name>/ (boot module <name>, each with the shared main
# user/workloads/wl_prog.c).
WORKLOADS := $(sort $(patsubst user/%/main.c,%,$(wildcard user/workloads/*/main.c)))
TEST_PROGS := $(patsubst tests/user/%/main.c,%,$(wildcard tests/user/*/main.c))
udir = $(if $(filter $(1),$(TEST_PROGS)),tests/user/$(1),user/$(1))
USER_PROGS := rootserver $(sort $(filter-out rootserver lib,\
	$(patsubst user/%/main.c,%,$(wildcard user/*/main.c))) $(TEST_PROGS)) \
	$(sort $(patsubst user/%/main.c,%,$(wildcard user/servers/*/main.c))) \
	$(WORKLOADS)
PICOLIBC := /usr/lib/picolibc/aarch64-linux-gnu
# The compiler's own headers (stdarg.h, arm_neon.h, ...) come after
# picolibc's; evaluated when used, as setup may install the compiler.
UGCC_INC = $(shell $(CC) -print-file-name=include)
UCFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -mcpu=cortex-a53 \
	-fno-pie -fno-stack-protector -mno-outline-atomics -ftls-model=local-exec \
	-fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections \
	-nostdinc -isystem $(PICOLIBC)/include \
	-isystem $(UGCC_INC) \
	-Iinclude -Iuser/lib/include -iquote kernel -iquote . -MMD -MP \
	$(UPOSIX_FLAGS)
# Programs see POSIX.1-2008 (pread, ftruncate, ...), as on Linux, and the
# POSIX layer (user/lib/posix_*.c) has a monotonic clock; picolibc's
# <time.h> names clock_gettime and CLOCK_MONOTONIC only when the system
# says it has them.
UPOSIX_FLAGS := -D_POSIX_C_SOURCE=200809L -D_POSIX_TIMERS=200809L \
	-D_POSIX_MONOTONIC_CLOCK=200112L
ULDFLAGS := -nostdlib -static -no-pie -T user/user.ld -L$(PICOLIBC)/lib \
	-Wl,--gc-sections -Wl,--build-id=none -Wl,-z,max-page-size=4096 \
	-Wl,-z,common-page-size=4096
ULIBS := -Wl,--start-group -lc -lgcc -Wl,--end-group
# Per-program link flags: the heap (in .bss) is 256 KiB unless overridden.
ULDFLAGS_rootserver := -Wl,--defsym=__ful_heap_size=0x100000
ULDFLAGS_tests := $(ULDFLAGS_rootserver)
ULDFLAGS_bench := $(ULDFLAGS_rootserver)
ULDFLAGS_fuzz := $(ULDFLAGS_rootserver)
ULIB_SRCS := $(wildcard user/lib/*.c user/lib/*.S) kernel/elf.c kernel/args.c
ULIB_OBJS := $(patsubst %,$(BUILD)/user/obj/%.o,$(ULIB_SRCS))
USER_ELFS := $(patsubst %,$(BUILD)/user/%.elf,$(USER_PROGS))
USER_MODS := $(patsubst %,$(BUILD)/user/strip/%.elf,$(USER_PROGS))
# The balancing policies (user/policy, portable C) and the balancer that
# runs them (user/balancer) go into the rootserver, and into the tests
# and benchmarks, which run balancer instances of their own; the
# benchmarks share the tests' helpers (tests/user/tests/utest.c).
# Includes across folders name the path from the top of the tree
# (-iquote .): "user/balancer/balancer.h", "tests/user/tests/utest.h".
UBALANCER := $(wildcard user/policy/*.c user/balancer/*.c)
UEXTRA_rootserver := $(UBALANCER)
UEXTRA_tests := $(UBALANCER) \
	user/servers/fs/ext2.c user/servers/fs/ext2_dir.c user/servers/fs/ext2_b.c \
	user/servers/fs/ext2_undo.c user/servers/fs/ext2_free.c \
	user/servers/fs/ext2_mount.c
UEXTRA_bench := $(UBALANCER) tests/user/tests/utest.c
UEXTRA_fuzz := tests/user/tests/utest.c
$(foreach w,$(WORKLOADS),$(eval UEXTRA_$(w) := user/workloads/wl_prog.c))
USER_OBJS := $(ULIB_OBJS) $(foreach p,$(USER_PROGS),\
	$(patsubst %,$(BUILD)/user/obj/%.o,$(wildcard $(call udir,$(p))/*.c $(call udir,$(p))/*/*.c $(call udir,$(p))/*.S) $(UEXTRA_$(p))))
KOBJS += $(BUILD)/k/modules.S.o
# ---- user space: variables (end) -----------------------------------------

HCFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -pthread \
	-fsanitize=address,undefined -Iarch/fake/include -Iinclude -iquote kernel -Itests/host \
	-Iuser/lib/include -Iuser/policy
# The simulator (tools/sim, docs/simulator.md): the policies of
# user/policy, the same sources as the rootserver's, built for the host
# with the load area's limits raised to 256 cores and 16,384 threads.
SIM := $(BUILD)/sim/fulsim
SIM_POLICY := $(filter-out user/policy/lb_fake.c,$(wildcard user/policy/*.c))
SIM_DEFS := -DFUL_LOAD_CPUS=256 -DFUL_LOAD_THREADS=16384 -DFUL_TID_SLOT_MASK=0x3fffu
SIM_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
	$(SIM_DEFS) -Iarch/fake/include -Iinclude -Iuser/lib/include -Iuser/policy
HOST_TESTS := $(patsubst tests/host/%.c,$(BUILD)/host/%,$(wildcard tests/host/test_*.c))
HOST_LIB := kernel/runqueue.c kernel/fdt.c kernel/page.c kernel/elf.c \
	$(wildcard user/policy/*.c)
# -std=c11 hides POSIX; arch/fake needs clock_gettime. kernel/ is on the
# quote path only: its sched.h must not shadow <sched.h> (pthread.h).
HOST_CPPFLAGS := -D_POSIX_C_SOURCE=200809L
# Real QEMU virt device trees for test_fdt, dumped at build time:
# virt-smp<N>-<MEM>[-tag].dtb, kernel command line from HOST_DTB_ARGS_<name>;
# tag gic3 forces GICv3 (above 8 cores it is QEMU's choice anyway).
HOST_DTB_DIR := $(BUILD)/host/dtb
HOST_DTB_NAMES := virt-smp1-128M virt-smp4-256M virt-smp8-1G virt-smp2-512M-long \
	virt-smp4-256M-gic3 virt-smp32-256M
HOST_DTBS := $(patsubst %,$(HOST_DTB_DIR)/%.dtb,$(HOST_DTB_NAMES))
HOST_DTB_ARGS_virt-smp4-256M := test=all foo
HOST_DTB_ARGS_virt-smp8-1G := console=ttyAMA0 demo
HOST_DTB_ARGS_virt-smp2-512M-long := $(subst $(eval) ,,$(foreach i,1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20,0123456789abcd))

# The one QEMU command line (tools/qemu.py); it execs QEMU, so `make run`
# keeps the terminal. QEMU arguments of our own go after `--`.
QEMU := $(PYTHON) tools/qemu.py
QEMU_FLAGS := --kernel $(KERNEL) --cpus $(CPUS) $(if $(GIC),--gic $(GIC))

# The QEMU suites of make test ([test]) and make test-long ([long]), one
# line each, with their kind, cores and boot arguments: tests/suites.txt,
# read by the harness (tests/harness/suites.py). Its variables: MANY is
# the core count of the many-core suites, 16 unless `make test CPUS=N`
# names more than 8 (N up to 64; CPUS=32 is documented in
# docs/interrupts.md, not in CI), and the torture suites' delay and
# request count (below).
SUITES := tests/suites.txt
MANY_CPUS := $(if $(and $(filter command line,$(origin CPUS)),\
	$(filter-out 1 2 3 4 5 6 7 8,$(CPUS))),$(CPUS),16)
SUITE_ARGS = --suite-file $(SUITES) --var MANY=$(MANY_CPUS) \
	--var TORTURE_DELAY=$(TORTURE_DELAY) \
	--var TORTURE_OPS_SHORT=$(TORTURE_OPS_SHORT) --kernel $(KERNEL) \
	--kernel-test $(KERNEL_TEST) --kernel-irqstat $(KERNEL_IRQSTAT)
RUN_SUITES = $(PYTHON) tests/harness/run_tests.py $(SUITE_ARGS)
TEST_TIMEOUT ?= 300

# make torture (tests/kernel/test_torture.c): TORTURE_OPS random
# requests per run, on 2, 4 and 8 cores or only on CPUS if given, with
# random delays of up to TORTURE_DELAY ns at the race points (race.c).
# Each run prints its TORTURE line: requests, handled, lost, req/s.
# make test runs TORTURE_OPS_SHORT requests per core count.
TORTURE_OPS ?= 1000000
TORTURE_OPS_SHORT ?= 20000
TORTURE_DELAY ?= 2000
SEED ?= 1
TORTURE_CPUS := $(if $(filter command line environment,$(origin CPUS)),$(CPUS),2 4 8)
TORTURE_TIMEOUT ?= 10800
TORTURE_ARGS = test=icc_torture,torture_delay=$(TORTURE_DELAY)

# The interrupt controller (tools/qemu.py): GICv2 up to 8 cores, GICv3
# above; GIC=3 forces v3 (make run GIC=3 on 4 cores), GIC=2 v2.
GIC ?=
CPUS_OK := $(shell seq 1 64)
ifeq ($(filter $(CPUS),$(CPUS_OK)),)
$(error CPUS=$(CPUS): the kernel takes 1 to 64 cores (MAX_CPUS))
endif
ifneq ($(filter 2,$(GIC)),)
ifeq ($(filter $(CPUS),1 2 3 4 5 6 7 8),)
$(error CPUS=$(CPUS) GIC=2: GICv2 takes 1 to 8 cores)
endif
endif

.PHONY: all kernel kernel-test host-tests sim run demo debug test test-long model torture fuzz fs-fuzz soak bench bench-check bench-linux bench-smoke setup clean trace plots

all: kernel host-tests

$(SETUP): scripts/setup.sh
	@mkdir -p $(BUILD)
	@./scripts/setup.sh
	@touch $@

setup:
	@./scripts/setup.sh

kernel: $(SETUP) $(KERNEL)

$(KERNEL): $(KOBJS) arch/aarch64/kernel.ld
	@echo "  LD      $@"
	$(Q)$(CC) $(KCFLAGS) $(KLDFLAGS) -o $@ $(KOBJS)

# The test kernel (KTEST_SRCS above): no object is compiled twice.
KTOBJS = $(filter-out $(BUILD)/k/kernel/ktest_none.c.o,$(KOBJS)) \
	$(patsubst %,$(BUILD)/k/%.o,$(KTEST_SRCS))
kernel-test: $(SETUP) $(KERNEL_TEST)

$(KERNEL_TEST): $(KTOBJS) arch/aarch64/kernel.ld
	@echo "  LD      $@"
	$(Q)$(CC) $(KCFLAGS) $(KLDFLAGS) -o $@ $(KTOBJS)

# The same kernel with every trace hook compiled out (kernel/trace.h,
# FUL_TRACE_OFF): the reference of trace_record_off (make bench).
KNOBJS := $(patsubst %,$(BUILD)/kn/%.o,$(KSRCS)) $(BUILD)/k/modules.S.o
KERNEL_NOTRACE := $(BUILD)/kernel-notrace.elf
$(KERNEL_NOTRACE): $(KNOBJS) arch/aarch64/kernel.ld
	@echo "  LD      $@"
	$(Q)$(CC) $(KCFLAGS) $(KLDFLAGS) -o $@ $(KNOBJS)

# The objects of a kernel built a second time with one more -D:
# $(call kernel_variant,DIR,DEFINE,LABEL) -> $(BUILD)/DIR/*.o.
define kernel_variant
$(BUILD)/$(1)/%.c.o: %.c | $(SETUP)
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$< ($(3))"
	$$(Q)$$(CC) $$(KCFLAGS) -D$(2) -c -o $$@ $$<

$(BUILD)/$(1)/%.S.o: %.S | $(SETUP)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(KCFLAGS) -D$(2) -c -o $$@ $$<
endef
$(eval $(call kernel_variant,kn,FUL_TRACE_OFF,no trace))

# The same kernel with the IRQ-masked stretches recorded (FUL_IRQSTAT,
# kernel/irqstat.h; docs/tracing.md "The IRQ-stat kernel: IRQ-masked
# stretches"): booted by the irqstat test suite and make bench's
# wake_irqmask runs, never the default (its IPC paths keep their
# instruction counts).
KIOBJS := $(patsubst %,$(BUILD)/ki/%.o,$(KSRCS)) $(BUILD)/k/modules.S.o
KERNEL_IRQSTAT := $(BUILD)/kernel-irqstat.elf
$(KERNEL_IRQSTAT): $(KIOBJS) arch/aarch64/kernel.ld
	@echo "  LD      $@"
	$(Q)$(CC) $(KCFLAGS) $(KLDFLAGS) -o $@ $(KIOBJS)

$(eval $(call kernel_variant,ki,FUL_IRQSTAT,irqstat))

# Every kernel variant any target builds: make test builds them all, so
# that a variant which no longer compiles fails the tests, not a later
# make bench. Only the test kernel has self-tests.
KERNEL_VARIANTS := $(KERNEL_TEST) $(KERNEL_NOTRACE) $(KERNEL_IRQSTAT)

$(BUILD)/k/%.c.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(KCFLAGS) -c -o $@ $<

$(BUILD)/k/%.S.o: %.S | $(SETUP)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(CC) $(KCFLAGS) -c -o $@ $<

# ---- user space: rules (begin) -------------------------------------------
user: $(SETUP) $(USER_ELFS)

$(BUILD)/user/obj/%.c.o: %.c | $(SETUP)
	@mkdir -p $(dir $@)
	@echo "  UCC     $<"
	$(Q)$(CC) $(UCFLAGS) -c -o $@ $<

$(BUILD)/user/obj/%.S.o: %.S | $(SETUP)
	@mkdir -p $(dir $@)
	@echo "  UAS     $<"
	$(Q)$(CC) $(UCFLAGS) -c -o $@ $<

# libfulcrum goes in as objects, not an archive, so that its definitions
# (locks, stdio streams, _exit) always win over picolibc's stubs.
define user_prog_rule
$(BUILD)/user/$(1).elf: $(patsubst %,$(BUILD)/user/obj/%.o,$(wildcard $(call udir,$(1))/*.c $(call udir,$(1))/*/*.c $(call udir,$(1))/*.S) $(UEXTRA_$(1))) $(ULIB_OBJS) user/user.ld
	@echo "  ULD     $$@"
	@mkdir -p $$(dir $$@)
	$(Q)$(CC) $(UCFLAGS) $(ULDFLAGS) $(ULDFLAGS_$(1)) -o $$@ $$(filter %.o,$$^) $(ULIBS)
endef
$(foreach p,$(USER_PROGS),$(eval $(call user_prog_rule,$(p))))

$(BUILD)/user/strip/%.elf: $(BUILD)/user/%.elf
	@mkdir -p $(dir $@)
	$(Q)$(CROSS)strip -o $@ $<

# Regenerated on every run, rewritten only when the module list changes.
$(BUILD)/k/modules.S: tools/gen_modules.py FORCE
	$(Q)$(PYTHON) tools/gen_modules.py $@ $(foreach p,$(USER_PROGS),$(notdir $(p))=$(BUILD)/user/strip/$(p).elf)

$(BUILD)/k/modules.S.o: $(BUILD)/k/modules.S $(USER_MODS)
	@echo "  AS      $<"
	$(Q)$(CC) $(KCFLAGS) -c -o $@ $<

FORCE:
.PHONY: user FORCE
-include $(USER_OBJS:.o=.d)
-include $(KNOBJS:.o=.d)
-include $(KIOBJS:.o=.d)
-include $(KTOBJS:.o=.d)
# ---- user space: rules (end) ---------------------------------------------

# The wake_path TCG plugin (tools/plugin/wake_path.c; docs/bench-wake.md,
# "The core's own instructions"): a shared object for QEMU's -plugin, built with
# the host compiler and no QEMU headers (Debian ships none; the plugin
# declares the API functions it uses). make bench loads it into the
# wake-up runs; tests/host/test_wake_plugin.py builds it with this rule.
WAKE_PLUGIN := $(BUILD)/plugin/wake_path.so
PLUGIN_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
	-fPIC -shared -fvisibility=hidden
$(WAKE_PLUGIN): tools/plugin/wake_path.c
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	$(Q)$(HOSTCC) $(PLUGIN_CFLAGS) -o $@ $<

.PHONY: plugin
plugin: $(WAKE_PLUGIN)

host-tests: $(HOST_TESTS) $(SIM) $(BUILD)/host/fs_fuzz

sim: $(SIM)

$(SIM): $(wildcard tools/sim/*.c tools/sim/*.h) $(SIM_POLICY) \
	$(wildcard user/policy/*.h include/fulcrum/*.h) user/lib/include/ful/load.h
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	$(Q)$(HOSTCC) $(SIM_CFLAGS) -o $@ $(wildcard tools/sim/*.c) $(SIM_POLICY) -lm

$(BUILD)/host/%: tests/host/%.c $(HOST_LIB) $(wildcard kernel/*.h tests/host/*.h arch/fake/include/arch/*.h) \
	$(wildcard user/policy/*.h include/fulcrum/*.h) user/lib/include/ful/load.h
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	$(Q)$(HOSTCC) $(HCFLAGS) $(HOST_CPPFLAGS) -o $@ $< $(HOST_LIB)

# F's ext2 code (user/servers/fs) on mke2fs images, checked by e2fsck.
EXT2_SRC := user/servers/fs/ext2.c user/servers/fs/ext2_dir.c \
	user/servers/fs/ext2_undo.c user/servers/fs/ext2_free.c \
	user/servers/fs/ext2_mount.c
# Its helpers and its tests of failed operations are files of their own.
EXT2_TEST_SRC := tests/host/ext2_util.c tests/host/ext2_fail.c \
	tests/host/ext2_format.c
$(BUILD)/host/test_ext2: $(EXT2_SRC) $(EXT2_TEST_SRC) \
	$(wildcard user/servers/fs/*.h)
$(BUILD)/host/test_ext2: HOST_LIB += $(EXT2_SRC) $(EXT2_TEST_SRC)
# The same code on corrupted copies of an image (tests/host/test_ext2_corrupt.c).
$(BUILD)/host/test_ext2_corrupt: $(EXT2_SRC) $(wildcard user/servers/fs/*.h)
$(BUILD)/host/test_ext2_corrupt: HOST_LIB += $(EXT2_SRC)
# ... and over a device with a volatile write cache that loses power
# (tests/host/test_ext2_crash.c).
$(BUILD)/host/test_ext2_crash: $(EXT2_SRC) $(wildcard user/servers/fs/*.h)
$(BUILD)/host/test_ext2_crash: HOST_LIB += $(EXT2_SRC)
# The file-system model test of the same code (tests/host/fs_model.h):
# test_fs_model in make test, fs_fuzz for make fs-fuzz.
FS_MODEL_SRC := $(addprefix tests/host/fs_model_,tree.c ops.c pick.c check.c run.c)
FS_MODEL_BINS := $(BUILD)/host/test_fs_model $(BUILD)/host/fs_fuzz
$(FS_MODEL_BINS): $(EXT2_SRC) $(FS_MODEL_SRC) $(wildcard user/servers/fs/*.h)
$(FS_MODEL_BINS): HOST_LIB += $(EXT2_SRC) $(FS_MODEL_SRC)

# A host test may be linked from more sources than its test_*.c (named
# otherwise, so they are not binaries of their own): test_fdt's and
# test_elf's fuzz parts and the helpers both parts use. Their test names
# stay test_fdt/* and test_elf/*.
ELF_TEST_SRC := tests/host/elf_util.c tests/host/elf_fuzz.c
$(BUILD)/host/test_elf: $(ELF_TEST_SRC)
$(BUILD)/host/test_elf: HOST_LIB += $(ELF_TEST_SRC)
FDT_TEST_SRC := tests/host/fdt_util.c tests/host/fdt_fuzz.c
$(BUILD)/host/test_fdt: $(HOST_DTBS) $(FDT_TEST_SRC)
$(BUILD)/host/test_fdt: HOST_LIB += $(FDT_TEST_SRC)
$(BUILD)/host/test_fdt: HOST_CPPFLAGS += -DFDT_DIR='"$(abspath $(HOST_DTB_DIR))"'

# -append needs -kernel: QEMU dumps the tree before running this stub.
$(HOST_DTB_DIR)/stub-kernel.bin:
	@mkdir -p $(dir $@)
	$(Q)head -c 4096 /dev/zero > $@

$(HOST_DTB_DIR)/virt-smp%.dtb: $(HOST_DTB_DIR)/stub-kernel.bin tools/qemu.py | $(SETUP)
	@echo "  DTB     $@"
	$(Q)$(QEMU) --kernel $< --cpus $(word 1,$(subst -, ,$*)) \
		--mem $(word 2,$(subst -, ,$*)) --dumpdtb $@ \
		$(if $(filter gic3,$(subst -, ,$*)),--gic 3) \
		--append "$(HOST_DTB_ARGS_$(basename $(notdir $@)))" \
		2>$@.log || { cat $@.log >&2; rm -f $@; exit 1; }

# make run RUN_ARGS=kdebug: the kernel's debug monitor instead of the shell.
# make run attaches a disk: D, B (64 lines) and F start, and the shell's
# ls and cat read it. DISK=path uses another ext2 image; the default is
# made here from the README and docs/ (mke2fs, never committed).
RUN_ARGS ?=
DISK ?= $(BUILD)/disk.img
comma := ,
RUN_BOOT := disk,cache=64,fs$(if $(RUN_ARGS),$(comma)$(RUN_ARGS))
$(BUILD)/disk.img: README.md $(wildcard docs/*.md) | $(SETUP)
	@echo "  MKE2FS  $@"
	$(Q)rm -rf $(BUILD)/disk-tree && mkdir -p $(BUILD)/disk-tree/docs && \
		cp README.md $(BUILD)/disk-tree/ && \
		cp docs/*.md $(BUILD)/disk-tree/docs/ && \
		PATH="$$PATH:/usr/sbin:/sbin" mke2fs -q -F -t ext2 -b 4096 \
		-d $(BUILD)/disk-tree $@ 32M
run: kernel $(DISK)
	@echo "Booting Fulcrum on $(CPUS) cores, disk $(DISK). Quit: type 'off', or Ctrl-A then x."
	$(QEMU) $(QEMU_FLAGS) --disk $(DISK) --append "$(RUN_BOOT)"

demo: kernel
	$(QEMU) $(QEMU_FLAGS) --append "demo"

debug: kernel
	@echo "QEMU halted, gdb stub on :1234. In another terminal:"
	@echo "  gdb-multiarch -ex 'target remote :1234' $(KERNEL)"
	$(QEMU) $(QEMU_FLAGS) --append "" -- -s -S

# Every boot of make bench once, with boot argument bench_quick (tiny
# counts, user/bench/ub.h), and its simulator and trace tools at their
# smallest: each must give well-formed results (tools/bench_smoke.py,
# one test per boot or tool; docs/benchmarks.md "Smoke run").
BENCH_SMOKE := tools/bench_smoke.py --kernel $(KERNEL) \
	--kernel-irqstat $(KERNEL_IRQSTAT) --kernel-notrace $(KERNEL_NOTRACE) \
	--sim $(SIM) --wake-plugin $(WAKE_PLUGIN) --out $(BUILD)/bench-smoke
test: kernel host-tests $(KERNEL_VARIANTS) $(WAKE_PLUGIN)
	$(RUN_SUITES) --section test \
		$(addprefix --host-bin ,$(HOST_TESTS) $(wildcard tests/host/test_*.py)) \
		--host-bin "$(BENCH_SMOKE)" \
		--timeout $(TEST_TIMEOUT) --log-dir $(BUILD)/test-logs

bench-smoke: kernel $(SIM) $(KERNEL_VARIANTS) $(WAKE_PLUGIN)
	$(PYTHON) tests/harness/run_tests.py --host-bin "$(BENCH_SMOKE)" \
		--timeout $(TEST_TIMEOUT) --log-dir $(BUILD)/bench-smoke-logs

# Then F's ext2 code on the host, longer than make test runs it:
# test_ext2_crash loses power at every write of its workload (not 20),
# test_ext2_corrupt runs 3,000 damaged images per kind (not 400); about
# 3 and 2 minutes of CPU, more on a busy host, hence their own timeout.
EXT2_LONG_TIMEOUT ?= 3600
test-long: kernel $(KERNEL_TEST) $(BUILD)/host/test_ext2_crash $(BUILD)/host/test_ext2_corrupt
	$(RUN_SUITES) --section long \
		--timeout $(TEST_TIMEOUT) --log-dir $(BUILD)/test-logs
	EXT2_CRASH_LONG=1 EXT2_CORRUPT_CASES=3000 \
		$(PYTHON) tests/harness/run_tests.py \
		--host-bin $(BUILD)/host/test_ext2_crash \
		--host-bin $(BUILD)/host/test_ext2_corrupt \
		--timeout $(EXT2_LONG_TIMEOUT) --log-dir $(BUILD)/test-logs

# The Promela models of the mailbox, the wake protocol, migration and a
# thread record's seqcount (docs/icc.md, "Model check"): the protocol
# as it is must pass, each bug put back (-DFINDING2, -DFINDING5) must
# fail. Outputs in build/model/<check>/. `make test` runs the quick
# set (tests/host/test_model.py); MODEL_SET=quick here does the same.
MODEL_SET ?= full
model: $(SETUP)
	$(PYTHON) tools/model_check.py --set $(MODEL_SET) --out $(BUILD)/model

torture: kernel-test
	$(if $(filter 1,$(TORTURE_CPUS)),$(error make torture: icc_torture needs 2 cores or more))
	$(PYTHON) tests/harness/run_tests.py --kernel $(KERNEL_TEST) \
		$(foreach c,$(TORTURE_CPUS),--suite \
		torture$(c):$(c):$(TORTURE_ARGS),seed=$(SEED),torture_ops=$(TORTURE_OPS)) \
		--echo TORTURE --timeout $(TORTURE_TIMEOUT) \
		--log-dir $(BUILD)/torture-logs

# Kernel paths (the SGI and mailbox ones again on GICv3, as
# <name>_gicv3), then user-level IPC, balancing decisions, moving a
# running thread and the longest system calls (all deterministic under
# -icount, booted twice to check that), then the cross/same-core ratio
# and paper 000's matrix experiment (4 cores, then 3: two busy workers
# fit the two host cores) and paper 001's workloads under count and alb
# (4 cores) under multi-threaded TCG; results merged into one
# results.json.
BENCH_REPORT = $(PYTHON) tools/bench_report.py --kernel $(KERNEL) \
	--meta tools/bench_meta.json --out $(BUILD)/bench
BENCH_ICOUNT = $(BENCH_REPORT) --cpus 4 --repeat 2 --merge --append
BENCH_MTTCG = $(BENCH_REPORT) --no-icount --merge --append
# The IRQ-masked stretches of the wake-up benchmark's measured core, on
# the instrumented kernel (kernel-irqstat.elf): only its wake_irqmask_*
# results are kept, the latencies come from the default kernel's runs.
BENCH_IRQSTAT = $(PYTHON) tools/bench_report.py --kernel $(KERNEL_IRQSTAT) \
	--meta tools/bench_meta.json --out $(BUILD)/bench --repeat 1 --merge \
	--only 'wake_irqmask_*'

# D's disk_read_4k (ubench=disk) and B's cache_read_4k (ubench=cache,
# 64 lines), each booted once with a 4 MiB image of zeros attached: the
# device completes requests in a QEMU host thread, so two boots need
# not agree to the instruction (docs/bench-storage.md).
BENCH_DISK_IMG := $(BUILD)/bench/disk.img
BENCH_REPORT_DISK = for a in ubench=disk,disk ubench=cache,disk,cache=64; do \
	rm -f $(BENCH_DISK_IMG) && truncate -s 4M $(BENCH_DISK_IMG) && \
	$(BENCH_REPORT) --cpus 4 --repeat 1 --merge --append $$a \
	--disk $(BENCH_DISK_IMG) || exit 1; done

# F from a client (ubench=files, user/bench/ub_files.c): a 4 KiB cached
# read through the ring and over IPC, all on core 0 (form 1, icount),
# and ring vs IPC null round trips with F on core 1 (form 4, MTTCG), on
# the ext2 image of the test harness (tests/harness/ext2_image.py).
BENCH_EXT2_IMG := $(BUILD)/bench/ext2.img
BENCH_EXT2_PREP = $(PYTHON) -c 'import sys; sys.path.insert(0, "tests/harness"); \
	import ext2_image; ext2_image.prepare("$(BENCH_EXT2_IMG)")'
BENCH_REPORT_FILES = $(BENCH_EXT2_PREP) && \
	$(BENCH_REPORT) --cpus 4 --repeat 1 --merge --append \
	ubench=files,disk,cache=64,fs,form=1 --disk $(BENCH_EXT2_IMG) && \
	$(BENCH_EXT2_PREP) && \
	$(BENCH_MTTCG) ubench=files_mttcg,disk,cache=64,fs,form=4,fs_spin=200 --cpus 4 \
	--disk $(BENCH_EXT2_IMG)

# Paper 002's evaluation (issue 14; user/bench/ub_storage.c): Figure 5
# per form under icount, PostMark (Figure 7) and Bonnie (Figures 8-10)
# under multi-threaded TCG, each in one boot that moves F, B and D
# between the forms; e2fsck -fn must find each image clean afterwards.
# B has 1,024 lines (4 MiB): the working sets fit, as they do in Linux's
# page cache (with 64 lines, 3 or more Bonnie files went to the disk).
# Under MTTCG, F and the benchmark processes poll before sleeping
# (fs_spin=200): a request to a server on another core then costs no
# wake-up; under icount (Figure 5) they do not, polling would count.
# The work split under icount follows the disk's timing (QEMU's I/O
# threads), a few percent from boot to boot: its rows are the median of
# five boots, each on a fresh image.
BONNIE_SPLIT_BOOTS := 1 2 3 4 5
BENCH_FSCK = PATH="$$PATH:/usr/sbin:/sbin" e2fsck -fn $(BENCH_EXT2_IMG) >/dev/null \
	|| { echo "bench: e2fsck -fn: $(BENCH_EXT2_IMG) is not clean"; exit 1; }
BENCH_REPORT_STORAGE = $(BENCH_EXT2_PREP) && \
	$(BENCH_REPORT) --cpus 4 --repeat 1 --merge --append \
	ubench=forms,disk,cache=1024,fs --disk $(BENCH_EXT2_IMG) && $(BENCH_FSCK) && \
	$(BENCH_EXT2_PREP) && $(BENCH_REPORT) --cpus 4 --repeat 1 --merge --append \
	ubench=forms_b,disk,cache=1024,fs,fs_copy=0 --disk $(BENCH_EXT2_IMG) && $(BENCH_FSCK) && \
	for i in $(BONNIE_SPLIT_BOOTS); do $(BENCH_EXT2_PREP) && \
	$(BENCH_REPORT) --cpus 4 --repeat 1 --out $(BUILD)/bench/bonnie_split/$$i \
	--append ubench=bonnie_split,disk,cache=1024,fs --disk $(BENCH_EXT2_IMG) && \
	$(BENCH_FSCK) || exit 1; done && \
	$(BENCH_REPORT) --merge --median-of-boots $(foreach i,$(BONNIE_SPLIT_BOOTS), \
	--from-log $(BUILD)/bench/bonnie_split/$(i)/boot1.log) && \
	for b in forms_mttcg postmark bonnie; do $(BENCH_EXT2_PREP) && \
	$(BENCH_MTTCG) ubench=$$b,disk,cache=1024,fs,fs_spin=200 --cpus 4 --timeout 3000 \
	--disk $(BENCH_EXT2_IMG) && $(BENCH_FSCK) || exit 1; done

# The plots at its end need python3-matplotlib: setup installs it first,
# before the long runs (make test needs no matplotlib).
bench: kernel sim $(WAKE_PLUGIN)
	./scripts/setup.sh plots
	$(BENCH_REPORT) --cpus 4 --repeat 2
	$(BENCH_REPORT) --cpus 4 --repeat 2 --merge --gic 3 --append bench=all \
		--only sgi_trigger,sgi_handle,mailbox_post --suffix _gicv3
	for b in ipc ipc,fastpath=0 lb migrate frame sys; do $(BENCH_ICOUNT) ubench=$$b || exit 1; done
	$(BENCH_REPORT) --cpus 4 --repeat 1 --merge --append ubench=wake --timeout 2400 \
		--wake-path-plugin $(WAKE_PLUGIN)
	$(BENCH_MTTCG) ubench=wake,wake_mttcg,wake_samples=2000 --cpus 2 --timeout 1200
	$(BENCH_REPORT) --cpus 4 --repeat 1 --merge --timeout 1200 \
		--append ubench=wake,wake_policy=off,wake_stress_here \
		--wake-path-plugin $(WAKE_PLUGIN)
	$(MAKE) $(KERNEL_IRQSTAT)
	$(BENCH_IRQSTAT) --cpus 4 --append ubench=wake --timeout 1200
	$(BENCH_IRQSTAT) --cpus 4 --timeout 600 \
		--append ubench=wake,wake_policy=off,wake_stress_here
	$(BENCH_IRQSTAT) --no-icount --cpus 2 --timeout 1200 \
		--append ubench=wake,wake_mttcg,wake_samples=2000
	$(BENCH_MTTCG) ubench=mttcg --cpus 4
	$(BENCH_MTTCG) ubench=matmul --cpus 4 --timeout 900
	$(BENCH_MTTCG) ubench=matmul --cpus 3 --timeout 900
	$(BENCH_MTTCG) ubench=alb --cpus 4 --timeout 900
	$(BENCH_REPORT_DISK)
	$(BENCH_REPORT_FILES)
	$(BENCH_REPORT_STORAGE)
	$(PYTHON) tools/sim_bench.py --sim $(SIM) --out $(BUILD)/bench
	$(MAKE) $(KERNEL_NOTRACE)
	$(PYTHON) tools/trace_bench.py --kernel $(KERNEL) \
		--kernel-notrace $(KERNEL_NOTRACE) --out $(BUILD)/bench
	$(PYTHON) tools/plots.py --out $(BUILD)/bench \
		--results $(BUILD)/bench/results.json \
		--trace $(BUILD)/bench/trace/console.log
	$(PLOT_PYTHON) tools/plot_storage.py --results $(BUILD)/bench/results.json

# Paper 002's benchmarks on Linux, the monolithic peer, on the same QEMU
# (issue 14): Debian's arm64 kernel and busybox-static from apt-get
# download (scripts/setup.sh linux), the same benchmark sources built as
# static Linux programs; results merged into build/bench/results.json.
LINUX_DEBS := $(BUILD)/linux/debs
# Plots need Debian's python3-matplotlib, which Debian's own python3 sees.
PLOT_PYTHON ?= /usr/bin/python3
bench-linux: $(SETUP)
	bash scripts/setup.sh plots linux $(LINUX_DEBS)
	$(PYTHON) tools/linux_bench.py --debs $(LINUX_DEBS) --work $(BUILD)/linux \
		--out $(BUILD)/bench --meta tools/bench_meta.json
	$(PLOT_PYTHON) tools/plot_storage.py --results $(BUILD)/bench/results.json

# make trace SCENARIO=NAME [TRACE_CLASSES=sched|all|MASK] [TRACE_KIB=N]
# [TRACE_DRAIN=on|off] [TRACE_OUT=DIR] (tools/trace_run.py; docs/tracing.md
# "Export: `make trace`"): without TRACE_KIB and TRACE_DRAIN, the scenario's
# own ring size and drain, which lose no record
# (tests/host/test_trace_run.py runs this rule with its defaults).
SCENARIO ?= demo
TRACE_CLASSES ?= sched
TRACE_KIB ?=
TRACE_DRAIN ?=
TRACE_OUT ?= $(BUILD)/trace
trace: kernel
	$(PYTHON) tools/trace_run.py --kernel $(KERNEL) --scenario $(SCENARIO) \
		--classes $(TRACE_CLASSES) $(if $(TRACE_KIB),--kib $(TRACE_KIB)) \
		$(if $(TRACE_DRAIN),--drain $(TRACE_DRAIN)) --out $(TRACE_OUT)

# make plots: the plots of the last make bench and make trace, into
# build/plots (tools/plots.py; installs python3-matplotlib if missing).
plots:
	./scripts/setup.sh plots
	$(PYTHON) tools/plots.py --out $(BUILD)/plots \
		--results $(BUILD)/bench/results.json \
		$(foreach t,$(wildcard $(BUILD)/trace/console.log $(BUILD)/bench/trace/console.log),--trace $(t))

# Deterministic rows from results.json; timed rows from the last
# make bench-timed of each (timed.json), INCONCLUSIVE if never run.
bench-check:
	$(PYTHON) tools/bench_check.py --results $(BUILD)/bench/results.json \
		--timed $(BUILD)/bench/timed.json --meta tools/bench_meta.json

# make report [RESULTS=build/bench/results.json] [TIMED=build/bench/timed.json]:
# per family of benchmarks, a table of every result (min, median, max,
# unit, kind, runs) with the paper's figure beside it, its bound and its
# decision, into build/report/<family>.md (tools/bench_tables.py).
# make docs-figures [COMMIT=<the results' commit, default HEAD>]: the
# headline rows of RESULTS into docs/results/headline.json, TIMED merged
# by row into docs/results/timed.json, then the generated blocks of
# README.md and docs/benchmarks.md rewritten from them (a host test
# checks that they are fresh).
RESULTS ?= $(BUILD)/bench/results.json
TIMED ?= $(BUILD)/bench/timed.json
.PHONY: report docs-figures
report:
	$(PYTHON) tools/bench_tables.py --results $(RESULTS) --timed $(TIMED) \
		--meta tools/bench_meta.json --out $(BUILD)/report

docs-figures:
	$(PYTHON) tools/bench_tables.py --figures --results $(RESULTS) \
		--timed $(TIMED) --meta tools/bench_meta.json \
		$(if $(COMMIT),--commit $(COMMIT))

# make bench-timed [N=20] [ROWS=a,b]: the timed rows (tools/bench_kinds.py,
# measured in time under multi-threaded TCG) from N rounds of their boots
# (tools/bench_timed.py --list: the rows and their boots), each decided
# by the 95 % interval of its median into build/bench/timed.json, merged
# by row (a rerun of one row keeps the others). RESUME=1 takes up the
# boots an interrupted run of the same commit kept (a Bonnie run of 20
# rounds takes about 2.5 hours).
.PHONY: bench-timed
bench-timed: kernel sim
	$(PYTHON) tools/bench_timed.py --kernel $(KERNEL) --sim $(SIM) \
		--meta tools/bench_meta.json --out $(BUILD)/bench \
		$(if $(N),--n $(N)) $(if $(ROWS),--rows '$(ROWS)') \
		$(if $(RESUME),--resume)

# make soak SOAK=user4 [SOAK_N=100] [SOAK_J=2]: boot one suite of
# tests/suites.txt, by name, SOAK_N times, SOAK_J at a time
# (tools/soak.py); the count of failed runs, each with its FAIL lines
# and log (build/soak/SUITE/).
SOAK ?= user4
SOAK_N ?= 100
SOAK_J ?= 2
soak: kernel $(KERNEL_TEST) $(KERNEL_IRQSTAT)
	$(PYTHON) tools/soak.py --name $(SOAK) -n $(SOAK_N) -j $(SOAK_J) \
		--log-dir $(BUILD)/soak/$(SOAK) -- $(SUITE_ARGS) \
		--timeout $(TEST_TIMEOUT)

# One longer run of the fuzzer (tests/user/fuzz, docs/testing.md "The
# system-call fuzzer"):
# SECS seconds on CPUS cores from seed SEED; a failure prints its seed,
# and the same SEED, SECS and CPUS run the same mix again.
SEED ?= 1
SECS ?= 60
fuzz: kernel
	$(PYTHON) tests/harness/run_tests.py --kernel $(KERNEL) \
		--suite fuzz$(CPUS):$(CPUS):fuzz=$(SEED),fuzz_secs=$(SECS) \
		--timeout $$(($(SECS) + 300)) --log-dir $(BUILD)/fuzz-logs

# One long run of the file-system model test (tests/host/fs_fuzz.c): OPS
# steps from seed SEED on each image shape and block size [SHAPE=one|groups]
# [BS=4096] [TRACE=N: every step from step N printed]; a failure prints
# its first failing step and the command that replays it.
OPS ?= 1000000
FS_FUZZ_ARGS = --seed $(SEED) --ops $(OPS) $(if $(SHAPE),--shape $(SHAPE)) \
	$(if $(BS),--bs $(BS)) $(if $(TRACE),--trace $(TRACE))
fs-fuzz: $(BUILD)/host/fs_fuzz
	$(BUILD)/host/fs_fuzz $(strip $(FS_FUZZ_ARGS))

clean:
	rm -rf $(BUILD)

-include $(KOBJS:.o=.d)
