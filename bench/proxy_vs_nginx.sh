#!/usr/bin/env bash
# Proxy added latency: `cosec proxy serve` (guard off, guard on) against nginx as a
# plain reverse proxy, both in front of the same canned upstream (nginx `return 200`),
# measured in one run so the ratios are fair on a shared, noisy machine.
#
#   bench/proxy_vs_nginx.sh            # ~3 minutes; prints a markdown report
#   ROUNDS=12 DURATION=2 WARMUP=1 MAX_SECONDS=1500 bench/proxy_vs_nginx.sh
#                                      # what BENCHMARKS.md quotes (~8 min):
#                                      # many short interleaved rounds, so a slow spell of
#                                      # the machine falls on every target alike
#
# Environment (all optional):
#   COSEC     cosec binary            (default: $CARGO_TARGET_DIR or target/ release build)
#   NGINX     nginx binary            (default: /usr/sbin/nginx)
#   WRK       wrk binary              (default: /usr/bin/wrk)
#   DURATION  seconds per wrk run     (default: 10)
#   WARMUP    seconds of warm-up      (default: 3, before every measured wrk run)
#   TTFB_N    streamed requests timed (default: 300, after 50 unmeasured ones)
#   ROUNDS    rounds of every measurement, interleaved; cells are medians (default: 1)
#   MAX_SECONDS  hard bound on the whole script (default: 900)
#   HYPER_FLOOR  the bare hyper proxy of the control (default: the release build's
#                examples/hyper_floor; skipped with a note when missing)
#
# Targets, all loopback (127.0.0.1) on free ports:
#   direct     the canned upstream itself (non-streaming: JSON; streaming: SSE body)
#   nginx      nginx reverse proxy (keep-alive upstream pool; proxy_buffering off for SSE)
#   nginx-2    a second, identical nginx, at one connection only: the control that shows
#              how far two equal proxies drift apart in the same run
#   hyper-floor  proxy/examples/hyper_floor.rs, at one connection only: a bare hyper
#              proxy (no routing, guard, pool or timeout), the floor cosec is built on
#   cosec-off  cosec proxy serve --guard-mode off, no trace (header routing; bytes relayed unparsed)
#   cosec-on   cosec proxy serve, default policy, enforce
# The request carries a labeled object of examples/proxy-serve/state.json in its
# history and the canned reply quotes it, so with the guard on every reply is scanned
# and yields guard decisions (allowed: the requester may see it, so the reply is
# unchanged and all targets return the same bytes; checked before measuring).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
COSEC="${COSEC:-${CARGO_TARGET_DIR:-$ROOT/target}/release/cosec}"
HYPER_FLOOR="${HYPER_FLOOR:-${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/hyper_floor}"
NGINX="${NGINX:-/usr/sbin/nginx}"
WRK="${WRK:-/usr/bin/wrk}"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
TTFB_N="${TTFB_N:-300}"
TTFB_WARM=50
ROUNDS="${ROUNDS:-1}"
MAX_SECONDS="${MAX_SECONDS:-900}"
STATE="$ROOT/examples/proxy-serve/state.json"

for bin in "$COSEC" "$NGINX" "$WRK" curl awk python3; do
  command -v "$bin" >/dev/null 2>&1 || {
    echo "missing: $bin (build cosec with: cargo build --release -p cosec)" >&2
    exit 1
  }
done

WORK="$(mktemp -d /tmp/cosec-bench.XXXXXX)"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Drops a process already ended and reaped, so cleanup never signals a reused pid.
forget_pid() {
  local kept=() pid
  for pid in "${PIDS[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
  PIDS=("${kept[@]}")
}
# The watchdog ends the script (and so, through the trap, everything it started);
# it takes its own sleep down with it when cleanup stops it.
watchdog() {
  local sleeper
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  sleep "$MAX_SECONDS" &
  sleeper=$!
  wait "$sleeper" || exit 0
  echo "proxy_vs_nginx: over ${MAX_SECONDS}s, stopping" >&2
  kill -TERM $$
}
watchdog &
PIDS+=("$!")

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until something answers HTTP on 127.0.0.1:$1.
wait_port() {
  local i
  for i in $(seq 1 100); do
    curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1" >&2
  return 1
}

