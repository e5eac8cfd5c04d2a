#!/bin/bash
# --report-format json (issue 30, item 2): the final report as one JSON
# object with the numbers of the text report, for scripts that parse it
# today: on a synthetic dump and the fixtures, the JSON's page counts,
# write bytes and cache counts equal the text report's; with -F the object
# goes to stderr beside the stream; a rule that VMCOREINFO leaves without
# a key is listed with its keys; a bad value is refused.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
printf 'kernel 6.1\nram 0x100000 0x8000000\npages 0x2000+256 anon random\npages 0x3000+64 cache random\n' >"$T/spec"
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "report-json-gen" "mkvmcore failed"; exit 0; }

same() { # NAME TEXT JSON: the text report's numbers in the JSON
	python3 - "$2" "$3" <<-'PY'
	import json, re, sys
	text = open(sys.argv[1]).read()
	objs = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith("{")]
	assert len(objs) == 1, "%d JSON lines" % len(objs)
	j = json.loads(objs[0])
	def hexval(label):
	    m = re.search(r"^\s*" + re.escape(label) + r"\s*: 0x([0-9a-f]+)$", text, re.M)
	    assert m, label
	    return int(m.group(1), 16)
	p = j["pages"]
	pairs = [("Original pages", p["original"]), ("Excluded pages", p["excluded"]),
	         ("Pages filled with zero", p["zero"]), ("Non-private cache pages", p["cache"]),
	         ("Private cache pages", p["cache_private"]), ("User process data pages", p["user"]),
	         ("Free pages", p["free"]), ("Remaining pages", p["remaining"]),
	         ("Memory Hole", p["hole"]), ("Total pages", p["total"])]
	for label, v in pairs:
	    assert hexval(label) == v, (label, hexval(label), v)
	m = re.search(r"^Write bytes\s*: (\d+)$", text, re.M)
	if m:
	    assert int(m.group(1)) == j["write_bytes"], "write bytes"
	m = re.search(r"^Cache hit: (\d+), miss: (\d+)", text, re.M)
	assert m and int(m.group(1)) == j["cache"]["hits"] and int(m.group(2)) == j["cache"]["misses"]
	assert [x["name"] for x in j["phases"]], "no phases"
	print("%d pages, %d remaining, %d phases" % (p["original"], p["remaining"], len(j["phases"])))
	PY
}
run_pair() { # NAME INPUT ARGS...: text and JSON reports of the same run
	local name=$1 in=$2
	shift 2
	rm -f "$T/t.out" "$T/j.out"
	"$MDF" --message-level 23 "$@" "$in" "$T/t.l" >"$T/t.txt" 2>&1
	"$MDF" --message-level 23 --report-format json "$@" "$in" "$T/j.l" >"$T/j.txt" 2>&1
	if why=$(same "$name" "$T/t.txt" "$T/j.txt" 2>&1); then ok "report-json-$name ($why)"
	else notok "report-json-$name" "$why"; fi
	rm -f "$T/t.l" "$T/j.l"
}
run_pair synthetic "$T/vm" -l -d 31
for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "report-json-$name" "no fixture"; continue; }
	run_pair "$name" "$vm" -l -d 31
done
# -F: the stream on stdout, the JSON on stderr
"$MDF" --message-level 23 --report-format json -F -l -d 31 "$T/vm" >"$T/f.stream" 2>"$T/f.err"
if python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][0]' "$T/f.err" 2>/dev/null &&
	[ "$(head -c 16 "$T/f.stream")" = "makedumpfile" ]; then ok "report-json-flattened-stderr"
else notok "report-json-flattened-stderr" "$(head -c 200 "$T/f.err")"; fi
# a rule without its key: listed with the keys it lacks
printf 'kernel 6.1\nram 0x100000 0x4000000\npages 0x2000+64 cache random\nvmcoreinfo del NUMBER(PG_lru)\n' >"$T/spec2"
if "$GEN" "$T/spec2" "$T/vm2" >/dev/null 2>&1; then
	"$MDF" --message-level 23 --report-format json -l -d 31 "$T/vm2" "$T/g.l" >"$T/g.txt" 2>&1
	if python3 - "$T/g.txt" <<-'PY'
	import json, sys
	j = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][0]
	r = [x for x in j["rules_not_run"] if x["rule"] == "cache"]
	assert r and "NUMBER(PG_lru)" in r[0]["keys"], j["rules_not_run"]
	PY
	then ok "report-json-rules-not-run"
	else notok "report-json-rules-not-run" "$(grep '^{' "$T/g.txt" | cut -c1-300)"; fi
else notok "report-json-rules-not-run" "mkvmcore failed"; fi
rm -f "$T/x.l"
"$MDF" --report-format yaml -l -d 31 "$T/vm" "$T/x.l" >"$T/x.out" 2>&1
if [ $? = 1 ] && [ ! -e "$T/x.l" ] &&
	grep -q "^makedumpfile: invalid value 'yaml' for option --report-format: text or json$" "$T/x.out"; then
	ok "report-json-bad-value"
else notok "report-json-bad-value" "$(head -n 2 "$T/x.out" | tr '\n' ' ')"; fi
exit 0
