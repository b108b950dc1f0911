/**
 * echo-server (workloads/echo-server.md): a TCP server on 127.0.0.1 that answers each request with
 * its payload reversed after wait_us µs, on Node's one event loop (`net`) or pre-forked `cluster`
 * workers sharing the listening socket. The conversation is docs/protocol.md's.
 */
import cluster from 'node:cluster';
import fs from 'node:fs';
import net from 'node:net';
import readline from 'node:readline';
import { parseVariant, UsageError } from '../protocol.js';

const MAX_PAYLOAD = 65536;
const BACKLOG = 4096; // the kernel caps it at net.core.somaxconn
// A stats line waits (this long at most) until every connection it counted is closed on the
// server's side: the client may read the last reply before the server counts it.
const SETTLE_MS = 2000;

const DETAILS = {
  net: "one event loop (libuv's epoll) on Node's main thread: net.createServer, a connection paused from a whole "
    + 'request until its reply is written, setTimeout for the wait (1 ms granularity)',
  cluster: '--workers processes forked by node:cluster (SCHED_NONE: each accepts on the shared listening socket '
    + 'itself), each one net event loop',
};

const NO_START_MODES = {
  cold: 'a server makes its workers before its ready line; its rounds are timed by the load generator, not by a start',
  warm: "a server's workers are made once, before its ready line, for every round: there is no per-round start to keep warm",
};

/** The spec's reply: the request's header, then its payload back to front. */
export function makeReply(request) {
  const reply = Buffer.from(request);
  reply.subarray(8).reverse();
  return reply;
}

/** Connections accepted, replies written and connections open since the last stats line. */
class Tally {
  constructor() {
    this.accepted = 0;
    this.replies = 0;
    this.open = 0;
  }

  take() {
    const taken = { accepted: this.accepted, replies: this.replies };
    this.accepted = 0;
    this.replies = 0;
    return taken;
  }
}

function threadsNow(pid = 'self') {
  try {
    const match = /^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * One connection: its bytes kept until a request is whole (header, then len bytes); then the socket
 * is paused (libuv stops reading it) until the reply is written, so nothing is read ahead of a reply
 * but what arrived with the request. A len over the limit or EOF mid-request closes it.
 */
function serveConnection(socket, waitUs, tally) {
  tally.accepted++;
  tally.open++;
  socket.setNoDelay(true);
  let pending = Buffer.alloc(0);
  let busy = false;
  const next = () => {
    if (busy || pending.length < 8) return;
    const length = pending.readUInt32BE(4);
    if (length > MAX_PAYLOAD) return socket.destroy();
    if (pending.length < 8 + length) return;
    const request = pending.subarray(0, 8 + length);
    pending = pending.subarray(8 + length);
    busy = true;
    socket.pause();
    const reply = () => socket.write(makeReply(request), (error) => {
      if (error) return;
      tally.replies++;
      busy = false;
      socket.resume();
      next();
    });
    if (waitUs > 0) setTimeout(reply, waitUs / 1000);
    else reply();
  };
  socket.on('data', (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    next();
  });
  socket.on('end', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('close', () => { tally.open--; });
}

function listen(port, waitUs, tally) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => serveConnection(socket, waitUs, tally));
    server.on('error', (error) => reject(new Error(`echo-server cannot listen on 127.0.0.1:${port}: ${error.message}`)));
    server.listen({ host: '127.0.0.1', port, backlog: BACKLOG, exclusive: false }, () => resolve(server));
  });
}

/** Each stdin line, as it comes, on the event loop; resolves at end of file. */
async function answerStdin(workload, onLine) {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let index = 0;
  for await (const line of lines) {
    const variant = parseVariant(workload, line, index);
    await onLine(variant ?? line.trim(), index++);
  }
}

function statsLine(variant, taken, threadsPeak) {
  const extra = { ...taken, threads_peak: threadsPeak };
  process.stdout.write(JSON.stringify({ rep: Number(variant), items: taken.replies, checksum: 'served', extra }) + '\n');
}

