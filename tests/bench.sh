#!/bin/bash
# tests/bench.sh BUILD_DIR - compare BUILD_DIR/makedumpfile with the installed
# /usr/bin/makedumpfile (Debian 1.7.2) on the same vmcore and options.
#
# Run by `make bench`.  Environment:
#   BENCH_VMCORE=FILE   vmcore to use (default: the largest
#                       $MDF_SHARED/vmcores/*.elf.zst, decompressed once; else
#                       a synthetic 2 GiB one made with tests/gen/mkvmcore)
#   BENCH_PAIRS=N       timed A B pairs per job (default 5, 3 with BENCH_QUICK)
#   BENCH_SLOW_PAIRS=N  pairs for jobs where upstream runs --num-threads
#                       (default 2, 1 with BENCH_QUICK: 1.7.2 is ~10x slower)
#   BENCH_SCAN_GIB=N    RAM of the synthetic machine of the scan section
#                       (default 64, 16 with BENCH_QUICK)
#   BENCH_QUICK=1       the short version of all of the above
#   BENCH_STRACE_SLOW=1 also count syscalls of upstream's --num-threads runs
#                       (strace makes them several times slower still)
#   BENCH_TMPDIR=DIR    where outputs go (default /var/tmp); removed after
#   BENCH_UPSTREAM=FILE the reference binary (default /usr/bin/makedumpfile)
#   BENCH_HEAD=FILE     upstream HEAD, the second reference (default
#                       $MDF_SHARED/oracles/makedumpfile-head; "" = none)
#   BENCH_SPEEDUP_PAIRS=N  rounds of the 2-thread speed-up jobs (default
#                       three times BENCH_PAIRS)
#   BENCH_VMLINUX=FILE  debug vmlinux of the 6.1 fixture for the -g and -x
#                       jobs (default /var/tmp/mdf-dbg/vmlinux-6.1.0-57-amd64;
#                       "" = skip them)
#   BENCH_SETTLE=S      seconds to wait after removing an output of 64 MiB or
#                       more (default 3; 0 = no wait): see Bench._clean()
#
# The Markdown summary is printed last and written to build/bench.md.
set -u
B=${1:?usage: tests/bench.sh BUILD_DIR}
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
OURS=$B/makedumpfile
MKVMCORE=$B/tests/gen/mkvmcore
UP=${BENCH_UPSTREAM:-/usr/bin/makedumpfile}
MDF_SHARED=${MDF_SHARED:-$SRC/../shared}
QUICK=${BENCH_QUICK:-0}
[ "$QUICK" = 0 ] && QUICK=""

if [ ! -x "$UP" ]; then
	echo "bench: $UP not found: nothing to compare against."
	echo "bench: install the reference with: sudo apt-get install makedumpfile"
	echo "bench: (or point BENCH_UPSTREAM at another makedumpfile binary)"
	exit 0
fi
if [ ! -x "$OURS" ]; then
	echo "bench: $OURS not found: run 'make' first" >&2
	exit 1
fi
if ! command -v python3 >/dev/null; then
	echo "bench: python3 is needed for the measurements" >&2
	exit 1
fi

TMP=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/mdf-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# ---- the vmcore ----------------------------------------------------------
VMCORE=""
VMDESC=""
if [ -n "${BENCH_VMCORE:-}" ]; then
	VMCORE=$BENCH_VMCORE
	if [ ! -r "$VMCORE" ]; then
		echo "bench: BENCH_VMCORE=$VMCORE is not readable" >&2
		exit 1
	fi
	VMDESC=$(basename "$VMCORE")
