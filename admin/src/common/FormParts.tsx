import { Alert, AlertTitle, Button, type ButtonProps } from '@mui/material';
import { useFormState } from 'react-hook-form';
import { useTranslate } from 'react-admin';

/** The general "Error" banner of a form (docs/product.md section 8): shown when there is a message. */
export function ErrorBanner({ message }: { message?: string }) {
  const translate = useTranslate();
  if (!message) return null;
  return (
    <Alert severity="error" sx={{ mb: 2 }}>
      <AlertTitle>{translate('common.error')}</AlertTitle>
      {message}
    </Alert>
  );
}

/** Cancel, and a submit button with its own label; both off while the form is sent. */
export function CancelSubmitButtons({ label, busy, onCancel }: { label: string; busy: boolean; onCancel: () => void }) {
  const translate = useTranslate();
  return (
    <>
      <Button onClick={onCancel} disabled={busy}>
        {translate('common.cancel')}
      </Button>
      <Button type="submit" variant="contained" disabled={busy}>
        {label}
      </Button>
    </>
  );
}

/** Cancel and Save / Update, with 'Saving...' / 'Updating...' while pending (docs/product.md section 2). */
export function SaveCancelButtons({ isEdit, pending, onCancel }: { isEdit: boolean; pending: boolean; onCancel: () => void }) {
  const translate = useTranslate();
  const label = pending ? translate(isEdit ? 'common.updating' : 'common.saving') : translate(isEdit ? 'common.update' : 'common.save');
  return <CancelSubmitButtons label={label} busy={pending} onCancel={onCancel} />;
}

/** A react-admin form's submit button, with its own words ('Updating...') while the form is sent. */
export function FormSubmitButton({ label, pendingLabel, ...props }: { label: string; pendingLabel: string } & Omit<ButtonProps, 'type' | 'children'>) {
  const { isSubmitting } = useFormState();
  return (
    <Button type="submit" variant="contained" disabled={isSubmitting} {...props}>
      {isSubmitting ? pendingLabel : label}
    </Button>
  );
}