# ---------------------------------------------------------------- canned bodies
CONTENT='Noted for Sunday: Ole takes levetiracetam 500 mg twice daily, and in an emergency call his wife Ingrid on 07700 900412.'
CANNED_JSON='{"id":"chatcmpl-bench1","object":"chat.completion","created":1767225600,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"'"$CONTENT"'"},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}}'
chunk() { # $1: the delta object, $2: finish_reason (JSON)
  printf 'data: {"id":"chatcmpl-bench1","object":"chat.completion.chunk","created":1767225600,"model":"bench-model","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}\\n\\n' "$1" "$2"
}
# Escaped newlines (\n) are turned into real ones by nginx's config parser.
CANNED_SSE="$(chunk '{"role":"assistant","content":""}' null)$(chunk '{"content":"Noted for Sunday: Ole takes levetiracetam 500 mg "}' null)$(chunk '{"content":"twice daily, and in an emergency call his wife "}' null)$(chunk '{"content":"Ingrid on 07700 900412."}' null)$(chunk '{}' '"stop"')data: [DONE]\n\n"
case "$CANNED_JSON$CANNED_SSE" in *\$* | *\'*) echo "canned bodies must not hold \$ or '" >&2; exit 1 ;; esac

OLE_POST='Heads-up for Sunday'"'"'s walkers: I have epilepsy. I take levetiracetam 500 mg twice daily and my last tonic-clonic seizure was on 2 Jan. My wife Ingrid'"'"'s number is 07700 900412.'
request_body() { # $1: true|false (stream)
  printf '{"model":"bench-model","stream":%s,"messages":[{"role":"system","content":"You are Kwame'"'"'s assistant in the Fellside Hiking Club."},{"role":"user","content":"%s"},{"role":"user","content":"Summarise what the walk leader should know about Ole."}]}' "$1" "$OLE_POST"
}
request_body false >"$WORK/body.json"
request_body true >"$WORK/body-stream.json"

HEADERS=(-H 'content-type: application/json' -H 'authorization: Bearer sk-bench'
  -H 'x-cosec-requester: kwame' -H 'x-cosec-community: fellside')

lua_script() { # $1: body file
  {
    echo 'wrk.method = "POST"'
    echo 'wrk.headers["Content-Type"] = "application/json"'
    echo 'wrk.headers["Authorization"] = "Bearer sk-bench"'
    echo 'wrk.headers["x-cosec-requester"] = "kwame"'
    echo 'wrk.headers["x-cosec-community"] = "fellside"'
    printf 'wrk.body = [==[%s]==]\n' "$(cat "$1")"
  }
}
lua_script "$WORK/body.json" >"$WORK/chat.lua"
lua_script "$WORK/body-stream.json" >"$WORK/chat-stream.lua"

