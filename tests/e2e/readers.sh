#!/bin/bash
# Our -c output (zlib streams written by libdeflate, other bytes than
# zlib's) opens in every reader, on the real 6.1 dump:
#  - tests/tools/kdump_same.py: the same dump as 1.7.2's -c (headers,
#    notes, bitmaps, valid descriptors, every decompressed page);
#  - ../shared/tools/kdump.py: every stored page equals the ELF's;
#  - libkdumpfile: every page equals the ELF's, and a kernel address
#    (init_uts_ns) reads through its translation;
#  - drgn: the same kernel address;
#  - makedumpfile 1.7.2: it refilters our -c -d 1 to -l -d 31 (the same
#    dump as ours), and rebuilds our -F -c stream with -R (the same bytes
#    as our direct -c file); our -R and our refiltering do too;
#  - crash, with the fixture's debug vmlinux (tests/lab/debug_vmlinux.sh
#    fetches it: 859 MB once, then cached): "sys" names the release and no
#    read fails; only with MDF_CRASH_TEST=1 or when the vmlinux is cached.
. "$(dirname "$0")/../lib/lib.sh"
KPY="$MDF_SHARED/tools/kdump.py"
SAME="$MDF_SRC/tests/tools/kdump_same.py"
UP=/usr/bin/makedumpfile
# crashfail NAME WHY: the crash part lacks something.  MDF_CRASH_TEST=1
# asked for it: a failure to set it up (needfail); without, a skip.
crashfail() { if [ "${MDF_CRASH_TEST:-0}" = 1 ]; then needfail "$@"; else skip "$@"; fi; }
vm=$(vmcore fx-v61-512m) || { crashfail "readers" "no ../shared/vmcores (or zstd)"; exit 0; }
uts=$(strings -n 8 "$vm" | grep -m 1 '^SYMBOL(init_uts_ns)=' | sed 's/^SYMBOL(init_uts_ns)=//')

for l in 1 31; do
	"$MDF" --message-level 0 -c -d $l "$vm" "$T/c$l" || { notok "readers-c-d$l" "exit $?"; continue; }
	out=$(python3 "$KPY" pages "$T/c$l" "$vm" 2>&1 | tail -n 1)
	if [[ "$out" == *" 0 differ"* ]]; then ok "readers-c-d$l-kdump.py ($out)"
	else notok "readers-c-d$l-kdump.py" "$out"; fi
	if /usr/bin/python3 -c 'import kdumpfile' 2>/dev/null; then
		out=$(/usr/bin/python3 "$MDF_SRC/tests/tools/libkdumpfile_check.py" "$T/c$l" "$vm" 2>&1 | tail -n 1)
		if [[ "$out" == pages* ]]; then ok "readers-c-d$l-libkdumpfile-pages ($out)"
		else notok "readers-c-d$l-libkdumpfile-pages" "$out"; fi
	else
		needfail "readers-c-d$l-libkdumpfile-pages" "python3-libkdumpfile not installed"
	fi
done

# Kernel addresses through each library's own translation.
if /usr/bin/python3 -c 'import kdumpfile' 2>/dev/null; then
	out=$(/usr/bin/python3 - "$T/c31" "$uts" <<-'PY' 2>&1
	import sys, kdumpfile
	k = kdumpfile.kdumpfile(sys.argv[1])
	k.attr['addrxlat.ostype'] = 'linux'
	print(bytes(k.read(kdumpfile.KDUMP_KVADDR, int(sys.argv[2], 16), 65)).split(b'\0')[0].decode())
	PY
	)
	if [ "$out" = Linux ]; then ok "readers-c-libkdumpfile-kvaddr (init_uts_ns: $out)"
	else notok "readers-c-libkdumpfile-kvaddr" "$out"; fi
fi
if /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	out=$(/usr/bin/python3 - "$T/c31" "$uts" <<-'PY' 2>&1
	import sys, drgn
	prog = drgn.Program()
	prog.set_core_dump(sys.argv[1])
	print(prog.read(int(sys.argv[2], 16), 65).split(b'\0')[0].decode())
	PY
	)
	if [ "$out" = Linux ]; then ok "readers-c-drgn-kvaddr (init_uts_ns: $out)"
	else notok "readers-c-drgn-kvaddr" "$out"; fi
else
	needfail "readers-c-drgn-kvaddr" "python3-drgn not installed"
fi

