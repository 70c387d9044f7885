import { describe, expect, it } from 'vitest';
import { checkPhone, nationalNumber } from './phone.ts';

describe('Somali mobile numbers', () => {
  it('takes +252, 00252, 252, a leading 0 or none, with spaces and dashes', () => {
    for (const v of ['+252 61 512 3456', '00252615123456', '252615123456', '0615123456', '615-123-456', '(061) 5123456'])
      expect(nationalNumber(v)).toBe('615123456');
    for (const v of ['61512345', '61512345678', '+25461512345', 'abc']) expect(nationalNumber(v)).toBeNull();
  });

  it('checks a number against the operator as the customer types', () => {
    const hormuud = ['61', '77'];
    expect(checkPhone('', hormuud)).toEqual({ ok: false, reason: 'empty' });
    expect(checkPhone('+252 61', hormuud)).toEqual({ ok: false, reason: 'incomplete' });
    expect(checkPhone('061512', hormuud)).toEqual({ ok: false, reason: 'incomplete' });
    expect(checkPhone('61x', hormuud)).toEqual({ ok: false, reason: 'invalid' });
    expect(checkPhone('0625123456', hormuud)).toEqual({ ok: false, reason: 'wrong_operator' });
    expect(checkPhone('+252 77 123 4567', hormuud)).toEqual({ ok: true, national: '771234567' });
    expect(checkPhone('0625123456', [])).toEqual({ ok: true, national: '625123456' });
  });
});
