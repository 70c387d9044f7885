import { describe, expect, it } from 'vitest';
import { generatePassword } from './password';
import { splitServerErrors } from './serverErrors';
import { initialValues, toPayload } from './UserFormDrawer';
import { pickableRoles } from './RolePicker';
import { createUserSchema } from '@app/contracts';
import { roleSchema } from '@app/contracts';
import { lockSchema } from '@app/contracts';
import { schemaResolver } from '../common/schemaResolver';
import { testI18nProvider } from '../test/i18n';

async function messages(schema: Parameters<typeof schemaResolver>[0], values: Record<string, unknown>) {
  const i18n = await testI18nProvider('en');
  const result = await schemaResolver(schema, undefined, undefined, { nested: true })(values, undefined, { fields: {}, shouldUseNativeValidation: false });
  return Object.fromEntries(Object.entries(result.errors).map(([k, v]) => [k, i18n.translate(String((v as { message: string }).message))]));
}

describe('user form (docs/product.md section 5)', () => {
  it('shows the exact messages from the shared schema, translated', async () => {
    expect(await messages(createUserSchema, { ...initialValues('admin'), password: 'short', password_confirmation: 'other' })).toEqual({
      name: 'Name is required',
      email: 'Email is required',
      password: 'Password must be at least 8 characters',
      password_confirmation: 'Passwords do not match',
      role_id: 'Role is required for admin users',
    });
    expect(
      await messages(createUserSchema, {
        ...initialValues('admin'),
        name: 'A',
        email: 'bad',
        password: 'abcdefgh',
        password_confirmation: 'abcdefgh',
        role_id: 2,
      }),
    ).toEqual({
      email: 'Invalid email format',
      password: 'Password must contain at least one lowercase letter, one uppercase letter, and one special character',
    });
    expect(await messages(createUserSchema, { ...initialValues('dealer'), name: 'A', email: 'a@b.so', password: '' })).toEqual({
      password: 'Password is required',
      dealer_code: 'Dealer code is required for dealer users',
    });
  });

  it('role form and lock form messages', async () => {
    expect(await messages(roleSchema, { name: ' ', guard_name: '' })).toEqual({ name: 'Name is required', guard_name: 'Guard name is required' });
    expect(await messages(lockSchema, { password: '' })).toEqual({ password: 'Password is required' });
  });

  it('messages come in Arabic and Somali too', async () => {
    const ae = await testI18nProvider('ae');
    const so = await testI18nProvider('so');
    expect(ae.translate('validation:name_required')).not.toBe('validation:name_required');
    expect(so.translate('validation:name_required')).not.toBe('validation:name_required');
    expect(ae.translate('users.new_title.dealer')).toBe('وكيل جديد');
    expect(so.translate('ra.action.save')).toBe('Kaydi');
  });

  it('defaults: active status, brand colour #000000, cost pricing', () => {
    expect(initialValues('dealer')).toMatchObject({ status: 'active', brand_color: '#000000', pricing_model: 'cost', user_type: 'dealer' });
  });

  it('payload: dealer fields only for dealers, the role only for admins, no blank password on edit', () => {
    const admin = toPayload({ ...initialValues('admin'), name: 'A', role_id: 3 }, true);
    expect(admin).toMatchObject({ role_id: 3, user_type: 'admin' });
    expect(admin).not.toHaveProperty('password');
    expect(admin).not.toHaveProperty('brand_color');
    const dealer = toPayload({ ...initialValues('dealer'), dealer_code: 'D1', password: 'Xx!xxxxx1', password_confirmation: 'Xx!xxxxx1' }, false);
    expect(dealer).toMatchObject({ dealer_code: 'D1', brand_color: '#000000', pricing_model: 'cost', password: 'Xx!xxxxx1' });
    expect(dealer).not.toHaveProperty('role_id');
  });

  it('generates 12-character passwords with all four classes', () => {
    for (let i = 0; i < 200; i++) {
      const p = generatePassword();
      expect(p).toHaveLength(12);
      expect(p).toMatch(/[a-z]/);
      expect(p).toMatch(/[A-Z]/);
      expect(p).toMatch(/[0-9]/);
      expect(p).toMatch(/[^A-Za-z0-9]/);
    }
  });

  it('server errors: known fields, the logo area, else the Error banner', () => {
    const known = ['name', 'email'];
    expect(
      splitServerErrors(
        { message: 'x', body: { errors: { email: 'The email has already been taken.', dealer_logo: 'Dealer logo is required for new dealer accounts' } } },
        known,
      ),
    ).toEqual({
      fields: { email: 'The email has already been taken.' },
      logo: 'Dealer logo is required for new dealer accounts',
      banner: undefined,
    });
    expect(splitServerErrors({ message: 'Server error. Please try again later.', body: {} }, known).banner).toBe('Server error. Please try again later.');
    expect(splitServerErrors({ body: { errors: { something: 'Odd' } } }, known).banner).toBe('Odd');
    expect(splitServerErrors({}, known).banner).toBe('An unexpected error occurred. Please try again.');
  });

  it('the admin role picker never offers the dealer role', () => {
    expect(
      pickableRoles([
        { id: 1, name: 'super-admin' },
        { id: 2, name: 'dealer' },
        { id: 3, name: 'ops' },
      ]).map((r) => r.name),
    ).toEqual(['super-admin', 'ops']);
  });
});
