// Starts OpenClaw's gateway inside the trial's sandbox and joins its WebSocket to this
// process's stdin and stdout, one JSON frame per line. The runner outside cannot reach
// the sandbox's own loopback, so it speaks to the gateway through these pipes.
// Arguments: OpenClaw's entry (openclaw.mjs) and the gateway's port. The gateway's own
// output goes to stderr; stdout carries frames only. The line {"bridge":"reconnect"}
// drops the connection and opens a new one (a gateway that is still starting refuses
// the handshake). When stdin closes, the gateway is stopped and the bridge exits.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [entry, port] = process.argv.slice(2);
const gateway = spawn(process.execPath, [entry, "gateway", "run", "--port", port], {
  stdio: ["ignore", 2, 2],
});
let stopping = false;
// One connection at a time: the one being opened or open. Frames of any other are
// dropped, so the runner never answers a challenge on one connection and sends its
// requests on another.
let current = null;
let open = false;
const waiting = [];

function stop(code) {
  stopping = true;
  gateway.kill("SIGTERM");
  setTimeout(() => {
    gateway.kill("SIGKILL");
    process.exit(code);
  }, 500).unref();
}

gateway.on("exit", (code, signal) => {
  if (!stopping) {
    process.stderr.write(`bridge: the gateway exited (${code ?? signal})\n`);
  }
  process.exit(stopping ? 0 : 1);
});

const input = createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  if (line.startsWith('{"bridge":"reconnect"}')) {
    const old = current;
    current = null;
    open = false;
    waiting.length = 0;
    if (old) old.close();
    attempt();
    return;
  }
  if (current && open) current.send(line);
  else waiting.push(line);
});
input.on("close", () => stop(0));

// The gateway takes seconds to listen: try again until it does (the runner's deadline
// bounds the wait).
function attempt() {
  if (stopping || current) return;
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  current = ws;
  ws.addEventListener("open", () => {
    if (current !== ws) return;
    open = true;
    for (const line of waiting.splice(0)) ws.send(line);
  });
  ws.addEventListener("message", (event) => {
    if (current !== ws) return;
    let frame;
    try {
      frame = JSON.stringify(JSON.parse(String(event.data)));
    } catch {
      process.stderr.write(`bridge: a frame that is not JSON: ${String(event.data).slice(0, 200)}\n`);
      return;
    }
    process.stdout.write(frame + "\n");
  });
  ws.addEventListener("close", () => {
    if (current !== ws) return;
    current = null;
    open = false;
    setTimeout(attempt, 200);
  });
  ws.addEventListener("error", () => {});
}
attempt();
