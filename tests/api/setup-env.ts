// Runs before every API test file: a non-UTC zone catches date bugs; logs stay quiet.
process.env.TZ = 'Africa/Mogadishu';
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'silent';
// The per-address ceiling (1200/min) would cut the route matrix short: every test comes from 127.0.0.1.
process.env.API_RATE_LIMIT_PER_MINUTE ??= '1000000';
// The storefront's per-session ceiling (120/min) likewise: a test's purchases share one session.
process.env.STOREFRONT_SESSION_LIMIT_PER_MINUTE ??= '1000000';
// Every answer of an API route is checked against its OpenAPI operation (api/src/openapi/contract-check.ts).
process.env.API_CONTRACT_CHECK ??= '1';
// Shared limits only where a test asks for them (it passes its own REDIS_URL): no app opens a Redis connection by accident.
delete process.env.REDIS_URL;
