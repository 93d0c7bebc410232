#!/usr/bin/env bash
# //tools:cluster: N hosts on one machine, each a Linux network namespace, joined by veth pairs
# to a bridge, and OpenMPI's own mpirun across them (hostfile, rsh launcher agent, TCP BTL).
# Run with --help for the usage. Needs CAP_NET_ADMIN (root).
set -uo pipefail

readonly kSubnetPrefix=10.231.7     # hosts are 10.231.7.1 .. .N/24, only inside our namespaces
readonly kSubnet=${kSubnetPrefix}.0/24
readonly kNamePrefix=mlbc           # namespaces: mlbc<PID>-h<i>, mlbc<PID>-sw

usage() {
  cat <<'EOF'
cluster: N hosts on one machine (Linux network namespaces joined by a bridge) and mpirun across them.

  bazel run //tools:cluster -- --hosts=2 --ranks_per_host=1 [--rate=1gbit] [--delay=100us] \
      ddp_step|allreduce|PROGRAM [its flags]

Each host is a network namespace (hostname hostI, address 10.231.7.<I+1>/24, CPUs of its own),
joined to the others by a veth pair into a bridge that lives in a namespace of its own: the
addresses exist only inside these namespaces and no traffic leaves them. mpirun starts in
host0's namespace with a hostfile of the hosts' addresses; OpenMPI's rsh launcher enters each
host through an agent script (plm_rsh_agent) that runs its daemon inside that namespace; the
ranks talk over TCP only (--mca btl tcp,self, btl_tcp_if_include and oob_tcp_if_include naming
the hosts' subnet). The namespaces are removed on success, failure and Ctrl-C; stale ones of
this tool (from a cluster whose process is gone) are removed before a start.

A run keeps its files in /tmp/mlbench-cluster.XXXXXX: the hostfile, the ranks' output, Open
MPI's session folders (TMPDIR points there) and a state file naming the cluster's process. A
watchdog process ends the ranks and removes the namespaces and that folder when the cluster is
killed outright (SIGKILL); should the watchdog be gone too, the next start does it, for every
state file whose cluster is gone, and says what it ended and removed.

Numbers are read as decimal, by one parser for every flag: digits (and a fraction where the
flag says so), no sign, no leading zero: 010 is refused, not read as 10 or as octal 8.

Flags:
  --hosts=N            hosts (namespaces), an integer in 1..64 (default 2)
  --ranks_per_host=R   MPI ranks on each host, an integer in 1..64 (default 1)
  --rate=RATE          shape every host's link to RATE in both directions (tc tbf), e.g. 1gbit,
                       10gbit, 500mbit, 2.5gbit (a number, then one of bit kbit mbit gbit tbit;
                       at least 8kbit); default: unshaped veth
  --delay=TIME         add one-way latency per link (tc netem), e.g. 100us (a number, then us,
                       ms or s); refused where the kernel has no netem qdisc
  --cpus_per_host=C    CPUs each host's processes may run on (taskset), the machine's CPUs dealt
                       out in turn, an integer in 0..1024; default 0: the CPUs divided evenly
                       among the hosts (at least 1; hosts share CPUs when there are more hosts
                       than CPUs)
  --link_down=I:S      fault injection: take host I's link down (ip link set down, inside its
                       namespace) S seconds (a number in 0..86400) after mpirun starts
  --job_timeout_s=S    end mpirun and every process of the cluster after S seconds, an integer
                       in 1..604800 (default 3600)
  --ddp_step_bin=PATH, --allreduce_bin=PATH
                       the binaries that ddp_step and allreduce name (bazel run sets them)
  --help               this text

Every rank gets MLBENCH_EXPECTED_WORLD_SIZE=N*R (each rank checks MPI's world size against it),
MLBENCH_LINK_RATE_BPS (the shaped rate, bits/s; 0 when unshaped) and MLBENCH_CLUSTER_LINK
(a description of the link). When the job fails, each rank's last error line is printed from
the output its host wrote (mpirun --output-filename), also for a host mpirun cannot reach.
When the cluster ends an mpirun that did not exit (a host it cannot reach, --job_timeout_s,
Ctrl-C), it says "mpirun did not exit; ended it", and what mpirun printed from then on (Open
MPI 4.1's mpirun often crashes in PMIx_Finalize as it is ended, with a stack trace) goes to a
log file, ${TMPDIR:-/tmp}/mlbench-cluster-mpirun.PID.log, whose path it prints.
Exit status: the program's (mpirun's); 2 bad flags or no CAP_NET_ADMIN; 5 the job ran past
--job_timeout_s, or every rank had exited and mpirun had not 3 s later (a host it cannot
reach); 130 interrupted.
EOF
}

die_usage() { echo "cluster: error: $*" >&2; exit 2; }
log() { echo "cluster: $*" >&2; }

hosts=2 ranks_per_host=1 rate="" delay="" cpus_per_host=0 link_down="" job_timeout_s=3600
ddp_step_bin="" allreduce_bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --help|-h|--helpfull) usage; exit 0 ;;
    --hosts=*) hosts=${1#*=} ;;
    --ranks_per_host=*) ranks_per_host=${1#*=} ;;
    --rate=*) rate=${1#*=} ;;
    --delay=*) delay=${1#*=} ;;
    --cpus_per_host=*) cpus_per_host=${1#*=} ;;
    --link_down=*) link_down=${1#*=} ;;
    --job_timeout_s=*) job_timeout_s=${1#*=} ;;
    --ddp_step_bin=*) ddp_step_bin=${1#*=} ;;
    --allreduce_bin=*) allreduce_bin=${1#*=} ;;
    --*) die_usage "unknown flag $1 (before the program name; --help lists the flags)" ;;
    *) break ;;
  esac
  shift
