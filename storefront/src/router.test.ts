import { describe, expect, it } from 'vitest';
import { orderPath, parseRoute, pathOf } from './router';

describe('storefront routes', () => {
  it('reads the shop, operator, category and order paths, and writes them back', () => {
    expect(parseRoute('/dealer/DEMO')).toEqual({ code: 'DEMO', providerId: null, categoryId: null, order: null });
    expect(parseRoute('/dealer/DEMO/provider/3/category/7')).toEqual({ code: 'DEMO', providerId: 3, categoryId: 7, order: null });
    expect(parseRoute('/dealer/DEMO/order/rc7k3m9q2xpa/')).toEqual({ code: 'DEMO', providerId: null, categoryId: null, order: 'RC7K3M9Q2XPA' });
    expect(parseRoute('/dealer/DEMO/order/')).toBeNull();
    expect(parseRoute('/dealer/DEMO/order/RC1/extra')).toBeNull();
    expect(orderPath('DEMO', 'RC7K3M9Q2XPA')).toBe('/dealer/DEMO/order/RC7K3M9Q2XPA');
    for (const p of ['/dealer/DEMO', '/dealer/DEMO/provider/3', '/dealer/DEMO/provider/3/category/7', '/dealer/DEMO/order/RC7K3M9Q2XPA'])
      expect(pathOf(parseRoute(p)!)).toBe(p);
  });
});
