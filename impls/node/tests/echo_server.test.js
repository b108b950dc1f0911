import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import readline from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseInvocation, UsageError } from '../src/protocol.js';
import { echoServer, makeReply } from '../src/workloads/echo_server.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const MODELS = Object.keys(echoServer.models);

/** One `run echo-server` process: its ready line read, its stdout read line by line. */
async function serve(model, waitUs = 0) {
  const args = [MAIN, 'echo-server', '--model', model, '--wait-us', String(waitUs)];
  if (echoServer.models[model].workers) args.push('--workers', '2');
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ready = JSON.parse((await lines.next()).value);
  assert.equal(ready.ready, 'none');
  assert.ok(ready.extra.model_detail);
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    port: ready.port,
    async stats(variant) {
      child.stdin.write(`${variant}\n`);
      return JSON.parse((await lines.next()).value);
    },
    /** Ends stdin: the server exits 0 within 2 s and leaves nothing listening. */
    async close() {
      child.stdin.end();
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('hung'), 5000))]);
      if (code === 'hung') child.kill('SIGKILL');
      assert.equal(code, 0);
    },
  };
}

/** A client connection whose bytes are read exactly, or until EOF (then fewer). */
function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(conn));
    let received = Buffer.alloc(0);
    let ended = false;
    let waiter = null;
    const wake = () => waiter?.();
    socket.on('data', (chunk) => { received = Buffer.concat([received, chunk]); wake(); });
    socket.on('end', () => { ended = true; wake(); });
    socket.on('close', () => { ended = true; wake(); });
    socket.on('error', reject);
    const conn = {
      socket,
      send(id, payload) {
        const header = Buffer.alloc(8);
        header.writeUInt32BE(id, 0);
        header.writeUInt32BE(payload.length, 4);
        socket.write(Buffer.concat([header, payload]));
      },
      /** `size` bytes, or what came before EOF or `timeoutMs`. */
      read(size, timeoutMs = 20000) {
        return new Promise((done) => {
          const timer = setTimeout(() => { waiter = null; done(received.subarray(0, 0)); }, timeoutMs);
          waiter = () => {
            if (received.length < size && !ended) return;
            clearTimeout(timer);
            waiter = null;
            const got = received.subarray(0, size);
            received = received.subarray(got.length);
            done(got);
          };
          waiter();
        });
      },
      close() { socket.destroy(); },
    };
  });
}

function replyTo(id, payload) {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(id, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, Buffer.from(payload).reverse()]);
}

function threads(pid) {
  return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))[1]);
}

test('echo-server: the reply is the header then the payload reversed', () => {
  assert.deepEqual(makeReply(Buffer.from('\0\0\0\x01\0\0\0\x03abc', 'latin1')), Buffer.from('\0\0\0\x01\0\0\0\x03cba', 'latin1'));
});

test('echo-server: --list says why there is no threads model', () => {
  assert.match(echoServer.modelsUnavailable.threads, /worker thread/);
});

for (const model of MODELS) {
  test(`echo-server ${model}: the vector, random payloads, a bad len, a short request, the wait, the stats line, the exit`, async () => {
    const server = await serve(model, 2000);
    const vector = await connect(server.port);
    vector.socket.write(Buffer.from('\0\0\0\x01\0\0\0\x03abc', 'latin1'));
    assert.deepEqual(await vector.read(11), Buffer.from('\0\0\0\x01\0\0\0\x03cba', 'latin1'));
    vector.close();

    const bad = await connect(server.port);
    bad.socket.write(Buffer.from([0, 0, 0, 2, 0, 1, 0, 1])); // len 65,537
    assert.equal((await bad.read(100)).length, 0, 'a len over 65,536 closes the connection');
    const short = await connect(server.port);
    short.socket.end(Buffer.from([0, 0, 0, 4, 0, 0, 0, 10, 97, 98, 99]));
    assert.equal((await short.read(100)).length, 0, 'a short request at EOF gets no reply');
    await server.stats(0);

    // 6 connections in lockstep, 4 requests each, random payloads; then the stats line
    const conns = await Promise.all(Array.from({ length: 6 }, () => connect(server.port)));
    for (let r = 0; r < 4; r++) {
      const payloads = conns.map((_, k) => randomBytes(r * 100 + k));
      conns.forEach((conn, k) => conn.send(1000 * k + r, payloads[k]));
      for (const [k, conn] of conns.entries()) assert.deepEqual(await conn.read(8 + payloads[k].length), replyTo(1000 * k + r, payloads[k]));
    }
    conns.forEach((conn) => conn.close());
    const line = await server.stats(7);
    assert.deepEqual([line.rep, line.items, line.checksum, line.extra.replies, line.extra.accepted], [7, 24, 'served', 24, 6]);
    assert.equal((await server.stats(8)).items, 0, 'counted since the line before');

    // wait_us 2,000 with 20 connections open: every one answered (in reverse order) while all stay open
    const open = await Promise.all(Array.from({ length: 20 }, () => connect(server.port)));
    open.forEach((conn, k) => conn.send(k, Buffer.from('wait')));
    for (let k = 19; k >= 0; k--) assert.deepEqual(await open[k].read(12), replyTo(k, Buffer.from('wait')));
    const before = threads(server.child.pid);
    const more = await Promise.all(Array.from({ length: 40 }, () => connect(server.port)));
    more.forEach((conn, k) => conn.send(k, Buffer.from('t')));
    for (const [k, conn] of more.entries()) assert.deepEqual(await conn.read(9), replyTo(k, Buffer.from('t')));
    assert.ok(threads(server.child.pid) < before + 3, 'no thread per connection');
    await server.close(); // with 60 connections still open
    [...open, ...more].forEach((conn) => conn.close());
    await assert.rejects(connect(server.port), 'nothing listens after the end of stdin');
  });
}

// wait_us 200,000 on 20 connections: a server that waits for one connection at a time cannot answer
// the 20th before 20 × 200 ms however fast the machine; these answer all about 200 ms after they were
// sent (the bound is the serial floor, not a speed).
for (const model of MODELS) {
  test(`echo-server ${model}: the waits of 20 connections overlap`, async () => {
    const server = await serve(model, 200_000);
    const started = Date.now();
    const conns = await Promise.all(Array.from({ length: 20 }, () => connect(server.port)));
    conns.forEach((conn, k) => conn.send(k, Buffer.from('overlap')));
    for (const [k, conn] of conns.entries()) assert.deepEqual(await conn.read(15), replyTo(k, Buffer.from('overlap')));
    assert.ok(Date.now() - started < 20 * 200, `${Date.now() - started} ms, as if one after another`);
    conns.forEach((conn) => conn.close());
    await server.close();
  });
}

test('echo-server: bad arguments are usage errors, and exit 2 with one line', async () => {
  for (const args of [['--wait-us', '-1'], ['--wait-us', '10000001'], ['--port', '70000'], ['--workers', '2']]) {
    assert.throws(() => parseInvocation(echoServer, ['--model', 'net', ...args]), UsageError, args.join(' '));
  }
  const child = spawn(process.execPath, [MAIN, 'echo-server', '--model', 'net', '--wait-us', '-1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.deepEqual([code, stdout, stderr.trim().split('\n').length], [2, '', 1], stderr);
});