done
[ $# -ge 1 ] || die_usage "no program: give ddp_step, allreduce or the path of an MPI program after the flags"
program=$1; shift

# The one parser of every number on the command line: decimal only (bash's own arithmetic and
# test would read 010 as octal 8, and fail on 08 with "value too great for base").
# parse_decimal TEXT MIN MAX [fraction]: true, REPLY=TEXT, when TEXT is digits (with a fraction
# when a 4th argument is given), no sign and no leading zero, in MIN..MAX; else false, and REPLY
# says what is allowed.
parse_decimal() {
  local text=$1 min=$2 max=$3 kind="an integer" re='^[0-9]+$'
  [ $# -ge 4 ] && kind="a number" re='^[0-9]+(\.[0-9]+)?$'
  REPLY="$kind in $min..$max"
  [[ "$text" =~ $re ]] || return 1
  if [[ "$text" =~ ^0[0-9] ]]; then
    REPLY="$kind in $min..$max, in decimal without a leading zero (to bash a leading zero means octal: 010 is 8)"
    return 1
  fi
  awk -v v="$text" -v lo="$min" -v hi="$max" 'BEGIN { exit !(length(v) <= 15 && v + 0 >= lo && v + 0 <= hi) }' \
    || return 1
  REPLY=$text
}
decimal_flag() {  # NAME VALUE MIN MAX [fraction]: VALUE of --NAME checked, or exit 2 naming it
  parse_decimal "${@:2}" || die_usage "--$1=$2 is invalid: $REPLY"
}
decimal_flag hosts "$hosts" 1 64
decimal_flag ranks_per_host "$ranks_per_host" 1 64
parse_decimal "$cpus_per_host" 0 1024 \
  || die_usage "--cpus_per_host=$cpus_per_host is invalid: $REPLY (0: divide the CPUs evenly)"
decimal_flag job_timeout_s "$job_timeout_s" 1 604800

# --rate: tc's rate syntax, converted to bits/s for the ranks.
rate_bps=0
if [ -n "$rate" ]; then
  lower=${rate,,}
  [[ "$lower" =~ ^([0-9.]+)(bit|kbit|mbit|gbit|tbit)$ ]] \
    || die_usage "--rate=$rate is invalid: a number and one of bit, kbit, mbit, gbit, tbit (e.g. 1gbit, 500mbit)"
  num=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]}
  parse_decimal "$num" 0 1000000 fraction || die_usage "--rate=$rate is invalid: its number is $REPLY"
  case $unit in bit) mul=1 ;; kbit) mul=1000 ;; mbit) mul=1000000 ;; gbit) mul=1000000000 ;; tbit) mul=1000000000000 ;; esac
  rate_bps=$(awk -v n="$num" -v m="$mul" 'BEGIN { printf "%.0f", n * m }')
  [ "$rate_bps" -ge 8000 ] || die_usage "--rate=$rate is invalid: at least 8kbit"
  rate=$lower
