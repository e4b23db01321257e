/**
 * The members of a tar stream, read with tar-stream one at a time (memory flat in the archive's
 * size): each file member is handed to a mapping as a byte stream, in archive order, and whatever
 * the mapping does not read is skipped.
 *
 * When to use: an importer whose source is a tar (ORCID summaries, the OpenAIRE Graph's parts).
 */
import type { Readable } from 'node:stream';
import tar, { type Header } from 'tar-stream';

/** The members of a tar stream (`input`), each handed to `each` as a byte stream, in order. */
export async function* tarMembers<T>(
  input: AsyncIterable<Buffer>,
  each: (name: string, body: AsyncIterable<Buffer>) => AsyncIterable<T> | undefined,
): AsyncGenerator<T> {
  const extract = tar.extract();
  const feed = (async () => {
    try {
      for await (const chunk of input) {
        if (extract.destroyed) return;
        if (!extract.write(chunk)) {
          await new Promise<void>((r) => {
            const done = () => {
              extract.off('drain', done);
              extract.off('close', done);
              r();
            };
            extract.once('drain', done);
            extract.once('close', done);
          });
        }
      }
      if (!extract.destroyed) extract.end(() => undefined);
    } catch (err) {
      extract.destroy(err as Error);
    }
  })();
  try {
    for await (const member of extract as unknown as AsyncIterable<Readable & { header: Header }>) {
      const out = member.header.type === 'file' ? each(member.header.name, member) : undefined;
      if (out) yield* out;
      member.resume();
    }
  } finally {
    extract.destroy();
    await feed;
  }
}
