import { describe, expect, it } from 'vitest';
import { editedRoutes, moveRoute, placeErrors, planMapping, routesBody } from './routesForm';
import type { ProviderRoutes } from './types';

const healthy = { state: 'healthy' as const, failures: 0, skipped_until: null, last_failure: null, last_failure_at: null };
const bundles = [
  { id: 11, name: '1 GB Daily', cost: 40, operator_product_code: null, deliverable: true, reason: null },
  { id: 12, name: '5 GB Weekly', cost: 150, operator_product_code: 'HRM-5GB', deliverable: true, reason: null },
];
const implicit: ProviderRoutes = {
  provider_id: 7,
  configured: false,
  routes: [{ position: 1, aggregator: 'sandbox', operator_id: null, products: {}, health: healthy }],
  bundles,
};
const configured: ProviderRoutes = {
  provider_id: 7,
  configured: true,
  routes: [
    { position: 1, aggregator: 'dtone', operator_id: '2701', products: { '11': '91001' }, health: healthy },
    { position: 2, aggregator: 'reloadly', operator_id: null, products: { '11': '0.50' }, health: healthy },
  ],
  bundles,
};

describe('delivery routes editing', () => {
  it('starts an operator with no routes from its implicit route, filled in as it delivers today', () => {
    expect(routesBody(editedRoutes(implicit))).toEqual([{ aggregator: 'sandbox', operator_id: null, products: { '11': '0.40', '12': 'HRM-5GB' } }]);
  });

  it('sends trimmed values, a blank operator id as null and no blank cells', () => {
    const [route] = editedRoutes(configured);
    expect(routesBody([{ ...route, operator_id: ' 2701 ', products: { '11': ' 91001 ', '12': '  ' } }])).toEqual([
      { aggregator: 'dtone', operator_id: '2701', products: { '11': '91001' } },
    ]);
    expect(moveRoute(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveRoute(['a', 'b'], 0, -1)).toEqual(['a', 'b']);
  });

  it('places field errors on their route, field or cell, and the rest as general', () => {
    expect(
      placeErrors(
        {
          'routes.0.aggregator': 'Twice',
          'routes.1.operator_id': 'Digits only',
          'routes.1.products': 'Not a bundle of the operator',
          'routes.1.products.12': 'Bad product',
          routes: 'Too many',
          'routes.5.operator_id': 'Gone',
        },
        2,
      ),
    ).toEqual({
      general: ['Too many', 'Gone'],
      routes: {
        0: { aggregator: 'Twice', cells: {} },
        1: { operator_id: 'Digits only', products: 'Not a bundle of the operator', cells: { '12': 'Bad product' } },
      },
    });
  });

  it('maps a new bundle on the route of its aggregator, or adds that route last', () => {
    expect(planMapping(configured, 'dtone', '2701', 12, '91002')).toEqual({
      kind: 'map',
      position: 1,
      previous: null,
      routes: [
        { aggregator: 'dtone', operator_id: '2701', products: { '11': '91001', '12': '91002' } },
        { aggregator: 'reloadly', operator_id: null, products: { '11': '0.50' } },
      ],
    });
    expect(planMapping(configured, 'dtone', '2701', 11, '91009')).toMatchObject({ kind: 'map', previous: '91001' });
    // Reloadly's route detects the operator from the number: it takes the product as it is.
    expect(planMapping(configured, 'reloadly', '1650', 12, '1.50')).toMatchObject({ kind: 'map', position: 2 });
    expect(planMapping(configured, 'dtone', '9999', 12, '91002')).toEqual({ kind: 'conflict', operatorId: '2701' });
    // No routes yet: the implicit route stays first, as it delivers today.
    expect(planMapping(implicit, 'dtone', '2701', 12, '91002')).toEqual({
      kind: 'add',
      position: 2,
      keepsImplicit: true,
      routes: [
        { aggregator: 'sandbox', operator_id: null, products: { '11': '0.40', '12': 'HRM-5GB' } },
        { aggregator: 'dtone', operator_id: '2701', products: { '12': '91002' } },
      ],
    });
  });
});