fi
if [ -n "$delay" ]; then
  [[ "$delay" =~ ^([0-9.]+)(us|ms|s)$ ]] || die_usage "--delay=$delay is invalid: a number and us, ms or s (e.g. 100us)"
  parse_decimal "${BASH_REMATCH[1]}" 0 3600000 fraction || die_usage "--delay=$delay is invalid: its number is $REPLY"
fi
link_down_host="" link_down_s=""
if [ -n "$link_down" ]; then
  [[ "$link_down" =~ ^([^:]+):([^:]+)$ ]] \
    || die_usage "--link_down=$link_down is invalid: HOST:SECONDS, e.g. 1:10 (host index from 0)"
  link_down_host=${BASH_REMATCH[1]} link_down_s=${BASH_REMATCH[2]}
  parse_decimal "$link_down_host" 0 63 || die_usage "--link_down=$link_down is invalid: its host is $REPLY"
  [ "$link_down_host" -lt "$hosts" ] || die_usage "--link_down=$link_down is invalid: host $link_down_host, but hosts are 0..$((hosts - 1))"
  parse_decimal "$link_down_s" 0 86400 fraction || die_usage "--link_down=$link_down is invalid: its seconds are $REPLY"
fi

case "$program" in
  ddp_step) exe=$ddp_step_bin; [ -n "$exe" ] || die_usage "ddp_step: no --ddp_step_bin (bazel run //tools:cluster sets it)" ;;
  allreduce) exe=$allreduce_bin; [ -n "$exe" ] || die_usage "allreduce: no --allreduce_bin (bazel run //tools:cluster sets it)" ;;
  *) exe=$program ;;
esac
exe_abs=$(readlink -f "$exe" 2>/dev/null) && [ -x "$exe_abs" ] && [ -f "$exe_abs" ] \
  || die_usage "$program: $exe is not an executable file"

# CAP_NET_ADMIN: try to make (and remove) a namespace of our own.
for tool in ip tc mpirun unshare taskset setsid mkfifo; do
  command -v "$tool" >/dev/null || die_usage "needs '$tool' on PATH (bash tools/setup.sh installs it)"
done
probe_ns="${kNamePrefix}$$-probe"
if ! err=$(ip netns add "$probe_ns" 2>&1); then
  die_usage "needs CAP_NET_ADMIN (root) to make network namespaces: 'ip netns add' said: $err"
fi
# Making a namespace takes CAP_SYS_ADMIN; configuring its links takes CAP_NET_ADMIN.
if ! err=$(ip -n "$probe_ns" link set lo up 2>&1); then
  ip netns del "$probe_ns" 2>/dev/null
  die_usage "needs CAP_NET_ADMIN (root) to make network namespaces: 'ip link set lo up' in one said: $err"
fi
ip netns del "$probe_ns" 2>/dev/null
if [ -n "$delay" ]; then
  # netem may be missing from the kernel (then tc says "Specified qdisc kind is unknown").
  ip netns add "$probe_ns" >/dev/null 2>&1
  if ! err=$(ip netns exec "$probe_ns" tc qdisc add dev lo root netem delay "$delay" 2>&1); then
    ip netns del "$probe_ns" 2>/dev/null
    die_usage "--delay=$delay needs tc's netem qdisc, which this kernel lacks (tc: ${err//$'\n'/ })"
  fi
  ip netns del "$probe_ns" 2>/dev/null
fi

# ---- A run's state, and the clean-up after a cluster killed outright ----
# /tmp/mlbench-cluster.XXXXXX/state names the cluster's process ("owner PID START", START its
# start time in clock ticks since boot, so a reused PID is not taken for it) and its helper
# processes outside the namespaces ("helper PID START"); its namespaces are mlbc<PID>-*.

proc_start() {  # PID: its start time (field 22 of /proc/PID/stat); nothing when it is gone or a zombie
  [[ "$1" =~ ^[0-9]+$ ]] || return 1
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }  # past "PID (comm) ", which may hold spaces; then state (field 3) first
  awk '$1 != "Z" && $1 != "X" { print $20 }' <<<"$stat"
}

