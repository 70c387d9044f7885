import { z } from 'zod';
import {
  companySettingsResponseSchema,
  companySettingsSchema,
  mailSettingsResponseSchema,
  mailSettingsSchema,
  moneyLimitsResponseSchema,
  moneyLimitsSchema,
  testMailSchema,
  type MoneyLimitsInput,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import { AppError, fieldError } from '../http/errors.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { transact } from '../platform/context.ts';
import { changeCompanyCurrency, holdWallets, presentCompanySettings, readCompanySettings, writeCompanySettings } from './company-settings.ts';
import { readMailServer, readMailSettings, sendMail, writeMailSettings } from './mail-settings.ts';
import { presentMoneyLimits, writeMoneyLimits } from './money-settings.ts';

/**
 * /settings/company, /settings/mail and /settings/money (docs/product.md section 2, /settings
 * children): one group of keys each, every change logged. GET /settings/public is what the sign-in page and the console
 * footer show (no secrets in it).
 */
export function settingsRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  const api = new ApiRouter(registry, '/settings', 'Settings');

  api.get(
    '/public',
    {
      summary: 'Company name, logo, currency, time zone and footer text (no sign-in needed)',
      auth: 'public',
      response: companySettingsResponseSchema.pick({ company_name: true, logo: true, currency: true, timezone: true, footer_text: true }),
    },
    async (_req, ctx) => {
      const c = await readCompanySettings(ctx.db);
      return { data: { company_name: c.company_name, logo: c.logo, currency: c.currency, timezone: c.timezone, footer_text: c.footer_text } };
    },
  );

  api.get('/company', { summary: 'Company settings', permission: 'view company settings', response: companySettingsResponseSchema }, async (_req, ctx) => ({
    data: await presentCompanySettings(ctx),
  }));

  api.put(
    '/company',
    {
      summary:
        'Save the company settings (multipart with an optional logo file). The currency is the currency of every wallet and sale: it changes (with the wallets) only while no money exists, and is refused (422 on `currency`) after',
      permission: 'update company settings',
      body: companySettingsSchema,
      upload: imageUpload('logo'),
      files: ['logo'],
      response: companySettingsResponseSchema,
    },
    async (req, ctx) => {
      const image = await checkedImage(req, 'logo');
      const logo = image ? await storage.put('company', image.extension, image.bytes) : undefined;
      try {
        await transact(ctx, async (tctx) => {
          await holdWallets(tctx.db);
          const before = await readCompanySettings(tctx.db);
          const input = req.body as z.infer<typeof companySettingsSchema>;
          if (input.currency !== before.currency) await changeCompanyCurrency(tctx.db, input.currency);
          await writeCompanySettings(tctx.db, { ...input, ...(logo ? { logo } : {}) });
          const after = await readCompanySettings(tctx.db);
          await recordActivity(tctx, { action: 'updated', subjectType: 'settings', description: 'company', before, after });
          // The replaced logo goes once the new one is committed.
          if (logo && before.logo) onCommit(() => storage.remove(before.logo!));
        });
      } catch (err) {
        if (logo) await storage.remove(logo);
        throw err;
      }
      return { message: 'api:settings.company_saved', data: await presentCompanySettings(ctx) };
    },
  );

  api.delete(
    '/company/logo',
    { summary: 'Remove the company logo', permission: 'update company settings', response: companySettingsResponseSchema },
    async (_req, ctx) => {
      await transact(ctx, async (tctx) => {
        const before = await readCompanySettings(tctx.db);
        if (!before.logo) return;
        await writeCompanySettings(tctx.db, { logo: null } as never);
        await recordActivity(tctx, {
          action: 'logo_removed',
          subjectType: 'settings',
          description: 'company',
          before: { logo: before.logo },
          after: { logo: null },
        });
        onCommit(() => storage.remove(before.logo!));
      });
      return { message: 'api:settings.company_logo_removed', data: await presentCompanySettings(ctx) };
    },
  );

  api.get(
    '/money',
    {
      summary: 'The money ceilings: the most one operation may move, and the highest balance an admin credit may reach',
      permission: 'view company settings',
      response: moneyLimitsResponseSchema,
    },
    async (_req, ctx) => ({ data: await presentMoneyLimits(ctx.db) }),
  );

  api.put(
    '/money',
    {
      summary: 'Save the money ceilings (at most MAX_MONEY_LIMIT each; one operation never above the balance ceiling)',
      permission: 'update company settings',
      body: moneyLimitsSchema,
      response: moneyLimitsResponseSchema,
    },
    async (req, ctx) => {
      const input = req.body as MoneyLimitsInput;
      if (input.max_operation > input.max_balance) throw fieldError('max_operation', 'validation:operation_limit_above_balance_limit');
      await transact(ctx, async (tctx) => {
        const before = await presentMoneyLimits(tctx.db);
        await writeMoneyLimits(tctx.db, input);
        const after = await presentMoneyLimits(tctx.db);
        if (before.max_operation !== after.max_operation || before.max_balance !== after.max_balance) {
          await recordActivity(tctx, {
            action: 'updated',
            subjectType: 'settings',
            description: 'money',
            before: { max_operation: before.max_operation, max_balance: before.max_balance },
            after: { max_operation: after.max_operation, max_balance: after.max_balance },
          });
        }
      });
      return { message: 'api:settings.money_saved', data: await presentMoneyLimits(ctx.db) };
    },
  );

  api.get(
    '/mail',
    {
      summary: 'Mail (SMTP) settings; the password is never answered, only whether one is set',
      permission: 'view mail settings',
      response: mailSettingsResponseSchema,
    },
    async (_req, ctx) => ({ data: await readMailSettings(ctx.db) }),
  );

  api.put(
    '/mail',
    {
      summary: 'Save the mail (SMTP) settings; a blank password keeps the stored one',
      permission: 'update mail settings',
      body: mailSettingsSchema,
      response: mailSettingsResponseSchema,
    },
    async (req, ctx) => {
      await transact(ctx, async (tctx) => {
        const before = await readMailSettings(tctx.db);
        await writeMailSettings(tctx.db, req.body as z.infer<typeof mailSettingsSchema>);
        await recordActivity(tctx, { action: 'updated', subjectType: 'settings', description: 'mail', before, after: await readMailSettings(tctx.db) });
      });
      return { message: 'api:settings.mail_saved', data: await readMailSettings(ctx.db) };
    },
  );

  api.post(
    '/mail/test',
    {
      summary: 'Send a test mail through the saved SMTP server',
      permission: 'update mail settings',
      body: testMailSchema,
      response: z.object({ to: z.string(), message_id: z.string() }),
    },
    async (req, ctx) => {
      const server = await readMailServer(ctx.db);
      if (!server) throw new AppError(422, 'api:settings.mail_not_configured');
      const { to } = req.body as z.infer<typeof testMailSchema>;
      const company = await readCompanySettings(ctx.db);
      let sent: { messageId: string };
      try {
        sent = await sendMail(server, {
          to,
          subject: ctx.t('api:settings.test_mail_subject', { company: company.company_name }),
          text: ctx.t('api:settings.test_mail_body', { company: company.company_name, host: server.host, port: server.port }),
        });
      } catch (err) {
        // The server's refusal is the admin's to fix (wrong host, port, password ...): say what it said.
        const reason = err instanceof Error ? err.message.slice(0, 300) : String(err);
        throw new AppError(422, 'api:settings.mail_test_failed', undefined, { reason });
      }
      await recordActivity(ctx, { action: 'mail_tested', subjectType: 'settings', description: `mail test to ${to}` });
      return { message: 'api:settings.mail_test_sent', messageVars: { to }, data: { to, message_id: sent.messageId } };
    },
  );

  return api;
}
