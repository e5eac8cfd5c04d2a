# shellcheck shell=bash
# tests/lib/stages.sh - sourced by .ci/run and tests/lab/all.sh (make lab):
# timed stages of a long run, each counted, and the table of them.
# Needs STAGE_LOGS (a directory for each stage's log) and tests/lib/apt.sh
# (retry) sourced first.
#
# stage NAME TIMEOUT CMD...  run CMD and time it; prints "== stage NAME: N s"
# stage_bg NAME TIMEOUT CMD... the same in the background; stage_wait ends them
# stage_q NAME TIMEOUT AFTER CMD... queue a stage; stage_pool N runs the queue
#                           with N workers (then stage_wait)
# stage_download PKGS...    apt-get download what is missing, not installed
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

# stage_q NAME TIMEOUT AFTER CMD...: queue a stage for stage_pool (AFTER:
# the name of an earlier queued stage it must wait for, or "").
# stage_pool N: run the queued stages with N workers, each taking the next
# stage not yet taken, in the order they were queued (queue the longest
# first); stage_wait then prints and counts them in that order.  Two
# lanes fixed in advance lose to this when a day's stages differ in length
# (CI's real-kernel stages run 60 s to 13 min, by the day's slice).
STAGE_Q=()
stage_q() {
	local name=$1 limit=$2 after=$3
	shift 3
	rm -f "$STAGE_LOGS/$name.log.rc"
	STAGE_Q+=("$name:$limit:$after:$(printf '%q ' "$@")")
}
stage_pool() {
	local n=$1 w dir e name limit
	dir=$(mktemp -d "$STAGE_LOGS/.pool.XXXXXX")
	for ((w = 0; w < n; w++)); do _pool_worker "$dir" & done
	for e in "${STAGE_Q[@]}"; do
		IFS=: read -r name limit _ <<<"$e"
		echo "== stage $name (queued)"
		STAGE_BG+=("$name:$limit")
	done
	STAGE_Q=()
}
# _pool_worker DIR: claim queued stages (mkdir is atomic) until none is left.
_pool_worker() {
	local dir=$1 i e name limit after cmd t0
	for i in "${!STAGE_Q[@]}"; do
		mkdir "$dir/$i" 2>/dev/null || continue
		e=${STAGE_Q[$i]}
		IFS=: read -r name limit after cmd <<<"$e"
		while [ -n "$after" ] && [ ! -f "$STAGE_LOGS/$after.log.rc" ]; do sleep 2; done
		t0=$SECONDS
		eval "timeout -k 30 $limit $cmd" >"$STAGE_LOGS/$name.log" 2>&1
		echo "$? $((SECONDS - t0))" >"$STAGE_LOGS/$name.log.rc"
	done
}

# stage_wait: wait for every background stage; print and count each.
stage_wait() {
	local e name limit rc secs all=0
	wait
	rm -rf "$STAGE_LOGS"/.pool.* # stage_pool's claims
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
	local what=$1 missing
	shift
	missing=$(_missing "$@")
	[ -n "$missing" ] || { echo "$what: all installed"; return 0; }
	echo "$what: installing$missing"
	_apt_get "$what" install $missing
}

# stage_download PACKAGES...: only fetch those missing into apt's cache, so
# that a later stage_install of them is the unpacking alone (CI fetches the
# lab's packages while the test suites run: a fetch installs nothing a test
# could find half-way).
stage_download() {
	local missing
	missing=$(_missing "$@")
	[ -n "$missing" ] || { echo "download: all installed"; return 0; }
	echo "download:$missing"
	# A failed fetch is no failure: the install fetches what is missing.
	_apt_get download install --download-only $missing >/dev/null ||
		echo "# the fetch failed; the install fetches them: $(tail -n 1 "$STAGE_LOGS/apt.log")"
	return 0
}

_missing() {
	local p
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || printf ' %s' "$p"; done
}

# _apt_get WHAT ARGS...: apt-get update, then apt-get ARGS, each retried.
_apt_get() {
	local what=$1
	shift
	if retry "$STAGE_LOGS/apt.log" apt-get update -q &&
		retry "$STAGE_LOGS/apt.log" env DEBIAN_FRONTEND=noninteractive \
			apt-get -y -q --no-install-recommends "$@"; then
		return 0
	fi
	echo "not ok install-$what: apt-get $*: $(tail -n 3 "$STAGE_LOGS/apt.log" | tr '\n' ' ')"
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
