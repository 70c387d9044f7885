/**
 * The bench's yardstick: a bare Express 5 app that answers one route with fixed JSON bytes from
 * memory (BODY_FILE), in its own process as the real server is.
 */
import fs from 'node:fs';
import express from 'express';

const body = fs.readFileSync(process.env.BODY_FILE!);
const app = express();
app.get('/bare', (_req, res) => {
  res.type('application/json').send(body);
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
