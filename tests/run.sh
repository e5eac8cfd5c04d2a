#!/bin/bash
# tests/run.sh BUILD_DIR - run every test and print "N passed, N failed, N skipped".
# TESTS=PATTERN runs a part (picked() below).
#
# Test programs print "ok NAME", "not ok NAME: why" or "skip NAME: why"
# lines.  A program that exits non-zero without a "not ok" line counts as
# one failure; exit 77 with no lines counts as one skip.  Unit tests live in
# BUILD/tests/unit, fuzz corpus replays in BUILD/tests/fuzz, end-to-end
# scripts in tests/e2e/*.sh (they get MDF_BUILD, MDF and MDF_SRC).
set -u
# The stop tests send SIGHUP, SIGINT and SIGTERM: a suite started under
# nohup or as a background job inherits some of them ignored, and a
# signal ignored at a shell's entry cannot be reset by the shell.  Run
# with every stop signal at its default (coreutils' env, 8.31 on).
if [ -z "${MDF_RUN_SIGNALS:-}" ] && env --default-signal=HUP true 2>/dev/null; then
	MDF_RUN_SIGNALS=1 exec env --default-signal=HUP,INT,TERM bash "$0" "$@"
fi
B=${1:?usage: tests/run.sh BUILD_DIR}
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
export MDF_BUILD="$B" MDF_SRC="$SRC" MDF="$B/makedumpfile"
export MDF_FUZZ_KOBJ_SADUMP=${MDF_FUZZ_KOBJ_SADUMP:-$B/tests/gen/kobj-sadump}
export MDF_SHARED=${MDF_SHARED:-$SRC/../shared}
ONLY=${TESTS:-}
# MDF_RUNNER runs the compiled tests through a program, e.g. "qemu-riscv64
# -L SYSROOT" for a cross build (tests/cross.sh).
read -r -a RUNNER <<<"${MDF_RUNNER:-}"
pass=0 fail=0 skip=0
failed_names=()
LOG=$(mktemp)
VMDIR=""
trap 'rm -f "$LOG"; [ -n "$VMDIR" ] && rm -rf "$VMDIR"' EXIT
# Decompress the real vmcores once for all e2e scripts (they are never
# written into the repository).
if [ -z "${MDF_VMCORE_CACHE:-}" ] && [ -d "$MDF_SHARED/vmcores" ] && command -v zstd >/dev/null; then
	VMDIR=$(mktemp -d /tmp/mdf-vmcores.XXXXXX)
	for z in "$MDF_SHARED"/vmcores/*.elf.zst; do
		[ -f "$z" ] || continue
		n=$(basename "$z" .zst)
		zstd -q -d "$z" -o "$VMDIR/$n" || rm -f "$VMDIR/$n"
	done
	export MDF_VMCORE_CACHE="$VMDIR"
fi

# picked NAME: does TESTS pick the test NAME?  TESTS is a list of patterns:
# "thread" picks every test whose name holds it, "unit/" every unit test,
# "e2e/deb" that test alone (not e2e/debuginfo).
picked() {
	local pat
	[ -z "$ONLY" ] && return 0
	for pat in $ONLY; do
		# shellcheck disable=SC2053
		[[ "$1" == $pat ]] && return 0
		[[ "$pat" == */?* ]] && continue
		[[ "$1" == *$pat* ]] && return 0
	done
	return 1
}

run_one() {
	local name=$1; shift
	picked "$name" || return
	local t0=$SECONDS
	"$@" >"$LOG" 2>&1
	local rc=$? p=0 f=0 s=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*) p=$((p+1)); echo "  $line" ;;
		"not ok "*) f=$((f+1)); echo "  $line"; failed_names+=("$name: ${line#not ok }") ;;
		"skip "*) s=$((s+1)); echo "  $line" ;;
		esac
	done <"$LOG"
	if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ $f -eq 0 ]; then
		f=1; failed_names+=("$name: exit status $rc")
		echo "  not ok $name: exit status $rc"
	fi
	if [ $rc -eq 77 ] && [ $((p+f+s)) -eq 0 ]; then
		s=1; echo "  skip $name: $(tail -n1 "$LOG")"
	fi
	if [ $f -ne 0 ]; then
		echo "---- output of $name (last 40 lines)"; tail -n 40 "$LOG"; echo "----"
	fi
	echo "$name: $p passed, $f failed, $s skipped ($((SECONDS-t0))s)"
	pass=$((pass+p)); fail=$((fail+f)); skip=$((skip+s))
}

for t in "$B"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "${RUNNER[@]}" "$t"
done
for t in "$B"/tests/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	n=$(basename "$t"); n=${n#fuzz_}
	run_one "fuzz/$n" "${RUNNER[@]}" "$t" "$SRC/tests/fuzz/corpus/$n"
done
for t in "$SRC"/tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	run_one "e2e/$(basename "$t" .sh)" bash "$t"
done

if [ ${#failed_names[@]} -gt 0 ]; then
	echo "FAILED:"; printf '  %s\n' "${failed_names[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