# ---------------------------------------------------------------- servers
UP_PORT="$(free_port)"
NGX_PORT="$(free_port)"
NGX2_PORT="$(free_port)"
mkdir -p "$WORK/nginx/up" "$WORK/nginx/proxy" "$WORK/nginx/proxy2"
nginx_common() { # $1: prefix
  cat <<EOF
worker_processes auto;
pid $1/nginx.pid;
events { worker_connections 4096; }
EOF
}
nginx_http_common() { # $1: prefix
  cat <<EOF
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $1/client_body;
  proxy_temp_path $1/proxy;
  fastcgi_temp_path $1/fastcgi;
  uwsgi_temp_path $1/uwsgi;
  scgi_temp_path $1/scgi;
EOF
}
{
  nginx_common "$WORK/nginx/up"
  echo "http {"
  nginx_http_common "$WORK/nginx/up"
  cat <<EOF
  server {
    listen 127.0.0.1:$UP_PORT;
    location = /v1/chat/completions {
      default_type application/json;
      return 200 '$CANNED_JSON';
    }
    location = /sse/v1/chat/completions {
      default_type text/event-stream;
      return 200 '$CANNED_SSE';
    }
  }
}
EOF
} >"$WORK/nginx/up/nginx.conf"
proxy_conf() { # $1: prefix, $2: port
  nginx_common "$1"
  echo "http {"
  nginx_http_common "$1"
  cat <<EOF
  upstream canned {
    server 127.0.0.1:$UP_PORT;
    keepalive 128;
  }
  server {
    listen 127.0.0.1:$2;
    location / {
      proxy_pass http://canned;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
    location /sse/ {
      proxy_pass http://canned;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
EOF
}
proxy_conf "$WORK/nginx/proxy" "$NGX_PORT" >"$WORK/nginx/proxy/nginx.conf"
# The control: a second nginx, identical to the first, shows how far two equal proxies
# drift apart at one connection on this machine.
proxy_conf "$WORK/nginx/proxy2" "$NGX2_PORT" >"$WORK/nginx/proxy2/nginx.conf"

for which in up proxy proxy2; do
  "$NGINX" -t -q -p "$WORK/nginx/$which" -c "$WORK/nginx/$which/nginx.conf" \
    -e "$WORK/nginx/$which/error.log"
  "$NGINX" -p "$WORK/nginx/$which" -c "$WORK/nginx/$which/nginx.conf" \
    -e "$WORK/nginx/$which/error.log" -g 'daemon off;' &
  PIDS+=("$!")
done
wait_port "$UP_PORT"
wait_port "$NGX_PORT"
wait_port "$NGX2_PORT"

start_cosec() { # $1: port, $2: upstream base, $3: guard mode
  "$COSEC" proxy serve --listen "127.0.0.1:$1" --upstream "$2" --state "$STATE" \
    --guard-mode "$3" 2>>"$WORK/cosec.log" &
  PIDS+=("$!")
}
OFF_PORT="$(free_port)"
ON_PORT="$(free_port)"
OFF_SSE_PORT="$(free_port)"
ON_SSE_PORT="$(free_port)"
CHECK_PORT="$(free_port)"
start_cosec "$OFF_PORT" "http://127.0.0.1:$UP_PORT/v1" off
start_cosec "$ON_PORT" "http://127.0.0.1:$UP_PORT/v1" enforce
start_cosec "$OFF_SSE_PORT" "http://127.0.0.1:$UP_PORT/sse/v1" off
start_cosec "$ON_SSE_PORT" "http://127.0.0.1:$UP_PORT/sse/v1" enforce
for p in "$OFF_PORT" "$ON_PORT" "$OFF_SSE_PORT" "$ON_SSE_PORT"; do wait_port "$p"; done

TARGETS=(direct nginx cosec-off cosec-on)
# At one connection only: the two controls next to the four targets.
C1_TARGETS=(direct nginx nginx-2 cosec-off cosec-on)
FLOOR_PORT="$(free_port)"
if [ -x "$HYPER_FLOOR" ]; then
  "$HYPER_FLOOR" "127.0.0.1:$FLOOR_PORT" "127.0.0.1:$UP_PORT" 2>>"$WORK/hyper-floor.log" &
  PIDS+=("$!")
  wait_port "$FLOOR_PORT"
  C1_TARGETS=(direct nginx nginx-2 hyper-floor cosec-off cosec-on)
else
  echo "proxy_vs_nginx: no $HYPER_FLOOR, so no hyper-floor control (build it with: cargo build --release -p cosec-proxy --example hyper_floor)" >&2
fi
declare -A URL SSE_URL
URL[direct]="http://127.0.0.1:$UP_PORT/v1/chat/completions"
URL[nginx]="http://127.0.0.1:$NGX_PORT/v1/chat/completions"
URL[nginx-2]="http://127.0.0.1:$NGX2_PORT/v1/chat/completions"
URL[hyper-floor]="http://127.0.0.1:$FLOOR_PORT/v1/chat/completions"
URL[cosec-off]="http://127.0.0.1:$OFF_PORT/v1/chat/completions"
URL[cosec-on]="http://127.0.0.1:$ON_PORT/v1/chat/completions"
SSE_URL[direct]="http://127.0.0.1:$UP_PORT/sse/v1/chat/completions"
SSE_URL[nginx]="http://127.0.0.1:$NGX_PORT/sse/v1/chat/completions"
SSE_URL[cosec-off]="http://127.0.0.1:$OFF_SSE_PORT/v1/chat/completions"
SSE_URL[cosec-on]="http://127.0.0.1:$ON_SSE_PORT/v1/chat/completions"

# ---------------------------------------------------------------- sanity checks
reply_text() { # the assistant text of a JSON reply or of an SSE stream of chunks
  python3 - "$1" <<'PY'
import json, sys
raw = open(sys.argv[1], encoding="utf-8").read()
if raw.startswith("data:"):
    parts = []
    for line in raw.splitlines():
        if line.startswith("data: {"):
            for c in json.loads(line[6:])["choices"]:
                parts.append(c["delta"].get("content") or "")
    print("".join(parts))
else:
    print(json.loads(raw)["choices"][0]["message"]["content"])
PY
}
# Every target answers 200 with the same bytes (the guard allows this reply).
for t in "${TARGETS[@]}"; do
  for kind in json sse; do
    if [ "$kind" = json ]; then url="${URL[$t]}" body="$WORK/body.json"
    else url="${SSE_URL[$t]}" body="$WORK/body-stream.json"; fi
    code="$(curl -s --max-time 5 -o "$WORK/check-$t-$kind" -w '%{http_code}' "${HEADERS[@]}" \
      --data-binary "@$body" "$url")"
    [ "$code" = 200 ] || { echo "$t ($kind): HTTP $code: $(head -c 300 "$WORK/check-$t-$kind")" >&2; exit 1; }
    # Streams are compared by their text: the guard re-cuts chunks at its hold-back window.
    [ "$(reply_text "$WORK/check-direct-$kind")" = "$(reply_text "$WORK/check-$t-$kind")" ] ||
      { echo "$t ($kind): reply differs from the upstream's" >&2; exit 1; }
  done
done
# The guard really decides on this request: count decisions on a traced instance.
"$COSEC" proxy serve --listen "127.0.0.1:$CHECK_PORT" --upstream "http://127.0.0.1:$UP_PORT/v1" \
  --state "$STATE" --trace "$WORK/trace.jsonl" 2>>"$WORK/cosec.log" &
CHECK_PID="$!"
PIDS+=("$CHECK_PID")
wait_port "$CHECK_PORT"
curl -s --max-time 5 -o /dev/null "${HEADERS[@]}" --data-binary "@$WORK/body.json" \
  "http://127.0.0.1:$CHECK_PORT/v1/chat/completions"
kill -TERM "$CHECK_PID" 2>/dev/null || true
wait "$CHECK_PID" 2>/dev/null || true
forget_pid "$CHECK_PID"
DECISIONS="$(grep -c '"guard_decision"' "$WORK/trace.jsonl" || true)"
[ "${DECISIONS:-0}" -gt 0 ] || { echo "the guard made no decision on the benchmark request" >&2; exit 1; }

# ---------------------------------------------------------------- measurements
to_us() { # wrk's "123.45us" / "1.23ms" / "1.02s" -> microseconds
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); printf "%.1f", v }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.1f", v * 1000 }
    else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.1f", v * 1000000 }
    else { print "nan" } }'
}

