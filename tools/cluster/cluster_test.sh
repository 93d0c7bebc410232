#!/usr/bin/env bash
# //tools:cluster end to end, with hosts as network namespaces on this machine:
#  1. --help; bad flags refused with the value named (exit 2), a number with a leading zero too
#     (every numeric flag: one decimal parser, never bash's octal); --delay refused where the
#     kernel has no netem (with tc's reason);
#  2. the DDP step across 2 hosts x 1 rank and 2 hosts x 2 ranks equals one host's step over
#     the same total batch (gradients, parameters, mean loss), with and without overlap;
#  3. ddp_step test-tiny on 2 hosts: host and local rank per rank in the table and the JSON,
#     the all-reduce's algbw / busbw and the exposed communication;
#  4. allreduce across 2 hosts on a 1gbit link: verified, busbw given as a share of the link;
#  5. a host's link taken down mid-run: every rank exits within --timeout_s (its last message,
#     timed by the output file its host's daemon writes), naming the unreachable host; no JSON
#     written; mpirun, left hanging, ended, its crash report (if any) in a log file, not on the
#     user's terminal;
#  6. Ctrl-C (SIGINT) mid-run: exit 130, nothing left; a stale namespace of a dead cluster is
#     removed at the next start;
#  7. SIGKILL mid-run: the watchdog ends and removes everything within seconds; with the watchdog
#     killed too, the next start does, and says what it cleaned.
# After every case: no namespace, process, temp folder or Open MPI session folder of the tool is
# left.
# Needs CAP_NET_ADMIN (root): without it the test says so and passes as skipped.
# Args: CLUSTER_SH DDP_STEP ALLREDUCE DDP_EQUIVALENCE_TEST
set -uo pipefail
cluster=$(readlink -f "$1") ddp=$(readlink -f "$2") allreduce=$(readlink -f "$3") equiv=$(readlink -f "$4")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
# The gtest binary (the equivalence test) on every rank would write its own report over Bazel's
# XML_OUTPUT_FILE, and race to remove Bazel's premature-exit file.
unset XML_OUTPUT_FILE TEST_PREMATURE_EXIT_FILE
fail() { echo "FAIL: $*"; exit 1; }

if ! err=$(ip netns add "mlbctest$$" 2>&1) || ! err=$(ip -n "mlbctest$$" link set lo up 2>&1); then
  ip netns del "mlbctest$$" 2>/dev/null
  echo "SKIPPED: needs CAP_NET_ADMIN (root) to make network namespaces: $err"
  exit 0
fi
ip netns del "mlbctest$$"

mlbc_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^mlbc[0-9]+-' || true; }
[ -z "$(mlbc_namespaces)" ] || fail "namespaces of another cluster exist before the test: $(mlbc_namespaces)"
ls -d /tmp/mlbench-cluster.* >/dev/null 2>&1 && fail "folders of another cluster exist before the test: $(ls -d /tmp/mlbench-cluster.*)"
# Open MPI's session folders of the hosts (their hostnames are host0, host1, ...), as Open MPI
# makes them in /tmp without the tool's TMPDIR; those of an earlier run do not count.
sessions() { ls -d /tmp/ompi.host[0-9]*.* 2>/dev/null || true; }
sessions_before=$(sessions)
nothing_left() {  # CASE
  local ns; ns=$(mlbc_namespaces)
  [ -z "$ns" ] || fail "$1: namespaces left behind: $ns"
  pgrep -f "$ddp|$equiv|$allreduce|cluster-watchdog" >/dev/null \
    && fail "$1: processes left behind: $(pgrep -af "$ddp|$equiv|$allreduce|cluster-watchdog")"
  ls -d /tmp/mlbench-cluster.* >/dev/null 2>&1 && fail "$1: temp folder left behind: $(ls -d /tmp/mlbench-cluster.*)"
  [ "$(sessions)" = "$sessions_before" ] || fail "$1: Open MPI session folders left behind: $(sessions)"
  return 0
}
# A cluster this test runs in the background ($pid) is ended should the test stop midway: SIGTERM
# tears it down (else SIGKILL, after which its watchdog does).
pid=""
end_background() {
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null
}
trap end_background EXIT
# TMPDIR: where the tool keeps mpirun's log when it had to end mpirun.
C() { TMPDIR="$tmp" timeout 120 bash "$cluster" --ddp_step_bin="$ddp" --allreduce_bin="$allreduce" "$@"; }