# reap_run WORK: ends what the cluster of WORK/state left (every process in its namespaces, its
# live helpers), removes its namespaces and WORK (the ranks' output, Open MPI's session folders
# under WORK/tmp), and prints what it did in one line.
reap_run() {
  local work=$1 owner="" kind p st n=0 names=()
  owner=$(awk '$1 == "owner" { print $2; exit }' "$work/state" 2>/dev/null)
  if [[ "$owner" =~ ^[0-9]+$ ]]; then
    for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E "^${kNamePrefix}${owner}-" || true); do
      for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null && n=$((n + 1)); done
      names+=("$ns")
    done
  fi
  while read -r kind p st; do
    [ "$kind" = helper ] && [ "$p" != "$$" ] && [ "$(proc_start "$p")" = "$st" ] \
      && kill -9 "$p" 2>/dev/null && n=$((n + 1))
  done <"$work/state"
  for ns in "${names[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
  echo "ended $n process(es); removed ${#names[@]} namespace(s)${names[*]:+ (${names[*]})} and $work (with Open MPI's session folders)"
}

# watch_owner PID START WORK MAX_S: waits, at most MAX_S seconds, for the cluster PID to be gone;
# when it went without tearing down (its state file is still there: SIGKILL, a crash), reaps it.
# Runs as its own `bash -c` ($$ is the watchdog itself, which reap_run spares).
watch_owner() {
  local owner=$1 start=$2 work=$3 i what
  echo "helper $$ $(proc_start "$$")" >>"$work/state"
  for ((i = 0; i < $4 * 2; ++i)); do
    [ -f "$work/state" ] || return 0
    [ "$(proc_start "$owner")" = "$start" ] || break
    sleep 0.5
  done
  [ -f "$work/state" ] || return 0
  trap '' PIPE
  what=$(reap_run "$work")
  echo "cluster: (watchdog) the cluster, PID $owner, is gone without tearing down: $what" >&2
}

# The state files of clusters whose process is gone (the watchdog killed with them): reaped.
# Only a folder of ours as mktemp makes it (owned by us, mode 700, no link): a state file
# planted by someone else would otherwise name the processes we kill and the folder we remove.
for state in /tmp/mlbench-cluster.*/state; do
  [ -f "$state" ] && [ ! -L "$state" ] && [ -O "$state" ] || continue
  [ ! -L "${state%/state}" ] && [ -O "${state%/state}" ] && [ "$(stat -c %a "${state%/state}")" = 700 ] || continue
  read -r _ owner owner_start < <(awk '$1 == "owner" { print; exit }' "$state")
  [ -n "${owner_start:-}" ] && [ "$(proc_start "$owner")" = "$owner_start" ] && continue  # a live cluster's
  log "cleaning up after cluster PID ${owner:-?}, gone without tearing down: $(reap_run "${state%/state}")"
done

# Stale namespaces of this tool without a state file (an older version's): mlbc<PID>-... whose
# PID is gone or is no cluster.
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${kNamePrefix}[0-9]+-" || true); do
  pid=${ns#"$kNamePrefix"}; pid=${pid%%-*}
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q cluster; then
    continue  # a live cluster's
  fi
  log "removing stale namespace $ns (its cluster, PID $pid, is gone)"
  for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  ip netns del "$ns" 2>/dev/null
done

ns_of() { echo "${kNamePrefix}$$-h$1"; }
sw_ns="${kNamePrefix}$$-sw"
work=$(mktemp -d /tmp/mlbench-cluster.XXXXXX)
echo "owner $$ $(proc_start $$)" >"$work/state.new" && mv "$work/state.new" "$work/state"
# The watchdog: its own session, so that a signal to this process group spares it.
setsid bash -c "$(declare -f proc_start reap_run watch_owner); kNamePrefix=$kNamePrefix; watch_owner \"\$@\"" \
  cluster-watchdog "$$" "$(proc_start $$)" "$work" "$((job_timeout_s + 600))" </dev/null >/dev/null &
watchdog_pid=$!
mkdir -p "$work/tmp"  # Open MPI's TMPDIR: its session folders (ompi.host0.0, ...) go here
mpirun_log=${TMPDIR:-/tmp}/mlbench-cluster-mpirun.$$.log
rm -f "$mpirun_log"  # an earlier run's, of a process with this PID
made_ns=()
mpirun_pid="" filter_pid=""
torn_down=0

# mpirun's stderr passes to ours until the cluster ends mpirun (WORK/ending exists); from then on
# what it prints (Open MPI's crash report from PMIx_Finalize) goes to $mpirun_log.
filter_stderr() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    if [ -e "$work/ending" ]; then printf '%s\n' "$line" >>"$mpirun_log"; else printf '%s\n' "$line" >&2; fi
  done
}

