/**
 * `npm run user:create-admin -- --email ops@company.so --name "Ops Lead"`: makes a super admin
 * on the configured database (the way to get the first admin in production, where no demo
 * data is seeded). The password comes from ADMIN_PASSWORD or is asked for without echo.
 */
import { parseArgs } from 'node:util';
import readline from 'node:readline';
import { connectDatabase, migrateAndSeed } from '../database/connection.ts';
import { createUserSchema } from '@app/contracts';
import { hashPassword } from '../auth/passwords.ts';
import { toDbTime } from '../database/time.ts';
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
  const t = translator('en');
  const parsed = createUserSchema.safeParse({ name: values.name, email: values.email, password, password_confirmation: password, user_type: 'admin', role_id: 1 });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`${issue.path.join('.')}: ${translateMessage(t, issue.message)}`);
    process.exit(2);
  }
  const db = connectDatabase();
  try {
    await migrateAndSeed(db, { seedDemo: false });
    if (await db.knex('users').where('email', parsed.data.email).first()) {
      console.error(`email: ${translateMessage(t, 'validation:email_taken')}`);
      process.exitCode = 2;
      return;
    }
    await db.knex.transaction(async (trx) => {
      const now = toDbTime();
      await trx('users').insert({ name: parsed.data.name, email: parsed.data.email, password: await hashPassword(password), user_type: 'admin', status: 'active', email_verified_at: now, created_at: now, updated_at: now });
      const user = await trx('users').where('email', parsed.data.email).first();
      const role = await trx('roles').where({ name: SUPER_ADMIN_ROLE, guard_name: 'web' }).first();
      await trx('user_roles').insert({ user_id: user.id, role_id: role.id });
      await trx('activity_log').insert({ action: 'created', subject_type: 'user', subject_id: user.id, description: 'Super admin created from the command line', created_at: now });
    });
    console.log(`Super admin ${parsed.data.email} created.`);
  } finally {
    await db.knex.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
