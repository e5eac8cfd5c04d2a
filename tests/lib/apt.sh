# shellcheck shell=bash
# tests/lib/apt.sh - sourced by the tests that fetch Debian packages (kernels,
# libraries, other architectures' binaries) into private apt states, never
# installing them.  No package host is written into the project: the
# mirror is the one this machine's own apt configuration names.
#
# deb_mirror [main|security]
#     Print the Debian mirror URI (no trailing slash).  Overrides:
#     MDF_DEBIAN_MIRROR (main; MDF_DEB_MIRROR is its old name) and
#     MDF_DEBIAN_SECURITY_MIRROR.  Else the machine's apt sources: deb822
#     stanzas in ${MDF_APT_SOURCES_DIR:-/etc/apt/sources.list.d}/*.sources,
#     then one-line "deb [opts] URI SUITE COMP..." entries in
#     ${MDF_APT_SOURCES_LIST:-/etc/apt/sources.list} and that directory's
#     *.list files.  Main: the first Debian source of a suite that does not
#     end in -security; security: the first of a suite that does.  A source
#     counts as Debian's when it is signed by debian-archive-keyring or its
#     suite is a Debian suite name (bookworm, sid, trixie-backports, ...)
#     with the main component.  Without a security source (or when only
#     the main mirror is overridden) the security mirror is the main one
#     with "-security" appended to its path (.../debian -> .../debian-security).
#     Status 1 and a message on stderr when there is no Debian source.
# retry LOG CMD...
#     Run CMD, appending its output to LOG; when it fails, try again after
#     ${MDF_RETRY_SLEEP:-10} s, then 3 and 9 times that, up to
#     ${MDF_RETRY_TRIES:-4} tries in all.  Each failed try is logged as
#     "try N of M failed: LINE" (LINE: its last apt error, or its last line).
#     Returns CMD's last status.  For mirrors caught mid-sync ("File has
#     unexpected size ... Mirror sync in progress?", "Hash Sum mismatch")
#     and lost connections.
# apt_opts DIR
#     AA = apt-get options of the private apt state in DIR, for the Debian
#     architecture $DEB_ARCH.
# apt_state DIR LOG SUITE...
#     Create the apt state DIR with "deb [trusted=yes] MIRROR SUITE main"
#     for each SUITE (bookworm bookworm-security; trixie sid; -security
#     suites from the security mirror) and fetch its indexes (apt-get
#     update, through retry, output appended to LOG).  Sets AA.  When that
#     fails and there are -security suites, they are dropped (said in LOG)
#     and the main suites alone are tried once more.  Status 0 when the
#     indexes are there.
# apt_has PKG
#     Does the apt state of AA have PKG to download (a real package, not a
#     purely virtual name; PKG=VERSION too)?  No network.
# apt_download LOG DIR PKG...
#     apt-get download PKG... into DIR (apt state AA), through retry.
# newest PATTERN
#     The newest package whose name matches (apt-cache regex), or nothing.

# The Debian suites a source may name (plus -updates, -backports, ...).
_APT_DEBIAN_SUITES=" buzz rex bo hamm slink potato woody sarge etch lenny squeeze wheezy jessie
 stretch buster bullseye bookworm trixie forky duke sid experimental stable testing unstable
 oldstable oldoldstable "

# _apt_source_lines: "URI SUITE KEYRING COMPONENTS..." of every deb source
# (KEYRING 1 when signed by debian-archive-keyring), deb822 files first.
_apt_source_lines() {
	local dir=${MDF_APT_SOURCES_DIR:-/etc/apt/sources.list.d} f files=()
	for f in "$dir"/*.sources; do [ -f "$f" ] && files+=("$f"); done
	if [ ${#files[@]} -gt 0 ]; then
		awk '
		function flush(  nu, ns, u, s, i, j) {
			if ((" " f["types"] " ") ~ / deb / && tolower(f["enabled"]) != "no") {
				nu = split(f["uris"], u, /[ \t]+/)
				ns = split(f["suites"], s, /[ \t]+/)
				for (i = 1; i <= nu; i++)
					for (j = 1; j <= ns; j++)
						if (u[i] != "" && s[j] != "")
							print u[i], s[j], (f["signed-by"] ~ /debian-archive-keyring/), f["components"]
			}
			delete f; cur = ""
		}
		FNR == 1 { flush() }
		/^#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ { if (cur != "") f[cur] = f[cur] " " $0; next }
		{
			i = index($0, ":"); if (i == 0) next
			cur = tolower(substr($0, 1, i - 1))
			v = substr($0, i + 1)
			sub(/^[ \t]+/, "", v); sub(/[ \t\r]+$/, "", v)
			f[cur] = v
		}
		END { flush() }' "${files[@]}"
	fi
	files=()
	f=${MDF_APT_SOURCES_LIST:-/etc/apt/sources.list}
	[ -f "$f" ] && files+=("$f")
	for f in "$dir"/*.list; do [ -f "$f" ] && files+=("$f"); done
	if [ ${#files[@]} -gt 0 ]; then
		awk '
		{ sub(/#.*/, "") }
		$1 != "deb" { next }
		{
			line = $0; opts = ""
			if (match(line, /\[[^]]*\]/)) {
				opts = substr(line, RSTART, RLENGTH)
				line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
			}
			n = split(line, w, /[ \t]+/)
			if (w[1] == "") { for (i = 1; i < n; i++) w[i] = w[i + 1]; n-- }
			comps = ""
			for (i = 4; i <= n; i++) comps = comps " " w[i]
			if (n >= 3) print w[2], w[3], (opts ~ /debian-archive-keyring/), comps
		}' "${files[@]}"
	fi
}

