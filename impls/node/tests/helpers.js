/** Runs one model of a workload in-process, the way the protocol's run does, and returns its result. */
export async function runModel(workload, model, params, workers = 2) {
  const withDefaults = { ...params };
  for (const [name, spec] of Object.entries(workload.params)) {
    if (!(name in withDefaults)) withDefaults[name] = spec.default;
  }
  const session = await workload.prepare({ model, params: withDefaults, workers: workload.models[model].workers ? workers : undefined });
  try {
    return await session.runOnce();
  } finally {
    await session.close?.();
  }
}