echo "== 1. --help and bad flags"
C --help | grep -q -- "--ranks_per_host=R" || fail "--help"
for bad in "--hosts=0|--hosts=0" "--hosts=two|--hosts=two" "--ranks_per_host=0|--ranks_per_host=0" \
           "--rate=fast|--rate=fast" "--link_down=5:1|host 5, but hosts are 0..1" "--bogus=1|unknown flag --bogus=1"; do
  flag=${bad%%|*} want=${bad#*|}
  out=$(C "$flag" ddp_step 2>&1); rc=$?
  [ "$rc" = 2 ] || fail "$flag: exit $rc, want 2: $out"
  grep -qF -- "$want" <<<"$out" || fail "$flag: the error does not name '$want': $out"
done
out=$(C ddp_step_typo 2>&1); [ $? = 2 ] && grep -q "not an executable" <<<"$out" || fail "an unknown program: $out"
# A leading zero, in every numeric flag: refused (bash read --hosts=010 as 8 hosts, took
# --link_down=01:2 for no host at all, and failed on 08), never run. /bin/true: should a flag
# pass, the cluster runs and exits 0, and the case fails.
for bad in --hosts=010 --hosts=08 --ranks_per_host=01 --cpus_per_host=01 --job_timeout_s=010 --rate=01gbit \
           --delay=010us --link_down=01:2 --link_down=1:02; do
  out=$(C "$bad" /bin/true 2>&1); rc=$?
  [ "$rc" = 2 ] || fail "$bad: exit $rc, want 2: $out"
  grep -qF -- "${bad} is invalid: " <<<"$out" && grep -qF "without a leading zero" <<<"$out" \
    || fail "$bad: the error does not name the value and say why: $out"
  grep -q "too great for base\|integer expression expected\|host(s)" <<<"$out" && fail "$bad: read by bash, not refused: $out"
done
out=$(C --hosts=99999999999999999999 /bin/true 2>&1); [ $? = 2 ] && grep -qF -- "--hosts=99999999999999999999 is invalid: an integer in 1..64" <<<"$out" \
  || fail "a huge --hosts: $out"
out=$(C --delay=100us "$equiv" 2>&1); rc=$?
if grep -q "netem" <<<"$out"; then
  [ "$rc" = 2 ] && grep -q "delay=100us needs tc's netem qdisc, which this kernel lacks" <<<"$out" || fail "--delay: $out"
  echo "--delay refused: $(grep -o "needs tc's netem.*" <<<"$out")"
else
  [ "$rc" = 0 ] || fail "--delay with netem present: exit $rc: $out"
fi
# Without CAP_NET_ADMIN (dropped from the bounding set, so root's exec keeps none of it): exit 2.
if command -v setpriv >/dev/null; then
  out=$(setpriv --bounding-set=-net_admin bash "$cluster" --ddp_step_bin="$ddp" ddp_step 2>&1); rc=$?
  [ "$rc" = 2 ] && grep -q "needs CAP_NET_ADMIN (root) to make network namespaces" <<<"$out" || fail "without CAP_NET_ADMIN (rc $rc): $out"
  echo "without CAP_NET_ADMIN: $(grep -o "needs CAP_NET_ADMIN.*" <<<"$out" | cut -c1-120)"
fi
nothing_left "bad flags"

echo "== 2. DDP across hosts = one host over the same total batch"
for rph in 1 2; do
  out=$(C --hosts=2 --ranks_per_host=$rph "$equiv" 2>&1); rc=$?
  echo "$out" | grep -E "^ddp vs single|PASSED|FAILED" | sort -u
  [ "$rc" = 0 ] || { echo "$out" | tail -30; fail "equivalence on 2 hosts x $rph: exit $rc"; }
  n=$(grep -c "^ddp vs single rank (W=$((2 * rph)) on 2 host(s)" <<<"$out")
  [ "$n" = 4 ] || fail "2 hosts x $rph: expected 4 comparisons on 2 hosts (2 without, 2 with overlap), got $n"
  grep -q "overlapped, [0-9]* buckets" <<<"$out" || fail "no overlapped comparison"
  nothing_left "equivalence 2x$rph"
done

echo "== 3. ddp_step test-tiny on 2 hosts: hosts, local ranks, communication"
for rph in 1 2; do
  out=$(C --hosts=2 --ranks_per_host=$rph --rate=1gbit ddp_step --preset=test-tiny --steps=3 --warmup_steps=1 \
        --peak_flops=1e11 --timeout_s=60 --json_out="$tmp/tiny$rph.json" 2>&1); rc=$?
  [ "$rc" = 0 ] || { echo "$out" | tail -30; fail "ddp_step 2x$rph: exit $rc"; }
  grep -A$((2 * rph + 1)) "per-rank figures" <<<"$out"
  grep -q "hosts: 2 (host0: rank" <<<"$out" || fail "no hosts line"
  grep -q "^comm .*algbw .* GB/s, busbw .* GB/s.*busbw is [0-9]*% of the 1 Gbit/s link" <<<"$out" || fail "no comm line: $out"
  grep -q "^lost to communication (exposed): " <<<"$out" || fail "no exposed line"
  grep -q "parameters    identical on every rank" <<<"$out" || fail "parameters differ"
  python3 - "$tmp/tiny$rph.json" "$rph" <<'PY' || fail "ddp_step JSON 2x$rph"
import json, sys
j = json.load(open(sys.argv[1])); rph = int(sys.argv[2])
ranks = j["per_rank"]
assert j["hosts"] == 2 and j["ranks"] == 2 * rph, (j["hosts"], j["ranks"])
assert [r["host"] for r in ranks] == ["host0"] * rph + ["host1"] * rph, ranks
assert [r["local_rank"] for r in ranks] == list(range(rph)) * 2, ranks
c = j["comm"]
assert c["allreduce_bytes"] == 4 * 7872 and c["link_rate_bps"] == 1e9, c
assert c["algbw"] > 0 and abs(c["busbw"] - c["algbw"] * 2 * (2 * rph - 1) / (2 * rph)) < 1e-6 * c["busbw"], c
assert 0 < c["exposed_share_median"] < 1 and j["overlap"] is True and j["params_identical"] is True, j
for r in ranks:
    assert r["comm_total_ms_median"] > 0 and r["machine"] == ranks[0]["machine"], r
PY
  nothing_left "ddp_step 2x$rph"
done

echo "== 4. allreduce across 2 hosts on a 1gbit link"
out=$(C --hosts=2 --rate=1gbit allreduce --min_bytes=65536 --max_bytes=1048576 --iters=3 --warmup=1 \
      --benchmark_out="$tmp/ar.json" 2>&1); rc=$?
echo "$out" | grep -A6 "^ *bytes"
[ "$rc" = 0 ] || fail "allreduce: exit $rc: $out"
[ "$(awk '$1 ~ /^[0-9]+$/ && $5 == "yes" && $6 ~ /%$/' <<<"$out" | wc -l)" = 5 ] || fail "allreduce: 5 verified sizes with a link share"
python3 - "$tmp/ar.json" <<'PY' || fail "allreduce JSON"
import json, sys
for e in json.load(open(sys.argv[1]))["benchmarks"]:
    assert e["link_bps"] == 1e9 and abs(e["busbw_of_link"] - e["busbw"] * 8 / 1e9) < 1e-9, e
PY
nothing_left "allreduce"

echo "== 5. a host's link goes down mid-run"
rm -f "$tmp/dead.json"
start=$(date +%s)
# --cpu_gemm=onednn: no start-up GEMM choice, so the ranks are training (in a collective almost all
# the time) well before the link goes down at 4 s, also on a slow machine or under the sanitizers.
out=$(C --hosts=2 --link_down=1:4 ddp_step --preset=test-tiny --steps=1000000 --warmup_steps=1 --peak_flops=1e11 --cpu_gemm=onednn \
      --timeout_s=6 --json_out="$tmp/dead.json" 2>&1); rc=$?
echo "$out" | grep -E "^cluster: (--link_down|every rank|error|rank)" | cut -c1-300
[ "$rc" = 5 ] || fail "dead link: exit $rc, want 5"
secs=$(grep -o "the last one's final message [0-9.-]* s after host1's link went down" <<<"$out" | grep -o "[0-9.-]* s" | cut -d' ' -f1)
seen=$(grep -o "; seen gone [0-9.-]* s after" <<<"$out" | grep -o "[0-9.-]* s" | cut -d' ' -f1)
[ -n "$secs" ] && [ -n "$seen" ] || fail "dead link: no 'every rank has exited' line"
# The ranks' last messages (timed by their output files) within --timeout_s=6 of the link going
# down (+ 0.3 s for the daemon to write them); the cluster's own polling sees it a little later.
awk -v s="$secs" 'BEGIN { exit !(s > 0 && s <= 6.3) }' || fail "dead link: the last rank's message came $secs s after the link went down, --timeout_s=6"
awk -v s="$seen" 'BEGIN { exit !(s <= 9) }' || fail "dead link: the cluster saw the ranks gone only $seen s after"
grep -q "rank 0 said: .*unreachable from host0 .*host1 (rank 1; 10.231.7.2" <<<"$out" || fail "rank 0 does not name host1"
# mpirun, ended, may crash in PMIx_Finalize: its report goes to a log, named, not to the user.
grep -q "^cluster: mpirun did not exit; ended it" <<<"$out" || fail "dead link: no 'mpirun did not exit; ended it'"
grep -q "Segmentation fault\|Process received signal\|PMIx_Finalize\|abort is already in progress" <<<"$out" \
  && fail "dead link: Open MPI's crash report reached the user: $(grep -m3 "Signal\|PMIx\|abort" <<<"$out")"
log=$(grep -o "is in $tmp/mlbench-cluster-mpirun\.[0-9]*\.log" <<<"$out" | cut -d' ' -f3)
if [ -n "$log" ]; then
  [ -s "$log" ] || fail "dead link: the log it names, $log, is missing or empty"
  echo "mpirun's last words, in $log: $(grep -m1 "Signal:\|abort" "$log")"
  rm -f "$log"
fi
grep -q "rank 1 said: .*host1) own link is probably down" <<<"$out" || fail "rank 1 does not say its own link is down"
[ ! -e "$tmp/dead.json" ] || fail "a JSON was written by a failed run"
[ "$(( $(date +%s) - start ))" -le 40 ] || fail "dead link: the cluster took $(( $(date +%s) - start )) s to end"
nothing_left "dead link"

echo "== 6. Ctrl-C mid-run, and a stale namespace"
ip netns add mlbc4194303-h0  # a cluster whose process (PID 4194303, the kernel's largest) is gone
set -m  # a background job of a script ignores SIGINT otherwise (and bash cannot trap an ignored signal)
TMPDIR="$tmp" bash "$cluster" --ddp_step_bin="$ddp" --hosts=2 ddp_step --preset=test-tiny --steps=1000000 --peak_flops=1e11 \
  >"$tmp/int.log" 2>&1 &
pid=$!
set +m
for _ in $(seq 100); do grep -q "^step" "$tmp/int.log" && break; sleep 0.2; done
grep -q "removing stale namespace mlbc4194303-h0" "$tmp/int.log" || fail "the stale namespace was not removed: $(cat "$tmp/int.log")"
grep -q "^step" "$tmp/int.log" || fail "no step within 20 s: $(cat "$tmp/int.log")"
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" = 130 ] || fail "Ctrl-C: exit $rc, want 130"
grep -q "interrupted (INT): tearing the cluster down" "$tmp/int.log" || fail "Ctrl-C: no teardown message"
nothing_left "Ctrl-C"
rm -f "$tmp"/mlbench-cluster-mpirun.*.log

echo "== 7. SIGKILL mid-run: the watchdog, or else the next start, cleans up"
# start_long LOG: a cluster in the background with both ranks running; its PID in $pid, its state
# file in $state. The steps' lines (stdout, thousands a second) are dropped: written to a file,
# they kept mpirun in uninterruptible writes, which stalled every look into /proc for seconds.
start_long() {
  TMPDIR="$tmp" bash "$cluster" --ddp_step_bin="$ddp" --hosts=2 ddp_step --preset=test-tiny --steps=1000000 \
    --peak_flops=1e11 >/dev/null 2>"$1" &
  pid=$!
  for _ in $(seq 100); do [ "$(pgrep -fc "^$ddp")" = 2 ] && break; sleep 0.2; done
  [ "$(pgrep -fc "^$ddp")" = 2 ] || fail "the ranks did not start within 20 s: $(cat "$1")"
  state=$(ls /tmp/mlbench-cluster.*/state)
  [ "$(awk '$1 == "owner" { print $2 }' "$state")" = "$pid" ] || fail "the state file does not name the cluster: $(cat "$state")"
}
start_long "$tmp/kill.log"
ls -d /tmp/mlbench-cluster.*/tmp/ompi.host0.* >/dev/null 2>&1 || fail "Open MPI's session folders are not under the tool's folder"
kill -9 "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 150); do [ -z "$(mlbc_namespaces)" ] && ! pgrep -f "$ddp" >/dev/null && ! ls -d /tmp/mlbench-cluster.* >/dev/null 2>&1 && break; sleep 0.2; done
nothing_left "SIGKILL (the watchdog, within 30 s)"
for _ in $(seq 10); do grep -q "(watchdog) the cluster, PID $pid, is gone" "$tmp/kill.log" && break; sleep 0.2; done
grep -q "(watchdog) the cluster, PID $pid, is gone without tearing down: ended [1-9][0-9]* process(es); removed 3 namespace(s)" "$tmp/kill.log" \
  || fail "SIGKILL: the watchdog does not say what it cleaned: $(tail -3 "$tmp/kill.log")"
# The cluster and its helpers (the watchdog too) killed at once: the next start cleans up.
start_long "$tmp/kill2.log"
kill -9 $(awk '{ print $2 }' "$state")
wait "$pid" 2>/dev/null
sleep 1
[ -n "$(mlbc_namespaces)" ] || fail "SIGKILL of the watchdog too: nothing left to clean (the case tests nothing)"
out=$(C --hosts=1 allreduce --min_bytes=1024 --max_bytes=1024 --iters=1 --warmup=0 2>&1); rc=$?
[ "$rc" = 0 ] || fail "the start after a SIGKILL: exit $rc: $out"
grep -q "^cluster: cleaning up after cluster PID $pid, gone without tearing down: ended [0-9]* process(es); removed 3 namespace(s) (.*) and /tmp/mlbench-cluster\." <<<"$out" \
  || fail "the next start does not say what it cleaned: $out"
grep "^cluster: cleaning up" <<<"$out" | cut -c1-200
nothing_left "SIGKILL (the next start)"
rm -f "$tmp"/mlbench-cluster-mpirun.*.log
echo PASS
