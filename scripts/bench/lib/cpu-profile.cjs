/**
 * Preload (`NODE_OPTIONS=--require <this file>`, which node 20 allows where it refuses
 * `--cpu-prof`) that CPU-profiles the whole process and writes
 * `<RDM_CPU_PROF_DIR>/<pid>.cpuprofile` (Chrome DevTools / speedscope format) when the process
 * receives SIGTERM or exits. Used by benches to profile the processes of a stack they start
 * (files-upload.bench.ts, BENCH_GATEWAY_PROF=1). Nothing is written without RDM_CPU_PROF_DIR.
 */
const dir = process.env.RDM_CPU_PROF_DIR;
if (dir) {
  const { Session } = require('node:inspector');
  const { mkdirSync, writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    // Why synchronous: an in-thread inspector session answers within post(), so this works in 'exit'.
    session.post('Profiler.stop', (err, res) => {
      if (err || !res) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  };
  process.once('SIGTERM', write);
  process.once('exit', write);
}