teardown() {
  [ "$torn_down" = 1 ] && return
  torn_down=1
  local ended=0
  if [ -n "$mpirun_pid" ] && kill -0 "$mpirun_pid" 2>/dev/null; then
    touch "$work/ending"
    kill -TERM "$mpirun_pid" 2>/dev/null
    ended=1
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$mpirun_pid" 2>/dev/null || break; sleep 0.2; done
  fi
  # Every process still in our namespaces (daemons on a host whose link went down, ranks).
  for ns in "${made_ns[@]}"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  done
  [ -n "$mpirun_pid" ] && kill -9 "$mpirun_pid" 2>/dev/null
  for ns in "${made_ns[@]}"; do ip netns del "$ns" 2>/dev/null; done
  if [ -n "$filter_pid" ]; then  # it ends when the last holder of mpirun's stderr is gone
    for _ in $(seq 25); do kill -0 "$filter_pid" 2>/dev/null || break; sleep 0.2; done
    kill "$filter_pid" 2>/dev/null
  fi
  if [ "$ended" = 1 ]; then
    if [ -s "$mpirun_log" ]; then
      log "mpirun did not exit; ended it (what it printed from then on, e.g. Open MPI's crash report, is in $mpirun_log)"
    else
      log "mpirun did not exit; ended it"
      rm -f "$mpirun_log"
    fi
  fi
  rm -rf "$work"
  kill -- "-$watchdog_pid" 2>/dev/null  # its process group: the shell and its sleep
}
on_signal() {
  log "interrupted ($1): tearing the cluster down"
  teardown
  exit 130
}
trap teardown EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

run() {  # a set-up command; on failure, the command and its message, exit 2
  local err
  if ! err=$("$@" 2>&1); then
    log "error: set-up failed: $*: $err"
    exit 2
  fi
}

# tbf: burst of at least 1 ms of the rate (and 256 KB: a veth sends 64 KB GSO packets).
tbf_args() {
  local burst=$((rate_bps / 8 / 1000))
  [ "$burst" -lt 262144 ] && burst=262144
  echo "rate $rate burst $burst latency 50ms"
}
shape() {  # NS DEV: the link's egress on that side
  local ns=$1 dev=$2
  if [ -n "$delay" ] && [ -n "$rate" ]; then
    run ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: netem delay "$delay"
    # shellcheck disable=SC2046
    run ip netns exec "$ns" tc qdisc add dev "$dev" parent 1: handle 2: tbf $(tbf_args)
  elif [ -n "$delay" ]; then
    run ip netns exec "$ns" tc qdisc add dev "$dev" root netem delay "$delay"
  elif [ -n "$rate" ]; then
    # shellcheck disable=SC2046
    run ip netns exec "$ns" tc qdisc add dev "$dev" root tbf $(tbf_args)
  fi
}

# The switch: a bridge in a namespace of its own.
run ip netns add "$sw_ns"; made_ns+=("$sw_ns")
run ip -n "$sw_ns" link set lo up
run ip -n "$sw_ns" link add br0 type bridge
run ip -n "$sw_ns" link set br0 up

