#!/bin/bash
# Exact compatibility with upstream where readers or users can tell:
# -E program headers byte for byte as 1.7.2 writes them (a PT_LOAD all of
# whose pages are excluded, a leading excluded run), a vmcore without
# VMCOREINFO at -d 1, progress that stops at 100 %, the STEP lines in
# upstream's order, and -h that tells the exit status.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
UP=/usr/bin/makedumpfile
[ -x "$UP" ] || UP=/usr/sbin/makedumpfile

# A machine whose last PT_LOAD holds only zero pages (at -d 31 all of it
# goes: its program header has no data), a legacy-kexec low segment
# ending inside a page, and a kernel text segment with a leading
# excluded run.
cat >"$T/spec" <<'SPEC'
kernel 6.1
ram 0x1000 0x9fc00
ram 0x100000 0x4000000
pages 0x2000+64 anon random
ram 0x8000000 +2M
SPEC
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "compat-gen" "mkvmcore failed"; exit 0; }

if [ -x "$UP" ]; then
	for l in 1 31; do
		"$MDF" --message-level 0 -E -d $l "$T/vm" "$T/e$l" &&
			"$UP" --message-level 0 -E -d $l "$T/vm" "$T/u$l" >/dev/null 2>&1
		check "compat-E-d$l-as-1.7.2" python3 "$MDF_SRC/tests/tools/elf_same.py" "$T/u$l" "$T/e$l"
	done
	# pieces without data: upstream's offsets, but the first PT_LOAD's,
	# which crash reads as the headers' size (tests/tools/elf_same.py)
	offs=$(readelf -lW "$T/e31" | awk '$1 == "LOAD" && $5 == "0x000000" { print $2 }' | tr '\n' ' ')
	first=$(readelf -lW "$T/e31" | awk '$1 == "LOAD" { print $2; exit }')
	case "$first:$offs" in
	0x000000:*) notok "compat-E-empty-loads" "the first PT_LOAD at offset 0: crash cannot open it ($offs)" ;;
	*:*0x000000*) case "$offs" in
		*0x[0-9a-f]*[1-9a-f]*) ok "compat-E-empty-loads (offsets $offs)" ;;
		*) notok "compat-E-empty-loads" "want a leading 0 and a running offset: $offs" ;;
		esac ;;
	*) notok "compat-E-empty-loads" "want a leading 0 and a running offset: $offs" ;;
	esac
	# crash takes the headers' size from the first PT_LOAD's p_offset: it
	# opens ours ("cannot realloc resized ELF header buffer" on 1.7.2's)
	if command -v crash >/dev/null; then
		if rel=$(crash --osrelease "$T/e31" 2>&1) && [ "$rel" = 6.1.0-57-amd64 ]; then
			ok "compat-E-crash-opens ($rel; 1.7.2's: $(crash --osrelease "$T/u31" 2>&1 | tail -n 1))"
		else notok "compat-E-crash-opens" "$(echo "$rel" | tail -n 2 | tr '\n' ' ')"; fi
	else needfail "compat-E-crash-opens" "crash is not installed"; fi
	# No VMCOREINFO: -d 1 needs none; the header has none either.
	cat >"$T/nv.spec" <<-'SPEC'
	kernel 6.1
	ram 0x100000 0x4000000
	pages 0x2000+64 anon random
	break no_vmcoreinfo
	SPEC
	"$GEN" "$T/nv.spec" "$T/nv" >/dev/null 2>&1
	"$MDF" --message-level 0 -l -d 1 "$T/nv" "$T/nv.l"; rc=$?
	"$UP" --message-level 0 -l -d 1 "$T/nv" "$T/nv.u" >/dev/null 2>&1
	if [ $rc -eq 0 ] && why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/nv.l" "$T/nv.u" 2>&1); then
		ok "compat-no-vmcoreinfo-d1 ($why)"
	else notok "compat-no-vmcoreinfo-d1" "rc=$rc $why"; fi
else
	skip "compat-1.7.2" "makedumpfile 1.7.2 not installed"
fi

# Progress: never past 100 %, one line per phase on a terminal.
if command -v script >/dev/null; then
	script -qc "$MDF -E -d 31 $T/vm $T/tty.e" /dev/null </dev/null >"$T/tty.log" 2>&1
	pct=$(tr '\r' '\n' <"$T/tty.log" | sed -n 's/.*\[ *\([0-9.]*\) %\].*/\1/p' | sort -n | tail -n 1)
	ends=$(grep -c '^Copying data' <(tr '\r' '\n' <"$T/tty.log" | grep -a '100.0 %'))
	if [ "$pct" = "100.0" ] && [ "$ends" -eq 1 ]; then ok "compat-progress-stops-at-100"
	else notok "compat-progress-stops-at-100" "highest $pct %, $ends final lines"; fi
else
	skip "compat-progress-stops-at-100" "no script(1)"
fi

# The report's STEP lines in upstream's order.
"$MDF" --message-level 23 -l -d 31 "$T/vm" "$T/steps.l" >"$T/steps" 2>&1
order=$(sed -n 's/^STEP \[\([A-Za-z ]*[a-z]\) *\].*/\1/p' "$T/steps" | tr '\n' ',')
if [[ "$order" == *"Excluding unnecessary pages,"*"Copying data,"* ]]; then ok "compat-step-order ($order)"
else notok "compat-step-order" "$order"; fi

# -h says what the exit status means.
if "$MDF" -h 2>&1 | grep -q '^Exit status: 0 when the dump is complete; 1 on an error'; then ok "compat-help-exit-status"
else notok "compat-help-exit-status" "no exit status in -h"; fi
exit 0
