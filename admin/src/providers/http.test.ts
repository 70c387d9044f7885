import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiFetch } from './http';
import { getToken, isLocked, startSession, clearSession } from './session';
import { mockFetch } from '../test/fetchMock';

const fail = (status: number, body?: unknown) => ({ status, body });

async function errorOf(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    return e as { message: string; status: number; body: { errors?: Record<string, string>; message?: string } };
  }
  throw new Error('expected a rejection');
}

describe('error catalogue (docs/product.md section 8)', () => {
  beforeEach(() => startSession('tok', { id: 1, name: 'A', email: 'a@x.so' }, false));
  afterEach(() => {
    clearSession();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('times out after 30 s with the timeout message', async () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise((_res, rej) => init.signal!.addEventListener('abort', () => rej(new DOMException('aborted', 'AbortError')))),
      ),
    );
    const p = errorOf(apiFetch('/users'));
    await vi.advanceTimersByTimeAsync(29_999);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toMatchObject({ status: 0, message: 'Request timeout exceeded. Please try again.' });
  });

  it('maps a network failure', async () => {
    mockFetch([new TypeError('Failed to fetch')]);
    expect(await errorOf(apiFetch('/users'))).toMatchObject({ status: 0, message: 'Network error. Please check your connection.' });
  });

  it('passes the server message on for a 401 on login, else the fallback, and keeps the session', async () => {
    mockFetch([fail(401, { success: false, message: 'Invalid email or password.' }), fail(401)]);
    expect((await errorOf(apiFetch('/auth/admin/login', { method: 'POST', isLogin: true }))).message).toBe('Invalid email or password.');
    expect((await errorOf(apiFetch('/auth/admin/login', { method: 'POST', isLogin: true }))).message).toBe(
      'Authentication failed. Please check your credentials.',
    );
    expect(getToken()).toBe('tok');
  });

  it('a 401 elsewhere clears the session with the session-expired message', async () => {
    mockFetch([fail(401, { success: false, message: 'Unauthenticated.' })]);
    expect(await errorOf(apiFetch('/users'))).toMatchObject({ status: 401, message: 'Your session has expired. Please login again.' });
    expect(getToken()).toBeNull();
  });

  it.each([
    [403, { message: 'nope' }, 'You do not have permission to perform this action.'],
    [404, { message: 'x' }, 'The requested resource was not found.'],
    [500, { message: 'stack' }, 'Server error. Please try again later.'],
    [503, undefined, 'Server error. Please try again later.'],
    [409, { message: 'Conflict here' }, 'Conflict here'],
    [429, undefined, 'An unexpected error occurred.'],
  ])('status %i gives its catalogue message', async (status, body, message) => {
    mockFetch([fail(status, body)]);
    expect((await errorOf(apiFetch('/users'))).message).toBe(message);
  });

  it('422 keeps the server message and the first message per field', async () => {
    mockFetch([
      fail(422, {
        success: false,
        message: 'The given data was invalid.',
        errors: { email: ['Email is required', 'x'], dealer_logo: ['Dealer logo is required for new dealer accounts'] },
      }),
      fail(422, {}),
    ]);
    const e = await errorOf(apiFetch('/users', { method: 'POST', body: {} }));
    expect(e.message).toBe('The given data was invalid.');
    expect(e.body.errors).toEqual({ email: 'Email is required', dealer_logo: 'Dealer logo is required for new dealer accounts' });
    expect((await errorOf(apiFetch('/users', { method: 'POST', body: {} }))).message).toBe('Validation failed. Please check your inputs.');
  });

  it('a 423 marks the session locked', async () => {
    mockFetch([fail(423, { success: false, message: 'Session locked' })]);
    await errorOf(apiFetch('/users'));
    expect(isLocked()).toBe(true);
  });
});
