// Wait until every host:port answers a TCP connect (migration Jobs' init container, in the image
// as dist/wait-for.js). Usage: node wait-for.js host:port [host:port …] [--timeout=300]
// Exits 0 once all are reachable, 1 after the timeout (seconds).
import { connect } from 'node:net';

const args = process.argv.slice(2);
const timeoutS = Number(args.find((a) => a.startsWith('--timeout='))?.slice(10) ?? 300);
const targets = args.filter((a) => !a.startsWith('--'));
const deadline = Date.now() + timeoutS * 1000;

const reachable = (host, port) =>
  new Promise((done) => {
    const socket = connect({ host, port, timeout: 2000 });
    const finish = (ok) => {
      socket.destroy();
      done(ok);
    };
    socket.once('connect', () => finish(true));
    socket.once('timeout', () => finish(false));
    socket.once('error', () => finish(false));
  });

for (const target of targets) {
  const i = target.lastIndexOf(':');
  const host = target.slice(0, i);
  const port = Number(target.slice(i + 1));
  while (!(await reachable(host, port))) {
    if (Date.now() > deadline) {
      console.error(`wait-for: ${target} not reachable after ${timeoutS} s`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.error(`wait-for: ${target} reachable`);
}
