import { screen, type ConsoleArea } from '../console/area';

/** The settings hub and its groups: company, mail, money limits, areas, payment methods, contacts. */
export const settingsArea: ConsoleArea = {
  pages: [
    { path: '/settings', permissions: ['manage settings'], screen: screen(() => import('./SettingsHub')) },
    { path: '/settings/mail', permissions: ['view mail settings'], screen: screen(() => import('./MailSettingsPage')) },
    { path: '/settings/areas/*', permissions: ['view areas'], screen: screen(() => import('./AreaList')) },
    { path: '/settings/payment-methods/*', permissions: ['view payment methods'], screen: screen(() => import('./PaymentMethodList')) },
    { path: '/settings/company', permissions: ['view company settings'], screen: screen(() => import('./CompanySettingsPage')) },
    { path: '/settings/money', permissions: ['view company settings'], screen: screen(() => import('./MoneySettingsPage')) },
    { path: '/settings/contacts/*', permissions: ['view contact settings'], screen: screen(() => import('./ContactList')) },
  ],
  menu: [
    { key: 'settings-general', label: 'menu.settings_general', path: '/settings', section: 'configuration', group: 'settings', order: 10 },
    { key: 'settings-company', label: 'menu.settings_company', path: '/settings/company', section: 'configuration', group: 'settings', order: 20 },
    { key: 'settings-mail', label: 'menu.settings_mail', path: '/settings/mail', section: 'configuration', group: 'settings', order: 30 },
    { key: 'settings-money', label: 'menu.settings_money', path: '/settings/money', section: 'configuration', group: 'settings', order: 40 },
    { key: 'settings-areas', label: 'menu.settings_areas', path: '/settings/areas', section: 'configuration', group: 'settings', order: 60 },
    {
      key: 'settings-payment-methods',
      label: 'menu.settings_payment_methods',
      path: '/settings/payment-methods',
      section: 'configuration',
      group: 'settings',
      order: 70,
    },
    { key: 'settings-contacts', label: 'menu.settings_contacts', path: '/settings/contacts', section: 'configuration', group: 'settings', order: 80 },
  ],
};