ncpu=$(nproc)
[ "$cpus_per_host" = 0 ] && cpus_per_host=$((ncpu / hosts)) && [ "$cpus_per_host" -lt 1 ] && cpus_per_host=1
allowed=($(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | awk -F- '{ if (NF == 2) for (i = $1; i <= $2; ++i) print i; else print $1 }'))
next_cpu=0
host_cpus=() host_addr=()
for ((i = 0; i < hosts; ++i)); do
  list=""
  for ((c = 0; c < cpus_per_host; ++c)); do
    list+="${list:+,}${allowed[$((next_cpu % ${#allowed[@]}))]}"
    next_cpu=$((next_cpu + 1))
  done
  host_cpus+=("$list")
  host_addr+=("${kSubnetPrefix}.$((i + 1))")
  ns=$(ns_of "$i")
  run ip netns add "$ns"; made_ns+=("$ns")
  run ip -n "$ns" link set lo up
  run ip link add "mlbc$$v$i" netns "$ns" type veth peer name "p$i" netns "$sw_ns"
  run ip -n "$ns" link set "mlbc$$v$i" name eth0
  run ip -n "$ns" addr add "${host_addr[$i]}/24" dev eth0
  run ip -n "$ns" link set eth0 up
  run ip -n "$sw_ns" link set "p$i" master br0
  run ip -n "$sw_ns" link set "p$i" up
  shape "$ns" eth0        # host -> switch
  shape "$sw_ns" "p$i"    # switch -> host
done

link_text="veth through a bridge, unshaped"
[ -n "$rate" ] && link_text="veth through a bridge, shaped to $rate per host and direction (tc tbf)"
[ -n "$delay" ] && link_text+=", +$delay one-way (tc netem)"

# The hostfile and the launcher agent: mpirun calls `agent ADDRESS COMMAND...`.
hostfile=$work/hostfile
agent=$work/agent.sh
{
  for ((i = 0; i < hosts; ++i)); do echo "${host_addr[$i]} slots=$ranks_per_host max_slots=$ranks_per_host"; done
} >"$hostfile"
{
  echo '#!/usr/bin/env bash'
  echo '# OpenMPI plm_rsh_agent: runs the command (a daemon) inside the namespace of the host at $1.'
  echo 'addr=$1; shift'
  echo 'case "$addr" in'
  for ((i = 0; i < hosts; ++i)); do
    echo "  ${host_addr[$i]}) ns=$(ns_of "$i") name=host$i cpus=${host_cpus[$i]} ;;"
  done
  echo '  *) echo "cluster agent: unknown host $addr" >&2; exit 1 ;;'
  echo 'esac'
  echo 'exec ip netns exec "$ns" unshare --uts -- bash -c '"'"'hostname "$0" && exec taskset -c "$1" bash -c "$2"'"'"' "$name" "$cpus" "$*"'
} >"$agent"
chmod +x "$agent"

np=$((hosts * ranks_per_host))
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MLBENCH_EXPECTED_WORLD_SIZE=$np MLBENCH_LINK_RATE_BPS=$rate_bps MLBENCH_CLUSTER_LINK="$link_text"
# --output-filename: each host's daemon also writes its ranks' output into $work/out (one file
# system for all the hosts here), so what a rank on a host cut off from mpirun said is not lost.
# btl_tcp_links 2: two TCP connections per peer; with one, an all-reduce between 2 hosts reached
# 50-65% of a 1 Gbit/s tbf link in both directions, with two 90-94% (the TCP streams themselves do
# 93% each way at once).
cmd=(mpirun --hostfile "$hostfile" -np "$np" --map-by "ppr:${ranks_per_host}:node" --bind-to none
  --output-filename "$work/out"
  --mca plm_rsh_agent "$agent" --mca btl tcp,self --mca btl_tcp_links 2
  --mca btl_tcp_if_include "$kSubnet" --mca oob_tcp_if_include "$kSubnet"
  -x MLBENCH_EXPECTED_WORLD_SIZE -x MLBENCH_LINK_RATE_BPS -x MLBENCH_CLUSTER_LINK
  "$exe_abs" "$@")

log "$hosts host(s) x $ranks_per_host rank(s): $link_text; subnet $kSubnet (inside the namespaces only)"
for ((i = 0; i < hosts; ++i)); do
  log "  host$i  ${host_addr[$i]}  namespace $(ns_of "$i")  CPUs ${host_cpus[$i]}"
done
log "hostfile: $(tr '\n' ';' <"$hostfile")"
log "running in host0: ${cmd[*]}"

