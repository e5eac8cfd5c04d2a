# shellcheck shell=bash
# Shared helpers for e2e scripts (sourced).
T=$(mktemp -d /tmp/mdf-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
ok() { echo "ok $1"; }
notok() { echo "not ok $1: $2"; }
skip() { echo "skip $1: $2"; }
# needfail NAME WHY: NAME could not be set up (a tool or package missing,
# packages or kernels that could not be fetched, a cross build that
# failed, not root).  A skip line with WHY; with MDF_REAL_REQUIRED=1 (CI
# sets it: it asked for these tests) a "not ok" line, so that a test CI
# asked for cannot pass by not running.  Not for facts (a kernel without
# a feature) or the opt-in gate (optin).
needfail() {
	if [ "${MDF_REAL_REQUIRED:-0}" = 1 ]; then
		notok "$1" "$2 (MDF_REAL_REQUIRED=1: a test CI asked for could not be set up)"
	else
		skip "$1" "$2"
	fi
}
# optin NAME VAR WHAT: true when the opt-in variable VAR is 1; else a skip
# line that says what NAME costs (WHAT) and how to run it.
optin() {
	[ "${!2:-0}" = 1 ] && return 0
	skip "$1" "$3; run with $2=1 make check TESTS=$1"
	return 1
}
# watching PID: wait (up to 60 s, a loaded machine under the sanitizers
# is slow) until the process PID has SIGTERM blocked and a second thread,
# that is until its stop thread (stop.c) watches for it: a signal sent
# before then ends it by the default action, which is a test's race (the
# shell's child blocks signals too, between its fork and its exec: SigBlk
# alone is not enough).  On failure it prints what it last saw, for the
# caller's "not ok" line; on success what it saw, for a later one.
watching() {
	local m="" t="" end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		m=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		t=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		# SIGTERM blocked and nothing but the stop signals (HUP INT TERM):
		# not the shell's child before its exec, which blocks them all
		[ -n "$m" ] && [ "${t:-1}" -ge 2 ] && (( (16#$m & 0x4000) && !(16#$m & ~0x4003) )) && {
			echo "watched: SigBlk $m, threads $t"; return 0; }
		kill -0 "$1" 2>/dev/null || { echo "process $1 ended before it watched"; return 1; }
		sleep 0.05
	done
	echo "process $1 not watching after 60 s (SigBlk ${m:-?}, threads ${t:-?})"
	return 1
}
check() { # check NAME COMMAND...
	local name=$1; shift
	if "$@" >"$T/check.out" 2>&1; then ok "$name"
	else notok "$name" "$(tail -n 3 "$T/check.out" | tr '\n' ' ')"; fi
}
# vmcore NAME: decompress ../shared/vmcores/NAME.elf.zst into the temp dir
# (or reuse MDF_VMCORE_CACHE/NAME.elf when that is set); prints the path.
vmcore() {
	local name=$1 src="$MDF_SHARED/vmcores/$1.elf.zst"
	if [ -n "${MDF_VMCORE_CACHE:-}" ] && [ -f "$MDF_VMCORE_CACHE/$name.elf" ]; then
		echo "$MDF_VMCORE_CACHE/$name.elf"; return 0
	fi
	[ -f "$src" ] || return 1
	command -v zstd >/dev/null || return 1
	[ -f "$T/$name.elf" ] || zstd -q -d "$src" -o "$T/$name.elf" || return 1
	echo "$T/$name.elf"
}

