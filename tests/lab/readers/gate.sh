# shellcheck shell=bash
# tests/lab/readers/gate.sh - sourced by tests/e2e/readers_gate.sh and by
# tests/lab/labcheck.sh (the foreign architectures' lab dumps, with
# MDF_READERS_TEST=1): the readers' gate on one vmcore.  Needs lib.sh
# (T, MDF, MDF_SRC, ok, notok, needfail).
#
# readers_root          ROOT = the sid root of the readers (root.sh), one
#                       "readers-gate-root" line; status 1 when it cannot be had
# readers_gate K ELF    the gate on ELF, its lines named readers-gate-K*:
#                       the debug vmlinux of its kernel, our -l, -c, -E,
#                       split, refiltered and erase dumps judged against ELF
#                       (judge.py), the control (the page of CONTROL_SYM,
#                       default idt_table on x86_64 and init_pid_ns elsewhere,
#                       taken out of our -l) failing in
#                       every reader that opens the raw vmcore, and the erased
#                       modprobe_path reading as its fill.  With
#                       MDF_READERS_TABLE, the verdicts are appended there
#                       (TSV: kernel, dump, reader, verdict).
JUDGE="$MDF_SRC/tests/lab/readers/judge.py"
CRASH=crash

elf_machine() { readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'; }

# readers_crash K ELF KREL: CRASH = the crash binary (its path in the
# root) for ELF: sid's, except for Linux 7.x on x86_64 (sid's 9.0.2 fails
# at start-up there: module_num_gpl_syms) and for arm64, ppc64el,
# riscv64, i386 and armhf (sid's reads x86_64 dumps only), which take
# crash HEAD (crash_head.sh; X86 and ARM are its 32-bit builds) where it
# is built, or with MDF_READERS_CRASH_HEAD=1 (make lab) building it first
# (13 to 24 min a target).  Without it those rows say that sid's crash
# fails on the raw vmcore.  X86 runs --minimal (CRASH_MIN, judge.py's
# --crash-minimal: log and rd), as crash HEAD stops at start-up on 6.1's
# i386 without it ("cannot resolve \"sys_open\"").
readers_crash() {
	local k=$1 vm=$2 krel=$3 ct="" c
	CRASH=crash CRASH_MIN=""
	case $(elf_machine "$vm") in
	*X86-64*) [ "${krel%%.*}" -ge 7 ] 2>/dev/null && ct=X86_64 ;;
	*AArch64*) ct=ARM64 ;;
	*PowerPC64*) readelf -h "$vm" | grep -q 'little endian' && ct=PPC64 ;;
	*RISC-V*) ct=RISCV64 ;;
	*80386*) ct=X86 ;;
	# (after AArch64: readelf names 32-bit arm "ARM")
	ARM) ct=ARM ;;
	esac
	[ -n "$ct" ] || return 0
	[ "${MDF_READERS_CRASH_HEAD:-0}" = 1 ] || [ -x "$ROOT/opt/crash-head/$ct/crash" ] || return 0
	if c=$(bash "$MDF_SRC/tests/lab/readers/crash_head.sh" "$ct" 2>"$T/ch.err"); then
		CRASH=$c
		[ "$ct" = X86 ] && CRASH_MIN=--crash-minimal
		ok "readers-gate-$k-crash-head ($ct: $(head -n 1 "$ROOT${c%/crash}/crash-head.txt" 2>/dev/null))"
	else needfail "readers-gate-$k-crash-head" "$(cat "$T/ch.err")"; fi
}

readers_root() {
	[ -n "${ROOT:-}" ] && [ -f "$ROOT/readers.txt" ] && return 0
	[ "$(id -u)" = 0 ] || { needfail "readers-gate-root" "needs root (debootstrap, chroot, mount)"; return 1; }
	local t
	for t in debootstrap chroot zstd python3; do
		command -v $t >/dev/null ||
			{ needfail "readers-gate-root" "no $t (apt-get install debootstrap zstd python3)"; return 1; }
	done
	ROOT=$(bash "$MDF_SRC/tests/lab/readers/root.sh" 2>"$T/root.err") ||
		{ needfail "readers-gate-root" "$(cat "$T/root.err")"; return 1; }
	ok "readers-gate-root ($(tr '\n' ',' <"$ROOT/readers.txt" | sed 's/,$//; s/,/, /g'))"
}

