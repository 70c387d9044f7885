import { useParams } from 'react-router';
import { useGetOne, useTranslate } from 'react-admin';
import type { WalletResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { WalletStatement } from './WalletStatement';

/** /wallets/{id}/statement: a dealer's wallet statement, for staff ('view wallets'). */
export default function WalletStatementPage() {
  const translate = useTranslate();
  const { id = '' } = useParams();
  // The dealer's name for the title (the statement itself names it too, once read).
  const { data: wallet } = useGetOne<WalletResponse>('wallets', { id: id as unknown as number }, { enabled: !!id, retry: false });
  const name = wallet ? `${wallet.dealer.name}${wallet.dealer.dealer_code ? ` (${wallet.dealer.dealer_code})` : ''}` : '';
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.wallets', to: '/wallets' }, ...(name ? [{ label: name }] : []), { label: 'wallets.statement.title' }]} />
      <PageTitle title={name ? translate('wallets.statement.page_title', { name }) : translate('wallets.statement.title')} />
      <WalletStatement walletId={id} />
    </>
  );
}
