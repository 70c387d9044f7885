import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { consoleStatic, IMMUTABLE } from './console-static.ts';
import { redactQuerySecrets } from '../app.ts';

/**
 * The console's built files over real HTTP (console-static.ts): brotli or gzip as the browser
 * accepts, with Content-Encoding and Vary; the build's .br/.gz used when present, others
 * compressed on the fly; hashed assets immutable, the page no-cache; client routes get the page.
 */
let dist: string;
let server: http.Server;
let base: string;

const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word number ${i}`))};\n`;
const STYLE = `${Array.from({ length: 200 }, (_, i) => `.c${i} { color: red; margin: ${i}px; }`).join('\n')}\n`;
const PAGE = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body>${'<!-- pad -->'.repeat(200)}<div id="root"></div></body></html>`;

/** A raw GET: no client-side decompression, so the bytes on the wire are what is checked. */
function get(urlPath: string, headers: Record<string, string> = {}, at = base) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(`${at}${urlPath}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'console-dist-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), PAGE);
  // As admin/vite.config.ts's precompress() writes them.
  fs.writeFileSync(path.join(dist, 'index.html.br'), zlib.brotliCompressSync(PAGE));
  fs.writeFileSync(path.join(dist, 'index.html.gz'), zlib.gzipSync(PAGE));
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), SCRIPT);
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.br'), zlib.brotliCompressSync(SCRIPT));
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.gz'), zlib.gzipSync(SCRIPT));
  // No precompressed copies: compressed by the server.
  fs.writeFileSync(path.join(dist, 'assets', 'style-def456.css'), STYLE);
  fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(os.tmpdir(), 'outside-console.txt'), 'secret');
  const app = express();
  app.use('/api', (_req, res) => res.status(404).json({ success: false }));
  app.use(consoleStatic(dist));
  app.use((_req, res) => res.status(404).type('text').send('Not found'));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('the console served compressed', () => {
  it('sends a hashed script in brotli when the browser takes it, immutable for a year', async () => {
    const res = await get('/assets/index-abc123.js', { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.body.length).toBeLessThan(SCRIPT.length / 3);
    expect(zlib.brotliDecompressSync(res.body).toString()).toBe(SCRIPT);
  });

  it('sends gzip to a browser without brotli, and the plain file to one taking neither', async () => {
    const gz = await get('/assets/index-abc123.js', { 'Accept-Encoding': 'gzip, deflate' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(zlib.gunzipSync(gz.body).toString()).toBe(SCRIPT);

    const plain = await get('/assets/index-abc123.js', { 'Accept-Encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(plain.body.toString()).toBe(SCRIPT);
  });

  it('compresses a file the build left plain, on the fly', async () => {
    for (const [accept, encoding, decode] of [
      ['br', 'br', zlib.brotliDecompressSync],
      ['gzip', 'gzip', zlib.gunzipSync],
    ] as const) {
      const res = await get('/assets/style-def456.css', { 'Accept-Encoding': accept });
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-type']).toMatch(/text\/css/);
      expect(res.headers['cache-control']).toBe(IMMUTABLE);
      expect(decode(res.body).toString()).toBe(STYLE);
    }
  });

  it('sends the page compressed and never cached without revalidation, for / and client routes', async () => {
    for (const route of ['/', '/dashboard', '/recharges/12/show', '/index.html']) {
      const res = await get(route, { 'Accept-Encoding': 'gzip, deflate, br', Accept: 'text/html' });
      expect(res.status, route).toBe(200);
      expect(res.headers['content-encoding'], route).toBe('br');
      expect(res.headers['vary'], route).toMatch(/Accept-Encoding/i);
      expect(res.headers['cache-control'], route).toBe('no-cache');
      expect(res.headers['content-type'], route).toMatch(/text\/html/);
      expect(zlib.brotliDecompressSync(res.body).toString(), route).toBe(PAGE);
    }
  });

  it('leaves tiny files plain, and answers 404 for a missing hash, a path outside the build and the .br files themselves', async () => {
    const icon = await get('/favicon.svg', { 'Accept-Encoding': 'br' });
    expect(icon.status).toBe(200);
    expect(icon.headers['content-encoding']).toBeUndefined();
    expect(icon.headers['cache-control']).toBe('no-cache');

    expect((await get('/assets/index-000000.js', { Accept: '*/*' })).status).toBe(404);
    expect((await get('/assets/index-abc123.js.br', { Accept: 'application/javascript' })).status).toBe(404);
    expect((await get('/%2e%2e/outside-console.txt', { Accept: 'text/plain' })).status).toBe(404);
    expect((await get('/api/v1/nothing', { Accept: 'application/json' })).status).toBe(404);
  });

  it('answers a path under a file, or one too long for the file system, without a server error', async () => {
    for (const odd of ['/index.html/x', '/assets/index-abc123.js/more', `/${'a'.repeat(300)}/${'b'.repeat(300)}.js`]) {
      const res = await get(odd, { Accept: 'text/html' });
      expect(res.status, odd).toBeLessThan(500);
    }
  });
});

describe('the logs', () => {
  it("never show a set-password link's token or the SMS callbacks' secret", () => {
    expect(redactQuerySecrets('/api/v1/auth/reset-password?token=abc123&x=1')).toBe('/api/v1/auth/reset-password?token=[redacted]&x=1');
    expect(redactQuerySecrets('/api/v1/sms/inbound?secret=s3cr3t')).toBe('/api/v1/sms/inbound?secret=[redacted]');
    expect(redactQuerySecrets('/reset?lng=so&TOKEN=abc#x')).toBe('/reset?lng=so&TOKEN=[redacted]#x');
    expect(redactQuerySecrets('/api/v1/recharges?q=token')).toBe('/api/v1/recharges?q=token');
  });
});

describe('the console translations served compressed by the real app', () => {
  let h: Harness;
  let appServer: http.Server;
  beforeAll(async () => {
    h = await createHarness();
    appServer = h.app.listen(0, '127.0.0.1');
    await new Promise((r) => appServer.once('listening', r));
  });
  afterAll(async () => {
    await new Promise((r) => appServer.close(r));
    await h.close();
  });

  it('sends /locales/{lng}/{ns}.json in brotli or gzip with Vary, the same words once decoded', async () => {
    const plain = fs.readFileSync(path.join(PROJECT_ROOT, 'locales', 'en', 'admin.json'));
    const at = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const res = await get('/locales/en/admin.json', { 'Accept-Encoding': accept }, at);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
      expect(res.headers['content-type']).toMatch(/json/);
      expect(res.body.length).toBeLessThan(plain.length / 3);
      expect((encoding === 'br' ? zlib.brotliDecompressSync(res.body) : zlib.gunzipSync(res.body)).equals(plain)).toBe(true);
    }
  });
});