# readers_gate KERNEL ELF: every dump of ELF through the judge, the erase
# and the control, as "readers-gate-KERNEL*" test lines.
readers_gate() {
	local k=$1 vm=$2 krel pkgver vml d rc
	krel=$(strings -n 8 "$vm" | grep -m 1 '^OSRELEASE=' | sed 's/^OSRELEASE=//')
	# the package version from the kernel's own banner ("... Debian 6.1.192-3 (...)")
	pkgver=$(strings -n 24 "$vm" | grep -m 1 -F "Linux version $krel (" | sed -n 's/.* Debian \([^ ]*\) (.*/\1/p')
	# MDF_READERS_VMLINUX: a kernel of our own build (the lab's s390x one)
	if [ -n "${MDF_READERS_VMLINUX:-}" ]; then
		vml=$MDF_READERS_VMLINUX pkgver="its own build"
	else
		vml=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" "$krel" "$pkgver" 2>"$T/dbg.err") ||
			{ needfail "readers-gate-$k-vmlinux" "$(cat "$T/dbg.err")"; return; }
	fi
	ok "readers-gate-$k-vmlinux ($krel, $pkgver)"
	readers_crash "$k" "$vm" "$krel"
	d=$T/$k
	rm -rf "$d" && mkdir -p "$d"
	"$MDF" --message-level 0 -l -d 31 "$vm" "$d/l" &&
		"$MDF" --message-level 0 -c -d 31 "$vm" "$d/c" &&
		"$MDF" --message-level 0 -E -d 31 "$vm" "$d/E" &&
		"$MDF" --message-level 0 -l -d 31 --split "$vm" "$d/s.1" "$d/s.2" &&
		"$MDF" --message-level 0 -c -d 1 "$vm" "$d/c1" &&
		"$MDF" --message-level 0 -l -d 31 "$d/c1" "$d/re" &&
		printf '[vmlinux]\nerase modprobe_path\n' >"$d/erase.conf" &&
		"$MDF" --message-level 0 -l -d 31 -x "$vml" --config "$d/erase.conf" "$vm" "$d/erase" ||
		{ notok "readers-gate-$k-dumps" "makedumpfile failed"; return; }
	rm -f "$d/c1"
	# The control: our -l dump without the page of a kernel symbol the
	# readers need (x86_64: idt_table; elsewhere init_pid_ns, through which drgn
	# finds every task: drgn reads no init_task where it cannot unwind).
	local sym=${CONTROL_SYM:-} at pfn erased raw_mp psz
	[ -n "$sym" ] || case $(elf_machine "$vm") in
		# (i386 too: crash --minimal reads idt_table, not init_pid_ns)
		*X86-64* | *80386*) sym=idt_table ;;
		*) sym=init_pid_ns ;;
		esac
	at=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--drgn-read "$sym:8" "$vm" 2>&1 | tail -n 1)
	pfn=$(awk -v s="$sym" '$1 == s {print $3}' <<<"$at")
	# drgn 0.3.0 translates no riscv64 or ppc64 address ("none"): the
	# page is then the one our --vtop names (the readers judge the rest)
	if [[ "$pfn" != 0x* ]] && [[ "$(awk '{print $2}' <<<"$at")" == 0x* ]]; then
		pfn=$("$MDF" --vtop "$(awk '{print $2}' <<<"$at")" -d 1 --dry-run "$vm" 2>/dev/null |
			awk '$1 ~ /^[0-9a-f]+$/ && NF == 2 {print "0x" $2; exit}')
	fi
	# a pfn of the dump's page size (ppc64el: 64 KiB)
	psz=$(strings -n 10 "$vm" | sed -n 's/^PAGESIZE=\([0-9]*\)$/\1/p' | head -n 1)
	[[ "$pfn" == 0x* ]] && pfn=$(printf '0x%x' $((pfn / ${psz:-4096}))) &&
		python3 "$MDF_SRC/tests/tools/kdump_drop.py" "$d/l" "$d/ctl" "$pfn" ||
		{ notok "readers-gate-$k-control" "no control dump: $sym: $at"; pfn=""; }
	python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" --work "$d/w" \
		--tsv "$d/gate.tsv" $CRASH_MIN ${pfn:+--expect-diff ctl} l="$d/l" c="$d/c" E="$d/E" \
		split="$d/s.1,$d/s.2" refilter="$d/re" erase="$d/erase" ${pfn:+ctl="$d/ctl"} >"$d/gate.out" 2>&1
	rc=$?
	# every dump but the control: equal, or excluded by class
	if [ $rc = 0 ] && ! grep -vP '\tctl\t' "$d/gate.out" | grep -qP '\tDIFF|BAD'; then
		ok "readers-gate-$k ($(sed -n '/^== readers/,$p' "$d/gate.out" | grep -vP '\tctl\t' | tail -n +2 | awk -F'\t' '{print $1 " " $2 ": " $3}' | paste -sd ';' | cut -c1-500))"
	else
		notok "readers-gate-$k" "exit $rc: $(grep -vP '\tctl\t' "$d/gate.out" | grep -P '\tDIFF|BAD' | head -n 5 | tr '\n' ' ')$(tail -n 2 "$d/gate.out" | tr '\n' ' ')"
	fi
	[ -n "${MDF_READERS_TABLE:-}" ] && sed -n '/^== readers/,$p' "$d/gate.out" | tail -n +2 |
		awk -F'\t' -v k="$k" 'NF == 3 {print k "\t" $2 "\t" $1 "\t" $3}' >>"$MDF_READERS_TABLE"
	# The control fails in every reader that opens the raw vmcore; crash's
	# verdict names the page as one the level keeps.
	if [ -n "$pfn" ]; then
		local why=""
		grep -qP '^crash\tctl\t\*\treader fails on raw' "$d/gate.out" ||
			grep -qP "^crash\tctl\t.*DIFF.*pfn $pfn kept" "$d/gate.out" || why="crash found no kept page $pfn;"
		grep -qP '^drgn\tctl\t\*\treader fails on raw' "$d/gate.out" ||
			grep -qP '^drgn\tctl\t[^\t]*\tDIFF' "$d/gate.out" || why="$why drgn found no difference;"
		grep -q 'BAD CONTROL' "$d/gate.out" && why="$why $(grep 'BAD CONTROL' "$d/gate.out" | head -n 1)"
		if [ -z "$why" ]; then
			ok "readers-gate-$k-control-fails ($sym's pfn $pfn out: $(awk -F'\t' 'NF == 4 && $2 == "ctl" && $4 !~ /^equal/ {printf "%s%s %s: %s", n++ ? "; " : "", $1, $3, $4}' "$d/gate.out" | cut -c1-300))"
		else notok "readers-gate-$k-control-fails" "$why $(grep -P '\tctl\t' "$d/gate.out" | grep -v equal | head -n 3 | tr '\n' ' ')"; fi
	fi

	# The erased symbol reads as the fill, where the raw vmcore has the path.
	erased=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--drgn-read modprobe_path:16 "$d/erase" 2>&1 | tail -n 1)
	raw_mp=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--drgn-read modprobe_path:16 "$vm" 2>&1 | tail -n 1)
	if [ "${erased##* }" = "$(printf 'X%.0s' $(seq 16) | od -An -tx1 | tr -d ' \n')" ] &&
		[ "${raw_mp##* }" = "$(printf '/sbin/modprobe\0\0' | od -An -tx1 | tr -d ' \n')" ]; then
		ok "readers-gate-$k-erase-reads-fill (drgn: modprobe_path raw \"/sbin/modprobe\", erased XXXX...)"
	else notok "readers-gate-$k-erase-reads-fill" "raw: $raw_mp; erased: $erased"; fi
	readers_btf "$k" "$vm" "$vml" "$d"
	readers_keep_task "$k" "$vm" "$vml" "$d"
	rm -rf "$d"
}

