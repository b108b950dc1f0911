/** The harness protocol: command-line parsing, timing, JSON lines and exit codes (docs/protocol.md). */
import os from 'node:os';

/** Bad arguments: exit 2 with one line on stderr. */
export class UsageError extends Error {}

/** A resource limit stopped the work: exit 3 after a JSON line carrying the runtime's own message. */
export class LimitError extends Error {}

const PROTOCOL_OPTIONS = new Set(['model', 'workers', 'warmup', 'repeat']);

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

function parseInteger(name, text, minimum, maximum = Number.MAX_SAFE_INTEGER) {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`--${name} must be an integer, got '${text}'`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new UsageError(`--${name} must be an integer in [${minimum}, ${maximum}], got '${text}'`);
  }
  return value;
}

/** Converts one param by its declared kind: int, uint64 (kept as BigInt), choice or string. */
function parseParam(workload, name, spec, text) {
  switch (spec.kind) {
    case 'int': return parseInteger(name, text, spec.minimum ?? 0, spec.maximum);
    case 'uint64':
      if (!/^\d+$/.test(text) || BigInt(text) >= 2n ** 64n) throw new UsageError(`--${name} must be an integer in [0, 2^64), got '${text}'`);
      return BigInt(text);
    case 'choice':
      if (!spec.choices.includes(text)) {
        throw new UsageError(`unknown ${name} '${text}' for ${workload.name}; valid: ${spec.choices.join(', ')}`);
      }
      return text;
    default: return text;
  }
}

/** Turns the arguments after the workload name into {model, params, workers, warmup, repeat}. */
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
    if (!spec) {
      const valid = Object.keys(workload.params).map((p) => `--${p.replaceAll('_', '-')}`);
      throw new UsageError(`unknown option --${option} for ${workload.name}; valid: ${[...valid, '--model', '--workers', '--warmup', '--repeat'].join(', ')}`);
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
    workers = options.workers === undefined ? defaultWorkers() : parseInteger('workers', options.workers, 1);
  } else if (options.workers !== undefined) {
    throw new UsageError(`model '${model}' of ${workload.name} takes no --workers`);
  }
  return {
    model,
    params,
    workers,
    warmup: options.warmup === undefined ? 0 : parseInteger('warmup', options.warmup, 0),
    repeat: options.repeat === undefined ? 1 : parseInteger('repeat', options.repeat, 1),
  };
}

/** One result line: {"rep","ns","items","checksum","extra"}; pipes and files are synchronous on Linux. */
export function printRepetition(rep, result) {
  const line = { rep, ns: Math.round(result.ns), items: result.items, checksum: String(result.checksum) };
  if (result.extra && Object.keys(result.extra).length > 0) line.extra = result.extra;
  process.stdout.write(JSON.stringify(line) + '\n');
}

/**
 * Runs the warm-up repetitions unprinted, then the timed ones, one JSON line each.
 * `session` is what a workload's prepare() returns: {runOnce(), close()}.
 */
export async function runRepetitions(session, { warmup, repeat, workers }) {
  try {
    for (let i = 0; i < warmup; i++) await session.runOnce();
    for (let rep = 0; rep < repeat; rep++) {
      const result = await session.runOnce();
      if (workers !== undefined) result.extra = { workers, ...result.extra };
      printRepetition(rep, result);
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