declare -A P50 P99 RPS
run_wrk() { # $1: key, $2: url, $3: lua, $4: connections
  local threads=2 out
  [ "$4" -lt 2 ] && threads=1 # wrk needs at least one connection per thread
  timeout $((WARMUP + 20)) "$WRK" -t"$threads" -c"$4" -d"${WARMUP}s" -s "$3" "$2" >/dev/null
  out="$(timeout $((DURATION + 20)) "$WRK" -t"$threads" -c"$4" -d"${DURATION}s" --latency -s "$3" "$2")"
  if grep -q 'Non-2xx\|Socket errors' <<<"$out"; then
    echo "$1: wrk saw errors:" >&2
    echo "$out" >&2
    exit 1
  fi
  local p50 p99 rps
  p50="$(to_us "$(awk '$1 == "50%" { print $2 }' <<<"$out")")"
  p99="$(to_us "$(awk '$1 == "99%" { print $2 }' <<<"$out")")"
  rps="$(awk '$1 == "Requests/sec:" { printf "%.0f", $2 }' <<<"$out")"
  P50[$1]+=" $p50"
  P99[$1]+=" $p99"
  RPS[$1]+=" $rps"
  echo "  $1: p50 $p50 us, p99 $p99 us, $rps req/s" >&2
}

median() { # of whitespace-separated numbers
  tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g |
    awk '{ v[NR] = $1 } END { printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A TTFB
# Median time to first byte per target over TTFB_N kept-alive streamed requests. One
# curl process alternates the targets request by request (one kept-alive connection
# each), so the machine's background load falls on all of them alike.
measure_ttfb() {
  local i t m cfg="$WORK/curl-ttfb.cfg"
  : >"$cfg"
  for i in $(seq 1 $((TTFB_WARM + TTFB_N))); do
    for t in "${TARGETS[@]}"; do
      printf 'url = "%s"\noutput = "/dev/null"\n' "${SSE_URL[$t]}" >>"$cfg"
    done
  done
  curl -s --max-time 5 "${HEADERS[@]}" --data-binary "@$WORK/body-stream.json" \
    -w '%{url_effective} %{http_code} %{time_starttransfer}\n' -K "$cfg" >"$WORK/ttfb"
  if awk '$2 != 200 { bad = 1 } END { exit !bad }' "$WORK/ttfb"; then
    echo "a streamed request did not answer 200" >&2
    exit 1
  fi
  for t in "${TARGETS[@]}"; do
    m="$(median "$(awk -v u="${SSE_URL[$t]}" -v skip="$TTFB_WARM" \
      '$1 == u && ++n > skip { print $3 * 1000000 }' "$WORK/ttfb" | tr '\n' ' ')")"
    TTFB[$t]+=" $m"
    echo "  $t: streaming TTFB median $m us" >&2
  done
}

echo "proxy_vs_nginx: ${DURATION}s per run after ${WARMUP}s warm-up; $(nproc) cores" >&2
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  echo "non-streaming, 1 connection:" >&2
  for t in "${C1_TARGETS[@]}"; do run_wrk "$t/c1" "${URL[$t]}" "$WORK/chat.lua" 1; done
  echo "non-streaming, 64 connections:" >&2
  for t in "${TARGETS[@]}"; do run_wrk "$t/c64" "${URL[$t]}" "$WORK/chat.lua" 64; done
  echo "streaming, 64 connections (whole-response latency):" >&2
  for t in "${TARGETS[@]}"; do run_wrk "$t/sse64" "${SSE_URL[$t]}" "$WORK/chat-stream.lua" 64; done
  echo "streaming, time to first byte, 1 connection:" >&2
  measure_ttfb
done
# Every cell is the median over the rounds.
for arr in P50 P99 RPS TTFB; do
  declare -n cells="$arr"
  for key in "${!cells[@]}"; do cells[$key]="$(median "${cells[$key]}")"; done
  unset -n cells
done
for key in "${!RPS[@]}"; do RPS[$key]="$(awk -v v="${RPS[$key]}" 'BEGIN { printf "%.0f", v }')"; done

# ---------------------------------------------------------------- report
calc() { awk "BEGIN { $1 }"; }
added() { calc "printf \"%.1f\", $1 - $2"; }
ratio() { # a/b, or n/a when b is not a positive number of microseconds
  calc "if ($2 > 0.5) printf \"%.2fx\", $1 / $2; else print \"n/a\""
}
verdict() { # $1: value, $2: "<=" or ">=", $3: limit
  calc "v = $1; if (\"$2\" == \"<=\" ? v <= $3 : v >= $3) print \"**met**\"; else print \"**not met**\""
}
row() { # $1: label, $2: array name, $3: key suffix
  local -n arr="$2"
  printf '| %s | %s | %s | %s | %s |\n' "$1" "${arr[direct$3]}" "${arr[nginx$3]}" \
    "${arr[cosec-off$3]}" "${arr[cosec-on$3]}"
}
added_row() { # $1: label, $2: array name, $3: key suffix
  local -n arr="$2"
  local d="${arr[direct$3]}"
  printf '| %s | 0 | %s | %s | %s |\n' "$1" "$(added "${arr[nginx$3]}" "$d")" \
    "$(added "${arr[cosec-off$3]}" "$d")" "$(added "${arr[cosec-on$3]}" "$d")"
}

A_NGX1="$(added "${P50[nginx/c1]}" "${P50[direct/c1]}")"
A_NGX2="$(added "${P50[nginx-2/c1]}" "${P50[direct/c1]}")"
FLOOR_ROW=""
if [ -n "${P50[hyper-floor/c1]:-}" ]; then
  A_FLOOR="$(added "${P50[hyper-floor/c1]}" "${P50[direct/c1]}")"
  FLOOR_ROW="| control: c1 added p50, a bare hyper proxy (examples/hyper_floor) / nginx | $(ratio "$A_FLOOR" "$A_NGX1") ($A_FLOOR us) | | the floor of the HTTP stack cosec uses |"$'\n'
fi
A_OFF1="$(added "${P50[cosec-off/c1]}" "${P50[direct/c1]}")"
A_ON1="$(added "${P50[cosec-on/c1]}" "${P50[direct/c1]}")"
GUARD1="$(added "${P50[cosec-on/c1]}" "${P50[cosec-off/c1]}")"
T_NGX="$(added "${TTFB[nginx]}" "${TTFB[direct]}")"
T_OFF="$(added "${TTFB[cosec-off]}" "${TTFB[direct]}")"
T_ON="$(added "${TTFB[cosec-on]}" "${TTFB[direct]}")"
R_OFF="$(calc "printf \"%.2f\", ${RPS[cosec-off/c64]} / ${RPS[nginx/c64]}")"
R_ON="$(calc "printf \"%.2f\", ${RPS[cosec-on/c64]} / ${RPS[nginx/c64]}")"
ratio_num() { calc "if ($2 > 0.5) printf \"%.2f\", $1 / $2; else print 999"; }
X_OFF1="$(ratio_num "$A_OFF1" "$A_NGX1")"
X_TOFF="$(ratio_num "$T_OFF" "$T_NGX")"
X_TON="$(ratio_num "$T_ON" "$T_NGX")"

