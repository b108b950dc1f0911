/** The harness protocol: command-line parsing, the ready line, variants on stdin, timing, JSON lines and exit codes (docs/protocol.md). */
import fs from 'node:fs';
import os from 'node:os';

/** Bad arguments: exit 2 with one line on stderr. */
export class UsageError extends Error {}

/** A resource limit stopped the work: exit 3 after a JSON line carrying the runtime's own message. */
export class LimitError extends Error {}

// No --warmup or --repeat (protocol 4): the launcher alone decides how many repetitions run.
const PROTOCOL_OPTIONS = new Set(['model', 'workers', 'kernel', 'start']);

/** Protocol 3's start modes: workers made inside every repetition, or once before the ready line. */
export const START_MODES = ['cold', 'warm'];

/** The kernel classes of protocol 2; a workload that has them lists each one's detail under `kernels`. */
export const KERNELS = ['portable', 'tuned'];

/** Monotonic nanoseconds as a Number (2^53 ns is 104 days). */
export function nowNs() {
  return Number(process.hrtime.bigint());
}

export function defaultWorkers() {
  return os.availableParallelism();
}

/** Splits `--name value` pairs into a plain object; every option of the protocol takes a value. */
export function parseOptions(args) {
  const options = {};
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i];
    if (!flag.startsWith('--')) throw new UsageError(`unexpected argument '${flag}'; options look like --name value`);
    if (i + 1 >= args.length) throw new UsageError(`option ${flag} needs a value`);
    options[flag.slice(2)] = args[i + 1];
  }
  return options;
}

