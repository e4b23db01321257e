/**
 * An upload's body as a stream of its own, for storage (issue 19, item 1).
 *
 * Why: a storage pipeline that fails (a size limit passed mid-body, a part of the wrong size, a
 * storage error) destroys its source; destroying the request itself destroys its socket, so the
 * refusal was never written and, behind the gateway, the client got a 503. Destroying this view
 * leaves the request open and discarding what still comes (as node does with a body nobody
 * reads), and the service's HTTP server bounds that discarding in bytes and time once the refusal
 * is written (platform http-bounds.ts). Reading starts when storage first reads: a refusal before
 * that reads nothing.
 *
 * A client that goes away mid-body fails the view with the request's own error (`aborted`), or
 * `aborted` when the request only closes: storage sees it as before.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

const HIGH_WATER_MARK = 256 * 1024;

/** The body of `req` for storage; see the module comment. */
export class RequestBody extends Readable {
  private attached = false;

  constructor(private readonly req: IncomingMessage) {
    super({ highWaterMark: HIGH_WATER_MARK });
  }

  private readonly onData = (chunk: Buffer): void => {
    if (!this.push(chunk)) this.req.pause();
  };
  private readonly onEnd = (): void => {
    this.push(null);
  };
  private readonly onError = (err: Error): void => {
    this.destroy(err);
  };
  private readonly onClose = (): void => {
    if (!this.req.complete) this.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
  };

  override _read(): void {
    const req = this.req;
    if (!this.attached) {
      this.attached = true;
      if (req.readableEnded) {
        this.push(null);
        return;
      }
      req.on('data', this.onData);
      req.on('end', this.onEnd);
      req.on('error', this.onError);
      req.on('close', this.onClose);
    }
    req.resume();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const req = this.req;
    req.removeListener('data', this.onData);
    req.removeListener('end', this.onEnd);
    req.removeListener('error', this.onError);
    req.removeListener('close', this.onClose);
    // Why resume, not pause: a paused body would hold the connection until a timeout on a server
    // without the platform's drain; with it, the drain counts from the answer on.
    if (!req.complete) req.resume();
    cb(err);
  }
}
