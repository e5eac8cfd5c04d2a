#!/bin/bash
# The sadump oracle (issue 28 item 3): Debian's makedumpfile 1.7.2
# (/usr/bin/makedumpfile) reads sadump.  For two generated machines (one
# without KASLR, whose phys_base 1.7.2 finds by linux_banner; one with
# KASLR and a negative phys_base, which it finds through IDTR and the IDT)
# written as a single partition, a diskset of three disks and a media
# backup, `makedumpfile -l -d N -x VMLINUX` must succeed at levels 0 1 2 4
# 8 16 31 and give the machine's pages: its bitmaps equal the generator's
# reference ones (--ref, from the declared kinds) and its pages and bitmaps
# those of 1.7.2 on the same machine as an ELF core (mkvmcore --elf, with
# VMCOREINFO; the format of a spec changes only the container).  VMLINUX is kobj-sadump given the machine's symbols
# (mkvmcore --symbols) by objcopy.  Headers differ (the notes 1.7.2 makes
# from the cpu states; their name padding is stack garbage).
# And ours (issue 28 item 1): our `-l -d N -x VMLINUX` of each file is
# 1.7.2's, byte for byte, but for the one byte of each "CORE" note's name
# padding that 1.7.2 reads off its stack (tests/tools/sadump_same.py);
# both read the EFI time as local time (a TZ east of UTC moves the
# kdump header's timestamp back alike).
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
KOBJ="$MDF_BUILD/tests/gen/kobj-sadump"
UP=/usr/bin/makedumpfile
LEVELS="0 1 2 4 8 16 31"
if [ ! -x "$UP" ]; then skip "sadump-oracle" "no $UP"; exit 0; fi
if ! command -v objcopy >/dev/null; then needfail "sadump-oracle" "no objcopy"; exit 0; fi
# 1.7.2 reads the dump's EFI time as local time.
export TZ=UTC

# Machine A: no KASLR, two cpus, every kind, a printk ring.
cat >"$T/a.spec" <<'EOF'
kernel 6.1
format sadump single
cpus 2
ram 0x100000 0x8000000
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2300+256 cache_private byte 0x5a
pages 0x2600+1024 thp order=9 random
pages 0x2a00+512 hugetlb text
pages 0x2c00+16 slab random
pages 0x2c10+4 hwpoison
pages 0x3000+256 free order=8
pages 0x3400+64 swapcache random
fill 0x4000+256 zero
dmesg Linux version 6.1.0-57-amd64
EOF
# Machine B: the real fixture's KASLR and phys_base (the image 314 MiB
# from where the vmlinux says: out of the banner scan's +-16 MiB), three
# cpus, two RAM ranges.
cat >"$T/b.spec" <<'EOF'
kernel 6.1
format sadump single
cpus 3
kaslr 0x26e00000
phys_base -322961408
text 0x3430000
ram 0x100000 0x8000000
ram 0x14000000 +0x4000000
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2600+1024 thp order=9 random
pages 0x3000+256 free order=8
pages 0x14000+512 anon text 5
EOF

# Is DUMP's bitmap1 REF/bitmap1 and its bitmap2 REF/dL.bitmap2?
cat >"$T/ref.py" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
bs, shs, bmb = struct.unpack_from('<iiI', d, 428)
half, off = bmb * bs // 2, (1 + shs) * bs
r1 = open(sys.argv[2] + '/bitmap1', 'rb').read()
r2 = open(sys.argv[2] + '/d%s.bitmap2' % sys.argv[3], 'rb').read()
if d[off:off + half] != r1:
    sys.exit('bitmap1 differs from the reference')
b2 = d[off + half:off + 2 * half]
bad = [i for i in range(len(r2) * 8) if (r2[i >> 3] ^ b2[i >> 3]) >> (i & 7) & 1]
if bad:
    sys.exit('bitmap2: %d pfns differ from the reference, first 0x%x' % (len(bad), bad[0]))
EOF

