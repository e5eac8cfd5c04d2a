# shellcheck shell=bash
# tests/lib/stages.sh - sourced by .ci/run and tests/lab/all.sh (make lab):
# timed stages of a long run, each counted, and the table of them.
# Needs STAGE_LOGS (a directory for each stage's log) and tests/lib/apt.sh
# (retry) sourced first.
#
# stage NAME TIMEOUT CMD...  run CMD and time it; prints "== stage NAME: N s"
# stage_bg NAME TIMEOUT CMD... the same in the background; stage_wait ends them
# stage_install WHAT PKGS... apt-get install what is missing (as a stage's CMD)
# stage_table               the Markdown table of the stages so far
# PASS FAIL SKIP            the sums; STAGE_NAMES STAGE_SECS STAGE_RESULTS
STAGE_NAMES=() STAGE_SECS=() STAGE_RESULTS=()
PASS=0 FAIL=0 SKIP=0

# A command whose output ends with tests/run.sh's "N passed, N failed, N
# skipped" adds those counts; any other adds one pass or one failure.
# TIMEOUT (seconds) bounds a stage that hangs (a stuck qemu), so the run
# still ends in time; a shell function (apt, the fuzzers) bounds itself.
stage() {
	local name=$1 limit=$2 t0=$SECONDS rc log
	shift 2
	log="$STAGE_LOGS/$name.log"
	echo "== stage $name"
	if declare -F "$1" >/dev/null; then
		"$@" 2>&1 | tee "$log"
	else
		timeout -k 30 "$limit" "$@" 2>&1 | tee "$log"
	fi
	rc=${PIPESTATUS[0]}
	_stage_count "$name" "$rc" $((SECONDS - t0)) "$limit"
}

# stage_bg NAME TIMEOUT CMD...: the same, in the background, its output
# kept for stage_wait (stages that use one core each run side by side on
# a machine with two: the test suites, the fuzzers).
STAGE_BG=()
stage_bg() {
	local name=$1 limit=$2 log
	shift 2
	log="$STAGE_LOGS/$name.log"
	echo "== stage $name (in the background)"
	(
		t0=$SECONDS
		if declare -F "$1" >/dev/null; then "$@" >"$log" 2>&1
		else timeout -k 30 "$limit" "$@" >"$log" 2>&1; fi
		echo "$? $((SECONDS - t0))" >"$log.rc"
	) &
	STAGE_BG+=("$name:$limit")
}

# stage_wait: wait for every background stage; print and count each.
stage_wait() {
	local e name limit rc secs all=0
	wait
	for e in "${STAGE_BG[@]}"; do
		name=${e%:*} limit=${e##*:}
		echo "== stage $name (its output)"
		cat "$STAGE_LOGS/$name.log"
		read -r rc secs <"$STAGE_LOGS/$name.log.rc" 2>/dev/null || { rc=125 secs=0; }
		_stage_count "$name" "$rc" "$secs" "$limit" || all=1
	done
	STAGE_BG=()
	return $all
}

# _stage_count NAME RC SECONDS TIMEOUT: add a finished stage's counts.
_stage_count() {
	local name=$1 rc=$2 secs=$3 limit=$4 log="$STAGE_LOGS/$1.log" line p f s
	[ "$rc" = 124 ] && echo "not ok stage-$name: timed out after $limit s" | tee -a "$log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	if [ -n "$line" ] && [ "$rc" != 124 ]; then
		read -r p _ f _ s _ <<<"${line//,/}"
		# a runner that failed without counting it
		[ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
	elif [ "$rc" = 0 ]; then p=1 f=0 s=0
	else p=0 f=1 s=0; fi
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
	STAGE_NAMES+=("$name") STAGE_SECS+=("$secs")
	STAGE_RESULTS+=("$p passed, $f failed, $s skipped$([ "$rc" = 0 ] || echo ", exit $rc")")
	echo "== stage $name: $secs s"
	return "$rc"
}

# stage_install WHAT PACKAGES...: apt-get install those missing, retried
# with back-off (a mirror may be mid-sync); a failure names the packages.
stage_install() {
	local what=$1 p missing=""
	shift
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
	[ -n "$missing" ] || { echo "$what: all installed"; return 0; }
	echo "$what: installing$missing"
	# shellcheck disable=SC2086
	if retry "$STAGE_LOGS/apt.log" apt-get update -q &&
		retry "$STAGE_LOGS/apt.log" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends $missing; then
		return 0
	fi
	echo "not ok install-$what: apt-get install$missing failed: $(tail -n 3 "$STAGE_LOGS/apt.log" | tr '\n' ' ')"
	return 1
}

stage_table() {
	local i
	echo "| stage | wall | result |"
	echo "|---|---|---|"
	for i in "${!STAGE_NAMES[@]}"; do
		echo "| ${STAGE_NAMES[$i]} | ${STAGE_SECS[$i]} s | ${STAGE_RESULTS[$i]} |"
	done
}