cat <<EOF
Run of $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk ${DURATION}s per cell after ${WARMUP}s warm-up
(-t1 at 1 connection, -t2 at 64), streaming TTFB = median of $TTFB_N kept-alive curl requests per target, interleaved;
each cell is the median of $ROUNDS interleaved round(s).
Guard on: $DECISIONS guard decision(s) per request (allowed; replies unchanged).

| non-streaming | direct | nginx | cosec, guard off | cosec, guard on |
|---|---|---|---|---|
$(row 'c1 p50 (us)' P50 /c1)
$(row 'c1 p99 (us)' P99 /c1)
$(added_row 'c1 added p50 (us)' P50 /c1)
$(row 'c1 requests/s' RPS /c1)
$(row 'c64 p50 (us)' P50 /c64)
$(row 'c64 p99 (us)' P99 /c64)
$(added_row 'c64 added p50 (us)' P50 /c64)
$(row 'c64 requests/s' RPS /c64)

| streaming | direct | nginx | cosec, guard off | cosec, guard on |
|---|---|---|---|---|
$(row 'c1 TTFB median (us)' TTFB '')
$(added_row 'c1 TTFB added (us)' TTFB '')
$(row 'c64 whole-stream p50 (us)' P50 /sse64)
$(row 'c64 whole-stream p99 (us)' P99 /sse64)
$(row 'c64 requests/s' RPS /sse64)

