#!/bin/bash
# Package staging of the real tests, without network or qemu (a few seconds):
#  - tests/lib/apt.sh's deb_mirror on fixture apt sources: deb822 stanzas
#    (main and security, a comment between fields, a continuation line,
#    sources that are not Debian's), one-line sources.list and *.list
#    entries, the override variables (MDF_DEB_MIRROR too), a security
#    mirror derived from the main one, and no source at all (status 1 and
#    a message);
#  - retry: a command that fails twice and then succeeds, one that always
#    fails, and the pauses between tries (10, 30, 90 s by default);
#  - apt_state against a dead mirror (127.0.0.1:9): fails, its log names
#    the failure and the security suite it dropped;
#  - lib.sh's needfail: "not ok" with MDF_REAL_REQUIRED=1, else "skip";
#  - the network gone in the middle of staging: tests/e2e/arm64.sh and
#    tests/e2e/foreign.sh (riscv64) against the dead mirror print a "not ok"
#    that says why with MDF_REAL_REQUIRED=1, and a skip without.  Once as
#    they are (on a machine without the arm64 or riscv64 tools they stop
#    at "missing:", which is accepted and said), once with stand-ins for
#    the tools this machine lacks and for the lab, so that they reach the
#    staging on any machine;
#  - registry-host-not-in-project: the host of each mirror deb_mirror finds
#    on this machine is named nowhere in the repository but
#    debian/copyright, makedumpfile.8 and README.
# shellcheck source=tests/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
APT_SH=$MDF_SRC/tests/lib/apt.sh
DEAD=http://127.0.0.1:9

# ---- deb_mirror on fixtures ---------------------------------------------
# dm DIR LIST KIND [VAR=VALUE...]: deb_mirror KIND with those apt sources,
# in an environment without the override variables but the given ones;
# prints its output, or "rc N: its message".
dm() {
	local dir=$1 list=$2 kind=$3 out rc
	shift 3
	# shellcheck disable=SC2016 # expanded by that bash
	out=$(env -u MDF_DEBIAN_MIRROR -u MDF_DEB_MIRROR -u MDF_DEBIAN_SECURITY_MIRROR \
		MDF_APT_SOURCES_DIR="$dir" MDF_APT_SOURCES_LIST="$list" "$@" \
		bash -c '. "$1"; deb_mirror "$2"' _ "$APT_SH" "$kind" 2>"$T/dm.err")
	rc=$?
	if [ $rc -eq 0 ]; then echo "$out"; else echo "rc $rc: $(cat "$T/dm.err")"; fi
}
# expect NAME GOT WANT
expect() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else notok "$1" "got '$2', want '$3'"; fi
}

mkdir -p "$T/d822" "$T/d822-nosec" "$T/dlist" "$T/dempty"
# Sorted first, not Debian's: a suite of its own, a suite name without main.
cat >"$T/d822/a-node.sources" <<'EOF'
Types: deb
URIs: https://node.example/node_20.x
Suites: nodistro
Components: main

Types: deb
URIs: https://docker.example/linux/debian
Suites: bookworm
Components: stable
EOF
cat >"$T/d822/debian.sources" <<'EOF'
Types: deb-src
URIs: http://src.example/debian
Suites: bookworm
Components: main

Types: deb
URIs: http://off.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb
# http://snapshot.example/archive/debian/20250520T000000Z
URIs: http://mirror.example/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs:
 http://security.example/debian-security
Suites: bookworm-security
Components: main contrib
EOF
printf '%s\n' "Types: deb" "URIs: http://mirror.example/debian" "Suites: trixie" \
	"Components: main" >"$T/d822-nosec/debian.sources"
cat >"$T/sources.list" <<'EOF'
# deb http://old.example/debian buster main
deb-src http://src.example/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://list.example/debian/ bookworm main contrib
deb http://list.example/debian-security bookworm-security main
EOF
echo "deb [arch=amd64] https://docker.example/linux/debian bookworm stable" >"$T/dlist/docker.list"
echo "deb http://dotlist.example/debian trixie main" >"$T/dlist/z.list"

expect mirror-deb822-main "$(dm "$T/d822" "$T/none" main)" http://mirror.example/debian
expect mirror-deb822-security "$(dm "$T/d822" "$T/none" security)" http://security.example/debian-security
expect mirror-deb822-over-list "$(dm "$T/d822" "$T/sources.list" main)" http://mirror.example/debian
expect mirror-list-main "$(dm "$T/dempty" "$T/sources.list" main)" http://list.example/debian
expect mirror-list-security "$(dm "$T/dempty" "$T/sources.list" security)" http://list.example/debian-security
expect mirror-dot-list-main "$(dm "$T/dlist" "$T/none" main)" http://dotlist.example/debian
expect mirror-dot-list-security-derived "$(dm "$T/dlist" "$T/none" security)" http://dotlist.example/debian-security
expect mirror-override-main "$(dm "$T/d822" "$T/none" main MDF_DEBIAN_MIRROR=http://o.example/debian/)" \
	http://o.example/debian