# Refiltering and -R, ours and 1.7.2's.
"$MDF" --message-level 0 -l -d 31 "$vm" "$T/direct.l"
"$MDF" --message-level 0 -l -d 31 "$T/c1" "$T/ours-re.l"
if why=$(python3 "$SAME" "$T/ours-re.l" "$T/direct.l" 2>&1); then ok "readers-c-ours-refilters ($why)"
else notok "readers-c-ours-refilters" "$why"; fi
"$MDF" --message-level 0 -F -c -d 31 "$vm" >"$T/flat" 2>/dev/null
"$MDF" -R "$T/ours-R" <"$T/flat" >/dev/null 2>&1
check "readers-c-ours-R-equals-direct" cmp "$T/ours-R" "$T/c31"
if [ -x "$UP" ]; then
	if "$UP" --message-level 0 -l -d 31 "$T/c1" "$T/up-re.l" >"$T/up.log" 2>&1 &&
		why=$(python3 "$SAME" "$T/up-re.l" "$T/direct.l" 2>&1); then
		ok "readers-c-1.7.2-refilters ($why)"
	else notok "readers-c-1.7.2-refilters" "$(tail -n 1 "$T/up.log") $why"; fi
	"$UP" -R "$T/up-R" <"$T/flat" >"$T/upR.log" 2>&1
	check "readers-c-1.7.2-R-equals-direct" cmp "$T/up-R" "$T/c31"
else
	needfail "readers-c-1.7.2" "makedumpfile 1.7.2 not installed"
fi

# Split sets: 2 and 3 parts on the default 64-pfn grid, and 2 parts with
# 128 MiB split blocks, opened as sets by libkdumpfile (and crash below),
# and merged by --reassemble into the direct dump.
splits="s2:2: s3:3: sb:2:--splitblock-size=131072"
for s in $splits; do
	IFS=: read -r name n extra <<<"$s"
	parts=(); for ((i = 1; i <= n; i++)); do parts+=("$T/$name.$i"); done
	# shellcheck disable=SC2086 # $extra is one option or none
	"$MDF" --message-level 0 -l -d 31 $extra --split "$vm" "${parts[@]}"
	if /usr/bin/python3 -c 'import kdumpfile' 2>/dev/null; then
		out=$(/usr/bin/python3 "$MDF_SRC/tests/tools/libkdumpfile_set.py" "$vm" "$T/direct.l" "${parts[@]}" 2>&1 | tail -n 1)
		if [[ "$out" == pages* ]]; then ok "readers-split-$name-libkdumpfile ($out)"
		else notok "readers-split-$name-libkdumpfile" "$out"; fi
	fi
	"$MDF" --message-level 0 --reassemble "${parts[@]}" "$T/$name.re"
	check "readers-split-$name-reassembled" cmp "$T/$name.re" "$T/direct.l"
done

# crash, with the debug vmlinux of the fixture's kernel.
VMLINUX=${MDF_DEBUG_VMLINUX:-${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}/vmlinux-6.1.0-57-amd64}
if [ ! -s "$VMLINUX" ] && [ "${MDF_CRASH_TEST:-0}" = 1 ]; then
	VMLINUX=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh") || VMLINUX=""
fi
if ! command -v crash >/dev/null; then
	crashfail "readers-c-crash" "crash not installed"
elif [ ! -s "$VMLINUX" ]; then
	crashfail "readers-c-crash" "no debug vmlinux (MDF_CRASH_TEST=1 fetches it: tests/lab/debug_vmlinux.sh)"
else
	# What crash says of the raw ELF is the reference: the same "sys"
	# (but the file name), and the kernel banner read through it.
	crash_sys() { # DUMP OUT
		printf 'sys\nrd -a linux_banner\nquit\n' |
			timeout 600 crash -s "$VMLINUX" "$1" 2>&1 | grep -v 'DUMPFILE:' >"$2"
	}
	crash_sys "$vm" "$T/crash.elf"
	for f in c31 c1; do
		crash_sys "$T/$f" "$T/crash.$f"
		if grep -q 'RELEASE: 6.1.0-57-amd64' "$T/crash.$f" &&
			grep -q 'Linux version 6.1.0-57-amd64' "$T/crash.$f" &&
			! grep -qiE 'read error|cannot|invalid' "$T/crash.$f" &&
			cmp -s "$T/crash.$f" "$T/crash.elf"; then
			ok "readers-$f-crash (sys and linux_banner as from the ELF: $(grep -m 1 'RELEASE:' "$T/crash.$f" | tr -s ' '))"
		else notok "readers-$f-crash" "$(diff "$T/crash.elf" "$T/crash.$f" | head -n 4 | tr '\n' ' ')"; fi
	done
	# A split set opens as one dump (parts off the 64-pfn grid did not:
	# "cannot resolve init_task_union").
	for s in $splits; do
		IFS=: read -r name n extra <<<"$s"
		parts=(); for ((i = 1; i <= n; i++)); do parts+=("$T/$name.$i"); done
		printf 'sys\nrd -a linux_banner\nquit\n' |
			timeout 600 crash -s "$VMLINUX" "${parts[@]}" 2>&1 | grep -vE 'DUMPFILE|PARTIAL DUMP' >"$T/crash.$name"
		if grep -q 'Linux version 6.1.0-57-amd64' "$T/crash.$name" &&
			! grep -qiE 'read error|cannot|invalid' "$T/crash.$name" &&
			diff <(grep -v DUMPFILE "$T/crash.elf") "$T/crash.$name" >/dev/null; then
			ok "readers-split-$name-crash"
		else notok "readers-split-$name-crash" "$(head -n 3 "$T/crash.$name" | tr '\n' ' ')"; fi
	done
fi
exit 0
