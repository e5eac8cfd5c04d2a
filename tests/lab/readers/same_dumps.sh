#!/bin/bash
# tests/lab/readers/same_dumps.sh OLD NEW VMCORE...: whether two builds of
# makedumpfile write the same dumps of each VMCORE, byte for byte: -l, -c
# and -E at -d 31, -l at -d 1, and -l -d 31 of OLD's -c -d 1 (a
# refilter).  The readers' table (README) comes from make lab at one
# commit; a later commit whose dumps are the same bytes carries it over.
# One line per dump ("same" or "DIFFER"); exit 1 when any differs.
[ $# -ge 3 ] || { echo "usage: $0 OLD NEW VMCORE..." >&2; exit 2; }
old=$1 new=$2; shift 2
w=$(mktemp -d /var/tmp/same-dumps.XXXXXX) || exit 2
trap 'rm -rf "$w"' EXIT
bad=0
for vm in "$@"; do
	n=$(basename "$vm")
	for f in "-l -d 31" "-c -d 31" "-E -d 31" "-l -d 1" refilter; do
		rm -f "$w/o" "$w/n" "$w/in"
		if [ "$f" = refilter ]; then
			"$old" --message-level 0 -c -d 1 "$vm" "$w/in" &&
				"$old" --message-level 0 -l -d 31 "$w/in" "$w/o" &&
				"$new" --message-level 0 -l -d 31 "$w/in" "$w/n"
		else
			# shellcheck disable=SC2086 # the options split
			"$old" --message-level 0 $f "$vm" "$w/o" && "$new" --message-level 0 $f "$vm" "$w/n"
		fi
		if [ $? -eq 0 ] && cmp -s "$w/o" "$w/n"; then echo "$n $f: same"
		else echo "$n $f: DIFFER"; bad=1; fi
	done
done
exit $bad
