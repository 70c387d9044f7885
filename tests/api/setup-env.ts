// Runs before every API test file: a non-UTC zone catches date bugs; logs stay quiet.
process.env.TZ = 'Africa/Mogadishu';
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'silent';
