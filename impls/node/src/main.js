/** Entry point of `impls/node/run`: answers `--list` or runs one workload case. */
import { batchJob } from './workloads/batch_job.js';
import { coroutineSwarm } from './workloads/coroutine_swarm.js';
import { clusterWorker, echoServer } from './workloads/echo_server.js';
import { keygen, STRONG_SOURCE } from './workloads/keygen.js';
import { noop } from './workloads/noop.js';
import { sdesEcb } from './workloads/sdes_ecb.js';
import { spawnChain } from './workloads/spawn_chain.js';
import { parseInvocation, publicParams, reportFailure, runRepetitions, UsageError } from './protocol.js';

const WORKLOADS = [noop, keygen, sdesEcb, batchJob, spawnChain, coroutineSwarm, echoServer];
const BY_NAME = new Map(WORKLOADS.map((workload) => [workload.name, workload]));

// V8 and libuv settings the cases depend on; each case adds its own under `extra`.
const RUNTIME_FLAGS = `node ${process.version}, V8 ${process.versions.v8}, default heap limits, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`;

function describe() {
  const workloads = {};
  for (const workload of WORKLOADS) {
    workloads[workload.name] = { params: publicParams(workload), models: workload.models };
    if (workload.kernels) workloads[workload.name].kernels = workload.kernels;
    if (workload.modelsUnavailable) workloads[workload.name].models_unavailable = workload.modelsUnavailable;
  }
  return {
    runtime: 'node',
    version: `node ${process.version}`,
    flags: RUNTIME_FLAGS,
    sources: { strong: STRONG_SOURCE },
    workloads,
  };
}

async function main(argv) {
  if (argv.length === 1 && argv[0] === '--list') {
    process.stdout.write(JSON.stringify(describe()) + '\n');
    return 0;
  }
  // A node:cluster worker of echo-server's cluster model, forked with these arguments by its primary.
  if (argv[0] === 'echo-server-worker') return clusterWorker(Number(argv[1]), Number(argv[2])).then(() => 0);
  const [name, ...rest] = argv;
  const workload = BY_NAME.get(name);
  if (!workload) throw new UsageError(`unknown workload '${name ?? ''}'; valid: ${[...BY_NAME.keys()].join(', ')} (or --list)`);
  const invocation = parseInvocation(workload, rest);
  if (workload.serve) return workload.serve(invocation).then(() => 0);
  const session = await workload.prepare(invocation);
  await runRepetitions(workload, session, invocation);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  // Exit at once: after a limit, worker threads may still be alive and would keep the process up.
  (error) => { process.exit(reportFailure(error)); },
);