cd "${BUILD_WORKING_DIRECTORY:-.}" || exit 2
mkfifo "$work/mpirun.stderr"
filter_stderr <"$work/mpirun.stderr" &
filter_pid=$!
echo "helper $filter_pid $(proc_start "$filter_pid")" >>"$work/state"
ip netns exec "$(ns_of 0)" unshare --uts -- env TMPDIR="$work/tmp" \
  bash -c 'hostname host0 && exec taskset -c "$0" "$@"' "${host_cpus[0]}" "${cmd[@]}" 2>"$work/mpirun.stderr" &
mpirun_pid=$!

if [ -n "$link_down" ]; then
  (
    sleep "$link_down_s"
    ip netns exec "$(ns_of "$link_down_host")" ip link set eth0 down \
      && date +%s.%N >"$work/link_down_at" \
      && echo "cluster: --link_down: host$link_down_host's link is down ($(date -u +%H:%M:%S.%N | cut -c1-12) UTC)" >&2
  ) &
  fault_pid=$!
  echo "helper $fault_pid $(proc_start "$fault_pid")" >>"$work/state"
fi

# The ranks still running: processes of the program in the hosts' namespaces.
ranks_alive() {
  local n=0 ns p
  for ((i = 0; i < hosts; ++i)); do
    ns=$(ns_of "$i")
    for p in $(ip netns pids "$ns" 2>/dev/null); do
      [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$exe_abs" ] && n=$((n + 1))
    done
  done
  echo "$n"
}

# Wait for mpirun, at most --job_timeout_s. When every rank has exited but mpirun has not within
# 3 s (it cannot reach a host's daemon to end the job), end it.
start=$SECONDS
rc=""
seen_rank=0 all_gone_at=""
while kill -0 "$mpirun_pid" 2>/dev/null; do
  if [ $((SECONDS - start)) -ge "$job_timeout_s" ]; then
    log "error: the job ran past --job_timeout_s=$job_timeout_s s: ending it"
    disown "$mpirun_pid" 2>/dev/null
    rc=5
    break
  fi
  alive=$(ranks_alive)
  if [ "$alive" -gt 0 ]; then
    seen_rank=1 all_gone_at=""
  elif [ "$seen_rank" = 1 ] && [ -z "$all_gone_at" ]; then
    all_gone_at=$(date +%s.%N)
    if [ -f "$work/link_down_at" ]; then
      # When the ranks' last words were written (their output files' times, to the millisecond),
      # and when this loop, polling every 0.2 s, saw the last rank gone.
      down=$(cat "$work/link_down_at") last=0
      for f in "$work"/out/*/rank.*/stderr; do
        [ -f "$f" ] && last=$(awk -v a="$last" -v b="$(stat -c %.3Y "$f")" 'BEGIN { print (b > a ? b : a) }')
      done
      log "every rank has exited: the last one's final message $(awk -v a="$last" -v b="$down" 'BEGIN { printf "%.2f", a - b }') s after host$link_down_host's link went down (its output file's time); seen gone $(awk -v a="$all_gone_at" -v b="$down" 'BEGIN { printf "%.1f", a - b }') s after"
    fi
  elif [ -n "$all_gone_at" ] && awk -v a="$all_gone_at" -v n="$(date +%s.%N)" 'BEGIN { exit !(n - a > 3) }'; then
    log "error: every rank has exited but mpirun has not, 3 s later (it cannot reach a host's daemon)"
    disown "$mpirun_pid" 2>/dev/null  # no job-control line for the mpirun we end
    rc=5
    break
  fi
  sleep 0.2
done
if [ -z "$rc" ]; then
  wait "$mpirun_pid"
  rc=$?
fi
[ -n "${fault_pid:-}" ] && kill "$fault_pid" 2>/dev/null
if [ "$rc" != 0 ] && [ -d "$work/out" ]; then
  # Each rank's last error line, as its host's daemon wrote it (a host cut off from mpirun
  # could not send it to this terminal).
  for f in "$work"/out/*/rank.*/stderr; do
    [ -f "$f" ] || continue
    r=${f%/stderr}; r=${r##*rank.}
    line=$(grep -a "error:" "$f" | tail -1)
    [ -n "$line" ] && log "rank $r said: $line"
  done
fi
teardown
exit "$rc"
