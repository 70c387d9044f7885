import type { ComponentType } from 'react';
import RouterIcon from '@mui/icons-material/RouterOutlined';
import WalletIcon from '@mui/icons-material/AccountBalanceWalletOutlined';
import BoltIcon from '@mui/icons-material/BoltOutlined';
import PeopleIcon from '@mui/icons-material/PeopleAltOutlined';
import AssessmentIcon from '@mui/icons-material/AssessmentOutlined';
import SettingsIcon from '@mui/icons-material/SettingsOutlined';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import HubIcon from '@mui/icons-material/HubOutlined';
import DashboardIcon from '@mui/icons-material/SpaceDashboardOutlined';
import ShopIcon from '@mui/icons-material/StoreMallDirectoryOutlined';
import StorefrontIcon from '@mui/icons-material/StorefrontOutlined';
import ViewCarouselIcon from '@mui/icons-material/ViewCarouselOutlined';
import HistoryIcon from '@mui/icons-material/HistoryOutlined';
import type { MenuItem, MenuSection, SectionKey } from './menu';
import { MENU_PLACEMENTS, accessOf } from '../console/areas';
import type { MenuIconName, MenuPlacement } from '../console/area';

/**
 * The menu's frame: its sections (docs/product.md section 2) and the groups that fold several
 * areas' entries under one heading. The entries themselves come from the areas' index.ts files
 * (console/areas.ts), each with its section, group and order; groups and entries of a section share
 * one order.
 */
const SECTIONS: { key: SectionKey; title?: string }[] = [
  { key: 'main' },
  { key: 'management', title: 'menu.sections.management' },
  { key: 'reports', title: 'menu.sections.reports' },
  { key: 'configuration', title: 'menu.sections.configuration' },
  { key: 'system_monitoring', title: 'menu.sections.system_monitoring' },
];

const GROUPS: { key: string; label: string; section: SectionKey; order: number; icon: ComponentType }[] = [
  // The company's catalogue of operators, and the aggregators' catalogues their bundles are delivered from.
  { key: 'catalogue', label: 'menu.internet_providers', section: 'management', order: 10, icon: RouterIcon },
  { key: 'wallets-group', label: 'menu.wallets_group', section: 'management', order: 50, icon: WalletIcon },
  { key: 'recharges-group', label: 'menu.recharges', section: 'management', order: 60, icon: BoltIcon },
  // A dealer's own systems: its keys for the reseller API and the webhook that tells it of each sale.
  { key: 'integrations', label: 'menu.integrations', section: 'management', order: 70, icon: HubIcon },
  { key: 'users', label: 'menu.users', section: 'management', order: 80, icon: PeopleIcon },
  { key: 'reports', label: 'menu.reports', section: 'reports', order: 10, icon: AssessmentIcon },
  { key: 'settings', label: 'menu.settings', section: 'configuration', order: 10, icon: SettingsIcon },
  { key: 'trash', label: 'menu.trash', section: 'system_monitoring', order: 20, icon: DeleteIcon },
];

/** The icons menu entries name: drawn here, so that what loads before sign-in (the routes, canAccess) carries none. */
const MENU_ICONS: Record<MenuIconName, ComponentType> = {
  dashboard: DashboardIcon,
  shop: ShopIcon,
  storefront: StorefrontIcon,
  banners: ViewCarouselIcon,
  history: HistoryIcon,
};

/** The menu from its frame and the areas' entries; an entry naming a group or section the frame lacks is a mistake, said at once. */
export function buildMenu(placements: readonly MenuPlacement[]): MenuSection[] {
  const itemOf = (p: MenuPlacement): MenuItem => {
    const access = accessOf(p.path);
    if (!access) throw new Error(`Menu entry ${p.key}: no console page at ${p.path}`);
    return { key: p.key, label: p.label, path: p.path, access, icon: p.icon && MENU_ICONS[p.icon], badge: p.badge };
  };
  for (const p of placements) {
    if (p.group && !GROUPS.some((g) => g.key === p.group && g.section === p.section))
      throw new Error(`Menu entry ${p.key}: no group ${p.group} in ${p.section}`);
  }
  const byOrder = <T extends { order: number }>(list: T[]) => [...list].sort((a, b) => a.order - b.order);
  return SECTIONS.map(({ key, title }) => {
    const groups = GROUPS.filter((g) => g.section === key).map((g) => ({
      order: g.order,
      item: { key: g.key, label: g.label, icon: g.icon, children: byOrder(placements.filter((p) => p.group === g.key)).map(itemOf) } as MenuItem,
    }));
    const loose = placements.filter((p) => p.section === key && !p.group).map((p) => ({ order: p.order, item: itemOf(p) }));
    return { key, title, items: byOrder([...groups, ...loose]).map((e) => e.item) };
  });
}

export const MENU: MenuSection[] = buildMenu(MENU_PLACEMENTS);
