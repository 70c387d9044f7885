import { screen, type ConsoleArea } from '../console/area';

/** A dealer's own shop: its link, QR code and public face (GET/PATCH /my-shop answers dealers only). */
export const myShopArea: ConsoleArea = {
  pages: [{ path: '/my-shop', userTypes: ['dealer'], screen: screen(() => import('./MyShopPage')) }],
  menu: [{ key: 'my-shop', label: 'menu.my_shop', path: '/my-shop', section: 'management', order: 20, icon: 'shop' }],
};