async function settled(isOpen) {
  const deadline = Date.now() + SETTLE_MS;
  while ((await isOpen()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
}

function readyLine(port, model, workers) {
  const extra = { model_detail: DETAILS[model] };
  if (workers !== undefined) extra.workers = workers;
  process.stdout.write(JSON.stringify({ ready: 'none', port, extra }) + '\n');
}

async function serveNet(workload, { params }) {
  const tally = new Tally();
  const server = await listen(params.port, params.wait_us, tally);
  readyLine(server.address().port, 'net');
  await answerStdin(workload, async (variant) => {
    await settled(() => tally.open > 0);
    statsLine(variant, tally.take(), threadsNow());
  });
  server.close();
  process.exit(0); // connections the clients still hold must not keep the process up
}

/** The primary: forks the workers, which listen; asks each for its counters at every stdin line. */
async function serveCluster(workload, { params, workers }) {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ args: ['echo-server-worker', String(params.port), String(params.wait_us)] });
  const forked = [];
  const ports = [];
  for (let k = 0; k < workers; k++) {
    const worker = cluster.fork();
    forked.push(worker);
    ports.push(new Promise((resolve, reject) => {
      worker.once('listening', (address) => resolve(address.port));
      worker.once('exit', (code) => reject(new Error(`a cluster worker exited with ${code} before it listened`)));
    }));
  }
  const port = (await Promise.all(ports))[0];
  const ask = (worker, take) => new Promise((resolve) => {
    worker.once('message', resolve);
    worker.send({ take });
  });
  readyLine(port, 'cluster', workers);
  await answerStdin(workload, async (variant) => {
    await settled(async () => (await Promise.all(forked.map((w) => ask(w, false)))).some((c) => c.open > 0));
    const counts = await Promise.all(forked.map((w) => ask(w, true)));
    const sum = (key) => counts.reduce((total, c) => total + c[key], 0);
    const threads = threadsNow() + forked.reduce((total, w) => total + threadsNow(w.process.pid), 0);
    statsLine(variant, { accepted: sum('accepted'), replies: sum('replies') }, threads);
  });
  for (const worker of forked) worker.process.kill('SIGKILL');
  await Promise.all(forked.map((w) => new Promise((resolve) => (w.isDead() ? resolve() : w.once('exit', resolve)))));
  process.exit(0);
}

/** A cluster worker (main.js hands it over when the primary forked it): one net loop, counters on request. */
export async function clusterWorker(port, waitUs) {
  const tally = new Tally();
  await listen(port, waitUs, tally);
  process.on('message', ({ take }) => {
    process.send(take ? { ...tally.take(), open: tally.open } : { open: tally.open });
  });
  process.on('disconnect', () => process.exit(0)); // the primary is gone
}

function bounded(name, high) {
  return { kind: 'int', minimum: 0, maximum: high, default: 0, name };
}

export const echoServer = {
  name: 'echo-server',
  params: { wait_us: bounded('wait_us', 10_000_000), port: bounded('port', 65535) },
  models: {
    net: { family: 'event-loop', detail: DETAILS.net },
    cluster: { family: 'processes', workers: true, detail: DETAILS.cluster, start_unavailable: NO_START_MODES },
  },
  // A thread per connection is not a model Node has: a socket cannot be handed to a worker_threads
  // Worker (only a child process, which cluster is), so no `threads` model is listed.
  modelsUnavailable: {
    threads: 'Node cannot hand a socket to a worker thread (worker_threads has no handle transfer; only child processes take one), so a thread per connection is not a Node model',
  },
  async prepare() {
    throw new UsageError('echo-server is a server: it is served, not run as timed repetitions');
  },
  async serve(invocation) {
    if (invocation.model === 'cluster') return serveCluster(this, invocation);
    return serveNet(this, invocation);
  },
};
