#!/bin/bash
# The exact command lines kdump callers use (upstream.md section 6a) work:
# Fedora/RHEL kdump-utils, Debian kdump-tools and SUSE kdump, plus the
# options every caller may pass.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genspec.sh"
KPY="$MDF_SHARED/tools/kdump.py"
genspec_small >"$T/spec"
"$GEN" "$T/spec" "$T/vmcore" || { notok "callers" "mkvmcore failed"; exit 0; }
V="$T/vmcore"
readable() { # kdump file readable by the independent reader, every page right
	[ -f "$KPY" ] || return 0
	python3 "$KPY" pages "$1" "$V" 2>&1 | grep -q " 0 differ"
}

# Fedora/RHEL local target: dump to vmcore-incomplete, then rename.
mkdir -p "$T/fedora"
if "$MDF" -l --message-level 7 -d 31 "$V" "$T/fedora/vmcore-incomplete" >"$T/f.out" 2>"$T/f.err" &&
	mv "$T/fedora/vmcore-incomplete" "$T/fedora/vmcore" && readable "$T/fedora/vmcore" &&
	grep -q "makedumpfile Completed." "$T/f.out"; then ok "fedora-local"
else notok "fedora-local" "$(tail -n2 "$T/f.err")"; fi
# ... with --num-threads=N appended when the capture kernel has CPUs.
rm -f "$T/fedora/thr"
if "$MDF" -l --message-level 7 -d 31 --num-threads=2 "$V" "$T/fedora/thr" >/dev/null 2>&1 &&
	cmp -s "$T/fedora/thr" "$T/fedora/vmcore"; then ok "fedora-num-threads"
else notok "fedora-num-threads" "differs from the serial dump"; fi
# Fedora ssh/raw target: -F into dd, rebuilt later with -R.
if "$MDF" -F -l --message-level 7 -d 31 "$V" 2>/dev/null | dd bs=512 of="$T/fedora/raw" 2>/dev/null &&
	"$MDF" -R "$T/fedora/fromraw" <"$T/fedora/raw" >/dev/null 2>&1 &&
	cmp -s "$T/fedora/fromraw" "$T/fedora/vmcore"; then ok "fedora-ssh-raw-F-R"
else notok "fedora-ssh-raw-F-R" "rearranged stream differs"; fi

# Debian kdump-tools: -F -c -d 31 piped through a compressor, then -R.
if "$MDF" -F -c -d 31 "$V" 2>"$T/d.err" | gzip -1 >"$T/dump.gz" &&
	zcat "$T/dump.gz" | "$MDF" -R "$T/debian" >/dev/null 2>&1 && readable "$T/debian" &&
	grep -q "makedumpfile Completed." "$T/d.err"; then ok "debian-F-c-gzip"
else notok "debian-F-c-gzip" "$(tail -n2 "$T/d.err")"; fi
# Debian's dmesg step needs a real printk ring buffer (the synthetic kernel
# has none): use the real fixture when present.
if vm=$(vmcore fx-v61-512m); then
	if "$MDF" --dump-dmesg "$vm" "$T/dmesg.txt" >/dev/null 2>"$T/dm.err" &&
		grep -q "LAB-MARKER" "$T/dmesg.txt"; then ok "debian-dump-dmesg"
	else notok "debian-dump-dmesg" "$(tail -n1 "$T/dm.err")"; fi
else
	skip "debian-dump-dmesg" "no ../shared/vmcores fixture"
fi

# SUSE: each format flag with -d, to a local file.
for f in E c l p; do
	rm -f "$T/suse.$f"
	"$MDF" -v | grep -q 'snappy.*enabled' || [ $f != p ] || continue
	if "$MDF" --message-level 7 -d 31 -$f "$V" "$T/suse.$f" >/dev/null 2>"$T/s.err"; then ok "suse-$f"
	else notok "suse-$f" "$(tail -n1 "$T/s.err")"; fi
done

# Options every caller may pass.
if "$MDF" --check-params -l -d 31 "$V" "$T/never" && [ ! -e "$T/never" ]; then ok "check-params"
else notok "check-params" "wrote a file or failed"; fi
"$MDF" --show-stats -l -d 31 -b 6 --cyclic-buffer 1024 --message-level 31 "$V" "$T/stats" >"$T/st.out" 2>&1
if grep -q "Original pages" "$T/st.out" && grep -q "Cache hit" "$T/st.out"; then ok "show-stats-report"
else notok "show-stats-report" "no report"; fi
"$MDF" -h >"$T/h" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "Usage" "$T/h"; then ok "help"; else notok "help" "rc=$rc"; fi
"$MDF" -v >"$T/v" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "lzo" "$T/v"; then ok "version"; else notok "version" "rc=$rc"; fi
"$MDF" --split -d 31 "$V" "$T/a" "$T/b" >/dev/null 2>"$T/sp"; rc=$?
if [ $rc -eq 1 ] && grep -q -- "--split" "$T/sp"; then ok "unsupported-option-named"
elif [ $rc -eq 0 ]; then ok "split-supported"
else notok "unsupported-option-named" "rc=$rc $(cat "$T/sp")"; fi
"$MDF" --bogus "$V" x >/dev/null 2>"$T/bo"; rc=$?
if [ $rc -eq 1 ] && grep -q -- "--bogus" "$T/bo"; then ok "unknown-option-named"
else notok "unknown-option-named" "rc=$rc $(cat "$T/bo")"; fi
# Progress: plain lines when stderr is not a terminal.
"$MDF" -l -d 0 "$V" "$T/prog" >/dev/null 2>"$T/pr"
if grep -q "^Copying data *: \[100.0 %\]$" "$T/pr" && ! grep -q $'\r' "$T/pr"; then ok "progress-plain-lines"
else notok "progress-plain-lines" "$(head -c 200 "$T/pr")"; fi