# run NAME OUT ARGS...: 1.7.2, its messages kept for a failure.
run() {
	local name=$1 out=$2
	shift 2
	rm -f "$out"
	"$UP" "$@" "$out" >"$T/$name.log" 2>&1 && [ -s "$out" ]
}

for m in a b; do
	"$GEN" "$T/$m.spec" "$T/$m.elf" --elf --ref "$T/$m.ref" --symbols "$T/$m.syms" \
		>"$T/gen.log" 2>&1 || { notok "sadump-oracle-$m-gen" "$(cat "$T/gen.log")"; continue; }
	# The debug vmlinux of this machine: kobj-sadump's types, its symbols.
	args=()
	while read -r sym addr; do
		# objcopy takes a signed value: bash's arithmetic is signed too.
		args+=(--strip-symbol="$sym" --add-symbol "$sym=$((addr)),global,object")
	done <"$T/$m.syms"
	objcopy "${args[@]}" "$KOBJ" "$T/$m.vmlinux" 2>"$T/objcopy.log" ||
		{ notok "sadump-oracle-$m-vmlinux" "$(cat "$T/objcopy.log")"; continue; }
	for L in $LEVELS; do
		run "$m-elf-$L" "$T/$m.elf.$L" -l -d "$L" "$T/$m.elf" ||
			notok "sadump-oracle-$m-elf-d$L" "$(tail -n 3 "$T/$m-elf-$L.log" | tr '\n' ' ')"
	done
	for fmt in single diskset media; do
		case $fmt in
		diskset) f="sadump diskset 3" ;;
		*) f="sadump $fmt" ;;
		esac
		sed "s/^format .*/format $f/" "$T/$m.spec" >"$T/$m.$fmt.spec"
		"$GEN" "$T/$m.$fmt.spec" "$T/$m.$fmt" >"$T/gen.log" 2>&1 ||
			{ notok "sadump-oracle-$m-$fmt-gen" "$(cat "$T/gen.log")"; continue; }
		if [ $fmt = diskset ]; then
			in=(--diskset="$T/$m.$fmt" --diskset="$T/$m.$fmt.2" --diskset="$T/$m.$fmt.3")
		else
			in=("$T/$m.$fmt")
		fi
		for L in $LEVELS; do
			name="sadump-oracle-$m-$fmt-d$L"
			if ! run "$m-$fmt-$L" "$T/out" -l -d "$L" -x "$T/$m.vmlinux" "${in[@]}"; then
				notok "$name" "1.7.2 failed: $(tail -n 3 "$T/$m-$fmt-$L.log" | tr '\n' ' ')"
			elif ! why=$(python3 "$T/ref.py" "$T/out" "$T/$m.ref" "$L" 2>&1); then
				notok "$name" "$why"
			elif ! why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers \
					"$T/$m.elf.$L" "$T/out" 2>&1); then
				notok "$name" "vs the ELF core: $why"
			else
				ok "$name ($why)"
			fi
			# ours, against 1.7.2's bytes
			rm -f "$T/ours"
			if ! "$MDF" --message-level 0 -l -d "$L" -x "$T/$m.vmlinux" "${in[@]}" "$T/ours" \
					>"$T/ours.log" 2>&1; then
				notok "$name-ours" "$(tail -n 3 "$T/ours.log" | tr '\n' ' ')"
			elif why=$(python3 "$MDF_SRC/tests/tools/sadump_same.py" "$T/out" "$T/ours" 2>&1); then
				ok "$name-ours ($why)"
			else
				notok "$name-ours" "$why"
			fi
		done
		if [ $fmt = single ] && [ $m = a ]; then
			# 1.7.2 and we read the EFI time as local time: 9 hours
			# east of UTC, the timestamp is 9 hours earlier
			if TZ=JST-9 "$UP" -l -d 31 -x "$T/$m.vmlinux" "${in[@]}" "$T/out.tz" >/dev/null 2>&1 &&
				TZ=JST-9 "$MDF" --message-level 0 -l -d 31 -x "$T/$m.vmlinux" "${in[@]}" \
					"$T/ours.tz" >/dev/null 2>&1 &&
				why=$(python3 "$MDF_SRC/tests/tools/sadump_same.py" "$T/out.tz" "$T/ours.tz" 2>&1) &&
				ts=$(python3 -c 'import struct,sys; print(struct.unpack_from("<q", open(sys.argv[1], "rb").read(), 0x198)[0])' "$T/ours.tz") &&
				[ "$ts" = $((1700000000 - 9 * 3600)) ]; then
				ok "sadump-oracle-tz ($why, timestamp $ts)"
			else
				notok "sadump-oracle-tz" "${why:-} ${ts:-}"
			fi
			rm -f "$T/out.tz" "$T/ours.tz"
		fi
		# -E, which 1.7.2 refuses: the program headers kexec-tools would
		# have written, so the memory of our -E of the machine's ELF core
		for L in 1 31; do
			name="sadump-oracle-$m-$fmt-E-d$L"
			[ -s "$T/$m.elf.E$L" ] || "$MDF" --message-level 0 -E -d $L "$T/$m.elf" "$T/$m.elf.E$L" \
				>"$T/ours.log" 2>&1
			rm -f "$T/ours"
			if ! "$MDF" --message-level 0 -E -d $L -x "$T/$m.vmlinux" "${in[@]}" "$T/ours" \
					>"$T/ours.log" 2>&1; then
				notok "$name" "$(tail -n 3 "$T/ours.log" | tr '\n' ' ')"
			elif why=$(python3 "$MDF_SRC/tests/tools/elf_segments_same.py" "$T/$m.elf.E$L" \
					"$T/ours" 2>&1); then
				ok "$name ($why)"
			else
				notok "$name" "$why"
			fi
		done
		if [ $m = a ]; then
			# what we refuse, as upstream does (one line each)
			refuse() {
				local name=$1 want=$2
				shift 2
				rm -f "$T/ref.out"
				"$MDF" "$@" "$T/ref.out" >/dev/null 2>"$T/ref.err"; rc=$?
				if [ $rc -eq 1 ] && [ "$(head -n 1 "$T/ref.err")" = "makedumpfile: $want" ] &&
					[ ! -e "$T/ref.out" ]; then ok "$name"
				else notok "$name" "rc=$rc $(head -n 1 "$T/ref.err")"; fi
			}
			kind="sadump $fmt"
			[ $fmt = single ] && kind="sadump single partition"
			[ $fmt = media ] && kind="sadump media backup"
			refuse "sadump-$fmt-no-x" "${in[0]#--diskset=}: a sadump dump has no VMCOREINFO: -x VMLINUX (the crashed kernel's debug vmlinux) is needed" \
				-l -d 31 "${in[@]}"
			refuse "sadump-$fmt-threads" "'--num-threads' option is disabled, because ${in[0]#--diskset=} is $kind format" \
				--num-threads 2 -d 31 -x "$T/$m.vmlinux" "${in[@]}"
			if [ $fmt = diskset ]; then
				refuse "sadump-diskset-missing" "$T/$m.$fmt: the first disk of a set of 3 disks, 2 given: give every disk with --diskset=, the first one first" \
					-d 31 -x "$T/$m.vmlinux" "${in[0]}" "${in[1]}"
				refuse "sadump-diskset-order" "$T/$m.$fmt.3: disk 3 of the set, given as --diskset number 2" \
					-d 31 -x "$T/$m.vmlinux" "${in[0]}" "${in[2]}" "${in[1]}"
				refuse "sadump-diskset-second-first" "$T/$m.$fmt.2: disk 2 of a disk set: give every disk, the first one first (--diskset=DISK1 --diskset=DISK2 ...)" \
					-d 31 -x "$T/$m.vmlinux" "$T/$m.$fmt.2"
			fi
		fi
		rm -f "$T/$m.$fmt" "$T/$m.$fmt".[23]
	done
	rm -f "$T/$m.elf" "$T/$m.elf".*
done
exit 0
