import DashboardIcon from '@mui/icons-material/SpaceDashboardOutlined';
import RouterIcon from '@mui/icons-material/RouterOutlined';
import StorefrontIcon from '@mui/icons-material/StorefrontOutlined';
import ShopIcon from '@mui/icons-material/StoreMallDirectoryOutlined';
import WalletIcon from '@mui/icons-material/AccountBalanceWalletOutlined';
import BoltIcon from '@mui/icons-material/BoltOutlined';
import PeopleIcon from '@mui/icons-material/PeopleAltOutlined';
import AssessmentIcon from '@mui/icons-material/AssessmentOutlined';
import SettingsIcon from '@mui/icons-material/SettingsOutlined';
import HistoryIcon from '@mui/icons-material/HistoryOutlined';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import HubIcon from '@mui/icons-material/HubOutlined';
import type { MenuSection } from './menu';
import { TRASH_TABS } from '../resources/registry';
import { menuItemOf } from '../resources/icons';

export const MENU: MenuSection[] = [
  {
    key: 'main',
    items: [{ key: 'dashboard', label: 'menu.dashboard', path: '/dashboard', permissions: ['view dashboard'], icon: DashboardIcon }],
  },
  {
    key: 'management',
    title: 'menu.sections.management',
    items: [
      {
        // The company's catalogue of operators, and the aggregators' catalogues their bundles are delivered from.
        key: 'catalogue',
        label: 'menu.internet_providers',
        icon: RouterIcon,
        children: [
          { key: 'internet-providers', label: 'menu.operators', path: '/internet-providers', permissions: ['view internet providers'] },
          { key: 'aggregator-catalogue', label: 'menu.aggregator_catalogue', path: '/aggregator-catalogue', permissions: ['view delivery routes'] },
          { key: 'aggregators', label: 'menu.aggregators', path: '/aggregators', permissions: ['view delivery routes'], userTypes: ['admin'] },
        ],
      },
      // A dealer's own shop: its link, QR code and public face (GET/PATCH /my-shop answers dealers only).
      { key: 'my-shop', label: 'menu.my_shop', path: '/my-shop', userTypes: ['dealer'], icon: ShopIcon },
      { key: 'dealer-providers', label: 'menu.dealer_providers', path: '/dealer-providers', permissions: ['view dealer providers'], icon: StorefrontIcon },
      menuItemOf('banners'),
      {
        key: 'wallets-group',
        label: 'menu.wallets_group',
        icon: WalletIcon,
        children: [
          // Badges: top-up and payout requests waiting (wallets/usePendingRequestCount.ts) and wallets under
          // their low-balance alert (wallets/useBelowAlertCount.ts).
          { key: 'wallets', label: 'menu.wallets', path: '/wallets', permissions: ['view wallets'], badge: ['money_requests', 'below_alert'] },
          // A wallet of one's own is a dealer's (GET /my-wallet answers 404 for anyone else).
          { key: 'my-wallet', label: 'menu.my_wallet', path: '/my-wallet', permissions: ['view own wallet'], userTypes: ['dealer'] },
          { key: 'wallet-transactions', label: 'menu.wallet_transactions', path: '/wallet-transactions', permissions: ['view wallet transactions'] },
        ],
      },
      {
        key: 'recharges-group',
        label: 'menu.recharges',
        icon: BoltIcon,
        children: [
          { key: 'recharges', label: 'menu.recharges_all', path: '/recharges', permissions: ['view recharges'] },
          // Polls GET /recharges/review-count (layout/useReviewCount.ts) for its badge.
          { key: 'recharges-review', label: 'menu.recharges_review', path: '/recharges/review', permissions: ['review recharges'], badge: 'review' },
          { key: 'missed-sales', label: 'menu.missed_sales', path: '/missed-sales', permissions: ['view recharges'] },
          { key: 'recharge-batches', label: 'menu.recharge_batches', path: '/recharge-batches', permissions: ['view recharges'] },
        ],
      },
      {
        // A dealer's own systems: its keys for the reseller API and the webhook that tells it of each sale.
        key: 'integrations',
        label: 'menu.integrations',
        icon: HubIcon,
        children: [
          { key: 'api-keys', label: 'menu.api_keys', path: '/api-keys', permissions: ['view api keys'] },
          { key: 'webhooks', label: 'menu.webhooks', path: '/webhooks', permissions: ['view webhooks'] },
        ],
      },
      {
        key: 'users',
        label: 'menu.users',
        icon: PeopleIcon,
        permissions: ['view users', 'view admins', 'view dealers'],
        children: [
          { key: 'admins', label: 'menu.admins', path: '/admin', permissions: ['view admins'] },
          { key: 'dealers', label: 'menu.dealers', path: '/dealers', permissions: ['view dealers'] },
        ],
      },
    ],
  },
  {
    key: 'reports',
    title: 'menu.sections.reports',
    items: [
      {
        key: 'reports',
        label: 'menu.reports',
        icon: AssessmentIcon,
        children: [
          { key: 'sales-report', label: 'menu.sales_report', path: '/reports', permissions: ['view reports'] },
          { key: 'dealer-profit', label: 'menu.dealer_profit_report', path: '/reports/dealer-profit', permissions: ['view dealer profit report'] },
          {
            key: 'margins',
            label: 'menu.margins_report',
            path: '/reports/margins',
            permissions: ['view reports', 'view bundles prices'],
            userTypes: ['admin'],
          },
          { key: 'daily-close', label: 'menu.daily_close', path: '/reports/daily-close', permissions: ['view daily close'], userTypes: ['admin'] },
        ],
      },
    ],
  },
  {
    key: 'configuration',
    title: 'menu.sections.configuration',
    items: [
      {
        key: 'settings',
        label: 'menu.settings',
        icon: SettingsIcon,
        children: [
          { key: 'settings-general', label: 'menu.settings_general', path: '/settings', permissions: ['manage settings'] },
          { key: 'settings-company', label: 'menu.settings_company', path: '/settings/company', permissions: ['view company settings'] },
          { key: 'settings-mail', label: 'menu.settings_mail', path: '/settings/mail', permissions: ['view mail settings'] },
          { key: 'settings-money', label: 'menu.settings_money', path: '/settings/money', permissions: ['view company settings'] },
          { ...menuItemOf('roles'), icon: undefined },
          { key: 'settings-areas', label: 'menu.settings_areas', path: '/settings/areas', permissions: ['view areas'] },
          { key: 'settings-payment-methods', label: 'menu.settings_payment_methods', path: '/settings/payment-methods', permissions: ['view payment methods'] },
          { key: 'settings-contacts', label: 'menu.settings_contacts', path: '/settings/contacts', permissions: ['view contact settings'] },
        ],
      },
    ],
  },
  {
    key: 'system_monitoring',
    title: 'menu.sections.system_monitoring',
    items: [
      { key: 'logs', label: 'menu.logs', path: '/logs', permissions: ['view logs'], icon: HistoryIcon },
      {
        key: 'trash',
        label: 'menu.trash',
        icon: DeleteIcon,
        permissions: ['view trash items'],
        // One tab per resource that has a trash (the registry decides).
        children: TRASH_TABS.map((tab) => ({ key: `trash-${tab.resource}`, label: tab.label, path: tab.path, permissions: ['view trash items'] })),
      },
    ],
  },
];
