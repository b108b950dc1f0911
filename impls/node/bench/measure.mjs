/** Shared by the bench scripts: best-of and quartile timings of a function, in process CPU time and wall time. */

/** Runs `body` `runs` times; returns the lowest quartile of its CPU time and of its wall time, in ms. */
export function timeIt(body, runs = 15) {
  const cpu = [];
  const wall = [];
  for (let run = 0; run < runs; run++) {
    const cpuStart = process.cpuUsage();
    const wallStart = process.hrtime.bigint();
    body();
    wall.push(Number(process.hrtime.bigint() - wallStart) / 1e6);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1e3);
  }
  const quartile = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 4)];
  return { cpu: quartile(cpu), wall: quartile(wall) };
}

/** One line: name, then the timing and a rate over `bytes`. */
export function report(name, { cpu, wall }, bytes) {
  const rate = bytes ? `  ${(bytes / 1e6 / (wall / 1e3)).toFixed(0).padStart(6)} MB/s (wall)` : '';
  console.log(`${name.padEnd(34)} cpu ${cpu.toFixed(2).padStart(8)} ms   wall ${wall.toFixed(2).padStart(8)} ms${rate}`);
}
