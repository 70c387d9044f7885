import { Card, CardContent, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { PageTitle } from './PageTitle';

/** The screen of a later issue: its menu entry and route exist, its content comes with it. */
export default function ComingSoon({ title }: { title: string }) {
  const translate = useTranslate();
  return (
    <>
      <PageTitle title={translate(title)} />
      <Card>
        <CardContent>
          <Typography color="text.secondary">{translate('common.coming_soon')}</Typography>
        </CardContent>
      </Card>
    </>
  );
}
