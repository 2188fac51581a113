/**
 * The web app's files over real HTTP: a build compressed by the Vite plugin's own function,
 * served by registerStatic. Browsers that accept brotli or gzip get the compressed bytes
 * with the right headers; hashed assets are cached for a year, index.html never without asking.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../scripts/vite-precompress.ts';
import { IMMUTABLE, registerStatic, REVALIDATE } from './static.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** node:http rather than fetch: fetch would undo the compression this test looks at. */
function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject).end();
  });
}

describe('the web app files', () => {
  const root = mkdtempSync(join(tmpdir(), 'onceflow-web-'));
  const script = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, index) => `step ${index} is safe to repeat`))};\n`;
  const page = `<!doctype html><html lang="en"><head><title>Onceflow</title><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body>${'<div id="root"></div>'.repeat(80)}</body></html>`;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), page);
    writeFileSync(join(root, 'assets', 'index-Ab12Cd34.js'), script);
    await precompress(root);
    app = Fastify();
    await registerStatic(app, root);
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('sends the brotli copy made at build time to a browser that accepts it, cached for a year', async () => {
    const answer = await get(`${base}/assets/index-Ab12Cd34.js`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(answer.headers.vary).toMatch(/accept-encoding/i);
    expect(answer.headers['cache-control']).toBe(IMMUTABLE);
    expect(answer.body.equals(readFileSync(join(root, 'assets', 'index-Ab12Cd34.js.br')))).toBe(true);
    expect(answer.body.length).toBeLessThan(script.length / 4);
    expect(brotliDecompressSync(answer.body).toString()).toBe(script);
  });

  it('sends the gzip copy to a browser without brotli, and the file itself to one that asks for neither', async () => {
    const gzipped = await get(`${base}/assets/index-Ab12Cd34.js`, { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['cache-control']).toBe(IMMUTABLE);
    expect(gunzipSync(gzipped.body).toString()).toBe(script);

    const plain = await get(`${base}/assets/index-Ab12Cd34.js`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe(IMMUTABLE);
    expect(plain.body.toString()).toBe(script);
  });

  it('never lets index.html be cached without asking, compressed or not, at / or at a page address', async () => {
    for (const path of ['/', '/index.html', '/flows/flow_1', '/runs']) {
      const answer = await get(`${base}${path}`, { 'accept-encoding': 'br, gzip' });
      expect(answer.status, path).toBe(200);
      expect(answer.headers['cache-control'], path).toBe(REVALIDATE);
      expect(answer.headers['cache-control'], path).not.toMatch(/immutable|max-age=[1-9]/);
      const text = answer.headers['content-encoding'] === 'br' ? brotliDecompressSync(answer.body).toString() : answer.body.toString();
      expect(text, path).toBe(page);
    }
  });

  it('answers a missing asset with 404 instead of index.html', async () => {
    const answer = await get(`${base}/assets/index-Gone0000.js`, { 'accept-encoding': 'br' });
    expect(answer.status).toBe(404);
    expect(answer.headers['cache-control']).toBeUndefined();
  });
});