# readers_keep_task K ELF VMLINUX DIR: issue 30's --keep-task read back
# (the task list read with -x's DWARF; e2e/keep_task checks BTF's).
# The lab's labwork process holds LAB-ANON-MARKER lines in anonymous, THP
# and hugetlb memory.  drgn's access_process_vm() on each page of its
# address space finds as many markers in our -d 31 --keep-task
# comm:labwork dump as in the raw vmcore, and none in a plain -d 31 one;
# crash (set to that process) finds them with search -u and reads the
# first with rd -u.
readers_keep_task() {
	local k=$1 vm=$2 vml=$3 d=$4 raw kept plain hit out
	# with -x: the kernels before 6.0 have no kallsyms for BTF to go with
	if ! "$MDF" -l -d 31 -x "$vml" --keep-task comm:labwork "$vm" "$d/kt" >"$d/kt.out" 2>&1; then
		if grep -q "not walked yet\|needs address translation" "$d/kt.out"; then
			ok "readers-gate-$k-keep-task (n/a: $(grep -m 1 'makedumpfile: ' "$d/kt.out"))"
		else notok "readers-gate-$k-keep-task" "$(tail -n 1 "$d/kt.out")"; fi
		return
	fi
	"$MDF" --message-level 0 -l -d 31 "$vm" "$d/plain" >/dev/null 2>&1
	raw=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--proc-markers labwork:LAB-ANON-MARKER "$vm" 2>&1 | tail -n 1)
	kept=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--proc-markers labwork:LAB-ANON-MARKER "$d/kt" 2>&1 | tail -n 1)
	plain=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--proc-markers labwork:LAB-ANON-MARKER "$d/plain" 2>&1 | tail -n 1)
	if [[ $raw == pid* ]] && [ "${raw##* }" -gt 0 ] && [ "${kept##* }" = "${raw##* }" ] &&
		[[ $plain == pid* ]] && [ "${plain##* }" = 0 ]; then
		ok "readers-gate-$k-keep-task-drgn (raw: $raw; kept: $kept; -d 31: $plain)"
	elif [[ $raw != pid* ]] && [[ $raw == *Error* ]]; then
		# drgn 0.3.0 translates no riscv64 user address, on the raw
		# vmcore either: the reader's limit, not the dump's
		ok "readers-gate-$k-keep-task-drgn (n/a: drgn cannot read the process on the raw vmcore: ${raw:0:120})"
	else notok "readers-gate-$k-keep-task-drgn" "raw: $raw; kept: $kept; -d 31: $plain"; fi
	pid=${raw#pid }
	pid=${pid%% *}
	# sid's crash is built for the host's architecture; crash HEAD's
	# cross builds read the others (readers_crash)
	if [ "$CRASH" = crash ] && [[ $(elf_machine "$vm") != *X86-64* ]]; then
		ok "readers-gate-$k-keep-task-crash (n/a: sid's crash reads x86_64 dumps only, and no crash HEAD is built)"
		rm -f "$d/kt" "$d/plain"
		return
	fi
	out=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--crash-only "set ${pid:-1}
search -u -c LAB-ANON-MARKER" "$d/kt" 2>&1)
	hit=$(grep -m 1 -o '^[0-9a-f]\{6,\}:' <<<"$out" | tr -d :)
	if [ -n "$hit" ]; then
		out2=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
			--crash-only "set $pid
rd -u -a $hit" "$d/kt" 2>&1)
	fi
	if [ -n "$hit" ] && grep -q "LAB-ANON-MARKER" <<<"${out2:-}"; then
		ok "readers-gate-$k-keep-task-crash ($(grep -c LAB-ANON-MARKER <<<"$out") hits of search -u; rd -u -a $hit: $(grep -m 1 -o 'LAB-ANON-MARKER [0-9a-f-]*' <<<"$out2"))"
	elif ! python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--crash-only "set ${pid:-1}
search -u -c LAB-ANON-MARKER" "$vm" 2>&1 | grep -q '^[0-9a-f]\{6,\}: LAB-ANON-MARKER'; then
		# sid's crash 9.0.2 cannot open 7.2 (module_init()), the raw
		# vmcore either (tests/lab/readers/README: readers.md)
		ok "readers-gate-$k-keep-task-crash (n/a: crash cannot read the process on the raw vmcore either: $(grep -m 1 -o 'FUNCTION: [a-z_]*()' <<<"$out"))"
	else notok "readers-gate-$k-keep-task-crash" "$(tail -n 3 <<<"$out" | tr '\n' ' ') ${out2:-}"; fi
	rm -f "$d/kt" "$d/plain"
}

