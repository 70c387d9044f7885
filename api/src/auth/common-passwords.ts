import { dictionary } from '@zxcvbn-ts/language-common';
import { configurePasswordPolicy } from '@app/contracts';

/**
 * The most common passwords (zxcvbn-ts's list of about 30,000, from public breach corpora),
 * refused whatever their case (OWASP ASVS 5.0, V6.2). Loaded once per process.
 */
let common: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  return common.has(password.toLowerCase());
}

export function installPasswordPolicy(): void {
  configurePasswordPolicy({ isCommon: isCommonPassword });
}