else
	best="" best_size=-1
	for z in "$MDF_SHARED"/vmcores/*.elf.zst; do
		[ -f "$z" ] || continue
		s=$(stat -c %s "$z")
		if [ "$s" -gt "$best_size" ]; then best=$z best_size=$s; fi
	done
	if [ -n "$best" ] && command -v zstd >/dev/null; then
		n=$(basename "$best" .zst)
		if [ -n "${MDF_VMCORE_CACHE:-}" ] && [ -r "$MDF_VMCORE_CACHE/$n" ]; then
			VMCORE=$MDF_VMCORE_CACHE/$n
		else
			echo "bench: decompressing $best"
			VMCORE=$TMP/$n
			zstd -q -d "$best" -o "$VMCORE" || exit 1
		fi
		VMDESC="$n (real dump)"
	else
		if [ ! -x "$MKVMCORE" ]; then
			echo "bench: no vmcore: set BENCH_VMCORE, or build $MKVMCORE" >&2
			exit 1
		fi
		echo "bench: no real vmcore found; generating a synthetic 2 GiB one"
		VMCORE=$TMP/synthetic-2g.elf
		"$MKVMCORE" "$SRC/tests/bench/synthetic-2g.spec" "$VMCORE" || exit 1
		VMDESC="synthetic 2 GiB (tests/bench/synthetic-2g.spec)"
	fi
fi
# Whatever was just written must not be flushed during the timed runs.
sync

UP_ZSTD=1
if "$UP" -v 2>&1 | grep -q 'zstd[[:space:]]*disabled'; then UP_ZSTD=0; fi

# A tiny fork/exec/wait4 runner: peak RSS measured straight from python
# would include python's own memory (ru_maxrss survives exec).
RUNNER_ARGS=()
if ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TMP/runner" \
	"$SRC/tests/bench/runner.c" 2>"$TMP/cc.log"; then
	RUNNER_ARGS=(--runner "$TMP/runner")
else
	echo "bench: cannot compile tests/bench/runner.c (peak RSS will include python's):"
	cat "$TMP/cc.log"
fi

FLOOR_ARGS=()
if [ -x "$B/tests/tools/codecfloor" ]; then
	FLOOR_ARGS=(--codecfloor "$B/tests/tools/codecfloor")
fi

SCAN_ARGS=()
if [ -x "$MKVMCORE" ]; then
	SCAN_ARGS=(--mkvmcore "$MKVMCORE")
else
	echo "bench: $MKVMCORE missing: the scan section is skipped"
fi

# ---- -g and -x: the 6.1 fixture's debug vmlinux --------------------------
# (tests/lab/debug_vmlinux.sh fetches it once; BENCH_VMLINUX="" skips)
DBG_ARGS=()
VMLINUX=${BENCH_VMLINUX-${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}/vmlinux-6.1.0-57-amd64}
if [ -n "$VMLINUX" ] && [ -s "$VMLINUX" ]; then
	n=fx-v61-512m.elf
	if [ -n "${MDF_VMCORE_CACHE:-}" ] && [ -r "$MDF_VMCORE_CACHE/$n" ]; then
		DBG_ARGS=(--vmlinux "$VMLINUX" --dbg-vmcore "$MDF_VMCORE_CACHE/$n")
	elif [ -f "$MDF_SHARED/vmcores/$n.zst" ] && command -v zstd >/dev/null; then
		[ "$VMCORE" = "$TMP/$n" ] || zstd -q -d "$MDF_SHARED/vmcores/$n.zst" -o "$TMP/$n"
		DBG_ARGS=(--vmlinux "$VMLINUX" --dbg-vmcore "$TMP/$n")
	fi
else
	echo "bench: no debug vmlinux ($VMLINUX): the -g and -x jobs are skipped"
fi

mkdir -p "$SRC/build"
python3 "$SRC/tests/bench/bench.py" \
	--ours "$OURS" --upstream "$UP" --upstream-zstd "$UP_ZSTD" \
	--vmcore "$VMCORE" --vmdesc "$VMDESC" --tmp "$TMP" \
	--pairs "${BENCH_PAIRS:-${QUICK:+3}}" \
	--slow-pairs "${BENCH_SLOW_PAIRS:-${QUICK:+1}}" \
	--scan-gib "${BENCH_SCAN_GIB:-${QUICK:+16}}" \
	--strace-slow "${BENCH_STRACE_SLOW:-0}" \
	--settle "${BENCH_SETTLE:-3}" \
	--head "${BENCH_HEAD-$MDF_SHARED/oracles/makedumpfile-head}" \
	--speedup-pairs "${BENCH_SPEEDUP_PAIRS:-}" \
	"${SCAN_ARGS[@]}" "${RUNNER_ARGS[@]}" "${FLOOR_ARGS[@]}" "${DBG_ARGS[@]}" \
	--md "$SRC/build/bench.md"

# ---- BTF and kallsyms from the dump (issue 27's target: 0.5 s) ----------
# The load time the program itself reports (message level 8), and the
# whole of `-g FILE VMCORE`, five times each, on the bench vmcore.
if strings -n 12 "$VMCORE" | grep -q '^SYMBOL(kallsyms_names)='; then
	loads="" walls=""
	for i in 1 2 3 4 5; do
		rm -f "$TMP/btf-g.txt"
		t0=$(date +%s.%N)
		l=$("$OURS" --message-level 15 -g "$TMP/btf-g.txt" "$VMCORE" 2>&1 |
			sed -n 's/.* bytes of BTF from the dump in \([0-9.]*\) s$/\1/p')
		t1=$(date +%s.%N)
		loads="$loads $l" walls="$walls $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
	done
	rm -f "$TMP/btf-g.txt"
	med() { tr ' ' '\n' | grep . | sort -n | sed -n 3p; }
	{
		echo
		echo "### BTF and kallsyms from the dump ($VMDESC)"
		echo
		echo "| what | median of 5 | target |"
		echo "|---|---|---|"
		echo "| kallsyms and BTF loaded (the program's own timing) | $(med <<<"$loads") s | 0.5 s |"
		echo "| \`-g FILE VMCORE\`, the whole run | $(med <<<"$walls") s | |"
	} | tee -a "$SRC/build/bench.md"
else
	echo "bench: $VMCORE has no kallsyms in VMCOREINFO (before 6.0): no BTF job"
fi

# ---- --keep-task and --page-types (issue 30's target: <= 10 %) ----------
# -l -d 31 alone, with --keep-task 1 (init: a few hundred pages, so what
# is measured is the choosing: kallsyms, BTF, the task list, the page
# tables; the issue's target) and with --keep-task comm:labwork (the lab's
# workload process, in every lab dump: its pages are read, zero-checked
# and written too), and --dry-run -d 31 with and without --page-types, as
# alternating runs; the median of each and the ratio.
if strings -n 12 "$VMCORE" | grep -q '^SYMBOL(kallsyms_names)=' &&
	"$OURS" --message-level 0 --dry-run -d 31 --keep-task comm:labwork "$VMCORE" >/dev/null 2>&1; then
	wall() { # CMD...: the wall seconds of one run
		local t0 t1
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
	}
	plain="" init="" kept="" dry="" pt=""
	for i in 1 2 3 4 5; do
		rm -f "$TMP/kt.l"
		plain="$plain $(wall "$OURS" --message-level 0 -l -d 31 "$VMCORE" "$TMP/kt.l")"
		rm -f "$TMP/kt.l"
		init="$init $(wall "$OURS" --message-level 0 -l -d 31 --keep-task 1 "$VMCORE" "$TMP/kt.l")"
		rm -f "$TMP/kt.l"
		kept="$kept $(wall "$OURS" --message-level 0 -l -d 31 --keep-task comm:labwork "$VMCORE" "$TMP/kt.l")"
		rm -f "$TMP/kt.l"
		dry="$dry $(wall "$OURS" --message-level 0 --dry-run -d 31 "$VMCORE")"
		pt="$pt $(wall "$OURS" --message-level 0 --dry-run -d 31 --page-types "$VMCORE")"
	done
	rm -f "$TMP/kt.l"
	med() { tr ' ' '\n' | grep . | sort -n | sed -n 3p; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
	a=$(med <<<"$plain") i1=$(med <<<"$init") b=$(med <<<"$kept") c=$(med <<<"$dry") d=$(med <<<"$pt")
	{
		echo
		echo "### --keep-task and --page-types ($VMDESC)"
		echo
		echo "| run | median of 5 | with the option | ratio | target |"
		echo "|---|---|---|---|---|"
		echo "| \`-l -d 31\` and \`--keep-task 1\` (the choosing: kallsyms, BTF, tasks, page tables) | $a s | $i1 s | $(ratio "$a" "$i1") | <= 1.10 |"
		echo "| \`-l -d 31\` and \`--keep-task comm:labwork\` (and its pages read, checked and written) | $a s | $b s | $(ratio "$a" "$b") | |"
		echo "| \`--dry-run -d 31\` and \`--page-types\` | $c s | $d s | $(ratio "$c" "$d") | |"
	} | tee -a "$SRC/build/bench.md"
else
	echo "bench: $VMCORE has no kallsyms or no labwork process: no --keep-task job"
fi

# ---- in the capture kernel ----------------------------------------------
# The lab boots a 16 GiB guest (RAM in a sparse file), crashes it, and in
# its capture kernel times ours and 1.7.2 alternately on the live
# /proc/vmcore (tests/lab/measure_hook.sh).  About 4 minutes; BENCH_CAPTURE=0
# skips it, BENCH_CAPTURE_PAIRS=N (default 7) and BENCH_CAPTURE_MEM=SIZE
# change it.
if [ "${BENCH_CAPTURE:-1}" != 0 ]; then
	MDF_SRC=$SRC
	. "$SRC/tests/lab/lab.sh"
	missing=$(lab_missing)
	mem=${BENCH_CAPTURE_MEM:-16G}
	if [ -n "$missing" ]; then
		echo "bench: no capture-kernel section: missing$missing"
	elif ! capbin=$(capture_bin "$TMP/static.log"); then
		echo "bench: no capture-kernel section: static build failed: $capbin"
	else
		echo "bench: capture kernel: booting a $mem guest (about 4 minutes)"
		lab_measure mdf-bench-$mem "$mem" "$TMP/lab" 1 0 "$capbin" "$UP" \
			"ARGS='-l --message-level 7'" "PAIRS=${BENCH_CAPTURE_PAIRS:-7}" SAMPLE=0
		rc=$?
		res="$TMP/lab/mdf-bench-$mem.d/hook/results.txt"
		if [ $rc -ne 0 ] || [ ! -f "$res" ]; then
			echo "bench: capture kernel: the lab failed (rc $rc): $(tail -n 3 "$TMP/lab/mdf-bench-$mem.log" 2>/dev/null | tr '\n' ' ')"
		else
			python3 "$SRC/tests/bench/bench.py" capture "$res" "$SRC/build/bench.md" \
				"Debian 6.1 guest of $mem (1 % workloads), crashkernel=256M, 1 CPU"
		fi
	fi
fi
