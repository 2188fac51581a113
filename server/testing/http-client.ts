/** A keep-alive JSON client for tests and benchmarks that send many requests. */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export interface Posted {
  status: number;
  body: Record<string, unknown>;
}

export function postRaw(url: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Record<string, unknown> = {};
        try { parsed = JSON.parse(text); } catch { parsed = { text }; }
        resolve({ status: response.statusCode ?? 0, body: parsed });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

export const postJson = (url: string, value: unknown, headers: Record<string, string> = {}) =>
  postRaw(url, JSON.stringify(value), { 'content-type': 'application/json', ...headers });

/** Runs `task` over `items` with at most `concurrency` in flight. */
export async function inBatches<T, R>(items: T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  }));
  return results;
}
