import { useTranslate } from 'react-admin';
import { ShellBanner } from '../wallets/LowBalanceBanner';
import { FLOATS_PATH, useAggregatorFloats, useLowFloatText } from './floats';

/** Under the app bar for holders of 'view delivery routes': each aggregator whose float is below its threshold. */
export function LowFloatBanner() {
  const translate = useTranslate();
  const { data } = useAggregatorFloats();
  const text = useLowFloatText();
  const low = (data ?? []).filter((f) => f.below_threshold);
  if (!low.length) return null;
  return (
    <ShellBanner to={FLOATS_PATH} action={translate('aggregators.see_floats')}>
      {low.map((f) => (
        <span key={f.name} style={{ display: 'block' }}>
          {text(f)}
        </span>
      ))}
    </ShellBanner>
  );
}
