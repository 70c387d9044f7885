import type { ComponentType } from 'react';
import PeopleIcon from '@mui/icons-material/PeopleAltOutlined';
import SecurityIcon from '@mui/icons-material/SecurityOutlined';
import ViewCarouselIcon from '@mui/icons-material/ViewCarouselOutlined';
import RouterIcon from '@mui/icons-material/RouterOutlined';
import CategoryIcon from '@mui/icons-material/CategoryOutlined';
import DataUsageIcon from '@mui/icons-material/DataUsageOutlined';
import PaymentsIcon from '@mui/icons-material/PaymentsOutlined';
import ContactsIcon from '@mui/icons-material/ContactPhoneOutlined';
import PlaceIcon from '@mui/icons-material/PlaceOutlined';
import { RESOURCES, type ResourceDefinition } from '@app/contracts/resources';

/** The icons of the registry's resources by key (contracts/src/resources.ts), for the menu. */
export const ICONS: Record<string, ComponentType> = {
  people: PeopleIcon,
  security: SecurityIcon,
  banners: ViewCarouselIcon,
  providers: RouterIcon,
  categories: CategoryIcon,
  bundles: DataUsageIcon,
  payments: PaymentsIcon,
  contacts: ContactsIcon,
  areas: PlaceIcon,
};

/** A sidebar item for a registry resource: label, icon, path and permissions come from the registry. */
export function menuItemOf(name: keyof typeof RESOURCES) {
  const def: ResourceDefinition = RESOURCES[name];
  return { key: def.name, label: def.labelKey, path: def.consolePath, permissions: def.permissions.view, icon: ICONS[def.icon] };
}
