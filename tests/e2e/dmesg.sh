#!/bin/bash
# --dump-dmesg: the real vmcores' logs hold their LAB-MARKER lines (from
# the fixtures' .json) and equal what the installed makedumpfile (Debian
# 1.7.2) writes, byte for byte, with and without --partial-dmesg, and what
# we read back out of our own kdump-compressed -d 31 dump; output
# file rules (0600, O_EXCL unless -f); synthetic vmcores without a usable
# log fail with a message and leave no file behind.
. "$(dirname "$0")/../lib/lib.sh"
REF_MDF=/usr/bin/makedumpfile
GEN="$MDF_BUILD/tests/gen/mkvmcore"

real_case() { # NAME
	local name=$1 core json="$MDF_SHARED/vmcores/$1.json" out="$T/$1.dmesg"
	if ! core=$(vmcore "$name"); then
		skip "dmesg-$name" "vmcore $name not available"
		return
	fi
	if ! "$MDF" --dump-dmesg "$core" "$out" >"$T/$name.log" 2>&1; then
		notok "dmesg-$name" "$(tail -n 2 "$T/$name.log" | tr '\n' ' ')"
		return
	fi
	if grep -q '^The dmesg log is saved to '"$out"'\.$' "$T/$name.log" &&
	   grep -q '^makedumpfile Completed\.$' "$T/$name.log"; then
		ok "dmesg-$name-messages"
	else
		notok "dmesg-$name-messages" "$(tr '\n' ' ' <"$T/$name.log")"
	fi
	[ "$(stat -c %a "$out")" = 600 ] && ok "dmesg-$name-mode" ||
		notok "dmesg-$name-mode" "mode $(stat -c %a "$out")"

	# every marker of the .json, on a line of its own after the timestamp
	local markers n=0 missing=""
	markers=$(grep -o '"LAB-MARKER [^"]*"' "$json" 2>/dev/null | tr -d '"')
	if [ -z "$markers" ]; then
		notok "dmesg-$name-markers" "no dmesg_markers in $json"
	else
		while IFS= read -r m; do
			n=$((n + 1))
			grep -qE "^\[ *[0-9]+\.[0-9]{6}\] $m" "$out" || missing="$missing '$m'"
		done <<<"$markers"
		[ -z "$missing" ] && ok "dmesg-$name-markers ($n)" ||
			notok "dmesg-$name-markers" "missing:$missing"
	fi

	# O_EXCL: an existing file is kept; -f overwrites it
	local sum
	sum=$(md5sum <"$out")
	if "$MDF" --dump-dmesg "$core" "$out" >"$T/excl.log" 2>&1; then
		notok "dmesg-$name-excl" "overwrote $out without -f"
	elif grep -q 'already exists' "$T/excl.log" && [ "$(md5sum <"$out")" = "$sum" ]; then
		ok "dmesg-$name-excl"
	else
		notok "dmesg-$name-excl" "$(tr '\n' ' ' <"$T/excl.log")"
	fi
	check "dmesg-$name-force" "$MDF" -f --dump-dmesg "$core" "$out"

	# the same log out of our kdump-compressed -d 31 dump of it
	if "$MDF" -l -d 31 "$core" "$T/$name.kdump" >"$T/kd.log" 2>&1 &&
	   "$MDF" --dump-dmesg "$T/$name.kdump" "$T/$name.kd.dmesg" >>"$T/kd.log" 2>&1 &&
	   cmp -s "$out" "$T/$name.kd.dmesg"; then
		ok "dmesg-$name-from-kdump"
	else
		notok "dmesg-$name-from-kdump" "$(tail -n 3 "$T/kd.log" | tr '\n' ' ')"
	fi
	rm -f "$T/$name.kdump"

	# the same bytes as makedumpfile 1.7.2
	if [ ! -x "$REF_MDF" ]; then
		skip "dmesg-$name-vs-1.7.2" "$REF_MDF not installed"
		return
	fi
	local opt
	for opt in "" --partial-dmesg; do
		local tag="dmesg-$name-vs-1.7.2${opt:+-partial}"
		rm -f "$T/ref.txt" "$T/mine.txt"
		if ! "$REF_MDF" --dump-dmesg $opt "$core" "$T/ref.txt" >"$T/ref.log" 2>&1; then
			skip "$tag" "reference makedumpfile failed: $(tail -n 1 "$T/ref.log")"
			continue
		fi
		if ! "$MDF" --dump-dmesg $opt "$core" "$T/mine.txt" >"$T/mine.log" 2>&1; then
			notok "$tag" "$(tail -n 2 "$T/mine.log" | tr '\n' ' ')"
		elif cmp -s "$T/ref.txt" "$T/mine.txt"; then
			ok "$tag ($(wc -l <"$T/mine.txt") lines)"
		else
			notok "$tag" "$(diff "$T/ref.txt" "$T/mine.txt" | head -n 4 | tr '\n' ' ')"
		fi
	done
}

real_case fx-v61-512m
real_case fx-v612-512m

# Synthetic vmcores: a 6.1 kernel whose printk memory is all zeros (prb is
# a NULL pointer), and two whose VMCOREINFO has no log symbols at all.
fails_cleanly() { # NAME WANT-MESSAGE SPEC-EXTRA
	local name=$1 want=$2 extra=$3 d="$T/gen-$1"
	mkdir -p "$d"
	printf 'ram 0x100000 0x4000000\n%s\n' "$extra" >"$d/spec"
	if [ ! -x "$GEN" ] || ! "$GEN" "$d/spec" "$d/vmcore" >"$d/gen.log" 2>&1; then
		skip "dmesg-$name" "mkvmcore unavailable or failed"
		return
	fi
	if "$MDF" --dump-dmesg "$d/vmcore" "$d/out" >"$d/log" 2>&1; then
		notok "dmesg-$name" "succeeded"
	elif [ -e "$d/out" ]; then
		notok "dmesg-$name" "left $d/out behind"
	elif grep -q "$want" "$d/log" && grep -q 'makedumpfile Failed' "$d/log"; then
		ok "dmesg-$name"
	else
		notok "dmesg-$name" "$(tr '\n' ' ' <"$d/log")"
	fi
}
fails_cleanly null-prb 'printk_ringbuffer at 0x0: reading virtual address 0x0' ''
fails_cleanly no-log-symbols 'VMCOREINFO describes no kernel log' \
	"$(printf 'vmcoreinfo del SYMBOL(prb)\nvmcoreinfo del SYMBOL(log_buf)\n')"
fails_cleanly minimal-vmcoreinfo 'VMCOREINFO describes no kernel log' 'kernel none'

# Option errors
"$MDF" --partial-dmesg a b >"$T/opt.log" 2>&1
[ $? -eq 1 ] && grep -q -- '--partial-dmesg needs --dump-dmesg' "$T/opt.log" &&
	ok "dmesg-partial-alone" || notok "dmesg-partial-alone" "$(tr '\n' ' ' <"$T/opt.log")"
exit 0