expect mirror-override-main-moves-security \
	"$(dm "$T/d822" "$T/none" security MDF_DEBIAN_MIRROR=http://o.example/debian)" http://o.example/debian-security
expect mirror-override-security \
	"$(dm "$T/d822" "$T/none" security MDF_DEBIAN_MIRROR=http://o.example/debian MDF_DEBIAN_SECURITY_MIRROR=http://s.example/ds)" \
	http://s.example/ds
expect mirror-override-security-only "$(dm "$T/d822" "$T/none" main MDF_DEBIAN_SECURITY_MIRROR=http://s.example/ds) $(
	dm "$T/d822" "$T/none" security MDF_DEBIAN_SECURITY_MIRROR=http://s.example/ds)" \
	"http://mirror.example/debian http://s.example/ds"
expect mirror-old-name-MDF_DEB_MIRROR "$(dm "$T/d822" "$T/none" main MDF_DEB_MIRROR=http://legacy.example/debian)" \
	http://legacy.example/debian
expect mirror-deb822-no-security-derived "$(dm "$T/d822-nosec" "$T/none" security)" \
	http://mirror.example/debian-security
got=$(dm "$T/dempty" "$T/none" main)
case "$got" in
"rc 1: deb_mirror: no Debian source in"*MDF_DEBIAN_MIRROR*) ok "mirror-none-fails ($got)" ;;
*) notok "mirror-none-fails" "$got" ;;
esac

# ---- retry --------------------------------------------------------------
# shellcheck disable=SC2317 # flaky, never and sleep run through retry
(
	# shellcheck source=tests/lib/apt.sh
	. "$APT_SH"
	unset MDF_RETRY_SLEEP MDF_RETRY_TRIES
	echo 0 >"$T/n"
	flaky() { local n; n=$(($(cat "$T/n") + 1)); echo "$n" >"$T/n"; echo "attempt $n"; [ "$n" -ge 3 ]; }
	MDF_RETRY_SLEEP=0 retry "$T/flaky.log" flaky
	rc=$?
	if [ $rc -eq 0 ] && [ "$(cat "$T/n")" = 3 ] && grep -q '^try 1 of 4 failed: attempt 1 ' "$T/flaky.log" &&
		grep -q '^try 2 of 4 failed: attempt 2 ' "$T/flaky.log" && ! grep -q '^try 3' "$T/flaky.log" &&
		grep -qx 'attempt 3' "$T/flaky.log"; then
		ok "mirror-retry-fails-twice-then-succeeds (3 tries, rc 0)"
	else notok "mirror-retry-fails-twice-then-succeeds" "rc $rc, $(cat "$T/n") tries: $(tr '\n' ' ' <"$T/flaky.log")"; fi

	echo 0 >"$T/n"
	never() { local n; n=$(($(cat "$T/n") + 1)); echo "$n" >"$T/n"; echo "no luck $n"; return 7; }
	MDF_RETRY_SLEEP=0 MDF_RETRY_TRIES=3 retry "$T/never.log" never
	rc=$?
	if [ $rc -eq 7 ] && [ "$(cat "$T/n")" = 3 ] && grep -q '^try 3 of 3 failed: no luck 3 (exit 7)' "$T/never.log"; then
		ok "mirror-retry-always-fails (3 tries, rc 7)"
	else notok "mirror-retry-always-fails" "rc $rc, $(cat "$T/n") tries: $(tr '\n' ' ' <"$T/never.log")"; fi

	# the pauses, with sleep stood in for
	sleep() { echo "$1" >>"$T/pauses"; }
	never() { return 1; }
	retry "$T/pause.log" never
	got=$(tr '\n' ' ' <"$T/pauses")
	expect mirror-retry-back-off "$got" "10 30 90 "
)

# ---- apt_state against a dead mirror -------------------------------------
if ! command -v apt-get >/dev/null; then
	skip "mirror-apt-state-dead" "no apt-get on this machine"
