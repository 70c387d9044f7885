import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { ApiRouter } from '../http/api-router.ts';
import { AppError, conflict, notFound } from '../http/errors.ts';
import { errorHandler } from '../http/error-handler.ts';
import { sendCsv } from '../http/csv.ts';
import { translator } from '../i18n/server-i18n.ts';
import { OpenApiRegistry } from './registry.ts';
import { contractCheckEnabled } from './contract-check.ts';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';

/**
 * The contract check the API suite runs with (tests/api/setup-env.ts): a route's answer that its
 * OpenAPI operation does not declare becomes a 500 "contract violation: …" naming the route,
 * the status and the problem; an answer that matches goes through untouched.
 */
let h: Harness;
// The routes' handlers get a service context on the real database.
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const thing = z.object({ id: z.number().int(), name: z.string() });

function app() {
  const registry = new OpenApiRegistry();
  const api = new ApiRouter(registry, '/things', 'Things');
  const open = { summary: 'A thing', auth: 'public' as const, response: thing };
  api.get('/ok', open, async () => ({ data: { id: 1, name: 'a' } }));
  api.get('/extra', open, async () => ({ data: { id: 1, name: 'a', secret: 'x' } }));
  api.get('/wrong-type', open, async () => ({ data: { id: '1', name: 'a' } }));
  api.get('/created', open, async () => ({ status: 201, data: { id: 1, name: 'a' } }));
  api.get('/conflict', open, async () => {
    throw conflict('api:errors.duplicate');
  });
  api.get('/declared-conflict', { ...open, errors: { 409: 'Taken' } }, async () => {
    throw conflict('api:errors.duplicate');
  });
  api.get('/uncoded', open, async (_req, _ctx, res) => {
    res.status(500).json({ success: false, message: 'no code' });
  });
  api.get('/csv', open, async (_req, _ctx, res) => sendCsv(res, 'x.csv', ['a'], [[1]]));
  api.get('/csv-declared', { ...open, response: null, downloads: ['text/csv'] }, async (_req, _ctx, res) => sendCsv(res, 'x.csv', ['a'], [[1]]));
  api.get('/:id', open, async () => {
    throw notFound();
  });
  const server = express();
  server.use((req, _res, next) => {
    req.t = translator('en');
    next();
  });
  server.use('/api/v1/things', api.router);
  server.use(errorHandler);
  return request(server);
}

describe('the contract check', () => {
  it('is on in the API test suite', () => {
    expect(contractCheckEnabled()).toBe(true);
  });

  it('lets through an answer its operation declares: a success, a declared error, a path id 404, a declared CSV', async () => {
    const http = app();
    expect((await http.get('/api/v1/things/ok')).body).toEqual({ success: true, data: { id: 1, name: 'a' } });
    const taken = await http.get('/api/v1/things/declared-conflict');
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ success: false, code: 'duplicate' });
    expect((await http.get('/api/v1/things/7')).status).toBe(404);
    const csv = await http.get('/api/v1/things/csv-declared');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
  });

  it.each([
    ['/extra', 'properties the schema does not declare: .data.secret'],
    ['/wrong-type', 'data.id'],
    ['/created', 'status 201 is not declared'],
    ['/conflict', 'status 409 is not declared'],
    ['/uncoded', 'code'],
    ['/csv', 'text/csv is not among its downloads'],
  ])('turns %s into a 500 naming the violation', async (path, issue) => {
    const res = await app().get(`/api/v1/things${path}`);
    expect(res.status).toBe(500);
    expect(res.body.message).toContain(`contract violation: GET /things${path}`);
    expect(res.body.message).toContain(issue);
    expect(res.body.code).toBe('server.error');
  });

  it('checks the thrown errors too, whatever their status', async () => {
    const registry = new OpenApiRegistry();
    const api = new ApiRouter(registry, '/x', 'X');
    api.get('/', { summary: 'Nothing', auth: 'public', response: null }, async () => {
      throw new AppError(418, 'api:errors.bad_request');
    });
    const server = express();
    server.use((req, _res, next) => {
      req.t = translator('en');
      next();
    });
    server.use('/api/v1/x', api.router);
    server.use(errorHandler);
    const res = await request(server).get('/api/v1/x');
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('status 418 is not declared');
  });
});