# _apt_sources: "KIND URI" lines of this machine's Debian sources, in
# order (KIND main or security), from the deb822 files, then the one-line
# lists.
_apt_sources() {
	local known=" ${_APT_DEBIAN_SUITES//$'\n'/ } " uri suite keyring comps base
	_apt_source_lines | while read -r uri suite keyring comps; do
		# a Debian source: its keyring, or a Debian suite with main
		base=${suite%/updates}
		base=${base%-security}; base=${base%-updates}; base=${base%-proposed-updates}
		base=${base%-backports-sloppy}; base=${base%-backports}
		if [ "$keyring" != 1 ] && { [[ "$known" != *" $base "* ]] ||
			[[ " $comps " != *" main "* ]]; }; then
			continue
		fi
		case $uri in cdrom:*) continue ;; esac
		case $suite in
		*-security | */updates) echo "security ${uri%/}" ;;
		*/) ;;
		*) echo "main ${uri%/}" ;;
		esac
	done
}

deb_mirror() {
	local kind=${1:-main} main sec
	case $kind in main | security) ;; *) echo "deb_mirror: main or security, not $kind" >&2; return 2 ;; esac
	main=${MDF_DEBIAN_MIRROR:-${MDF_DEB_MIRROR:-}}
	if [ "$kind" = security ] && [ -n "${MDF_DEBIAN_SECURITY_MIRROR:-}" ]; then
		echo "${MDF_DEBIAN_SECURITY_MIRROR%/}"; return 0
	fi
	if [ -n "$main" ]; then
		# an overridden main mirror takes the security one along
		main=${main%/}
		if [ "$kind" = main ]; then echo "$main"; else echo "$main-security"; fi
		return 0
	fi
	local list
	list=$(_apt_sources)
	main=$(awk '$1 == "main" { print $2; exit }' <<<"$list")
	sec=$(awk '$1 == "security" { print $2; exit }' <<<"$list")
	if [ -z "$main" ]; then
		echo "deb_mirror: no Debian source in ${MDF_APT_SOURCES_DIR:-/etc/apt/sources.list.d}/*.sources, ${MDF_APT_SOURCES_LIST:-/etc/apt/sources.list} or *.list (set MDF_DEBIAN_MIRROR=URI)" >&2
		return 1
	fi
	if [ "$kind" = main ]; then echo "$main"
	else echo "${sec:-$main-security}"; fi
}

# _retry_reason FILE: what a failed try said: its last apt error or
# warning (not apt's closing "Some index files failed to download"),
# else its last line.
_retry_reason() {
	local line
	line=$(grep -E '^(E|W|Err):' "$1" | grep -v -e 'Some index files failed to download' -e 'performed unsandboxed' | tail -n 1)
	[ -n "$line" ] || line=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1)
	echo "${line:-no output}"
}

retry() {
	local log=$1 tries=${MDF_RETRY_TRIES:-4} pause=${MDF_RETRY_SLEEP:-10} n=1 rc out
	shift
	out=$(mktemp "${TMPDIR:-/tmp}/mdf-retry.XXXXXX") || return 1
	while :; do
		"$@" >"$out" 2>&1
		rc=$?
		cat "$out" >>"$log"
		[ $rc -eq 0 ] && break
		if [ "$n" -ge "$tries" ]; then
			echo "try $n of $tries failed: $(_retry_reason "$out") (exit $rc)" >>"$log"
			break
		fi
		echo "try $n of $tries failed: $(_retry_reason "$out") (exit $rc; next try in $pause s)" >>"$log"
		sleep "$pause"
		pause=$((pause * 3)) n=$((n + 1))
	done
	rm -f "$out"
	return $rc
}

apt_opts() {
	AA=(-o APT::Architecture="$DEB_ARCH" -o APT::Architectures="$DEB_ARCH"
	    -o Dir::Etc::sourcelist="$1/sources.list" -o Dir::Etc::sourceparts=-
	    -o Dir::State::Lists="$1/lists" -o Dir::State::status="$1/status"
	    -o Dir::Cache="$1/cache" -o Acquire::Check-Valid-Until=false)
}

