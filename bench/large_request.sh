#!/usr/bin/env bash
# Memory and responsiveness of `cosec proxy serve` under one large request.
#
# Starts a canned OpenAI-compatible upstream (Python's standard library) and the
# release `cosec proxy serve` (one listener thread, the example state file, the
# default policy, a trace), sends one chat request of SIZE_MB megabytes (the shape:
# `messages`, many distinct prose messages with a protected post among them; `string`,
# one message holding it all), and while it is being handled sends a small request
# every 100 ms on fresh connections from another session. Prints the proxy's peak
# resident memory (VmHWM) before and after, its ratio to the body, the large request's
# time and the small requests' latencies. Repeats with `--guard-mode off` as the
# baseline.
#
#   bench/large_request.sh            # SIZE_MB=60, both shapes
#   SIZE_MB=10 SHAPES=string bench/large_request.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB="${SIZE_MB:-60}"
SHAPES="${SHAPES:-messages string}"
MODES="${MODES:-enforce off}"
TARGET="${CARGO_TARGET_DIR:-target}"
# COSEC=path/to/cosec measures another build (the figures say which).
COSEC="${COSEC:-$TARGET/release/cosec}"
[ -x "$COSEC" ] || cargo build --release -p cosec
WORK="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

UP_PORT=$(free_port)
cat > "$WORK/upstream.py" <<'EOF'
import http.server, json, sys
REPLY = json.dumps({"id": "c1", "object": "chat.completion", "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sunday at nine."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        while n > 0:
            n -= len(self.rfile.read(min(n, 1 << 20)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
python3 "$WORK/upstream.py" "$UP_PORT" &
sleep 0.5

# The large bodies and a small one.
python3 - "$WORK" "$SIZE_MB" <<'EOF'
import json, sys, random
work, size = sys.argv[1], int(sys.argv[2]) * 1000 * 1000
post = ("Heads-up for Sunday's walkers: I have epilepsy. I take levetiracetam 500 mg twice "
        "daily and my last tonic-clonic seizure was on 2 Jan. My wife Ingrid's number is 07700 900412.")
words = "the club meets at the car park at nine and walks the ridge before lunch with maps and flasks".split()
rng = random.Random(1)
def prose(n):
    out, length = [], 0
    while length < n:
        w = rng.choice(words); out.append(w); length += len(w) + 1
    return " ".join(out)
msgs = [{"role": "system", "content": "You are Nadia's assistant."}, {"role": "user", "content": post}]
chunk = prose(100_000)
i = 0
while sum(len(m["content"]) for m in msgs) < size:
    msgs.append({"role": "user", "content": f"{chunk} (note {i})"}); i += 1
json.dump({"model": "m", "messages": msgs}, open(f"{work}/messages.json", "w"))
body = prose(size - len(post) - 1) + " " + post
json.dump({"model": "m", "messages": [{"role": "user", "content": body}]}, open(f"{work}/string.json", "w"))
json.dump({"model": "m", "messages": [{"role": "user", "content": "When is the walk?"}]}, open(f"{work}/small.json", "w"))
EOF

hwm() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
# --max-time (MAX_TIME, default 900 s): a request the proxy never answers is reported
# (code 000 or 100), not waited on forever.
# post PORT BODY [SESSION]: the large request is school-chat's; the small ones come from
# another client, fellside-chat (a trial's own calls are answered one at a time).
post() { curl -s --max-time "${MAX_TIME:-900}" -o /dev/null -w '%{http_code} %{time_total}\n' -H 'content-type: application/json' \
  -H "x-cosec-session: ${3:-school-chat}" --data-binary "@$2" "http://127.0.0.1:$1/v1/chat/completions"; }

printf '| guard | shape | body MB | peak RSS before MB | peak RSS after MB | peak / body | large request s | small requests meanwhile: n, median s, max s |\n|---|---|---|---|---|---|---|---|\n'
for mode in $MODES; do
  for shape in $SHAPES; do
    PORT=$(free_port)
    "$COSEC" proxy serve --listen "127.0.0.1:$PORT" --upstream "http://127.0.0.1:$UP_PORT/v1" \
      --state examples/proxy-serve/state.json --guard-mode "$mode" --threads 1 \
      --trace "$WORK/trace-$mode-$shape.jsonl" 2>/dev/null &
    PID=$!
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/v1/models" && break; sleep 0.1; done
    kill -0 "$PID" 2>/dev/null || { echo "large_request: cosec proxy serve did not start" >&2; exit 1; }
    post "$PORT" "$WORK/small.json" > /dev/null
    before=$(hwm "$PID")
    bytes=$(stat -c %s "$WORK/$shape.json")
    post "$PORT" "$WORK/$shape.json" > "$WORK/large.out" &
    LARGE=$!
    : > "$WORK/small.out"
    SMALL=()
    while kill -0 "$LARGE" 2>/dev/null; do
      post "$PORT" "$WORK/small.json" fellside-chat >> "$WORK/small.out" &
      SMALL+=($!)
      sleep 0.1
    done
    # Only this case's clients: a bare `wait` would also wait for the upstream and the proxy.
    wait "$LARGE" "${SMALL[@]}"
    after=$(hwm "$PID")
    kill "$PID"; wait "$PID" 2>/dev/null || true
    read -r code secs < "$WORK/large.out"
    smalls=$(awk '{print $2}' "$WORK/small.out" | sort -n)
    n=$(echo "$smalls" | grep -c . || true)
    med=$(echo "$smalls" | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}')
    max=$(echo "$smalls" | tail -1)
    awk -v m="$mode" -v s="$shape" -v b="$bytes" -v x="$before" -v y="$after" -v t="$secs" \
        -v c="$code" -v n="$n" -v med="$med" -v max="$max" 'BEGIN {
      printf "| %s | %s | %.1f | %.0f | %.0f | %.2fx | %s (HTTP %s) | %s, %s, %s |\n",
        m, s, b/1e6, x/1024, y/1024, (y*1024)/b, t, c, n, med, max }'
  done
done
