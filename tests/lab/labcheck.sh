# tests/lab/labcheck.sh - sourced by the e2e tests of real foreign kdumps
# (tests/e2e/arm64.sh, tests/e2e/foreign.sh), after tests/lib/lib.sh: a
# private apt state of another Debian architecture, and every check on one
# lab dump (classes against kpageflags, the readers, the other paths, the
# byte oracle).  Needs MDF, MDF_SRC, MDF_SHARED, T, LABDIR and DEB_ARCH.

# apt_opts, apt_state, apt_download, apt_has, newest: tests/lib/apt.sh.
. "$MDF_SRC/tests/lib/apt.sh"

# check_dump ELF TAG: every check on one dump (and with MDF_READERS_TEST=1
# the readers' gate, tests/lab/readers/gate.sh); NAME.json and NAME.d (the
# lab's) sit beside ELF.  LK_ARCH and DRGN_ARCH: the architecture names
# libkdumpfile and drgn give (LK_ARCH empty: LK_WHY says why libkdumpfile
# is not asked); DRGN_FILES: which of our files drgn reads (default "l E";
# DRGN_WHY says why fewer; DRGN_ARCH empty: DRGN_WHY says why drgn is not
# asked).  UP: the command of Debian's makedumpfile of
# that architecture (under qemu-user), or empty with UP_WHY saying why;
# UP_SETUP_FAILED=1 when that is because it could not be set up (no
# qemu-user, its packages could not be fetched): then a test CI asked for
# fails (needfail), where a fact of the dump ("cannot read LPA2") skips.
check_dump() {
	local ELF=$1 TAG=$2 OUTDIR NAME machine why out uts marker n ver tag opt
	OUTDIR=$(dirname "$ELF")
	NAME=$(basename "$ELF" .elf)
	rm -f "$T"/d.l "$T"/d.c "$T"/d.E "$T"/t2.l "$T"/re.l "$T"/fr.l "$T"/dmesg.txt
	machine=$(readelf -h "$ELF" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	ok "$TAG-lab-run ($(stat -c %s "$ELF") byte vmcore, $machine, kernel $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("kernel_version", "?"))' "$OUTDIR/$NAME.json" 2>/dev/null))"
	# ---- page classes against the kpageflags oracle ----------------------
	if ! "$MDF" --dry-run -d 31 --message-level 16 "$ELF" >"$T/dry.log" 2>&1; then
		notok "$TAG-classes" "--dry-run: $(tail -n 1 "$T/dry.log")"
	elif ! LAB_DATA=$(dirname "$OUTDIR") python3 "$LABDIR/kpf-oracle.py" "$NAME" --json >"$T/kpf.json" 2>"$T/kpf.err"; then
		skip "$TAG-classes" "kpf-oracle.py: $(tail -n 1 "$T/kpf.err")"
	else
		why=$(python3 "$MDF_SRC/tests/tools/kpf_classes.py" "$T/kpf.json" "$T/dry.log" \
			"$OUTDIR/$NAME.d/stage1/kpf-zoneinfo.txt")
		case "$why" in
		BAD*) notok "$TAG-classes-vs-kpageflags" "${why#BAD }" ;;
		*) ok "$TAG-classes-vs-kpageflags ($why)" ;;
		esac
	fi

	# ---- output, read back by independent readers ------------------------
	"$MDF" -l -d 31 "$ELF" "$T/d.l" >"$T/l.log" 2>&1 || notok "$TAG-l" "$(tail -n 1 "$T/l.log")"
	"$MDF" -c -d 31 "$ELF" "$T/d.c" >"$T/c.log" 2>&1 || notok "$TAG-c" "$(tail -n 1 "$T/c.log")"
	"$MDF" -E -d 31 "$ELF" "$T/d.E" >"$T/E.log" 2>&1 || notok "$TAG-E" "$(tail -n 1 "$T/E.log")"
	# ../shared/tools/kdump.py reads ELF64 vmcores only: an ELF32 one
	# (i386) goes to tests/tools/kdump_pages.py
	local kpages=$MDF_SHARED/tools/kdump.py
	[ "$(head -c 5 "$ELF" | od -An -tx1 | tr -d ' \n')" = 7f454c4601 ] &&
		kpages=$MDF_SRC/tests/tools/kdump_pages.py
	for f in l c; do
		if out=$(python3 "$kpages" pages "$T/d.$f" "$ELF" 2>&1) &&
			[[ "$out" == *" 0 differ"* ]]; then ok "$TAG-$f-pages-equal-vmcore ($(tail -n 1 <<<"$out"))"
		else notok "$TAG-$f-pages-equal-vmcore" "$(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
	done
	uts=$(sed -n 's/^SYMBOL(init_uts_ns)=//p' <<<"$(strings -n 8 "$ELF" | head -c 2000000 | grep -m 1 '^SYMBOL(init_uts_ns)=')")
	if [ -z "$LK_ARCH" ]; then
		skip "$TAG-libkdumpfile-reads" "$LK_WHY"
	elif /usr/bin/python3 -c 'import kdumpfile' 2>/dev/null; then
		out=$(/usr/bin/python3 - "$T/d.l" "$T/d.E" "$uts" <<-'PY' 2>&1
	import sys, kdumpfile
	res = []
	for path in sys.argv[1:3]:
	    k = kdumpfile.kdumpfile(path)
	    k.attr['addrxlat.ostype'] = 'linux'
	    name = bytes(k.read(kdumpfile.KDUMP_KVADDR, int(sys.argv[3], 16), 65)).split(b'\0')[0]
	    res.append("%s %s %s" % (path.rsplit('.', 1)[1], k.attr['arch.name'], name.decode()))
	print(", ".join(res))
	PY
	)
		if [[ "$out" == "l $LK_ARCH Linux, E $LK_ARCH Linux" ]]; then ok "$TAG-libkdumpfile-reads ($out)"
		else notok "$TAG-libkdumpfile-reads" "$out"; fi
	else
		needfail "$TAG-libkdumpfile-reads" "python3-libkdumpfile not installed"
	fi
	if [ -z "$DRGN_ARCH" ]; then
		skip "$TAG-drgn-reads" "$DRGN_WHY"
	elif /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
		local files=() want=""
		for f in ${DRGN_FILES:-l E}; do
			files+=("$T/d.$f")
			want="$want${want:+, }$f $DRGN_ARCH Linux"
		done
		out=$(/usr/bin/python3 - "$uts" "${files[@]}" <<-'PY' 2>&1
	import sys, drgn
	res = []
	for path in sys.argv[2:]:
	    prog = drgn.Program()
	    prog.set_core_dump(path)
	    name = prog.read(int(sys.argv[1], 16), 65).split(b'\0')[0]
	    res.append("%s %s %s" % (path.rsplit('.', 1)[1], prog.platform.arch.name, name.decode()))
	print(", ".join(res))
	PY
	)
		if [[ "$out" == "$want" ]]; then ok "$TAG-drgn-reads ($out${DRGN_WHY:+; $DRGN_WHY})"
		else notok "$TAG-drgn-reads" "$out"; fi
	else
		needfail "$TAG-drgn-reads" "python3-drgn not installed"
	fi

	# ---- the other paths agree with the direct run -----------------------
	same() { # NAME FILE: FILE equals $T/d.l
		if cmp -s "$2" "$T/d.l"; then ok "$1"; else notok "$1" "$(cmp "$2" "$T/d.l" 2>&1 | head -n 1)"; fi
	}
	"$MDF" -l -d 31 --num-threads 2 "$ELF" "$T/t2.l" >/dev/null 2>&1
	same "$TAG-threads-same-bytes" "$T/t2.l"
	"$MDF" -l -d 31 "$T/d.c" "$T/re.l" >"$T/re.log" 2>&1
	same "$TAG-refilter-same-bytes" "$T/re.l"
	"$MDF" -F -l -d 31 "$ELF" 2>/dev/null | "$MDF" -R "$T/fr.l" >/dev/null 2>&1
	same "$TAG-flat-R-same-bytes" "$T/fr.l"
	marker=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["marker"])' "$OUTDIR/$NAME.json" 2>/dev/null)
	if "$MDF" --dump-dmesg "$T/d.l" "$T/dmesg.txt" >"$T/dm.log" 2>&1 &&
		{ [ -z "$marker" ] || grep -qF "$marker stage=crash" "$T/dmesg.txt"; }; then
		ok "$TAG-dump-dmesg-marker"
	else notok "$TAG-dump-dmesg-marker" "$(tail -n 1 "$T/dm.log") marker '$marker'"; fi
	if "$MDF" --mem-usage "$ELF" >"$T/mu.out" 2>/dev/null &&
		n=$(awk -F'\t+' '/^USER\t/ { print $2 + 0 }' "$T/mu.out") &&
		grep -q "User process data pages : $(printf '0x%016x' "${n:-0}")" "$T/dry.log"; then
		ok "$TAG-mem-usage ($n user pages)"
	else notok "$TAG-mem-usage" "$(head -n 8 "$T/mu.out" | tr '\n' ' ')"; fi
	# ---- byte for byte against Debian's makedumpfile of that architecture --
	# It is the oracle only where its own page classes agree with the
	# guest's kpageflags.
	[ ${#UP[@]} = 0 ] || ver=$("${UP[@]}" -v 2>&1 | head -n 1)
	if [ ${#UP[@]} != 0 ] && [ -s "$T/kpf.json" ]; then
		rm -f "$T/up.out"
		"${UP[@]}" -l -d 31 --message-level 16 "$ELF" "$T/up.out" >"$T/up-report.log" 2>&1
		why=$(python3 "$MDF_SRC/tests/tools/kpf_classes.py" "$T/kpf.json" "$T/up-report.log" \
			"$OUTDIR/$NAME.d/stage1/kpf-zoneinfo.txt")
		if [[ "$why" == BAD* ]]; then
			UP=() UP_SETUP_FAILED=0
			UP_WHY="$ver is no oracle here, its classes disagree with kpageflags: ${why#BAD }"
		fi
	fi
	if [ ${#UP[@]} = 0 ] && [ "${UP_SETUP_FAILED:-0}" = 1 ]; then
		needfail "$TAG-upstream-bytes" "$UP_WHY"
	elif [ ${#UP[@]} = 0 ]; then
		skip "$TAG-upstream-bytes" "$UP_WHY"
	else
		# Every level of the issue's list, -l and -E (1.7.2 has no zstd or
		# snappy); a few seconds each under qemu-user.
		for opt in "-l -d 31" "-c -d 31" "-E -d 31" "-l -d 0" "-l -d 1" "-l -d 2" "-l -d 4" \
			"-l -d 8" "-l -d 16" "-E -d 0" "-E -d 1" "-E -d 2" "-E -d 4" "-E -d 8" "-E -d 16"; do
			tag="$TAG-upstream-bytes ${opt// /}"
			rm -f "$T/up.out" "$T/our.out"
			# shellcheck disable=SC2086
			if ! "${UP[@]}" $opt "$ELF" "$T/up.out" >"$T/up.log" 2>&1; then
				notok "$tag" "$ver: $(tail -n 2 "$T/up.log" | tr '\n' ' ')"
				continue
			fi
			# shellcheck disable=SC2086
			"$MDF" $opt "$ELF" "$T/our.out" >/dev/null 2>&1
			# 1.7.2 to 1.7.5 drop the last page of a PT_LOAD whose data
			# ends inside it, at every level, though the vmcore holds it
			# whole (exclude_nodata_pages() rounds down; upstream's
			# f2c5f76, 1.7.6): kexec-tools' mips64el vmcores have one,
			# the kernel image's.  Ours keeps it: compared with ours
			# without exactly those pages (tests/tools/up172_nodata.py),
			# every other byte.
			known=""
			if [[ "$ver" =~ version\ 1\.7\.[2-5][^0-9] ]] &&
				known=$(python3 "$MDF_SRC/tests/tools/up172_nodata.py" "$ELF" "$T/our.out" "$T/our.n" 2>&1); then
				mv "$T/our.n" "$T/our.out"
				known="; but for pfn $known, which 1.7.2 to 1.7.5 drop (exclude_nodata_pages(), fixed in 1.7.6)"
			else known=""; rm -f "$T/our.n"; fi
			if [ "$opt" = "-c -d 31" ]; then
				# libdeflate writes other zlib bytes than zlib's deflate: the
				# same dump, compared field by field and page by page.
				if why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/our.out" "$T/up.out" 2>&1)
				then ok "$tag ($why, $ver$known)"; else notok "$tag" "$why$known"; fi
			elif why=$(python3 "$MDF_SRC/tests/tools/elf_same.py" "$T/up.out" "$T/our.out" 2>&1); then
				ok "$tag ($(stat -c %s "$T/our.out") bytes, $why, $ver$known)"
			else notok "$tag" "$why$known"; fi
		done
		rm -f "$T/up.out" "$T/our.out"
	fi
	# ---- the readers' gate (make lab: MDF_READERS_TEST=1) -------------------
	# sid's drgn on our dumps of this kernel, with its -dbg vmlinux; sid's
	# crash of the host's architecture says in its row why it cannot.
	if [ "${MDF_READERS_TEST:-0}" = 1 ]; then
		# shellcheck source=tests/lab/readers/gate.sh
		. "$MDF_SRC/tests/lab/readers/gate.sh"
		# The lab's s390x kdump kernel is its own build (Debian's s390x
		# kernels have no kdump: tests/lab/foreign.sh): its vmlinux is the
		# build's own, kept when it was built with debug info
		# (MDF_FOREIGN_KDEBUG=1, as make lab sets it).
		local krel
		krel=$(strings -n 12 "$ELF" | sed -n 's/^OSRELEASE=\(.*-s390x-kdump\)$/\1/p' | head -n 1)
		if [ -z "$krel" ]; then
			readers_root && readers_gate "$TAG" "$ELF"
		elif [ -f "${c:-}/kdump-kernel/boot/vmlinux-$krel" ]; then
			readers_root && MDF_READERS_VMLINUX=$c/kdump-kernel/boot/vmlinux-$krel readers_gate "$TAG" "$ELF"
		else
			ok "readers-gate-$TAG-none (n/a: this s390x kdump kernel was built without debug info; MDF_FOREIGN_KDEBUG=1 keeps its vmlinux for the readers)"
		fi
	fi
}

# check_keep_task ELF TAG: --keep-task comm:labwork (issue 30) on a lab
# crash: an -E -d 31 dump holds every LAB-ANON-MARKER of the lab's
# workload that the raw vmcore holds outside free pages (plain -d 31:
# fewer; only copies in kernel memory).  For the
# architectures whose user page tables are walked; on the others, one
# line saying so.
check_keep_task() {
	local ELF=$1 TAG=$2 raw kept plain
	rm -f "$T/kt.E" "$T/pl.E"
	raw=$(grep -a -o 'LAB-ANON-MARKER' "$ELF" | wc -l)
	if [ "$raw" = 0 ]; then
		ok "$TAG-keep-task (n/a: no LAB-ANON-MARKER in the vmcore: this guest runs no labwork)"
		return
	fi
	local x=() krel vml=""
	if ! "$MDF" -E -d 31 --keep-task comm:labwork "$ELF" "$T/kt.E" >"$T/kt.log" 2>&1; then
		if grep -q "not walked yet" "$T/kt.log"; then
			ok "$TAG-keep-task (n/a: $(grep -m 1 -o 'the user page tables of .* are not walked yet' "$T/kt.log"))"
			return
		fi
		if ! grep -q "the dump's BTF, or -x VMLINUX: .*no BTF" "$T/kt.log"; then
			notok "$TAG-keep-task" "$(grep -m 1 '^makedumpfile: ' "$T/kt.log")"
			return
		fi
		# a kernel without BTF (Debian's armhf): with -x, as its user
		# must, where the -dbg vmlinux is cached or MDF_FETCH_DBG=1
		krel=$(strings -n 8 "$ELF" | grep -m 1 '^OSRELEASE=' | sed 's/^OSRELEASE=//')
		if [ -s "${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}/vmlinux-$krel" ] || [ "${MDF_FETCH_DBG:-0}" = 1 ]; then
			vml=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" "$krel" 2>"$T/dbg.err") ||
				{ needfail "$TAG-keep-task" "$(cat "$T/dbg.err")"; return; }
		fi
		if [ -z "$vml" ]; then
			ok "$TAG-keep-task (n/a without -x: the kernel has no BTF; MDF_FETCH_DBG=1 fetches its -dbg vmlinux)"
			return
		fi
		x=(-x "$vml")
		rm -f "$T/kt.E"
		if ! "$MDF" "${x[@]}" -E -d 31 --keep-task comm:labwork "$ELF" "$T/kt.E" >"$T/kt.log" 2>&1; then
			notok "$TAG-keep-task" "with -x $vml: $(grep -m 1 '^makedumpfile: ' "$T/kt.log")"
			return
		fi
	fi
	"$MDF" -E -d 31 "$ELF" "$T/pl.E" >/dev/null 2>&1
	kept=$(grep -a -o 'LAB-ANON-MARKER' "$T/kt.E" | wc -l)
	plain=$(grep -a -o 'LAB-ANON-MARKER' "$T/pl.E" 2>/dev/null | wc -l)
	# A page the workload freed keeps its stale markers, which are no
	# process's memory: the markers to keep are those outside free pages
	# (our -d 16, whose free class the classes check holds to kpageflags).
	# A loong64 run had 4 of 68 in buddy pages (--explain: page_type buddy).
	local all=$raw
	rm -f "$T/pl.E"
	"$MDF" -E -d 16 "$ELF" "$T/nf.E" >/dev/null 2>&1 &&
		raw=$(grep -a -o 'LAB-ANON-MARKER' "$T/nf.E" | wc -l)
	rm -f "$T/nf.E"
	# plain -d 31 may keep a copy in kernel memory (a tty or pipe buffer)
	if [ "$raw" -gt 0 ] && [ "$kept" = "$raw" ] && [ "$plain" -lt "$raw" ]; then
		ok "$TAG-keep-task ($kept of $raw markers kept$([ "$all" != "$raw" ] && echo ", $((all - raw)) more in free pages"); plain -d 31: $plain${vml:+; with -x, the kernel has no BTF})"
	else notok "$TAG-keep-task" "raw $all, outside free pages $raw, kept $kept, plain -d 31 $plain: $(tail -n 1 "$T/kt.log")"; fi
	rm -f "$T/kt.E"
}

# ours_reads ELF: 0 unless our program says it cannot read the dump's
# architecture ("architecture EM_386 (3) is not supported").
ours_reads() {
	! "$MDF" --dry-run -d 31 "$1" 2>&1 | grep -q 'architecture EM_[A-Z0-9_]* ([0-9]*) is not supported'
}

# check_oracle ELF TAG: what can be checked of a lab dump whose
# architecture our program does not read yet (ours_reads): the oracles
# check_dump compares ours with, once it does.  Debian's makedumpfile of
# that architecture (UP, as in check_dump): its page classes against the
# guest's kpageflags (the condition for being check_dump's byte oracle),
# its -l -d 31 and -l -d 1 holding the vmcore's pages
# (tests/tools/kdump_pages.py, which reads the ILP32 headers a 32-bit
# makedumpfile writes), its --dump-dmesg finding the lab's marker; drgn
# reading the raw vmcore (DRGN_ARCH); with MDF_READERS_TEST=1, crash
# (FCRASH, foreign_crash) finding the marker in the log of both.
check_oracle() {
	local ELF=$1 TAG=$2 OUTDIR NAME machine why ver opt out uts marker="" f
	OUTDIR=$(dirname "$ELF")
	NAME=$(basename "$ELF" .elf)
	machine=$(readelf -h "$ELF" 2>/dev/null | sed -n 's/^ *Class: *//p; s/^ *Machine: *//p' | tr '\n' ' ')
	ok "$TAG-lab-run ($(stat -c %s "$ELF") byte vmcore, ${machine% }, kernel $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("kernel_version", "?"))' "$OUTDIR/$NAME.json" 2>/dev/null))"
	marker=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["marker"])' "$OUTDIR/$NAME.json" 2>/dev/null)
	rm -f "$T/kpf.json"
	if ! LAB_DATA=$(dirname "$OUTDIR") python3 "$LABDIR/kpf-oracle.py" "$NAME" --json >"$T/kpf.json" 2>"$T/kpf.err"; then
		rm -f "$T/kpf.json"
		notok "$TAG-kpageflags" "kpf-oracle.py: $(tail -n 1 "$T/kpf.err")"
	fi
	if [ ${#UP[@]} = 0 ]; then
		if [ "${UP_SETUP_FAILED:-0}" = 1 ]; then needfail "$TAG-upstream" "$UP_WHY"
		else skip "$TAG-upstream" "$UP_WHY"; fi
	else
		ver=$("${UP[@]}" -v 2>&1 | head -n 1)
		for opt in "-l -d 31" "-l -d 1"; do
			f=$T/up${opt// /}
			rm -f "$f"
			# shellcheck disable=SC2086
			if ! "${UP[@]}" $opt --message-level 16 "$ELF" "$f" >"$f.log" 2>&1; then
				notok "$TAG-upstream ${opt// /}" "$ver: $(tail -n 2 "$f.log" | tr '\n' ' ')"
				continue
			fi
			if out=$(python3 "$MDF_SRC/tests/tools/kdump_pages.py" pages "$f" "$ELF" 2>&1) &&
				[[ "$out" == *" 0 differ"* ]]; then
				ok "$TAG-upstream ${opt// /} ($(stat -c %s "$f") bytes, $(grep -m 1 -o 'The number of pages is reduced to [0-9]*%' "$f.log" |
					sed 's/The number of pages is reduced/pages reduced/'); $(tail -n 1 <<<"$out"), $ver)"
			else notok "$TAG-upstream ${opt// /}" "$(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
		done
		if [ -s "$T/kpf.json" ] && [ -s "$T/up-l-d31.log" ]; then
			why=$(python3 "$MDF_SRC/tests/tools/kpf_classes.py" "$T/kpf.json" "$T/up-l-d31.log" \
				"$OUTDIR/$NAME.d/stage1/kpf-zoneinfo.txt")
			case "$why" in
			BAD*) notok "$TAG-upstream-classes-vs-kpageflags" "$ver: ${why#BAD }" ;;
			*) ok "$TAG-upstream-classes-vs-kpageflags ($why, $ver)" ;;
			esac
		fi
		rm -f "$T/up.dmesg"
		if "${UP[@]}" --dump-dmesg "$ELF" "$T/up.dmesg" >"$T/up-dm.log" 2>&1 &&
			{ [ -z "$marker" ] || grep -qF "$marker stage=crash" "$T/up.dmesg"; }; then
			ok "$TAG-upstream-dump-dmesg-marker ($ver)"
		else notok "$TAG-upstream-dump-dmesg-marker" "$(tail -n 1 "$T/up-dm.log") marker '$marker'"; fi
		rm -f "$T/up.dmesg"
	fi
	# crash (FCRASH: foreign_crash), with MDF_READERS_TEST=1 (it needs the
	# -dbg package's vmlinux, about 0.8 GB once): the lab's marker in the
	# kernel log of the raw vmcore and of 1.7.2's -l -d 31 file.
	if [ "${MDF_READERS_TEST:-0}" = 1 ]; then
		local krel vml cmdline
		krel=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel_version"])' "$OUTDIR/$NAME.json" 2>/dev/null)
		cmdline=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["first_kernel_cmdline"])' "$OUTDIR/$NAME.json" 2>/dev/null)
		if [ ${#FCRASH[@]} = 0 ]; then
			needfail "$TAG-crash" "$FCRASH_WHY"
		elif [ -z "$marker" ]; then
			notok "$TAG-crash" "no marker in $NAME.json"
		elif [[ " $cmdline " != *" nokaslr "* ]]; then
			ok "$TAG-crash (n/a: crash cannot place a 32-bit kernel that KASLR moved, physically and virtually: --reloc moves only its virtual addresses; the nokaslr variant is read)"
		elif ! vml=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" "$krel" 2>"$T/dbg.err"); then
			needfail "$TAG-crash" "$(cat "$T/dbg.err")"
		else
			printf 'log\nq\n' >"$T/crash.in"
			for f in "$ELF" "$T/up-l-d31"; do
				[ -s "$f" ] || continue
				out=$("${FCRASH[@]}" -s --minimal "$vml" "$f" -i "$T/crash.in" 2>&1)
				if grep -qF "$marker stage=crash" <<<"$out"; then
					ok "$TAG-crash-log ${f##*/} ($("${FCRASH[@]}" -v 2>/dev/null | grep -m 1 "^crash ") --minimal)"
				else notok "$TAG-crash-log ${f##*/}" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
			done
		fi
	fi
	rm -f "$T"/up-l*
	uts=$(strings -n 8 "$ELF" | head -c 2000000 | sed -n 's/^SYMBOL(init_uts_ns)=//p' | head -n 1)
	if [ -z "$DRGN_ARCH" ]; then
		skip "$TAG-drgn-reads-vmcore" "$DRGN_WHY"
	elif ! /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
		needfail "$TAG-drgn-reads-vmcore" "python3-drgn not installed"
	elif out=$(/usr/bin/python3 - "$uts" "$ELF" <<-'PY' 2>&1
	import sys, drgn
	prog = drgn.Program()
	prog.set_core_dump(sys.argv[2])
	name = prog.read(int(sys.argv[1], 16), 65).split(b'\0')[0]
	print("%s %s" % (prog.platform.arch.name, name.decode()))
	PY
	) && [ "$out" = "$DRGN_ARCH Linux" ]; then
		ok "$TAG-drgn-reads-vmcore ($out)"
	else notok "$TAG-drgn-reads-vmcore" "$out"; fi
}
