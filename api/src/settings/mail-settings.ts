import type { Knex } from 'knex';
import nodemailer from 'nodemailer';
import type { MailSettingsInput, MailSettingsResponse } from '@app/contracts';
import { readGroup, writeGroup } from './settings-store.ts';

export interface MailServer {
  host: string;
  port: number;
  security: 'none' | 'starttls' | 'tls';
  username: string | null;
  password: string | null;
  from_address: string;
  from_name: string | null;
}

const SECRET = new Set(['password']);

/** The saved SMTP server, or null when none is saved yet. The password is the decrypted one: never answer it. */
export async function readMailServer(db: Knex | Knex.Transaction): Promise<MailServer | null> {
  const v = await readGroup(db, 'mail');
  if (!v.host || !v.port || !v.from_address) return null;
  return {
    host: v.host,
    port: Number(v.port),
    security: (v.security as MailServer['security']) ?? 'starttls',
    username: v.username ?? null,
    password: v.password ?? null,
    from_address: v.from_address,
    from_name: v.from_name ?? null,
  };
}

/** What GET /settings/mail answers: everything but the password, which is only "set" or not. */
export async function readMailSettings(db: Knex | Knex.Transaction): Promise<MailSettingsResponse> {
  const v = await readGroup(db, 'mail');
  return {
    host: v.host ?? null,
    port: v.port ? Number(v.port) : null,
    security: (v.security as MailSettingsResponse['security']) ?? 'starttls',
    username: v.username ?? null,
    password_set: Boolean(v.password),
    from_address: v.from_address ?? null,
    from_name: v.from_name ?? null,
    configured: Boolean(v.host && v.port && v.from_address),
  };
}

/** Saves the server; a blank password keeps the stored one, `clear_password` removes it. */
export async function writeMailSettings(db: Knex | Knex.Transaction, input: MailSettingsInput): Promise<void> {
  const values: Record<string, string | null> = {
    host: input.host,
    port: String(input.port),
    security: input.security,
    username: input.username ?? null,
    from_address: input.from_address,
    from_name: input.from_name ?? null,
  };
  if (input.clear_password) values.password = null;
  else if (input.password !== undefined) values.password = input.password;
  await writeGroup(db, 'mail', values, SECRET);
}

/** A nodemailer transport for the saved server, with timeouts short enough for a request. */
export function mailTransport(server: MailServer) {
  return nodemailer.createTransport({
    host: server.host,
    port: server.port,
    secure: server.security === 'tls',
    requireTLS: server.security === 'starttls',
    ignoreTLS: server.security === 'none',
    auth: server.username ? { user: server.username, pass: server.password ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  });
}

/** Sends one message through the saved server; throws nodemailer's error when the server refuses. */
export async function sendMail(server: MailServer, message: { to: string; subject: string; text: string }): Promise<{ messageId: string }> {
  const transport = mailTransport(server);
  try {
    const info = await transport.sendMail({
      from: server.from_name ? { name: server.from_name, address: server.from_address } : server.from_address,
      to: message.to,
      subject: message.subject,
      text: message.text,
    });
    return { messageId: info.messageId };
  } finally {
    transport.close();
  }
}
