// The container's and the compose file's health check (docs/deploy.md): exit 0 when this process
// answers PATH (default /api/v1/health/live) with a 2xx within 3 s, else 1. Plain node: the image
// needs no curl, and tsx is not loaded for a call made every few seconds.
//
//   node deploy/healthcheck.mjs [PATH]        (PORT as the server reads it, default 3000)
const path = process.argv[2] || '/api/v1/health/live';
const url = `http://127.0.0.1:${process.env.PORT || 3000}${path.startsWith('/') ? path : `/${path}`}`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  if (!res.ok) console.error(`${url}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  console.error(`${url}: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
