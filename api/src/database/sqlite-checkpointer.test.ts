import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { startSqliteCheckpointer } from './sqlite-checkpointer.ts';

const Database = createRequire(import.meta.url)('better-sqlite3');

describe('the SQLite checkpoint thread', () => {
  it("copies what the server's connection wrote into the database file, while that connection never checkpoints", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkpointer-'));
    const file = path.join(dir, 'app.sqlite');
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      // The writer never checkpoints itself here: only the thread can move the pages.
      db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)');
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      for (let i = 0; i < 64; i++) insert.run(Buffer.alloc(32 * 1024, i));
      const before = fs.statSync(file).size;
      expect(before).toBeLessThan(64 * 1024);
      const errors: string[] = [];
      const checkpointer = startSqliteCheckpointer(file, { intervalMs: 20, onError: (m) => errors.push(m) });
      const deadline = Date.now() + 10_000;
      while (fs.statSync(file).size < 2 * 1024 * 1024 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // Writes go on while it works, and are not blocked by it.
      for (let i = 0; i < 8; i++) insert.run(Buffer.alloc(1024, i));
      await checkpointer.stop();
      expect(fs.statSync(file).size).toBeGreaterThanOrEqual(2 * 1024 * 1024);
      expect(db.prepare('SELECT COUNT(*) AS n FROM t').get().n).toBe(72);
      expect(errors).toEqual([]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
