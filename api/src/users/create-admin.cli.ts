/**
 * `npm run user:create-admin -- --email ops@company.so --name "Ops Lead"`: makes a super admin
 * on the configured database (the way to get the first admin in production, where no demo
 * data is seeded). The password comes from ADMIN_PASSWORD or is asked for without echo.
 */
import { parseArgs } from 'node:util';
import readline from 'node:readline';
import { connectDatabase, migrateAndSeed } from '../database/connection.ts';
import { createUserSchema } from '@app/contracts';
import { createUser, prepareUserInput } from './user.service.ts';
import { systemContext, transact } from '../platform/context.ts';
import { configureIds } from '../http/ids.ts';
import { loadConfig } from '../config.ts';
import { installPasswordPolicy } from '../auth/common-passwords.ts';
import { SUPER_ADMIN_ROLE } from '@app/contracts';
import { initServerI18n, translator, translateMessage } from '../i18n/server-i18n.ts';

function askHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    const output = rl as unknown as { _writeToOutput: (s: string) => void; output: NodeJS.WriteStream };
    output._writeToOutput = (s: string) => {
      if (s.includes(question)) output.output.write(s);
    };
    rl.question(question, (answer) => {
      rl.close();
      process.stdout.write('\n');
      resolve(answer);
    });
  });
}

async function main() {
  const { values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email || !values.name) {
    console.error('Usage: npm run user:create-admin -- --email <email> --name "<name>"  (password from ADMIN_PASSWORD or prompted)');
    process.exit(2);
  }
  const password = process.env.ADMIN_PASSWORD ?? (await askHidden('Password: '));
  initServerI18n();
  installPasswordPolicy();
  configureIds(loadConfig().appKey);
  const t = translator('en');
  const parsed = createUserSchema.safeParse({
    name: values.name,
    email: values.email,
    password,
    password_confirmation: password,
    user_type: 'admin',
    role_id: 1,
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`${issue.path.join('.')}: ${translateMessage(t, issue.message)}`);
    process.exit(2);
  }
  const db = connectDatabase();
  try {
    await migrateAndSeed(db, { seedDemo: false });
    // The same user service as the console, acting as the system (which may grant super-admin).
    const ctx = systemContext({ db: db.knex });
    const input = await prepareUserInput({ ...parsed.data, user_type: 'admin' as const });
    await transact(ctx, (tctx) => createUser(tctx, { ...input, role_name: SUPER_ADMIN_ROLE }, { verified: true }));
    console.log(`Super admin ${parsed.data.email} created.`);
  } catch (err) {
    const fields = (err as { errors?: Record<string, string[]> }).errors;
    if (!fields) throw err;
    for (const [field, messages] of Object.entries(fields)) for (const m of messages) console.error(`${field}: ${translateMessage(t, m)}`);
    process.exitCode = 2;
  } finally {
    await db.knex.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