/** `label` names the value in the error: `--workers`, or a variant's line. */
function parseInteger(label, text, minimum, maximum = Number.MAX_SAFE_INTEGER) {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${label} must be an integer, got '${text}'`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new UsageError(`${label} must be an integer in [${minimum}, ${maximum}], got '${text}'`);
  }
  return value;
}

/** Converts one param by its declared kind: int, uint64 (kept as BigInt), choice or string. */
function parseParam(workload, name, spec, text, label = `--${name}`) {
  switch (spec.kind) {
    case 'int': return parseInteger(label, text, spec.minimum ?? 0, spec.maximum);
    case 'uint64':
      if (!/^\d+$/.test(text) || BigInt(text) >= 2n ** 64n) throw new UsageError(`${label} must be an integer in [0, 2^64), got '${text}'`);
      return BigInt(text);
    case 'list': {
      // Comma-separated non-negative integers (keygen's --probes).
      if (!/^\d+(,\d+)*$/.test(text)) throw new UsageError(`${label} must be comma-separated non-negative integers, got '${text}'`);
      return text.split(',').map(Number);
    }
    case 'choice':
      if (!spec.choices.includes(text)) {
        throw new UsageError(`unknown ${name} '${text}' for ${workload.name}; valid: ${spec.choices.join(', ')}`);
      }
      return text;
    default: return text;
  }
}

/** Turns the arguments after the workload name into {model, params, workers, start, kernel}. */
export function parseInvocation(workload, args) {
  const options = parseOptions(args);
  const modelNames = Object.keys(workload.models);
  const model = options.model;
  if (model === undefined) throw new UsageError(`--model is required for ${workload.name}; valid: ${modelNames.join(', ')}`);
  if (!workload.models[model]) throw new UsageError(`unknown model '${model}' for ${workload.name}; valid: ${modelNames.join(', ')}`);

  const params = {};
  for (const [option, text] of Object.entries(options)) {
    if (PROTOCOL_OPTIONS.has(option)) continue;
    const name = option.replaceAll('-', '_');
    const spec = workload.params[name];
    if (!spec || spec.variantOnly) {
      const valid = publicParams(workload).map((p) => `--${p.replaceAll('_', '-')}`);
      const protocol = ['--model', '--workers', '--start', ...(workload.kernels ? ['--kernel'] : [])];
      throw new UsageError(`unknown option --${option} for ${workload.name}; valid: ${[...valid, ...protocol].join(', ')}`);
    }
    params[name] = parseParam(workload, option, spec, text);
  }
  for (const [name, spec] of Object.entries(workload.params)) {
    if (name in params) continue;
    if (spec.default === undefined) throw new UsageError(`--${name.replaceAll('_', '-')} is required for ${workload.name}`);
    params[name] = spec.default;
  }

  let workers;
  if (workload.models[model].workers) {
    workers = options.workers === undefined ? defaultWorkers() : parseInteger('--workers', options.workers, 1);
  } else if (options.workers !== undefined) {
    throw new UsageError(`model '${model}' of ${workload.name} takes no --workers`);
  }
  const start = parseStart(workload, model, options.start);
  return { model, params, workers, start, kernel: parseKernel(workload, options.kernel) };
}

/** The params `--list` names: the variant-only ones (spawn-chain's start value, the swarm's salt) come from stdin alone. */
export function publicParams(workload) {
  return Object.keys(workload.params).filter((name) => !workload.params[name].variantOnly);
}

/** `--kernel portable|tuned`, only for workloads with kernel classes; tuned only where the workload has one. */
function parseKernel(workload, text) {
  if (!workload.kernels) {
    if (text !== undefined) throw new UsageError(`${workload.name} has no kernel classes; --kernel is for sdes-ecb, keygen and batch-job`);
    return undefined;
  }
  const kernel = text ?? 'portable';
  if (!workload.kernels[kernel]) throw new UsageError(`unknown kernel '${kernel}' for ${workload.name}; valid: ${Object.keys(workload.kernels).join(', ')}`);
  return kernel;
}

/**
 * `--start cold|warm`, only for models whose entry offers it (`start`); the default is cold where
 * offered, else the only mode. Undefined for a model that offers none (its ready line says "none").
 */
function parseStart(workload, modelName, text) {
  const model = workload.models[modelName];
  const offered = Object.keys(model.start ?? {});
  if (text === undefined) return offered.includes('cold') ? 'cold' : offered[0];
  if (!START_MODES.includes(text)) throw new UsageError(`--start must be one of ${START_MODES.join(', ')}, got '${text}'`);
  if (offered.includes(text)) return text;
  const why = model.start_unavailable?.[text] ?? 'it has no workers to start';
  const valid = offered.length > 0 ? `; valid: ${offered.join(', ')}` : '';
  throw new UsageError(`model '${modelName}' of ${workload.name} has no --start ${text}: ${why}${valid}`);
}

/**
 * Reads stdin one line at a time, synchronously: the launcher writes the next variant only after
 * reading the line before it, so the repetition loop blocks here, outside every clock, and no
 * event-loop turn is added to it. Keeps what follows a newline for the next call.
 */
export class StdinLines {
  // A variant is at most 20 digits; a line longer than this is not one.
  static MAX_LINE_BYTES = 1024;

  constructor(fd = 0) {
    this.fd = fd;
    this.pending = Buffer.alloc(0);
    this.chunk = Buffer.alloc(4096);
  }

  /** The next line without its newline, or null at the end of input (an unterminated last line counts). */
  next() {
    for (;;) {
      const newline = this.pending.indexOf(0x0a);
      if (newline >= 0) return this.take(newline, newline + 1);
      if (this.pending.length > StdinLines.MAX_LINE_BYTES) throw new UsageError(`a stdin line longer than ${StdinLines.MAX_LINE_BYTES} bytes is not a variant (one decimal integer a line)`);
      const read = readBlocking(this.fd, this.chunk);
      if (read === 0) return this.pending.length > 0 ? this.take(this.pending.length, this.pending.length) : null;
      this.pending = Buffer.concat([this.pending, this.chunk.subarray(0, read)]);
    }
  }

  take(end, next) {
    const line = this.pending.toString('latin1', 0, end);
    this.pending = this.pending.subarray(next);
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }
}

// A non-blocking stdin (one inherited that way) answers EAGAIN until the launcher writes: wait 1 ms.
const pause = new Int32Array(new SharedArrayBuffer(4));

function readBlocking(fd, buffer) {
  for (;;) {
    try {
      return fs.readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/**
 * Repetition j's variant line as the workload's variant param (sdes-ecb's key, keygen's seed,
 * spawn-chain's start value, the swarm's salt); a workload without one (batch-job, noop: a fresh
 * database per process) reads the line and ignores it.
 */
export function parseVariant(workload, line, index) {
  if (!workload.variantParam) return undefined;
  const name = workload.variantParam;
  return parseParam(workload, name, workload.params[name], line.trim(), `the variant of repetition ${index} (${name}, from stdin)`);
}

/**
 * One repetition's clock and the phases around it, as protocol 2 accounts for them: `prepare_ns`
 * (from the repetition's start to its clock), `ns` with the CPU time of the timed region,
 * `checksum_ns`, and `cleanup_ns`. A workload's runOnce(repetition) starts and stops the clock
 * itself, since only it knows where its work begins and ends.
 */
export class Repetition {
  constructor(index, params, kernel, begunNs = nowNs()) {
    this.index = index;
    this.params = params;
    this.kernel = kernel;
    this.extra = {};
    this.begunNs = begunNs;
  }

  /**
   * Starts the clock, then reads the CPU time: process.cpuUsage() is getrusage(RUSAGE_SELF), every
   * thread of the process, worker_threads included. Returns the clock's start (ns).
   */
  startClock() {
    this.startNs = nowNs();
    this.cpuStart = process.cpuUsage();
    this.extra.prepare_ns = this.startNs - this.begunNs;
    return this.startNs;
  }

  /** Reads the CPU time, then stops the clock; returns `ns`. */
  stopClock() {
    const cpu = process.cpuUsage(this.cpuStart);
    this.ns = nowNs() - this.startNs;
    this.extra.cpu_user_ns = cpu.user * 1000;
    this.extra.cpu_sys_ns = cpu.system * 1000;
    return this.ns;
  }

  /** Times the checksum (after the clock): `checksum_ns`. */
  async checksum(compute) {
    const start = nowNs();
    const value = await compute();
    this.extra.checksum_ns = nowNs() - start;
    return value;
  }

  /** Times work after the checksum and the ceiling (ending a ceiling's workers, dropping results): `cleanup_ns`. */
  async cleanup(work) {
    const start = nowNs();
    const value = await work();
    this.extra.cleanup_ns = (this.extra.cleanup_ns ?? 0) + nowNs() - start;
    return value;
  }

  /**
   * `extra.busy` from what each worker reported (`busyStartNs`, `busyEndNs` from BusyInterval,
   * the same machine-wide monotonic clock as this one), relative to the clock's start; a worker
   * that processed nothing has no interval.
   */
  recordBusy(results) {
    this.extra.busy = results
      .map((result, worker) => [worker, result.busyStartNs, result.busyEndNs])
      .filter(([, start]) => start !== undefined)
      .map(([worker, start, end]) => [worker, start - this.startNs, end - this.startNs]);
  }
}

/**
 * A worker's (or a lane's) busy interval: from the start of its first chunk to the end of its
 * last. process.hrtime is CLOCK_MONOTONIC, one clock for every thread; performance.now() is
 * not (its origin differs per worker thread).
 */
export class BusyInterval {
  begin() {
    const now = nowNs();
    if (this.busyStartNs === undefined) this.busyStartNs = now;
  }

  end() {
    this.busyEndNs = nowNs();
  }

  /** The fields Repetition.recordBusy reads; empty when no chunk was processed. */
  toJSON() {
    return this.busyStartNs === undefined ? {} : { busyStartNs: this.busyStartNs, busyEndNs: this.busyEndNs };
  }
}

/** A repetition's params: the base ones with the workload's variant param replaced by its variant. */
export function paramsOf(workload, params, variant) {
  return variant === undefined ? params : { ...params, [workload.variantParam]: variant };
}

/**
 * Runs one repetition from its variant line (read before, outside every phase) and returns its
 * line's fields: {ns, items, checksum, extra}. Deriving its params from the line is `prepare_ns`.
 */
export async function runRepetition(workload, session, { params, workers, start, kernel }, index, variantLine) {
  const begunNs = nowNs();
  const repetition = new Repetition(index, paramsOf(workload, params, parseVariant(workload, variantLine, index)), kernel, begunNs);
  const result = await session.runOnce(repetition);
  const extra = { ...(workers !== undefined ? { workers } : {}), ...(start !== undefined ? { start } : {}), ...result.extra, ...repetition.extra };
  if (kernel !== undefined) Object.assign(extra, { kernel, kernel_detail: workload.kernelDetail(kernel, repetition.params) });
  return { ns: repetition.ns, items: result.items, checksum: String(result.checksum), extra };
}

/**
 * The ready line, once, after the arguments are checked and the inputs loaded (and, warm, the
 * workers made: `start_ns`, which the session measured), before the first variant is read.
 */
export function readyLine({ workers, start }, session) {
  const line = { ready: start ?? 'none' };
  if (start === 'warm') line.start_ns = Math.round(session.startNs);
  if (workers !== undefined) line.extra = { workers };
  return line;
}

/**
 * Repetition j's line, `{"rep":j,...}`: every repetition prints one (protocol 4: no warm-up lines;
 * which repetitions were warm-ups is the harness's decision). Pipes and files are synchronous on Linux.
 */
export function printLine(index, result) {
  const line = { rep: index, ns: Math.round(result.ns), items: result.items, checksum: result.checksum, extra: result.extra };
  process.stdout.write(JSON.stringify(line) + '\n');
}

/**
 * Prints the ready line, then runs one repetition per variant line read from stdin, one JSON line
 * each, until stdin ends (protocol 4: the process never knows how many repetitions there will be,
 * nor which are timed). `session` is what a workload's prepare() returns: {runOnce(repetition),
 * close(), startNs (warm)}; it is closed at end of file.
 */
export async function runRepetitions(workload, session, invocation, lines = new StdinLines()) {
  try {
    process.stdout.write(JSON.stringify(readyLine(invocation, session)) + '\n');
    for (let index = 0; ; index++) {
      const variantLine = lines.next();
      if (variantLine === null) break; // end of file: the launcher wants no further repetition
      printLine(index, await runRepetition(workload, session, invocation, index, variantLine));
    }
  } finally {
    await session.close?.();
  }
}

/** Maps an error to the protocol's exit code; returns the code. */
export function reportFailure(error) {
  if (error instanceof UsageError) {
    process.stderr.write(error.message + '\n');
    return 2;
  }
  if (error instanceof LimitError) {
    process.stdout.write(JSON.stringify({ error: 'limit', detail: error.message }) + '\n');
    return 3;
  }
  process.stderr.write((error && error.stack) || String(error));
  process.stderr.write('\n');
  return 1;
}