else
	(
		# shellcheck source=tests/lib/apt.sh
		. "$APT_SH"
		export MDF_DEBIAN_MIRROR=$DEAD/debian MDF_DEBIAN_SECURITY_MIRROR=$DEAD/debian-security
		export MDF_RETRY_SLEEP=0 MDF_RETRY_TRIES=2
		DEB_ARCH=arm64
		apt_state "$T/apt" "$T/apt.log" bookworm bookworm-security
		rc=$?
		why=""
		[ $rc -ne 0 ] || why="$why status 0;"
		grep -q "^try 2 of 2 failed: .*Failed to fetch $DEAD/debian-security/dists/bookworm-security" "$T/apt.log" ||
			grep -q "^try 2 of 2 failed: .*Failed to fetch $DEAD/debian/dists/bookworm/" "$T/apt.log" ||
			why="$why no failed try naming the mirror;"
		grep -qx "security suite optional: bookworm-security dropped, its packages come from bookworm" "$T/apt.log" ||
			why="$why no dropped security suite;"
		[ "$(tail -n 1 "$T/apt.log" | cut -c 1-40)" = "try 2 of 2 failed: E: Failed to fetch ht" ] ||
			why="$why last line '$(tail -n 1 "$T/apt.log")';"
		[ "$(cat "$T/apt/sources.list")" = "deb [trusted=yes] $DEAD/debian bookworm main" ] ||
			why="$why sources.list $(tr '\n' ' ' <"$T/apt/sources.list");"
		if [ -z "$why" ]; then ok "mirror-apt-state-dead (rc $rc; $(grep -c '^try ' "$T/apt.log") failed tries, security dropped)"
		else notok "mirror-apt-state-dead" "$why $(grep -E '^(try|security)' "$T/apt.log" | tr '\n' ' ')"; fi
	)
fi

# ---- needfail --------------------------------------------------------------
got=$(MDF_REAL_REQUIRED=1 needfail thing "no widget")
if [ "$got" = "not ok thing: no widget (MDF_REAL_REQUIRED=1: a test CI asked for could not be set up)" ]; then
	ok "mirror-needfail-strict (a 'not ok' line with the reason and MDF_REAL_REQUIRED's note)"
else notok "mirror-needfail-strict" "got '$got'"; fi
got=$( (MDF_REAL_REQUIRED=0 needfail thing "no widget"; unset MDF_REAL_REQUIRED; needfail thing "no widget") | tr '\n' '|')
expect mirror-needfail-skip "$got" "skip thing: no widget|skip thing: no widget|"

# ---- the network gone in the middle of staging ----------------------------
# real SCRIPT OUT VAR=VALUE...: run tests/e2e/SCRIPT against the dead
# mirror, output in OUT.
real() {
	local script=$1 out=$2
	shift 2
	env -u MDF_REAL_REQUIRED -u MDF_DEB_MIRROR -u MDF_DEBIAN_SECURITY_MIRROR -u MDF_ARM64_VMCORE \
		-u MDF_ARM64_TEST -u MDF_FOREIGN_TEST -u MDF_FOREIGN_ARCHES -u MDF_FOREIGN_CACHE \
		MDF_SRC="$MDF_SRC" MDF_SHARED="$MDF_SHARED" MDF="$MDF" MDF_BUILD="$MDF_BUILD" \
		MDF_DEBIAN_MIRROR=$DEAD/debian MDF_RETRY_SLEEP=0 MDF_RETRY_TRIES=2 "$@" \
		timeout 120 bash "$MDF_SRC/tests/e2e/$script" >"$out" 2>&1
}
# Stand-ins for the tools this machine lacks (never run: the staging fails
# first) and for the lab, so that the scripts reach the staging.
mkdir -p "$T/stub" "$T/shared/lab"
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc qemu-system-riscv64 riscv64-linux-gnu-gcc \
	qemu-riscv64 cpio gzip mkfs.ext4 debugfs xz readelf file python3 gcc busybox; do
	# shellcheck disable=SC2016 # $0 of the stand-in
	command -v "$t" >/dev/null 2>&1 || printf '#!/bin/sh\necho "stand-in $0"; exit 1\n' >"$T/stub/$t"