# _apt_update: apt-get update of AA; fails when an index could not be
# fetched (apt before 2.3 exits 0 then: its "Failed to fetch" counts).
# apt's own retries are off: retry waits longer between tries.
_apt_update() {
	local out rc
	out=$(apt-get "${AA[@]}" -o Acquire::Retries=0 -o APT::Update::Error-Mode=any update 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ $rc -eq 0 ] || return $rc
	! grep -qE '^[WE]: (Failed to fetch|Some index files failed)' <<<"$out"
}

# _apt_lines DIR SUITE...: write DIR/sources.list of those suites.
_apt_lines() {
	local dir=$1 s m sm=""
	shift
	m=$(deb_mirror main) || return 1
	for s; do
		case $s in
		*-security | */updates)
			[ -n "$sm" ] || sm=$(deb_mirror security) || return 1
			echo "deb [trusted=yes] $sm $s main" ;;
		*) echo "deb [trusted=yes] $m $s main" ;;
		esac
	done >"$dir/sources.list"
}

apt_state() {
	local dir=$1 log=$2 s base main=() sec=()
	shift 2
	mkdir -p "$dir/lists/partial" "$dir/cache" || return 1
	touch "$dir/status"
	apt_opts "$dir"
	for s; do
		case $s in *-security | */updates) sec+=("$s") ;; *) main+=("$s") ;; esac
	done
	_apt_lines "$dir" "$@" 2>>"$log" || return 1
	retry "$log" _apt_update && return 0
	[ ${#sec[@]} -gt 0 ] && [ ${#main[@]} -gt 0 ] || return 1
	for s in "${sec[@]}"; do
		base=${s%/updates}
		echo "security suite optional: $s dropped, its packages come from ${base%-security}" >>"$log"
	done
	_apt_lines "$dir" "${main[@]}" 2>>"$log" || return 1
	retry "$log" _apt_update
}

apt_has() {
	# a purely virtual name (trixie's libelf1, now libelf1t64's) is shown
	# with status 0 and no record: it cannot be downloaded
	apt-cache "${AA[@]}" show "$1" 2>/dev/null | grep -q '^Package: '
}

# _apt_download_in DIR PKG...
_apt_download_in() {
	local d=$1
	shift
	(cd "$d" && apt-get "${AA[@]}" download "$@")
}

apt_download() {
	local log=$1
	shift
	retry "$log" _apt_download_in "$@"
}

newest() {
	apt-cache "${AA[@]}" search "$1" 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1
}

# apt_makedumpfile172 DIR LOG: makedumpfile 1.7.2's source into
# DIR/mdf172/src/tree, for the cross-built oracles of the architectures
# Debian ships no makedumpfile for (tests/lab/mips64el_makedumpfile.sh,
# loong64_makedumpfile.sh): bookworm's source package 1:1.7.2-1 (Debian's
# patches included) through a deb-src state of its own, else, from a
# mirror that does not serve it, upstream's release tag 1.7.2 (what its
# orig tarball holds) from MDF_MAKEDUMPFILE_GIT, a git directory of
# upstream makedumpfile.  Non-zero with the reason in APT_WHY.
apt_makedumpfile172() {
	local dir=$1 log=$2 src="$1/apt-src-bookworm" mirror
	# shellcheck disable=SC2034 # the caller's to read
	APT_WHY=""
	mirror=$(deb_mirror main) || { APT_WHY="no Debian mirror"; return 1; }
	mkdir -p "$src/lists/partial" "$src/cache/archives/partial" "$dir/mdf172/src" || return 1
	echo "deb-src [trusted=yes] $mirror bookworm main" >"$src/sources.list"
	: >"$src/status"
	apt_opts "$src"
	rm -rf "$dir/mdf172/src/tree"
	if retry "$log" apt-get "${AA[@]}" update &&
		(cd "$dir/mdf172/src" && retry "$log" apt-get "${AA[@]}" source --download-only \
			makedumpfile=1:1.7.2-1); then
		dpkg-source --no-check -x "$dir"/mdf172/src/makedumpfile_1.7.2-1.dsc \
			"$dir/mdf172/src/tree" >>"$log" 2>&1 ||
			{ APT_WHY="dpkg-source -x failed: $(tail -n 1 "$log")"; return 1; }
	elif [ -n "${MDF_MAKEDUMPFILE_GIT:-}" ]; then
		mkdir -p "$dir/mdf172/src/tree" || return 1
		git -C "$MDF_MAKEDUMPFILE_GIT" archive 1.7.2 | tar -x -C "$dir/mdf172/src/tree" ||
			{ APT_WHY="git archive 1.7.2 of $MDF_MAKEDUMPFILE_GIT failed"; return 1; }
		echo "upstream 1.7.2 from $MDF_MAKEDUMPFILE_GIT" >>"$log"
	else
		APT_WHY="apt-get source failed ($(tail -n 1 "$log")); MDF_MAKEDUMPFILE_GIT=DIR (a git directory of upstream makedumpfile) builds its tag 1.7.2 instead"
		return 1
	fi
}