| target | measured | limit | |
|---|---|---|---|
| c1 added p50, guard off / nginx | $(ratio "$A_OFF1" "$A_NGX1") ($A_OFF1 vs $A_NGX1 us) | <= 1.5x | $(verdict "$X_OFF1" '<=' 1.5) |
| control: c1 added p50, a second identical nginx / nginx | $(ratio "$A_NGX2" "$A_NGX1") ($A_NGX2 us) | | the measurement's own spread |
${FLOOR_ROW}| c1 p50 the guard adds on top (on - off) | $GUARD1 us | <= 50 us | $(verdict "$GUARD1" '<=' 50) |
| c1 added p50, guard on / nginx (for reference) | $(ratio "$A_ON1" "$A_NGX1") ($A_ON1 us) | | |
| c64 requests/s, guard off / nginx | ${R_OFF}x | >= 0.8x | $(verdict "$R_OFF" '>=' 0.8) |
| c64 requests/s, guard on / nginx | ${R_ON}x | >= 0.8x | $(verdict "$R_ON" '>=' 0.8) |
| streaming TTFB added, guard off / nginx | $(ratio "$T_OFF" "$T_NGX") ($T_OFF vs $T_NGX us) | <= 1.5x | $(verdict "$X_TOFF" '<=' 1.5) |
| streaming TTFB added, guard on / nginx | $(ratio "$T_ON" "$T_NGX") ($T_ON us) | <= 1.5x | $(verdict "$X_TON" '<=' 1.5) |
EOF
