# shellcheck shell=bash
# tests/lib/oracle.sh - the checks of a cross-built upstream makedumpfile
# (1.7.2, or HEAD) against ours on one vmcore, shared by the oracles of
# architectures Debian ships no makedumpfile for (mips64_oracle.sh,
# loongarch64_oracle.sh).  The script defines:
#   up ARGS...             runs the upstream build (under qemu-user);
#   up_same VMCORE UP OURS [same]
#                          OURS is UP's bytes, as far as that build can be
#                          (an -E file but for the first PT_LOAD's empty
#                          p_offset, tests/tools/elf_same.py; "same": byte
#                          for byte); leaves what it compared in
#                          $T/cmp.ours, and may say in $known what it
#                          allowed (" (1.7.2 drops pfn 0x...)").
# CALLER=1: upstream prints dmesg records with their caller ids (1.7.5 on);
# MARK=TEXT: its dmesg must hold TEXT.

# up_same VMCORE UP OURS [same], as above, where the build's bytes are to
# be ours exactly: a script whose build has known differences defines its
# own after sourcing this (mips64_oracle.sh: 1.7.2's dropped page).
up_same() {
	cp "$3" "$T/cmp.ours" || return 1
	[ "${4:-}" = same ] || python3 "$MDF_SRC/tests/tools/elf_same.py" "$2" "$T/cmp.ours" >/dev/null
}

# oracle TAG VMCORE: every check of 1.7.2 against us on VMCORE.
oracle() {
	local tag=$1 v=$2 o n why
	known=""
	for o in "-l -d 0" "-l -d 1" "-l -d 2" "-l -d 4" "-l -d 8" "-l -d 16" "-l -d 31" \
		"-E -d 1" "-E -d 31"; do
		n="$tag-$(sed 's/^-//; s/ -/-/g; s/ //g' <<<"$o")"
		rm -f "$T/up" "$T/ours"
		# shellcheck disable=SC2086
		if ! up $o "$v" "$T/up" >"$T/up.log" 2>&1; then
			notok "$n" "1.7.2: $(tail -n 3 "$T/up.log" | tr '\n' ' ')"
		elif ! "$MDF" $o "$v" "$T/ours" >"$T/ours.log" 2>&1; then
			notok "$n" "ours: $(tail -n 3 "$T/ours.log" | tr '\n' ' ')"
		elif up_same "$v" "$T/up" "$T/ours"; then
			ok "$n$known"
		else
			notok "$n" "$(python3 "$MDF_SRC/tests/tools/elf_same.py" "$T/up" "$T/cmp.ours")$known"
		fi
	done
	rm -f "$T/up" "$T/ours"
	if up -c -d 31 "$v" "$T/up" >"$T/up.log" 2>&1 &&
		"$MDF" -c -d 31 "$v" "$T/ours" >"$T/ours.log" 2>&1 &&
		up_same "$v" "$T/up" "$T/ours" same &&
		why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/up" "$T/cmp.ours" 2>&1)
	then ok "$tag-c-d31 ($why)$known"; else notok "$tag-c-d31" "${why:-$(tail -n 2 "$T/up.log" "$T/ours.log" | tr '\n' ' ')}"; fi
	rm -f "$T/up" "$T/ours" "$T/p1" "$T/p2"
	up -l -d 31 "$v" "$T/up" >"$T/up.log" 2>&1
	"$MDF" -F -l -d 31 "$v" 2>/dev/null | up -R "$T/ours" >"$T/r.log" 2>&1
	if up_same "$v" "$T/up" "$T/ours"; then ok "$tag-F-then-R$known"
	else notok "$tag-F-then-R" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')$known"; fi
	rm -f "$T/ours"
	"$MDF" --split -l -d 31 "$v" "$T/p1" "$T/p2" >/dev/null 2>&1
	up --reassemble "$T/p1" "$T/p2" "$T/ours" >"$T/r.log" 2>&1
	if up_same "$v" "$T/up" "$T/ours"; then ok "$tag-split-then-reassemble$known"
	else notok "$tag-split-then-reassemble" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')$known"; fi
	# 1.7.2 refilters our -l -d 1 file to -d 31: its own -d 31 file, and ours
	rm -f "$T/ours" "$T/l1" "$T/r31"
	"$MDF" -l -d 1 "$v" "$T/l1" >/dev/null 2>&1
	up -l -d 31 "$T/l1" "$T/r31" >"$T/r.log" 2>&1
	"$MDF" -l -d 31 "$T/l1" "$T/ours" >/dev/null 2>&1
	if up_same "$v" "$T/up" "$T/r31" && cmp -s "$T/r31" "$T/ours"; then ok "$tag-refilter-l-d1-to-d31$known"
	else notok "$tag-refilter-l-d1-to-d31" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')$known"; fi
	rm -f "$T/up" "$T/ours" "$T/l1" "$T/r31"
	up --dump-dmesg "$v" "$T/up.txt" >/dev/null 2>&1
	"$MDF" --dump-dmesg "$v" "$T/ours" >/dev/null 2>&1
	# upstream 1.7.5 on prints each record's caller id after its time
	# ("[      T0] ", 48bb1e0), 1.7.2 and we do not: HEAD's text without it
	if [ "${CALLER:-0}" = 1 ]; then
		sed -E 's/^(\[[ 0-9.]+\]) \[ *[TC][0-9]+\] /\1 /' "$T/up.txt" >"$T/up"
		why=" (HEAD's caller ids taken out)"
	else
		mv "$T/up.txt" "$T/up" 2>/dev/null; why=""
	fi
	if [ -s "$T/up" ] && { [ -z "${MARK:-}" ] || grep -q "$MARK" "$T/up"; } && cmp -s "$T/up" "$T/ours"
	then ok "$tag-dmesg$why"
	else notok "$tag-dmesg" "$(diff "$T/up" "$T/ours" 2>&1 | head -n 3 | tr '\n' ' ')"; fi
	rm -f "$T/up" "$T/up.txt" "$T/ours"
}