done
chmod +x "$T"/stub/* 2>/dev/null
printf '#!/bin/sh\nexit 1\n' >"$T/shared/lab/mkvmcore.sh"
SUFFIX="(MDF_REAL_REQUIRED=1: a test CI asked for could not be set up)"

# staged NAME TEST STAGING LINE...: check the runs of one script.  TEST is
# its test name ("arm64", "riscv64"), STAGING the start of its staging
# failure's reason; the files $T/NAME.{strict,plain,stub,stubplain}.
staged() {
	local name=$1 tn=$2 staging=$3 line why
	# as it is: the staging failure, or where this machine stops before it
	line=$(grep -m 1 "^not ok $tn" "$T/$name.strict")
	case "$line" in
	"not ok $tn: $staging"*"Failed to fetch $DEAD/"*"$SUFFIX")
		why=${line#"not ok $tn: "}
		ok "mirror-$name-no-network-strict-fails (the staging failure, '${why:0:120}...')" ;;
	"not ok $tn: missing:"*"$SUFFIX")
		why=${line#"not ok $tn: "}
		ok "mirror-$name-no-network-strict-fails (this machine lacks the tools: it failed before the staging, on '${why%% (apt-get*}')" ;;
	"not ok $tn: no "*"mkvmcore.sh"*"$SUFFIX")
		ok "mirror-$name-no-network-strict-fails (no lab beside the clone: it failed before the staging, on its mkvmcore.sh)" ;;
	*) notok "mirror-$name-no-network-strict-fails" "$(tr '\n' ' ' <"$T/$name.strict" | cut -c 1-400)" ;;
	esac
	# with the stand-ins: the staging itself, on any machine
	line=$(grep -m 1 "^not ok $tn" "$T/$name.stub")
	case "$line" in
	"not ok $tn: $staging"*"Failed to fetch $DEAD/"*"$SUFFIX")
		why=${line#"not ok $tn: "}
		ok "mirror-$name-staging-fails-with-reason ('${why:0:140}...' and MDF_REAL_REQUIRED's note)" ;;
	*) notok "mirror-$name-staging-fails-with-reason" "$(tr '\n' ' ' <"$T/$name.stub" | cut -c 1-400)" ;;
	esac
	local f
	for f in plain stubplain; do
		if grep -q "^skip $tn: " "$T/$name.$f" && ! grep -q '^not ok' "$T/$name.$f"; then
			ok "mirror-$name-no-network-$f-skips ($(grep -m 1 "^skip $tn: " "$T/$name.$f" | cut -c 1-100)...)"
		else notok "mirror-$name-no-network-$f-skips" "$(tr '\n' ' ' <"$T/$name.$f" | cut -c 1-400)"; fi
	done
}

if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
	skip "mirror-no-network" "no apt-get or dpkg on this machine"
else
	t0=$SECONDS
	for mode in strict plain stub stubplain; do
		env=()
		case $mode in strict | stub) env+=(MDF_REAL_REQUIRED=1) ;; esac
		case $mode in stub | stubplain) env+=(PATH="$T/stub:$PATH" MDF_SHARED="$T/shared") ;; esac
		real arm64.sh "$T/arm64.$mode" "${env[@]}" MDF_ARM64_TEST=1 MDF_ARM64_CACHE="$T/a64-$mode"
		real foreign.sh "$T/foreign.$mode" "${env[@]}" MDF_FOREIGN_TEST=1 MDF_FOREIGN_ARCHES=riscv64 \
			MDF_FOREIGN_CACHE="$T/fc-$mode"
	done
	staged arm64 arm64 "cannot fetch the arm64 packages: "
	staged foreign riscv64 "cannot stage the riscv64 packages or kernel: "
	echo "# 8 runs of arm64.sh and foreign.sh in $((SECONDS - t0)) s"
fi

# ---- registry-host-not-in-project -------------------------------------------
# (safe.directory: a checkout of another user's is read all the same)
git() { command git -c safe.directory="$MDF_SRC" "$@"; }
if ! git -C "$MDF_SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	skip "registry-host-not-in-project" "$MDF_SRC is not a git checkout"
else
	hosts="" why=""
	for kind in main security; do
		# shellcheck disable=SC2016 # expanded by that bash
		u=$(env -u MDF_DEBIAN_MIRROR -u MDF_DEB_MIRROR -u MDF_DEBIAN_SECURITY_MIRROR \
			-u MDF_APT_SOURCES_DIR -u MDF_APT_SOURCES_LIST \
			bash -c '. "$1"; deb_mirror "$2"' _ "$APT_SH" "$kind" 2>/dev/null) || continue
		h=${u#*://}
		[ "$h" != "$u" ] || continue          # file:/... has no host
		h=${h%%/*}
		h=${h#*@}
		h=${h%:*}
		case $h in "" | localhost | 127.* | "[::1]") continue ;; esac
		[[ " $hosts " == *" $h "* ]] || hosts="$hosts${hosts:+ }$h"
	done
	if [ -z "$hosts" ]; then
		skip "registry-host-not-in-project" "this machine's apt sources name no Debian mirror on the network"
	else
		for h in $hosts; do
			hits=$(git -C "$MDF_SRC" grep -n -i -F -e "$h" -- . ':(exclude)debian/copyright' \
				':(exclude)makedumpfile.8' ':(exclude)README' 2>&1 | head -n 5)
			[ -z "$hits" ] || why="$why $h in: $(tr '\n' ' ' <<<"$hits");"
		done
		if [ -z "$why" ]; then ok "registry-host-not-in-project ($hosts)"
		else notok "registry-host-not-in-project" "$why"; fi
	fi
fi
exit 0