# readers_btf K ELF VMLINUX DIR: issue 27 on a real kernel, no debug
# vmlinux needed (kallsyms since 6.0, BTF): --config erase and the sample
# extension's lookups the same as with -x, --vtop the same address, and
# erase_sample's dump read by drgn: every task's comm all 'X'.
readers_btf() {
	local k=$1 vm=$2 vml=$3 d=$4 ext=$MDF_BUILD/extensions a pa pax names bad
	if ! strings -n 12 "$vm" | grep -q '^SYMBOL(kallsyms_names)='; then
		ok "readers-gate-$k-btf-none (no kallsyms in VMCOREINFO before 6.0: -x is needed)"
		return
	fi
	rm -f "$d/g.txt"
	if ! "$MDF" -g "$d/g.txt" "$vm" >"$d/g.out" 2>&1 && grep -q "no BTF in the kernel" "$d/g.out"; then
		# Debian's ppc64el 6.1, for one, is built without it
		ok "readers-gate-$k-btf-none (n/a: $(grep -o 'no BTF in the kernel[^;]*' "$d/g.out" | head -n 1): -x is needed)"
		return
	fi
	printf '[vmlinux]\nerase modprobe_path size 16\n' >"$d/btf.conf"
	if "$MDF" --message-level 0 -l -d 31 --config "$d/btf.conf" "$vm" "$d/btf-n" &&
		"$MDF" --message-level 0 -l -d 31 --config "$d/btf.conf" -x "$vml" "$vm" "$d/btf-x" &&
		cmp -s "$d/btf-n" "$d/btf-x"; then ok "readers-gate-$k-btf-config-same-as-x"
	else notok "readers-gate-$k-btf-config-same-as-x" "the dumps differ or a run failed"; fi
	rm -f "$d/btf-n" "$d/btf-x"
	"$MDF" --extension "$ext/sample.so" --dry-run -d 31 "$vm" >"$d/s-n" 2>&1
	"$MDF" --extension "$ext/sample.so" --dry-run -d 31 -x "$vml" "$vm" >"$d/s-x" 2>&1
	if [ "$(grep -c '^sample: ' "$d/s-n")" -ge 3 ] && diff <(grep '^sample: ' "$d/s-n") <(grep '^sample: ' "$d/s-x") >/dev/null; then
		ok "readers-gate-$k-btf-sample-same-as-x ($(grep -m 1 'task_struct is' "$d/s-n"))"
	else notok "readers-gate-$k-btf-sample-same-as-x" "$(grep '^sample: ' "$d/s-n" "$d/s-x" | tr '\n' ' ')"; fi
	a=$(sed -n 's/^sample: init_task is at \(0x[0-9a-f]*\)$/\1/p' "$d/s-n")
	pa=$("$MDF" --vtop "${a:-0x1}" --dry-run -d 1 "$vm" 2>/dev/null | awk 'NF == 2 && $1 ~ /^[0-9a-f]+$/ {print $2}')
	pax=$("$MDF" --vtop "${a:-0x1}" --dry-run -d 1 -x "$vml" "$vm" 2>/dev/null | awk 'NF == 2 && $1 ~ /^[0-9a-f]+$/ {print $2}')
	if [ -n "$a" ] && [ -n "$pa" ] && [ "$pa" = "$pax" ]; then ok "readers-gate-$k-btf-vtop-same-as-x (init_task $a -> $pa)"
	else notok "readers-gate-$k-btf-vtop-same-as-x" "init_task ${a:-?}: ${pa:-none} without -x, ${pax:-none} with"; fi
	if "$MDF" --message-level 0 --extension "$ext/erase_sample.so" -l -d 31 "$vm" "$d/es" >"$d/es.out" 2>&1; then
		names=$(python3 "$JUDGE" --root "$ROOT" --crash "$CRASH" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
			--drgn-section tasks "$d/es" 2>&1)
		bad=$(awk 'NF >= 3 && $2 != "XXXXXXXXXXXXXXXX"' <<<"$names" | head -n 3 | tr '\n' ';')
		if [ "$(awk 'NF >= 3' <<<"$names" | wc -l)" -gt 10 ] && [ -z "$bad" ]; then
			ok "readers-gate-$k-btf-erase-sample (drgn: $(awk 'NF >= 3' <<<"$names" | wc -l) tasks, every comm XXXXXXXXXXXXXXXX)"
		elif grep -q "error: " <<<"$names"; then
			ok "readers-gate-$k-btf-erase-sample (drgn cannot list tasks here: $(grep -m 1 'error: ' <<<"$names"); $(grep -m 1 erased "$d/es.out"))"
		else notok "readers-gate-$k-btf-erase-sample" "${bad:-$(head -n 3 <<<"$names" | tr '\n' ';')}"; fi
	else notok "readers-gate-$k-btf-erase-sample" "$(tail -n 2 "$d/es.out" | tr '\n' ' ')"; fi
	rm -f "$d/es"
}

